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
#include <string_view>

#include "vigilo/cases/dataset.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/common/uuid.h"
#include "vigilo/json/value.h"

namespace vigilo::cases {

struct CaseLinesOptions {
  std::string dataset_id;                      // ValidateDatasetId
  // nullopt: the field is absent from the submitted document (never null).
  std::optional<std::string> dataset_version;
  // "" for none; otherwise "metadata.FIELD": FIELD is one member name
  // directly under `metadata` (where the typed case keeps user fields),
  // nonempty, without '.'.
  std::string derive_ids_from;
  // max_case_bytes bounds one line (its bytes before the LF); the tokenizer's
  // max_depth bounds nesting; max_source_fields_bytes bounds the top-level
  // fields as for a dataset document.
  DatasetStreamLimits limits;
};

// Checks the options before any input is read: InvalidArgument with the
// option's name as the path (dataset_id, dataset_version, derive_ids_from),
// or LimitExceeded if the top-level fields exceed max_source_fields_bytes.
Status ValidateCaseLinesOptions(const CaseLinesOptions& options);

// The source fields of the submitted document: {"dataset_id":ID} plus
// "dataset_version" when given; cases_present = true. Validates the options.
Result<DatasetSourceFields> CaseLinesSourceFields(const CaseLinesOptions& options);

// Calls `on_case` with each line's case in order (with `id` inserted when
// deriving). Each line is one JSON object, parsed by the strict parser
// (duplicate keys, invalid UTF-8 and a BOM are refused). Errors carry the
// path `line N` (1-based) and the input offset. Blank (whitespace-only)
// lines are refused (the same rule as `index build`), so line N is always
// case N-1: `$.cases[N-1]` in typed-case errors from DatasetIdentityBuilder.
// CR LF line ends are accepted (CR is JSON whitespace); a missing final LF
// is accepted. A line longer than limits.max_case_bytes is LimitExceeded.
// With derive_ids_from: a case that already has `id` is InvalidArgument
// ("the case already has an \"id\"; …"), and the field must be present and
// be a nonempty string (its UTF-8 bytes are the name) or a 64-bit integer
// (its decimal text is the name), else InvalidFormat.
// Errors returned by `on_case` are passed through unchanged.
Status ForEachCaseLine(ByteSource& source, const CaseLinesOptions& options,
                       const std::function<Status(const json::Value& source_case)>& on_case);

// The namespace every derived id is generated under (documented):
// UUIDv5(NameSpace_URL, "urn:vigilo:derived-case-id:v1")
// = b5c927e9-66b2-513c-8ed0-f71fe444c8f2.
Uuid DerivedCaseIdNamespace();
// UUIDv5 per RFC 9562 §5.5: SHA-1 of the 16 namespace bytes followed by
// `name`, first 16 bytes, version nibble 5, variant 10. Fails only if
// OpenSSL's SHA-1 does (kInternal).
Result<Uuid> NameBasedUuidV5(const Uuid& namespace_id, std::string_view name);
// NameBasedUuidV5(DerivedCaseIdNamespace(), name).
Result<Uuid> DeriveCaseId(std::string_view name);

}  // namespace vigilo::cases
