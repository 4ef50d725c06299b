#include "vigilo/engine/run_profile.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "vigilo/cases/identity.h"
#include "vigilo/cases/run_chunks.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/fields.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::engine {
namespace {

constexpr std::string_view kProfileVersionIdContext = "vigilo 2026-12-04 profile version id v1";
constexpr int64_t kMaxRepetitions = 1000;
constexpr int64_t kMaxJsonSafeInteger = (int64_t{1} << 53) - 1;

std::string Index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string Quoted(std::string_view s) {
  std::string out;
  json::WriteString(s, &out);
  return out;
}

Result<cases::TaskType> TaskTypeFromName(std::string_view name, const std::string& path) {
  for (cases::TaskType type : {cases::TaskType::kGeneration, cases::TaskType::kClassification,
                               cases::TaskType::kMultipleChoice, cases::TaskType::kConversation}) {
    if (cases::TaskTypeName(type) == name) return type;
  }
  return InvalidFormat("unknown task type " + Quoted(name) +
                       " (expected generation, classification, multiple_choice or conversation)")
      .WithPath(path);
}

// A nonempty array of distinct strings (`what` names one element in errors).
Result<std::vector<std::string>> DistinctStrings(const json::Fields& f, std::string_view name, std::string_view what) {
  VIGILO_ASSIGN_OR_RETURN(const json::Array* items, f.Array(name));
  std::string path = f.PathOf(name);
  if (items->empty()) return InvalidFormat("must be nonempty").WithPath(path);
  std::vector<std::string> out;
  std::set<std::string_view> seen;
  for (size_t i = 0; i < items->size(); ++i) {
    const json::Value& item = (*items)[i];
    if (!item.is_string()) {
      return InvalidFormat("expected a string, got " + std::string(json::KindName(item.kind())))
          .WithPath(Index(path, i));
    }
    if (!seen.insert(item.as_string()).second) {
      return InvalidFormat("duplicate " + std::string(what) + " " + Quoted(item.as_string())).WithPath(Index(path, i));
    }
    out.push_back(item.as_string());
  }
  return out;
}

Result<std::vector<ProfileEvaluator>> ParseEvaluators(const json::Fields& root) {
  VIGILO_ASSIGN_OR_RETURN(const json::Array* items, root.Array("evaluators"));
  std::string path = root.PathOf("evaluators");
  if (items->empty()) return InvalidFormat("a profile lists at least one evaluator").WithPath(path);
  std::vector<ProfileEvaluator> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < items->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(json::Fields f, json::Fields::Of((*items)[i], Index(path, i)));
    VIGILO_RETURN_IF_ERROR(f.ExpectOnly({"ref"}, {"runnable"}));
    ProfileEvaluator evaluator;
    VIGILO_ASSIGN_OR_RETURN(evaluator.ref, f.String("ref"));
    // Same form as gate IDs: the seed sets no rule, and refs end up in run records.
    if (Status s = cases::ValidateRunIdentifier(evaluator.ref, "evaluator ref"); !s.ok()) {
      return s.WithPath(f.PathOf("ref"));
    }
    if (f.Has("runnable")) {
      VIGILO_ASSIGN_OR_RETURN(evaluator.runnable, f.Bool("runnable"));
    }
    if (!seen.insert(evaluator.ref).second) {
      return InvalidFormat("duplicate evaluator ref " + Quoted(evaluator.ref)).WithPath(f.PathOf("ref"));
    }
    out.push_back(std::move(evaluator));
  }
  return out;
}

Result<GateSelector> ParseSelector(const json::Fields& gate) {
  GateSelector selector;
  if (!gate.Has("select")) return selector;
  VIGILO_ASSIGN_OR_RETURN(json::Fields f, gate.Object("select"));
  VIGILO_RETURN_IF_ERROR(f.ExpectOnly({}, {"task_types", "any_tags"}));
  if (f.Has("task_types")) {
    VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> names, DistinctStrings(f, "task_types", "task type"));
    for (size_t i = 0; i < names.size(); ++i) {
      VIGILO_ASSIGN_OR_RETURN(cases::TaskType type, TaskTypeFromName(names[i], Index(f.PathOf("task_types"), i)));
      selector.task_types.push_back(type);
    }
  }
  if (f.Has("any_tags")) {
    VIGILO_ASSIGN_OR_RETURN(selector.any_tags, DistinctStrings(f, "any_tags", "tag"));
    for (size_t i = 0; i < selector.any_tags.size(); ++i) {
      const std::string& tag = selector.any_tags[i];
      // A tag no case can carry would silently select nothing.
      if (tag.empty() || tag.size() > cases::kMaxTagBytes) {
        return InvalidFormat("a tag is 1-128 bytes; no case can carry this one")
            .WithPath(Index(f.PathOf("any_tags"), i));
      }
    }
  }
  return selector;
}

Result<std::vector<ProfileGate>> ParseGates(const json::Fields& root, const std::vector<ProfileEvaluator>& evaluators) {
  VIGILO_ASSIGN_OR_RETURN(const json::Array* items, root.Array("gates"));
  std::string path = root.PathOf("gates");
  if (items->empty()) return InvalidFormat("a profile has at least one gate").WithPath(path);
  std::set<std::string_view> listed;
  for (const ProfileEvaluator& e : evaluators) listed.insert(e.ref);
  std::vector<ProfileGate> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < items->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(json::Fields f, json::Fields::Of((*items)[i], Index(path, i)));
    VIGILO_RETURN_IF_ERROR(f.ExpectOnly({"gate_id", "evaluators"}, {"select"}));
    ProfileGate gate;
    VIGILO_ASSIGN_OR_RETURN(gate.gate_id, f.String("gate_id"));
    if (Status s = cases::ValidateRunIdentifier(gate.gate_id, "gate_id"); !s.ok())
      return s.WithPath(f.PathOf("gate_id"));
    if (!seen.insert(gate.gate_id).second) {
      return InvalidFormat("duplicate gate_id " + Quoted(gate.gate_id)).WithPath(f.PathOf("gate_id"));
    }
    VIGILO_ASSIGN_OR_RETURN(gate.evaluators, DistinctStrings(f, "evaluators", "evaluator ref"));
    for (size_t j = 0; j < gate.evaluators.size(); ++j) {
      if (!listed.contains(gate.evaluators[j])) {
        return InvalidFormat("evaluator " + Quoted(gate.evaluators[j]) + " is not listed in $.evaluators")
            .WithPath(Index(f.PathOf("evaluators"), j));
      }
    }
    VIGILO_ASSIGN_OR_RETURN(gate.select, ParseSelector(f));
    out.push_back(std::move(gate));
  }
  // std::string compares unsigned bytes: the gate-count pages' order.
  std::sort(out.begin(), out.end(), [](const ProfileGate& a, const ProfileGate& b) { return a.gate_id < b.gate_id; });
  return out;
}

Result<GroupRule> ParseGroups(const json::Fields& root) {
  GroupRule rule;
  if (!root.Has("profile_groups")) return rule;
  VIGILO_ASSIGN_OR_RETURN(json::Fields f, root.Object("profile_groups"));
  VIGILO_RETURN_IF_ERROR(f.ExpectOnly({"by"}, {"field"}));
  VIGILO_ASSIGN_OR_RETURN(std::string by, f.String("by"));
  if (by == "none") {
    rule.by = GroupRule::By::kNone;
  } else if (by == "task_type") {
    rule.by = GroupRule::By::kTaskType;
  } else if (by == "metadata") {
    rule.by = GroupRule::By::kMetadataField;
  } else {
    return InvalidFormat("by must be \"none\", \"task_type\" or \"metadata\", got " + Quoted(by))
        .WithPath(f.PathOf("by"));
  }
  if (rule.by != GroupRule::By::kMetadataField) {
    if (f.Has("field")) return InvalidFormat("field applies only when by is \"metadata\"").WithPath(f.PathOf("field"));
    return rule;
  }
  VIGILO_ASSIGN_OR_RETURN(rule.field, f.String("field"));
  if (rule.field.empty()) return InvalidFormat("must be a nonempty metadata key").WithPath(f.PathOf("field"));
  return rule;
}

Status ParseExecutionPlan(const json::Fields& root, EvaluationProfile* profile) {
  if (!root.Has("execution_plan")) {
    json::Object plan;
    plan.Set("repetitions", json::Value::Int(1));
    profile->execution_plan = json::Value(std::move(plan));
    profile->repetitions = 1;
    return Status::Ok();
  }
  VIGILO_ASSIGN_OR_RETURN(json::Fields f, root.Object("execution_plan"));
  VIGILO_ASSIGN_OR_RETURN(profile->repetitions, f.Int("repetitions", 1, kMaxRepetitions));
  profile->execution_plan = *root.object().Find("execution_plan");
  return Status::Ok();
}

Uuid DeriveProfileVersionId(std::string_view canonical_profile) {
  Blake3Hasher hasher = Blake3Hasher::DeriveKey(kProfileVersionIdContext);
  hasher.Update(canonical_profile);
  return Uuid::V8FromHash(hasher.Finalize());
}

}  // namespace

Result<EvaluationProfile> ParseProfile(std::string_view text) {
  if (text.size() > kMaxProfileBytes) {
    return LimitExceeded("profile is " + std::to_string(text.size()) + " bytes; the limit is " +
                         std::to_string(kMaxProfileBytes));
  }
  json::ParseOptions options;
  options.max_bytes = kMaxProfileBytes;
  EvaluationProfile profile;
  VIGILO_ASSIGN_OR_RETURN(profile.document, json::Parse(text, options));
  VIGILO_ASSIGN_OR_RETURN(json::Fields root, json::Fields::Of(profile.document, "$"));
  VIGILO_RETURN_IF_ERROR(root.ExpectOnly(
      {"profile_id", "agent", "evaluators", "gates"},
      {"profile_version", "profile_groups", "execution_plan", "aggregation_policy", "chunk_size", "shards"}));

  VIGILO_ASSIGN_OR_RETURN(profile.profile_id, root.String("profile_id"));
  if (Status s = cases::ValidateDatasetId(profile.profile_id); !s.ok()) {
    // The dataset-id rule, reported under this field's name.
    std::string message(s.message());
    message.replace(0, std::string_view("dataset_id").size(), "profile_id");
    return InvalidFormat(std::move(message)).WithPath("$.profile_id");
  }
  if (root.Has("profile_version")) {
    VIGILO_ASSIGN_OR_RETURN(const json::Value* version, root.Get("profile_version"));
    if (!version->is_string()) {
      return InvalidFormat("profile_version must be a string (omit it for none)").WithPath("$.profile_version");
    }
    profile.profile_version = version->as_string();
  }
  VIGILO_ASSIGN_OR_RETURN(const json::Value* agent, root.Get("agent"));
  if (agent->is_null()) return InvalidFormat("agent must not be null").WithPath("$.agent");
  profile.agent = *agent;

  VIGILO_ASSIGN_OR_RETURN(profile.evaluators, ParseEvaluators(root));
  VIGILO_ASSIGN_OR_RETURN(profile.gates, ParseGates(root, profile.evaluators));
  VIGILO_ASSIGN_OR_RETURN(profile.groups, ParseGroups(root));
  VIGILO_RETURN_IF_ERROR(ParseExecutionPlan(root, &profile));
  if (root.Has("aggregation_policy")) {
    VIGILO_ASSIGN_OR_RETURN(json::Fields policy, root.Object("aggregation_policy"));
    profile.aggregation_policy = json::Value(policy.object());
  } else {
    profile.aggregation_policy = json::Value(json::Object());
  }
  if (root.Has("chunk_size")) {
    VIGILO_ASSIGN_OR_RETURN(int64_t chunk_size, root.Int("chunk_size", 1, cases::kMaxChunkCases));
    profile.chunk_size = static_cast<int32_t>(chunk_size);
  }
  if (root.Has("shards")) {
    VIGILO_ASSIGN_OR_RETURN(int64_t shards, root.Int("shards", 1, kMaxShards));
    profile.shard_count = static_cast<int32_t>(shards);
  }

  VIGILO_ASSIGN_OR_RETURN(std::string canonical, json::ToCanonical(profile.document));
  profile.profile_hash = Blake3Hex(canonical);
  profile.profile_version_id = DeriveProfileVersionId(canonical);
  VIGILO_ASSIGN_OR_RETURN(profile.aggregation_policy_hash, cases::CanonicalJsonHash(profile.aggregation_policy));
  VIGILO_ASSIGN_OR_RETURN(profile.execution_plan_hash, cases::CanonicalJsonHash(profile.execution_plan));
  return profile;
}

namespace {

bool Selects(const GateSelector& select, const cases::TypedCase& typed_case) {
  if (!select.task_types.empty() &&
      std::find(select.task_types.begin(), select.task_types.end(), typed_case.task_type) == select.task_types.end()) {
    return false;
  }
  if (select.any_tags.empty()) return true;
  for (const std::string& tag : typed_case.tags) {
    if (std::find(select.any_tags.begin(), select.any_tags.end(), tag) != select.any_tags.end()) return true;
  }
  return false;
}

Result<std::string> GroupOf(const GroupRule& rule, const cases::TypedCase& typed_case) {
  switch (rule.by) {
    case GroupRule::By::kNone: return std::string(kDefaultProfileGroup);
    case GroupRule::By::kTaskType: return std::string(cases::TaskTypeName(typed_case.task_type));
    case GroupRule::By::kMetadataField: break;
  }
  const json::Value* value =
      typed_case.metadata.is_object() ? typed_case.metadata.as_object().Find(rule.field) : nullptr;
  if (value == nullptr) return std::string(kMissingMetadataGroup);
  std::string id;
  if (value->is_string()) {
    id = value->as_string();
  } else {
    VIGILO_ASSIGN_OR_RETURN(id, json::ToCanonical(*value));
  }
  if (Status s = cases::ValidateRunIdentifier(id, "profile_group_id"); !s.ok()) {
    return InvalidFormat("case " + typed_case.id.ToString() + ": metadata." + rule.field +
                         " is not a valid profile group: " + std::string(s.message()))
        .WithPath("$.metadata." + rule.field);
  }
  return id;
}

}  // namespace

Result<CaseDecision> DecideCase(const EvaluationProfile& profile, const cases::TypedCase& typed_case) {
  CaseDecision decision;
  VIGILO_ASSIGN_OR_RETURN(decision.profile_group_id, GroupOf(profile.groups, typed_case));
  std::vector<std::string_view> needed;
  for (size_t i = 0; i < profile.gates.size(); ++i) {
    const ProfileGate& gate = profile.gates[i];
    if (!Selects(gate.select, typed_case)) continue;
    decision.gates.push_back(static_cast<uint32_t>(i));
    needed.insert(needed.end(), gate.evaluators.begin(), gate.evaluators.end());
  }
  std::sort(needed.begin(), needed.end());
  decision.evaluator_count = static_cast<uint32_t>(std::unique(needed.begin(), needed.end()) - needed.begin());
  return decision;
}

ExecutabilityCounter::ExecutabilityCounter(const EvaluationProfile& profile) : repetitions_(profile.repetitions) {
  counts_.unique_evaluator_ref_count = static_cast<int64_t>(profile.evaluators.size());
  counts_.runnable_evaluator_ref_count = static_cast<int64_t>(std::count_if(
      profile.evaluators.begin(), profile.evaluators.end(), [](const ProfileEvaluator& e) { return e.runnable; }));
}

Status ExecutabilityCounter::Add(const CaseDecision& decision) {
  // repetitions ≤ 1,000 and evaluator_count < 2^32, so neither product nor
  // sum can overflow int64 before the 2^53 − 1 check.
  int64_t executions = counts_.expected_execution_count + repetitions_;
  int64_t evaluator_executions =
      counts_.expected_evaluator_execution_count + static_cast<int64_t>(decision.evaluator_count) * repetitions_;
  if (executions > kMaxJsonSafeInteger) {
    return OutOfRange("expected_execution_count exceeds 2^53 - 1");
  }
  if (evaluator_executions > kMaxJsonSafeInteger) {
    return OutOfRange("expected_evaluator_execution_count exceeds 2^53 - 1");
  }
  counts_.expected_execution_count = executions;
  counts_.expected_evaluator_execution_count = evaluator_executions;
  return Status::Ok();
}

cases::Executability ExecutabilityCounter::Finish() const { return counts_; }

}  // namespace vigilo::engine
