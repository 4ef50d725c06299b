// Dataset identities computed in one streaming pass (seed 004,
// DatasetIdentityBuilder) and the run-chunk case projection hash. The
// algorithms are specified in docs/format/case-storage-v1.md, "Identities".
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "vigilo/cases/typed_case.h"
#include "vigilo/common/result.h"
#include "vigilo/common/uuid.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/value.h"

namespace vigilo::cases {

inline constexpr size_t kMaxDatasetIdBytes = 128;

// 1-128 of [A-Za-z0-9._-], not starting with '.'.
Status ValidateDatasetId(std::string_view id);

struct DatasetIdentity {
  std::string dataset_hash;  // 64 lowercase hex: BLAKE3 of the submitted canonical dataset JSON
  Uuid dataset_version_id;   // UUIDv8 of the normalized ordered membership
  uint64_t case_count = 0;
};

// The submitted canonical dataset JSON around its cases, the bytes whose
// BLAKE3 is dataset_hash: `prefix` is `{`, the members whose keys sort before
// "cases", and `"cases":[` when the key was supplied; `suffix` is `]` (when
// supplied), the remaining members and `}`. The cases go between them in
// canonical form, separated by commas (AppendCanonicalCase). Shared by the
// identity builder and `dataset export`, so both produce the same bytes.
struct CanonicalDatasetFrame {
  std::string prefix;
  std::string suffix;
};
CanonicalDatasetFrame FrameCanonicalDataset(const json::Object& fields, bool cases_present);
// Appends case number `index` (0-based) of the cases array: a comma unless it
// is the first, then the case's canonical bytes.
Status AppendCanonicalCase(const json::Value& source, uint64_t index, std::string* out);

// The typed-case check DatasetIdentityBuilder::AddCase applies to the case
// at `index` of a submitted document: ValidateCase at `$.cases[index]`, an
// id that is no UUID pointing to `derive_ids`. Ingestion's first pass over
// JSON Lines uses it to refuse a bad case before anything is written.
Result<TypedCase> ValidateSubmittedCase(const json::Value& source, uint64_t index);

// Starts from the submitted top-level fields (everything but `cases`) and
// takes the cases one at a time in submitted order; retains no case.
class DatasetIdentityBuilder {
 public:
  // `fields` must satisfy the dataset document rules (dataset_id, optional
  // dataset_version); `cases_present` says whether the `cases` key was supplied.
  static Result<DatasetIdentityBuilder> Start(const json::Object& fields, bool cases_present);

  // Validates the next case and folds it into all three identities; returns its normalized hash.
  Result<CaseHash> AddCase(const json::Value& source);

  // The id of the case the last successful AddCase took (for the
  // duplicate-ID check, which needs ids without re-validating the case).
  const Uuid& last_case_id() const { return last_case_id_; }
  uint64_t case_count() const { return count_; }

  Result<DatasetIdentity> Finish();

 private:
  DatasetIdentityBuilder(const json::Object& fields, bool cases_present);

  std::string suffix_;  // canonical bytes after the cases array
  bool cases_present_;
  bool finished_ = false;
  uint64_t count_ = 0;
  Uuid last_case_id_;
  Blake3Hasher dataset_hasher_;
  Blake3Hasher membership_hasher_;
};

// Hashes the cases assigned to one run chunk, in ordinal order
// (update_projection_hash: i32le ordinal, 16-byte id, 32-byte case hash).
class ProjectionHasher {
 public:
  ProjectionHasher();
  void Update(int32_t case_ordinal, const Uuid& id, const CaseHash& case_hash);
  std::array<uint8_t, 32> Finish() const;  // appends u32le(count)

 private:
  Blake3Hasher hasher_;
  uint32_t count_ = 0;
};

}  // namespace vigilo::cases
