#include "vigilo/cases/run_plan.h"

#include "vigilo/cases/fields.h"
#include "vigilo/common/checked.h"
#include "vigilo/common/hex.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

constexpr std::string_view kPlannedChunksContext = "vigilo 2026-12-02 planned chunks v1";

std::string ShardPath(size_t i) { return "$.shards[" + std::to_string(i) + "]"; }

void PutLe32(Blake3Hasher& h, uint32_t v) {
  uint8_t b[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
                  static_cast<uint8_t>(v >> 24)};
  h.Update(std::span<const uint8_t>(b, 4));
}

Status CheckRef(const ObjectRef& ref, StorageFormat schema, std::string_view what) {
  if (ref.schema != schema) {
    return InvalidFormat(std::string(what) + " must reference " + std::string(StorageFormatId(schema)) + ", not " +
                         std::string(StorageFormatId(ref.schema)))
        .WithPath(".schema");
  }
  return ref.Validate();
}

Status CheckHash(const std::string& hex, std::string_view field) {
  if (Status s = ValidateHashHex(hex, field); !s.ok()) return s.WithPath("$." + std::string(field));
  return Status::Ok();
}

}  // namespace

Result<RunPlanShard> RunPlanShard::FromJson(const json::Value& value, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"case_count", "chunk_count", "gate_counts", "planned_chunk_hash", "run_shard"}));
  RunPlanShard s;
  VIGILO_ASSIGN_OR_RETURN(int64_t shard, f.Int("run_shard", 0, kRunShardCount - 1));
  VIGILO_ASSIGN_OR_RETURN(int64_t cases, f.Int("case_count", 1, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t chunks, f.Int("chunk_count", 1, kMaxInt32));
  s.run_shard = static_cast<int32_t>(shard);
  s.case_count = static_cast<int32_t>(cases);
  s.chunk_count = static_cast<int32_t>(chunks);
  VIGILO_ASSIGN_OR_RETURN(s.planned_chunk_hash, f.String("planned_chunk_hash"));
  VIGILO_ASSIGN_OR_RETURN(const json::Value* gates, f.Get("gate_counts"));
  VIGILO_ASSIGN_OR_RETURN(s.gate_counts, GateCountDescriptor::FromJson(*gates, f.PathOf("gate_counts")));
  if (Status st = s.Validate(); !st.ok()) return std::move(st).PrependPath(path);
  return s;
}

json::Value RunPlanShard::ToJson() const {
  json::Object o;
  o.Set("case_count", json::Value::Int(case_count));
  o.Set("chunk_count", json::Value::Int(chunk_count));
  o.Set("gate_counts", gate_counts.ToJson());
  o.Set("planned_chunk_hash", json::Value(planned_chunk_hash));
  o.Set("run_shard", json::Value::Int(run_shard));
  return json::Value(std::move(o));
}

Status RunPlanShard::Validate() const {
  if (Status s = ValidateRunShard(run_shard); !s.ok()) return s.WithPath(".run_shard");
  if (case_count < 1) return OutOfRange("case_count must be in [1, 2147483647]").WithPath(".case_count");
  if (chunk_count < 1) return OutOfRange("chunk_count must be in [1, 2147483647]").WithPath(".chunk_count");
  if (chunk_count > case_count) {
    return InvalidFormat("chunk_count " + std::to_string(chunk_count) + " exceeds case_count " +
                         std::to_string(case_count) + ": every chunk holds at least one case")
        .WithPath(".chunk_count");
  }
  VIGILO_ASSIGN_OR_RETURN(int64_t capacity, CheckedMul<int64_t>(chunk_count, kMaxChunkCases));
  if (case_count > capacity) {
    return InvalidFormat("case_count " + std::to_string(case_count) + " does not fit in " +
                         std::to_string(chunk_count) + " chunks of at most 100 cases")
        .WithPath(".case_count");
  }
  if (Status s = ValidateHashHex(planned_chunk_hash, "planned_chunk_hash"); !s.ok()) {
    return s.WithPath(".planned_chunk_hash");
  }
  if (Status s = gate_counts.Validate(); !s.ok()) return std::move(s).PrependPath(".gate_counts");
  return Status::Ok();
}

Result<RunPlanManifest> RunPlanManifest::FromJson(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, "$"));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"aggregation_policy_hash", "chunk_count", "chunks", "configuration",
                                          "dataset", "execution_plan_hash", "profile_hash", "run_id", "schema",
                                          "shards"}));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(f, StorageFormat::kRunPlanManifest));
  RunPlanManifest m;
  VIGILO_ASSIGN_OR_RETURN(std::string run_id, f.String("run_id"));
  auto uuid = Uuid::Parse(run_id);
  if (!uuid.ok()) return uuid.status().WithPath("$.run_id");
  m.run_id = *uuid;
  VIGILO_ASSIGN_OR_RETURN(const json::Value* dataset, f.Get("dataset"));
  VIGILO_ASSIGN_OR_RETURN(m.dataset, ObjectRef::FromJson(*dataset, "$.dataset"));
  VIGILO_ASSIGN_OR_RETURN(m.profile_hash, f.String("profile_hash"));
  VIGILO_ASSIGN_OR_RETURN(m.aggregation_policy_hash, f.String("aggregation_policy_hash"));
  VIGILO_ASSIGN_OR_RETURN(m.execution_plan_hash, f.String("execution_plan_hash"));
  VIGILO_ASSIGN_OR_RETURN(const json::Value* configuration, f.Get("configuration"));
  VIGILO_ASSIGN_OR_RETURN(m.configuration, ObjectRef::FromJson(*configuration, "$.configuration"));
  VIGILO_ASSIGN_OR_RETURN(int64_t chunk_count, f.Int("chunk_count", 1, kMaxInt32));
  m.chunk_count = static_cast<int32_t>(chunk_count);
  VIGILO_ASSIGN_OR_RETURN(const json::Value* chunks, f.Get("chunks"));
  VIGILO_ASSIGN_OR_RETURN(m.chunks, IndexRootDescriptor::FromJson(*chunks, "$.chunks"));
  VIGILO_ASSIGN_OR_RETURN(const json::Array* shards, f.Array("shards"));
  if (shards->size() > static_cast<size_t>(kRunShardCount)) {
    return InvalidFormat("shards has " + std::to_string(shards->size()) + " records; the limit is 128")
        .WithPath("$.shards");
  }
  m.shards.reserve(shards->size());
  for (size_t i = 0; i < shards->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(RunPlanShard s, RunPlanShard::FromJson((*shards)[i], ShardPath(i)));
    m.shards.push_back(std::move(s));
  }
  VIGILO_RETURN_IF_ERROR(m.Validate());
  return m;
}

Result<RunPlanManifest> RunPlanManifest::Decode(const VerifiedObject& object, const RunPlanLimits& limits) {
  if (object.bytes().size() > limits.max_root_bytes) {
    return LimitExceeded("run-plan manifest is " + std::to_string(object.bytes().size()) + " bytes; the limit is " +
                         std::to_string(limits.max_root_bytes))
        .WithPath(object.ref().key);
  }
  VIGILO_ASSIGN_OR_RETURN(json::Value value, DecodeDocumentJson(object, StorageFormat::kRunPlanManifest));
  auto m = FromJson(value);
  if (!m.ok()) return std::move(m).take_status().PrependPath(object.ref().key + ": ");
  return m;
}

Status RunPlanManifest::Validate() const {
  if (run_id.is_nil()) return InvalidFormat("run_id must be a non-nil UUID").WithPath("$.run_id");
  if (Status s = CheckRef(dataset, StorageFormat::kDatasetManifest, "dataset"); !s.ok()) {
    return std::move(s).PrependPath("$.dataset");
  }
  VIGILO_RETURN_IF_ERROR(CheckHash(profile_hash, "profile_hash"));
  VIGILO_RETURN_IF_ERROR(CheckHash(aggregation_policy_hash, "aggregation_policy_hash"));
  VIGILO_RETURN_IF_ERROR(CheckHash(execution_plan_hash, "execution_plan_hash"));
  if (Status s = CheckRef(configuration, StorageFormat::kRunConfiguration, "configuration"); !s.ok()) {
    return std::move(s).PrependPath("$.configuration");
  }
  if (chunk_count < 1) {
    return OutOfRange("chunk_count must be in [1, 2147483647]: runs require a nonempty dataset")
        .WithPath("$.chunk_count");
  }
  if (Status s = chunks.Validate(IndexLimits{}); !s.ok()) return std::move(s).PrependPath("$.chunks");
  // Run index intervals are chunk indexes, not case ordinals.
  if (chunks.range_start != 0 || chunks.range_end != chunk_count) {
    return InvalidFormat("the chunks index must cover [0, chunk_count) = [0, " + std::to_string(chunk_count) +
                         "), not [" + std::to_string(chunks.range_start) + ", " + std::to_string(chunks.range_end) +
                         ")")
        .WithPath(chunks.range_start != 0 ? "$.chunks.range_start" : "$.chunks.range_end");
  }
  if (shards.empty()) return InvalidFormat("a run plan has at least one shard record").WithPath("$.shards");
  if (shards.size() > static_cast<size_t>(kRunShardCount)) {
    return InvalidFormat("shards has " + std::to_string(shards.size()) + " records; the limit is 128")
        .WithPath("$.shards");
  }
  int32_t chunk_total = 0;
  int32_t case_total = 0;
  for (size_t i = 0; i < shards.size(); ++i) {
    const RunPlanShard& s = shards[i];
    if (Status st = s.Validate(); !st.ok()) return std::move(st).PrependPath(ShardPath(i));
    if (i > 0 && s.run_shard <= shards[i - 1].run_shard) {
      return InvalidFormat(s.run_shard == shards[i - 1].run_shard ? "duplicate run_shard"
                                                                  : "shard records must be strictly ordered by run_shard")
          .WithPath(ShardPath(i) + ".run_shard");
    }
    auto chunks_sum = CheckedAdd<int32_t>(chunk_total, s.chunk_count);
    if (!chunks_sum.ok()) {
      return OutOfRange("shard chunk counts overflow a signed 32-bit total").WithPath(ShardPath(i) + ".chunk_count");
    }
    auto cases_sum = CheckedAdd<int32_t>(case_total, s.case_count);
    if (!cases_sum.ok()) {
      return OutOfRange("shard case counts overflow a signed 32-bit total").WithPath(ShardPath(i) + ".case_count");
    }
    chunk_total = *chunks_sum;
    case_total = *cases_sum;
  }
  if (chunk_total != chunk_count) {
    return InvalidFormat("the shards' chunk counts total " + std::to_string(chunk_total) + ", not chunk_count " +
                         std::to_string(chunk_count))
        .WithPath("$.chunk_count");
  }
  return Status::Ok();
}

Status RunPlanManifest::ValidateWithin(const RunPlanLimits& limits) const {
  VIGILO_RETURN_IF_ERROR(Validate());
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, json::ToCanonical(ToJson()));
  if (bytes.size() > limits.max_root_bytes) {
    return LimitExceeded("run-plan manifest encodes to " + std::to_string(bytes.size()) + " bytes; the limit is " +
                         std::to_string(limits.max_root_bytes))
        .WithPath("$");
  }
  return Status::Ok();
}

json::Value RunPlanManifest::ToJson() const {
  json::Array items;
  items.reserve(shards.size());
  for (const RunPlanShard& s : shards) items.push_back(s.ToJson());
  json::Object o;
  o.Set("aggregation_policy_hash", json::Value(aggregation_policy_hash));
  o.Set("chunk_count", json::Value::Int(chunk_count));
  o.Set("chunks", chunks.ToJson());
  o.Set("configuration", configuration.ToJson());
  o.Set("dataset", dataset.ToJson());
  o.Set("execution_plan_hash", json::Value(execution_plan_hash));
  o.Set("profile_hash", json::Value(profile_hash));
  o.Set("run_id", json::Value(run_id.ToString()));
  o.Set("schema", json::Value(std::string(StorageFormatId(StorageFormat::kRunPlanManifest))));
  o.Set("shards", json::Value(std::move(items)));
  return json::Value(std::move(o));
}

int64_t RunPlanManifest::planned_case_count() const {
  int64_t total = 0;
  for (const RunPlanShard& s : shards) total += s.case_count;  // at most 128 * (2^31 - 1): no overflow
  return total;
}

const RunPlanShard* RunPlanManifest::FindShard(int32_t run_shard) const {
  for (const RunPlanShard& s : shards) {
    if (s.run_shard == run_shard) return &s;
  }
  return nullptr;
}

PlannedChunkHasher::PlannedChunkHasher(int32_t run_shard)
    : run_shard_(run_shard), hasher_(Blake3Hasher::DeriveKey(kPlannedChunksContext)) {
  PutLe32(hasher_, static_cast<uint32_t>(run_shard));
}

Status PlannedChunkHasher::Add(const RunChunk& chunk) {
  if (chunk.run_shard != run_shard_) {
    return InvalidArgument("chunk " + std::to_string(chunk.chunk_index) + " belongs to run_shard " +
                           std::to_string(chunk.run_shard) + ", not " + std::to_string(run_shard_));
  }
  if (last_index_ && chunk.chunk_index <= *last_index_) {
    return InvalidArgument("chunks must be added in increasing chunk_index order");
  }
  auto projection = HexDecodeLower(chunk.case_projection_hash);
  if (!projection.ok() || projection->size() != 32) {
    return InvalidArgument("case_projection_hash must be 64 lowercase hex characters");
  }
  if (chunk.profile_group_id.size() > kMaxRunIdentifierBytes) {
    return InvalidArgument("profile_group_id is longer than 1024 bytes");
  }
  if (chunk.ordinal_end < chunk.ordinal_start) return InvalidArgument("chunk has a negative case range");
  VIGILO_ASSIGN_OR_RETURN(int32_t count, CheckedAdd<int32_t>(count_, 1));
  PutLe32(hasher_, static_cast<uint32_t>(chunk.chunk_index));
  hasher_.Update(std::span<const uint8_t>(chunk.chunk_id.bytes()));
  PutLe32(hasher_, static_cast<uint32_t>(chunk.ordinal_start));
  PutLe32(hasher_, static_cast<uint32_t>(chunk.ordinal_end));
  PutLe32(hasher_, static_cast<uint32_t>(chunk.profile_group_id.size()));
  hasher_.Update(chunk.profile_group_id);
  hasher_.Update(std::span<const uint8_t>(*projection));
  count_ = count;
  cases_ += int64_t{chunk.ordinal_end} - chunk.ordinal_start;
  last_index_ = chunk.chunk_index;
  return Status::Ok();
}

std::string PlannedChunkHasher::FinishHex() const {
  Blake3Hasher h = hasher_;
  PutLe32(h, static_cast<uint32_t>(count_));
  return HexEncode(h.Finalize());
}

Status CheckConfigurationAgreement(const RunPlanManifest& plan, const RunConfiguration& configuration) {
  const RunSnapshot& s = configuration.snapshot;
  if (plan.profile_hash != s.profile_hash) {
    return InvalidFormat("profile_hash differs from the configuration's snapshot.profile_hash").WithPath("$.profile_hash");
  }
  if (plan.aggregation_policy_hash != s.aggregation_policy_hash) {
    return InvalidFormat("aggregation_policy_hash differs from the configuration's")
        .WithPath("$.aggregation_policy_hash");
  }
  if (plan.execution_plan_hash != s.execution_plan_hash) {
    return InvalidFormat("execution_plan_hash differs from the configuration's").WithPath("$.execution_plan_hash");
  }
  if (plan.planned_case_count() != s.dataset_ref.case_count) {
    return InvalidFormat("the shards plan " + std::to_string(plan.planned_case_count()) +
                         " cases; the configuration's dataset has " + std::to_string(s.dataset_ref.case_count))
        .WithPath("$.shards");
  }
  for (size_t i = 0; i < plan.shards.size(); ++i) {
    const RunPlanShard& shard = plan.shards[i];
    VIGILO_ASSIGN_OR_RETURN(int64_t capacity, CheckedMul<int64_t>(shard.chunk_count, s.chunk_size));
    if (shard.case_count > capacity) {
      return InvalidFormat("case_count " + std::to_string(shard.case_count) + " does not fit in " +
                           std::to_string(shard.chunk_count) + " chunks of chunk_size " + std::to_string(s.chunk_size))
          .WithPath(ShardPath(i) + ".case_count");
    }
  }
  return Status::Ok();
}

Status CheckDatasetAgreement(const RunConfiguration& configuration, const DatasetManifest& dataset) {
  const RunDatasetRef& ref = configuration.snapshot.dataset_ref;
  const std::string path = "$.snapshot.dataset_ref.";
  if (ref.dataset_id != dataset.dataset_id) return InvalidFormat("dataset_id differs from the dataset manifest's").WithPath(path + "dataset_id");
  if (ref.dataset_version != dataset.dataset_version) {
    return InvalidFormat("dataset_version differs from the dataset manifest's").WithPath(path + "dataset_version");
  }
  if (ref.dataset_version_id != dataset.dataset_version_id) {
    return InvalidFormat("dataset_version_id differs from the dataset manifest's").WithPath(path + "dataset_version_id");
  }
  if (ref.dataset_hash != dataset.dataset_hash) {
    return InvalidFormat("dataset_hash differs from the dataset manifest's").WithPath(path + "dataset_hash");
  }
  if (ref.case_count != dataset.case_count) {
    return InvalidFormat("case_count differs from the dataset manifest's").WithPath(path + "case_count");
  }
  return Status::Ok();
}

RunPlanChunkChecker::RunPlanChunkChecker(const RunPlanManifest& plan, int32_t chunk_size)
    : plan_(plan), chunk_size_(chunk_size) {
  slot_.fill(-1);
  hashers_.reserve(plan.shards.size());
  for (const RunPlanShard& s : plan.shards) {
    if (s.run_shard >= 0 && s.run_shard < kRunShardCount) slot_[s.run_shard] = static_cast<int16_t>(hashers_.size());
    hashers_.emplace_back(s.run_shard);
  }
}

Status RunPlanChunkChecker::AddPage(const RunChunkPage& page) {
  if (finished_) return InvalidArgument("AddPage after Finish");
  VIGILO_RETURN_IF_ERROR(page.Validate());
  if (page.run_id != plan_.run_id) return InvalidFormat("page belongs to another run").WithPath("$.run_id");
  if (page.chunk_index_start != next_chunk_index_) {
    return InvalidFormat("page starts at chunk " + std::to_string(page.chunk_index_start) + " where " +
                         std::to_string(next_chunk_index_) + " is next")
        .WithPath("$.chunk_index_start");
  }
  if (page.chunk_index_end > plan_.chunk_count) {
    return InvalidFormat("page ends past the plan's chunk_count " + std::to_string(plan_.chunk_count))
        .WithPath("$.chunk_index_end");
  }
  for (size_t i = 0; i < page.chunks.size(); ++i) {
    const RunChunk& c = page.chunks[i];
    std::string path = "$.chunks[" + std::to_string(i) + "]";
    if (c.ordinal_start != next_ordinal_) {
      return InvalidFormat("chunk starts at ordinal " + std::to_string(c.ordinal_start) + " where " +
                           std::to_string(next_ordinal_) + " is next (exact coverage from 0)")
          .WithPath(path + ".ordinal_start");
    }
    if (c.case_count() > chunk_size_) {
      return InvalidFormat("chunk holds " + std::to_string(c.case_count()) + " cases; chunk_size is " +
                           std::to_string(chunk_size_))
          .WithPath(path + ".ordinal_end");
    }
    int16_t slot = slot_[c.run_shard];
    if (slot < 0) {
      return InvalidFormat("chunk is assigned to run_shard " + std::to_string(c.run_shard) +
                           ", which has no shard record")
          .WithPath(path + ".run_shard");
    }
    if (Status s = hashers_[slot].Add(c); !s.ok()) return InvalidFormat(std::string(s.message())).WithPath(path);
    next_ordinal_ = c.ordinal_end;
  }
  next_chunk_index_ = page.chunk_index_end;
  return Status::Ok();
}

Status RunPlanChunkChecker::Finish() {
  if (finished_) return InvalidArgument("Finish called twice");
  finished_ = true;
  if (next_chunk_index_ != plan_.chunk_count) {
    return InvalidFormat("the pages hold " + std::to_string(next_chunk_index_) + " chunks; the plan declares " +
                         std::to_string(plan_.chunk_count))
        .WithPath("$.chunk_count");
  }
  if (next_ordinal_ != plan_.planned_case_count()) {
    return InvalidFormat("the chunks cover " + std::to_string(next_ordinal_) + " cases; the shards plan " +
                         std::to_string(plan_.planned_case_count()))
        .WithPath("$.shards");
  }
  for (size_t i = 0; i < plan_.shards.size(); ++i) {
    const RunPlanShard& s = plan_.shards[i];
    const PlannedChunkHasher& h = hashers_[i];
    if (h.chunk_count() != s.chunk_count) {
      return InvalidFormat("shard has " + std::to_string(h.chunk_count()) + " chunks in the pages; the record says " +
                           std::to_string(s.chunk_count))
          .WithPath(ShardPath(i) + ".chunk_count");
    }
    if (h.case_count() != s.case_count) {
      return InvalidFormat("shard has " + std::to_string(h.case_count()) + " cases in the pages; the record says " +
                           std::to_string(s.case_count))
          .WithPath(ShardPath(i) + ".case_count");
    }
    if (h.FinishHex() != s.planned_chunk_hash) {
      return IntegrityError("planned_chunk_hash does not match the shard's chunks (" + h.FinishHex() + ")")
          .WithPath(ShardPath(i) + ".planned_chunk_hash");
    }
  }
  return Status::Ok();
}

Status ValidateGateCountChains(const RunPlanManifest& plan, const GateCountChainValidator& validator) {
  for (size_t i = 0; i < plan.shards.size(); ++i) {
    const RunPlanShard& s = plan.shards[i];
    if (Status st = validator.Validate(s.run_shard, s.case_count, s.gate_counts); !st.ok()) {
      return std::move(st).PrependPath(ShardPath(i) + ".gate_counts: ");
    }
  }
  return Status::Ok();
}

}  // namespace vigilo::cases
