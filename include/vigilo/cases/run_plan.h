// The run-plan root: `vigilo/run-plan-manifest/v1` (seed 004, "Run-plan
// Manifest"). A small object naming the dataset, the configuration, the
// run-chunks index and at most 128 shard records; it embeds no chunk, case or
// gate lists. Also the per-shard planned chunk hash and the streaming checks
// that tie chunk pages, gate chains and the configuration to the root.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/cases/dataset.h"
#include "vigilo/cases/gate_counts.h"
#include "vigilo/cases/ordinal_index.h"
#include "vigilo/cases/run_chunks.h"
#include "vigilo/cases/run_configuration.h"
#include "vigilo/hash/blake3.h"

namespace vigilo::cases {

// One logical shard's planned work.
struct RunPlanShard {
  int32_t run_shard = 0;
  int32_t case_count = 0;   // 1..2^31-1; shards without planned work are omitted
  int32_t chunk_count = 0;  // 1..case_count, and case_count <= 100 * chunk_count
  std::string planned_chunk_hash;  // PlannedChunkHasher over the shard's chunks, 64 lowercase hex
  GateCountDescriptor gate_counts;

  static Result<RunPlanShard> FromJson(const json::Value& value, const std::string& path);
  json::Value ToJson() const;
  Status Validate() const;  // paths relative (".chunk_count")
  friend bool operator==(const RunPlanShard&, const RunPlanShard&) = default;
};

class RunPlanManifest final : public StorageDocument {
 public:
  Uuid run_id;
  ObjectRef dataset;  // a vigilo/dataset-manifest/v1 root
  std::string profile_hash;
  std::string aggregation_policy_hash;
  std::string execution_plan_hash;
  ObjectRef configuration;  // a vigilo/run-configuration/v1 object
  int32_t chunk_count = 0;
  IndexRootDescriptor chunks;  // a run-chunks index over [0, chunk_count)
  std::vector<RunPlanShard> shards;

  // Verified bytes (at most limits.max_root_bytes), canonical, exactly the
  // fields, then Validate(). Errors name "<key>: $.shards[i].field".
  static Result<RunPlanManifest> Decode(const VerifiedObject& object, const RunPlanLimits& limits = {});
  static Result<RunPlanManifest> FromJson(const json::Value& value);

  StorageFormat format() const override { return StorageFormat::kRunPlanManifest; }
  // Field forms and reference schemas; chunks covers exactly [0,
  // chunk_count); 1..128 shards strictly ordered by run_shard whose chunk
  // counts sum (checked) to chunk_count and whose case counts sum within int32.
  Status Validate() const override;
  // Validate() plus the encoded root budget (LimitExceeded).
  Status ValidateWithin(const RunPlanLimits& limits) const;
  json::Value ToJson() const override;

  // Sum of the shards' case counts (valid after Validate()).
  int64_t planned_case_count() const;
  const RunPlanShard* FindShard(int32_t run_shard) const;
};

// planned_chunk_hash: derive_key("vigilo 2026-12-02 planned chunks v1") over
// u32le(run_shard), then per chunk in chunk-index order i32le(chunk_index) ‖
// uuid_bytes(chunk_id) ‖ i32le(ordinal_start) ‖ i32le(ordinal_end) ‖
// u32le(len(profile_group_id)) ‖ profile_group_id ‖ case_projection_hash (32
// raw bytes), then u32le(chunk_count). A settlement membership hash, never
// equal to an object digest.
class PlannedChunkHasher {
 public:
  explicit PlannedChunkHasher(int32_t run_shard);
  // The chunk must belong to this shard and follow the previous one (InvalidArgument).
  Status Add(const RunChunk& chunk);
  int32_t chunk_count() const { return count_; }
  int64_t case_count() const { return cases_; }
  std::string FinishHex() const;

 private:
  int32_t run_shard_;
  Blake3Hasher hasher_;
  int32_t count_ = 0;
  int64_t cases_ = 0;
  std::optional<int32_t> last_index_;
};

// The root's copies of the configuration's hashes agree, the shards plan
// exactly dataset_ref.case_count cases, and no shard plans more cases than
// chunk_size allows (case_count <= chunk_count * chunk_size).
Status CheckConfigurationAgreement(const RunPlanManifest& plan, const RunConfiguration& configuration);
// The snapshot's logical dataset identity is the dataset manifest's.
Status CheckDatasetAgreement(const RunConfiguration& configuration, const DatasetManifest& dataset);

// Activation's exact chunk coverage, in one pass over the run-chunk pages in
// chunk-index order (memory: one hasher per listed shard, 128 at most):
// run_id, chunk indexes 0..chunk_count-1 and case ranges adjacent from 0
// across pages, each chunk <= chunk_size cases on a listed shard, and per
// shard the chunk count, case count and planned_chunk_hash of the record.
class RunPlanChunkChecker {
 public:
  // `plan` (already validated) must outlive the checker.
  RunPlanChunkChecker(const RunPlanManifest& plan, int32_t chunk_size);
  Status AddPage(const RunChunkPage& page);
  Status Finish();

 private:
  const RunPlanManifest& plan_;
  int32_t chunk_size_;
  std::vector<PlannedChunkHasher> hashers_;  // parallel to plan_.shards
  std::array<int16_t, kRunShardCount> slot_{};  // run_shard -> index in hashers_, or -1
  int32_t next_chunk_index_ = 0;
  int32_t next_ordinal_ = 0;
  bool finished_ = false;
};

// Walks every shard's gate-count chain.
Status ValidateGateCountChains(const RunPlanManifest& plan, const GateCountChainValidator& validator);

}  // namespace vigilo::cases
