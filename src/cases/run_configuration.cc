#include "vigilo/cases/run_configuration.h"

#include "vigilo/cases/fields.h"
#include "vigilo/cases/identity.h"
#include "vigilo/common/checked.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

constexpr std::string_view kSnapshot = "$.snapshot";

Result<Uuid> UuidField(const Fields& f, std::string_view name) {
  VIGILO_ASSIGN_OR_RETURN(std::string text, f.String(name));
  auto uuid = Uuid::Parse(text);
  if (!uuid.ok()) return uuid.status().WithPath(f.PathOf(name));
  return *uuid;
}

Status CheckHash(const std::string& hex, std::string_view field) {
  if (Status s = ValidateHashHex(hex, field); !s.ok()) return s.WithPath("." + std::string(field));
  return Status::Ok();
}

Status CheckUuid(const Uuid& id, std::string_view field) {
  if (id.is_nil()) return InvalidFormat(std::string(field) + " must be a non-nil UUID").WithPath("." + std::string(field));
  return Status::Ok();
}

// A recorded hash must equal the hash of the value it names.
Status CheckRecomputed(const json::Value& value, const std::string& recorded, std::string_view field,
                       std::string_view of) {
  VIGILO_ASSIGN_OR_RETURN(std::string actual, CanonicalJsonHash(value));
  if (actual != recorded) {
    return IntegrityError(std::string(field) + " " + recorded + " is not the BLAKE3 of the canonical " +
                          std::string(of) + " (" + actual + ")")
        .WithPath("." + std::string(field));
  }
  return Status::Ok();
}

Status ValidateSnapshot(const RunSnapshot& s) {
  if (!s.profile.is_object()) return InvalidFormat("profile must be an object").WithPath(".profile");
  if (s.agent.is_null()) return InvalidFormat("agent must not be null").WithPath(".agent");
  const json::Value* profile_agent = s.profile.as_object().Find("agent");
  if (profile_agent == nullptr) {
    return InvalidFormat("profile has no agent member to agree with snapshot.agent").WithPath(".profile.agent");
  }
  if (!(*profile_agent == s.agent)) {
    return InvalidFormat("agent does not agree with profile.agent").WithPath(".agent");
  }
  if (Status st = s.dataset_ref.Validate(); !st.ok()) return std::move(st).PrependPath(".dataset_ref");
  VIGILO_RETURN_IF_ERROR(CheckUuid(s.dataset_version_id, "dataset_version_id"));
  VIGILO_RETURN_IF_ERROR(CheckUuid(s.profile_version_id, "profile_version_id"));
  VIGILO_RETURN_IF_ERROR(CheckHash(s.profile_hash, "profile_hash"));
  VIGILO_RETURN_IF_ERROR(CheckHash(s.dataset_hash, "dataset_hash"));
  VIGILO_RETURN_IF_ERROR(CheckHash(s.aggregation_policy_hash, "aggregation_policy_hash"));
  VIGILO_RETURN_IF_ERROR(CheckHash(s.execution_plan_hash, "execution_plan_hash"));
  if (!s.execution_plan.is_object()) return InvalidFormat("execution_plan must be an object").WithPath(".execution_plan");
  if (s.chunk_size < 1 || s.chunk_size > kMaxChunkCases) {
    return OutOfRange("chunk_size must be in [1, 100], got " + std::to_string(s.chunk_size)).WithPath(".chunk_size");
  }
  if (Status st = s.executability.Validate(); !st.ok()) return std::move(st).PrependPath(".executability");
  // Repeated identities agree.
  if (s.dataset_ref.dataset_version_id != s.dataset_version_id) {
    return InvalidFormat("dataset_ref.dataset_version_id differs from snapshot.dataset_version_id")
        .WithPath(".dataset_ref.dataset_version_id");
  }
  if (s.dataset_ref.dataset_hash != s.dataset_hash) {
    return InvalidFormat("dataset_ref.dataset_hash differs from snapshot.dataset_hash")
        .WithPath(".dataset_ref.dataset_hash");
  }
  VIGILO_RETURN_IF_ERROR(CheckRecomputed(s.profile, s.profile_hash, "profile_hash", "profile"));
  return CheckRecomputed(s.execution_plan, s.execution_plan_hash, "execution_plan_hash", "execution_plan");
}

Result<RunSnapshot> SnapshotFromJson(const Fields& f) {
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"agent", "aggregation_policy_hash", "chunk_size", "dataset_hash",
                                          "dataset_ref", "dataset_version_id", "executability", "execution_plan",
                                          "execution_plan_hash", "profile", "profile_hash", "profile_version_id"}));
  RunSnapshot s;
  VIGILO_ASSIGN_OR_RETURN(const json::Value* profile, f.Get("profile"));
  s.profile = *profile;
  VIGILO_ASSIGN_OR_RETURN(const json::Value* agent, f.Get("agent"));
  s.agent = *agent;
  VIGILO_ASSIGN_OR_RETURN(const json::Value* dataset_ref, f.Get("dataset_ref"));
  VIGILO_ASSIGN_OR_RETURN(s.dataset_ref, RunDatasetRef::FromJson(*dataset_ref, f.PathOf("dataset_ref")));
  VIGILO_ASSIGN_OR_RETURN(s.dataset_version_id, UuidField(f, "dataset_version_id"));
  VIGILO_ASSIGN_OR_RETURN(s.profile_version_id, UuidField(f, "profile_version_id"));
  VIGILO_ASSIGN_OR_RETURN(s.profile_hash, f.String("profile_hash"));
  VIGILO_ASSIGN_OR_RETURN(s.dataset_hash, f.String("dataset_hash"));
  VIGILO_ASSIGN_OR_RETURN(s.aggregation_policy_hash, f.String("aggregation_policy_hash"));
  VIGILO_ASSIGN_OR_RETURN(s.execution_plan_hash, f.String("execution_plan_hash"));
  VIGILO_ASSIGN_OR_RETURN(const json::Value* plan, f.Get("execution_plan"));
  s.execution_plan = *plan;
  VIGILO_ASSIGN_OR_RETURN(int64_t chunk_size, f.Int("chunk_size", 1, kMaxChunkCases));
  s.chunk_size = static_cast<int32_t>(chunk_size);
  VIGILO_ASSIGN_OR_RETURN(const json::Value* executability, f.Get("executability"));
  VIGILO_ASSIGN_OR_RETURN(s.executability, Executability::FromJson(*executability, f.PathOf("executability")));
  return s;
}

}  // namespace

Result<std::string> CanonicalJsonHash(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, json::ToCanonical(value));
  return Blake3Hex(bytes);
}

Result<RunDatasetRef> RunDatasetRef::FromJson(const json::Value& value, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, path));
  VIGILO_RETURN_IF_ERROR(
      f.ExpectExactly({"case_count", "dataset_hash", "dataset_id", "dataset_version", "dataset_version_id"}));
  RunDatasetRef r;
  VIGILO_ASSIGN_OR_RETURN(r.dataset_id, f.String("dataset_id"));
  VIGILO_ASSIGN_OR_RETURN(r.dataset_version, f.NullableString("dataset_version"));
  VIGILO_ASSIGN_OR_RETURN(r.dataset_version_id, UuidField(f, "dataset_version_id"));
  VIGILO_ASSIGN_OR_RETURN(r.dataset_hash, f.String("dataset_hash"));
  VIGILO_ASSIGN_OR_RETURN(int64_t count, f.Int("case_count", 1, kMaxInt32));
  r.case_count = static_cast<int32_t>(count);
  if (Status s = r.Validate(); !s.ok()) return std::move(s).PrependPath(path);
  return r;
}

json::Value RunDatasetRef::ToJson() const {
  json::Object o;
  o.Set("case_count", json::Value::Int(case_count));
  o.Set("dataset_hash", json::Value(dataset_hash));
  o.Set("dataset_id", json::Value(dataset_id));
  o.Set("dataset_version", dataset_version ? json::Value(*dataset_version) : json::Value());
  o.Set("dataset_version_id", json::Value(dataset_version_id.ToString()));
  return json::Value(std::move(o));
}

Status RunDatasetRef::Validate() const {
  if (Status s = ValidateDatasetId(dataset_id); !s.ok()) return s.WithPath(".dataset_id");
  VIGILO_RETURN_IF_ERROR(CheckUuid(dataset_version_id, "dataset_version_id"));
  VIGILO_RETURN_IF_ERROR(CheckHash(dataset_hash, "dataset_hash"));
  if (case_count < 1) {
    return OutOfRange("case_count must be positive: runs require a nonempty dataset").WithPath(".case_count");
  }
  return Status::Ok();
}

Result<Executability> Executability::FromJson(const json::Value& value, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"expected_evaluator_execution_count", "expected_execution_count",
                                          "runnable_evaluator_ref_count", "unique_evaluator_ref_count"}));
  Executability e;
  VIGILO_ASSIGN_OR_RETURN(e.expected_execution_count, f.Int("expected_execution_count", 0, kMaxSafeInteger));
  VIGILO_ASSIGN_OR_RETURN(e.expected_evaluator_execution_count,
                          f.Int("expected_evaluator_execution_count", 0, kMaxSafeInteger));
  VIGILO_ASSIGN_OR_RETURN(e.unique_evaluator_ref_count, f.Int("unique_evaluator_ref_count", 0, kMaxSafeInteger));
  VIGILO_ASSIGN_OR_RETURN(e.runnable_evaluator_ref_count, f.Int("runnable_evaluator_ref_count", 0, kMaxSafeInteger));
  return e;
}

json::Value Executability::ToJson() const {
  json::Object o;
  o.Set("expected_evaluator_execution_count", json::Value::Int(expected_evaluator_execution_count));
  o.Set("expected_execution_count", json::Value::Int(expected_execution_count));
  o.Set("runnable_evaluator_ref_count", json::Value::Int(runnable_evaluator_ref_count));
  o.Set("unique_evaluator_ref_count", json::Value::Int(unique_evaluator_ref_count));
  return json::Value(std::move(o));
}

Status Executability::Validate() const {
  const std::pair<int64_t, std::string_view> counts[] = {
      {expected_execution_count, "expected_execution_count"},
      {expected_evaluator_execution_count, "expected_evaluator_execution_count"},
      {unique_evaluator_ref_count, "unique_evaluator_ref_count"},
      {runnable_evaluator_ref_count, "runnable_evaluator_ref_count"},
  };
  for (const auto& [count, name] : counts) {
    if (!IsSafeNonNegative(count)) {
      return OutOfRange(std::string(name) + " must be in [0, 2^53 - 1]").WithPath("." + std::string(name));
    }
  }
  return Status::Ok();
}

Result<RunConfiguration> RunConfiguration::FromJson(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, "$"));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"schema", "snapshot"}));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(f, StorageFormat::kRunConfiguration));
  VIGILO_ASSIGN_OR_RETURN(Fields snapshot, f.Object("snapshot"));
  RunConfiguration c;
  VIGILO_ASSIGN_OR_RETURN(c.snapshot, SnapshotFromJson(snapshot));
  VIGILO_RETURN_IF_ERROR(c.Validate());
  return c;
}

Result<RunConfiguration> RunConfiguration::Decode(const VerifiedObject& object, const RunPlanLimits& limits) {
  if (object.bytes().size() > limits.max_configuration_bytes) {
    return LimitExceeded("run configuration is " + std::to_string(object.bytes().size()) +
                         " bytes; the limit is " + std::to_string(limits.max_configuration_bytes))
        .WithPath(object.ref().key);
  }
  VIGILO_ASSIGN_OR_RETURN(json::Value value, DecodeDocumentJson(object, StorageFormat::kRunConfiguration));
  auto c = FromJson(value);
  if (!c.ok()) return std::move(c).take_status().PrependPath(object.ref().key + ": ");
  return c;
}

Status RunConfiguration::Validate() const {
  if (Status s = ValidateSnapshot(snapshot); !s.ok()) return std::move(s).PrependPath(kSnapshot);
  return Status::Ok();
}

json::Value RunConfiguration::ToJson() const {
  const RunSnapshot& s = snapshot;
  json::Object o;
  o.Set("agent", s.agent);
  o.Set("aggregation_policy_hash", json::Value(s.aggregation_policy_hash));
  o.Set("chunk_size", json::Value::Int(s.chunk_size));
  o.Set("dataset_hash", json::Value(s.dataset_hash));
  o.Set("dataset_ref", s.dataset_ref.ToJson());
  o.Set("dataset_version_id", json::Value(s.dataset_version_id.ToString()));
  o.Set("executability", s.executability.ToJson());
  o.Set("execution_plan", s.execution_plan);
  o.Set("execution_plan_hash", json::Value(s.execution_plan_hash));
  o.Set("profile", s.profile);
  o.Set("profile_hash", json::Value(s.profile_hash));
  o.Set("profile_version_id", json::Value(s.profile_version_id.ToString()));
  json::Object root;
  root.Set("schema", json::Value(std::string(StorageFormatId(StorageFormat::kRunConfiguration))));
  root.Set("snapshot", json::Value(std::move(o)));
  return json::Value(std::move(root));
}

}  // namespace vigilo::cases
