// Case batches: `vigilo/case-batch/v1`, one bounded JSONL object per batch
// (seed 004, "Case Batch"). The header line names the dataset and the
// half-open ordinal range; each record line holds one submitted case.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/object_ref.h"
#include "vigilo/cases/typed_case.h"
#include "vigilo/common/result.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/value.h"

namespace vigilo::cases {

// How deep a case may nest: a batch record {"case_hash":…,"source":CASE}
// holds the case one level deeper, and every stored JSON object nests at
// most json::kMaxNestingDepth (127) levels, so a case nests at most 126. A
// case inside a dataset document is two levels deep there (the document and
// its `cases` array), so only JSON Lines input can reach the limit; its
// reader refuses a deeper line before anything is written (issue 34).
inline constexpr size_t kMaxCaseDepth = json::kMaxNestingDepth - 1;

// A batching policy: close a batch at max_cases records or max_bytes encoded
// bytes (header, records and every LF), whichever comes first.
struct BatchLimits {
  uint64_t max_cases = budget_bounds::kDefaultCasesPerBatch;
  uint64_t max_bytes = budget_bounds::kDefaultBatchBytes;
  friend bool operator==(const BatchLimits&, const BatchLimits&) = default;
};

struct CaseBatchHeader {
  std::string dataset_id;
  int32_t ordinal_start = 0;
  int32_t ordinal_end = 0;

  static Result<CaseBatchHeader> FromJson(const json::Value& value);
  json::Value ToJson() const;
  // Valid dataset id; 0 <= start < end (a positive record count).
  Status Validate() const;
  // The header line, LF included.
  std::string EncodeLine() const;
};

struct CaseRecord {
  int32_t case_ordinal = 0;
  CaseHash case_hash{};
  json::Value source;  // the submitted case, as parsed
};

// Builds one batch within its limits. Add() returns false, and leaves the
// batch unchanged, when the record would exceed a limit: the caller then
// finishes this batch and starts the next one at the same ordinal.
class CaseBatchBuilder {
 public:
  CaseBatchBuilder(std::string dataset_id, int32_t ordinal_start, BatchLimits limits);

  // Validates the case (typed validation and normalized hash) and appends it
  // at the next ordinal. A record that cannot fit even alone with its header
  // is a LimitExceeded size-admission error, never truncated or dropped.
  Result<bool> Add(const json::Value& source);
  // Adds a record whose case hash is already known (it is still validated).
  Result<bool> Add(const json::Value& source, const CaseHash& case_hash);

  int32_t next_ordinal() const { return next_ordinal_; }
  uint64_t record_count() const { return static_cast<uint64_t>(next_ordinal_ - ordinal_start_); }
  // The whole object's bytes if finished now (header included).
  uint64_t encoded_bytes() const;

  // The complete JSONL bytes; InvalidArgument if the batch is empty.
  Result<std::string> Finish() const;

 private:
  CaseBatchHeader HeaderFor(int32_t ordinal_end) const;

  std::string dataset_id_;
  int32_t ordinal_start_;
  int32_t next_ordinal_;
  BatchLimits limits_;
  std::string records_;  // encoded record lines, each ending in LF
};

class CaseBatchReader;

// A verified batch whose header has been parsed; Validate() checks it
// against its limits and yields the streaming reader.
class DecodedCaseBatch {
 public:
  const CaseBatchHeader& header() const { return header_; }
  const ObjectRef& ref() const { return object_.ref(); }
  Result<CaseBatchReader> Validate(const BatchLimits& limits) const;

 private:
  friend Result<DecodedCaseBatch> DecodeCaseBatch(VerifiedObject object);
  DecodedCaseBatch(VerifiedObject object, CaseBatchHeader header, size_t body_offset)
      : object_(std::move(object)), header_(std::move(header)), body_offset_(body_offset) {}
  VerifiedObject object_;
  CaseBatchHeader header_;
  size_t body_offset_;
};

// Requires a VerifiedObject of schema vigilo/case-batch/v1 and parses its header line.
Result<DecodedCaseBatch> DecodeCaseBatch(VerifiedObject object);

// Reads and validates one record at a time: canonical line with LF, exactly
// its fields, consecutive ordinal, valid typed case, matching case hash.
class CaseBatchReader {
 public:
  // The next record, or nullopt after the last one (which also checks the count).
  Result<std::optional<CaseRecord>> Next();
  // Validates every unread record and the final count.
  Status ValidateRemaining();

 private:
  friend class DecodedCaseBatch;
  CaseBatchReader(std::string_view bytes, size_t offset, CaseBatchHeader header, std::string key)
      : bytes_(bytes), offset_(offset), header_(std::move(header)), key_(std::move(key)),
        next_ordinal_(header_.ordinal_start) {}
  std::string_view bytes_;  // points into the DecodedCaseBatch, which must outlive the reader
  size_t offset_;
  CaseBatchHeader header_;
  std::string key_;
  int32_t next_ordinal_;
  bool done_ = false;
};

}  // namespace vigilo::cases
