// Reading a submitted dataset document (one JSON object, possibly many GiB)
// without holding it: two bounded passes over a replayable source. Pass one
// collects the top-level fields (skipping the cases); pass two streams the
// cases one at a time. Two passes because fields that sort before "cases" may
// follow the cases array in the input, and the dataset hash needs them first.
#pragma once

#include <functional>

#include "vigilo/cases/dataset.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/json/tokenizer.h"

namespace vigilo::cases {

// Input-size bounds on what one pass holds. A string or number may be as long
// as the largest of max_case_bytes and max_field_bytes (the tokenizer's
// window bounds reads, not tokens). A case or field over its bound fails with
// LimitExceeded at `$.cases[ORDINAL]` or `$.<field>`. Whether a case fits a
// batch is the batch builder's decision on its encoded record (which names
// the case id), so a packer sets max_case_bytes to at least its batch limit.
struct DatasetStreamLimits {
  size_t max_case_bytes = 8u << 20;    // one case, as input bytes (whitespace included)
  size_t max_field_bytes = 8u << 20;   // one top-level field, as input bytes
  // All top-level fields together, as canonical bytes (the source-fields
  // object's budget), so pass one holds at most this plus one field.
  size_t max_source_fields_bytes = 8u << 20;
  json::TokenizerOptions tokenizer;    // 256 KiB read window by default
};

// Pass one: the source fields.
Result<DatasetSourceFields> ReadDatasetSourceFields(ByteSource& source, const DatasetStreamLimits& limits = {});

// Pass two: calls `on_case` with each case in submitted order.
Status ForEachDatasetCase(ByteSource& source, const DatasetStreamLimits& limits,
                          const std::function<Status(const json::Value& source_case)>& on_case);

// Both passes over a file: the identities of the dataset it holds.
Result<DatasetIdentity> ComputeDatasetIdentity(const std::string& path, const DatasetStreamLimits& limits = {});

}  // namespace vigilo::cases
