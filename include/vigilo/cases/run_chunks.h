// Run-chunk pages: `vigilo/run-chunks/v1` (seed 004, "Run-chunk Page"). A
// page lists consecutive execution chunks of one run; each chunk names its
// logical shard, its half-open case-ordinal range and the projection hash of
// the cases it is assigned. The rules are in docs/format/case-storage-runs.md.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/document.h"
#include "vigilo/cases/typed_case.h"
#include "vigilo/common/uuid.h"

namespace vigilo::cases {

// Run shards are 0..127: the seed's Rust range `0..128` is half-open, which
// is also what lets "at most 128 records, strictly ordered" hold every shard.
inline constexpr int32_t kRunShardCount = 128;
// An execution chunk holds 1..100 cases, independently of batch boundaries.
inline constexpr int32_t kMaxChunkCases = 100;
// Profile group IDs and gate IDs: nonempty, at most 1,024 UTF-8 bytes.
inline constexpr size_t kMaxRunIdentifierBytes = 1024;

// The budgets the run-plan codecs enforce (seed 004 defaults; overrides come
// from a validated BudgetConfig).
struct RunPlanLimits {
  uint64_t max_page_entries = 256;       // chunks per run-chunk page, entries per gate-count page
  uint64_t max_page_bytes = 1u << 20;    // run-chunk and gate-count pages
  uint64_t max_root_bytes = 256u << 10;  // the run-plan manifest
  uint64_t max_configuration_bytes = 8u << 20;

  static RunPlanLimits From(const BudgetConfig& budget);
  // Within the seed's override ceilings (InvalidArgument naming the setting).
  Status Validate() const;
};

// 0 <= run_shard < 128 (OutOfRange otherwise).
Status ValidateRunShard(int64_t run_shard);
// Nonempty, at most 1,024 bytes, valid UTF-8 (profile group IDs and gate IDs).
Status ValidateRunIdentifier(std::string_view id, std::string_view what);
// 64 lowercase hex characters.
Status ValidateHashHex(std::string_view hex, std::string_view what);

// A chunk's ID is derived, never chosen: UUIDv8 of derive_key("vigilo
// 2026-12-02 run chunk id v1") over uuid_bytes(run_id) ‖ i32le(chunk_index).
// Replayed planning therefore writes identical pages, and chunk IDs are
// unique across a run without a run-wide set.
Uuid DeriveChunkId(const Uuid& run_id, int32_t chunk_index);

struct RunChunk {
  int32_t chunk_index = 0;
  Uuid chunk_id;
  int32_t run_shard = 0;
  int32_t ordinal_start = 0;
  int32_t ordinal_end = 0;
  std::string profile_group_id;
  std::string case_projection_hash;  // 64 lowercase hex

  int32_t case_count() const { return ordinal_end - ordinal_start; }
  static Result<RunChunk> FromJson(const json::Value& value, const std::string& path);
  json::Value ToJson() const;
  friend bool operator==(const RunChunk&, const RunChunk&) = default;
};

class RunChunkPage final : public StorageDocument {
 public:
  Uuid run_id;
  int32_t chunk_index_start = 0;
  int32_t chunk_index_end = 0;
  std::vector<RunChunk> chunks;

  // Verified bytes, canonical, exactly the fields; then Validate() and the
  // entry limit. Errors name "<key>: $.chunks[i].field".
  static Result<RunChunkPage> Decode(const VerifiedObject& object, const RunPlanLimits& limits = {});
  static Result<RunChunkPage> FromJson(const json::Value& value);

  StorageFormat format() const override { return StorageFormat::kRunChunks; }
  // Non-nil run_id; 0 <= chunk_index_start < chunk_index_end; one chunk per
  // index, consecutive; adjacent ranges of 1..100 cases; run shards 0..127;
  // derived chunk IDs; profile group and hash forms.
  Status Validate() const override;
  // Validate() plus the page entry limit.
  Status ValidateWithin(const RunPlanLimits& limits) const;
  json::Value ToJson() const override;

  friend bool operator==(const RunChunkPage& a, const RunChunkPage& b) {
    return a.run_id == b.run_id && a.chunk_index_start == b.chunk_index_start &&
           a.chunk_index_end == b.chunk_index_end && a.chunks == b.chunks;
  }
};

// One assigned case as update_projection_hash consumes it.
struct ProjectedCase {
  int32_t case_ordinal = 0;
  Uuid id;
  CaseHash case_hash{};
};

// The case_projection_hash of a chunk whose cases are `cases`: they must be
// nonempty, at most 100 and consecutive ordinals in increasing order
// (InvalidArgument otherwise). 64 lowercase hex.
Result<std::string> ComputeCaseProjectionHash(std::span<const ProjectedCase> cases);

// A worker's check of the cases it admitted for `chunk`: exactly the chunk's
// ordinals in order (InvalidFormat) and the recorded projection hash
// (IntegrityError).
Status CheckCaseProjection(const RunChunk& chunk, std::span<const ProjectedCase> cases);

}  // namespace vigilo::cases
