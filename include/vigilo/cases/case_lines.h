// JSON Lines input for dataset ingestion: one typed case object per line,
// assembled into a submitted dataset document that vigilo defines
// (docs/format/case-storage-v1.md, "JSON Lines input"): the top-level fields
// come from the caller (dataset_id, dataset_version), the cases are the
// lines in order. With a derive-ids field, each case gets an `id` that is
// the UUIDv5 of that field's value under a documented namespace; the
// inserted field is part of the submitted document (and so of the
// dataset hash).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "vigilo/cases/dataset.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/common/uuid.h"
#include "vigilo/json/value.h"

namespace vigilo::cases {

struct CaseLinesOptions {
  std::string dataset_id;                      // ValidateDatasetId
  std::optional<std::string> dataset_version;  // nullopt: the field is absent (documented)
  // "" for none; otherwise a dotted path "metadata.FIELD" (exactly one level
  // below `metadata`, which is where the typed case keeps user fields).
  std::string derive_ids_from;
  DatasetStreamLimits limits;
};

// Checks the options before any input is read (InvalidArgument naming the
// option: dataset_id, dataset_version, derive_ids_from).
Status ValidateCaseLinesOptions(const CaseLinesOptions& options);

// The source fields of the submitted document (cases_present = true).
Result<DatasetSourceFields> CaseLinesSourceFields(const CaseLinesOptions& options);

// Calls `on_case` with each line's case in order. Each line is one JSON
// object (the same strict parser as everywhere: duplicate keys, invalid
// UTF-8, a BOM are refused); errors carry the path `line N` (1-based).
// Blank lines are refused (one rule with `index build`); a missing final LF
// is accepted. With
// derive_ids_from: the case must not already carry `id` (InvalidArgument:
// "line N: has an id; --derive-ids would replace it"), and the field must
// be present and a string or an integer (its decimal text is the name).
Status ForEachCaseLine(ByteSource& source, const CaseLinesOptions& options,
                       const std::function<Status(const json::Value& source_case)>& on_case);

// The namespace every derived id is generated under (documented).
Uuid DerivedCaseIdNamespace();
// UUIDv5(DerivedCaseIdNamespace(), name) per RFC 9562 §5.5 (SHA-1).
Uuid DeriveCaseId(std::string_view name);

}  // namespace vigilo::cases
