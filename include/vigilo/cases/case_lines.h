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
#include <memory>
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
// (duplicate keys and invalid UTF-8 are refused) and nesting at most
// kMaxCaseDepth (126) levels, the depth a batch record stores it at one
// level deeper (LimitExceeded naming the line). Errors carry the path `line
// N` (1-based) and the input offset. Decisions (issue 34): a UTF-8 byte
// order mark at the very start of the input is skipped (a BOM on any other
// line is a ParseError saying to remove it); blank (whitespace-only) lines at
// the end of the input are accepted and ignored, a blank line anywhere else
// is InvalidFormat, so line N is always case N-1. CR LF line ends are
// accepted (CR is JSON whitespace); a missing final LF is accepted. A line
// longer than limits.max_case_bytes is LimitExceeded.
// With derive_ids_from: a case that already has `id` is InvalidArgument
// ("the case already has an \"id\"; …"), and the field must be present and
// be a nonempty string (its UTF-8 bytes are the name) or a 64-bit integer
// (its decimal text is the name), else InvalidFormat.
// An error `on_case` returns whose path names this case ("$.cases[N-1]…", as
// typed-case errors do) gets the line in front ("line N: $.cases[N-1].input")
// and the line's offset unless it has one; other errors are passed through.
Status ForEachCaseLine(ByteSource& source, const CaseLinesOptions& options,
                       const std::function<Status(const json::Value& source_case)>& on_case);

// Both passes over JSON Lines: the identities of the document assembled
// from `options` and the lines, as ingestion computes them. `open` opens the
// input afresh (once per pass).
Result<DatasetIdentity> ComputeCaseLinesIdentity(const std::function<Result<std::unique_ptr<ByteSource>>()>& open,
                                                 const CaseLinesOptions& options);

// With derived ids, a duplicate-id error (DuplicateCaseIdOf) names UUIDs the
// user never wrote: this reads `source` (the same input, from its start) for
// the two cases' own values and says which lines repeat which value:
// InvalidFormat at "line J: $.cases[J-1].id", "metadata.key \"x\" repeats the
// value on line K, and equal values derive equal case ids (UUID …) (1 case
// repeats an earlier id)". Any other status, or without derive_ids_from, is
// returned unchanged.
Status NameDerivedDuplicate(Status status, ByteSource& source, const CaseLinesOptions& options);

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
