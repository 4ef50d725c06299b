// Reading a published dataset back from its root reference: every object is
// fetched within its budget, verified (size, then BLAKE3) and strictly
// decoded; every index page is checked against its parent, every batch
// against its index entry and the recorded batch policy, every record
// against its case hash; and the identities are recomputed from the stored
// objects and must equal the manifest's. Memory: one batch and one page per
// index level at a time.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/case_batch.h"
#include "vigilo/cases/dataset.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/cases/object_ref.h"
#include "vigilo/cases/ordinal_index.h"

namespace vigilo::cases {

struct ReadDatasetSummary {
  DatasetManifest manifest;
  DatasetSourceFields source_fields;
  uint64_t batch_count = 0;
  uint64_t index_page_count = 0;
  uint64_t object_bytes = 0;  // every verified object, manifest included
};

// The source fields of a published dataset agree with its manifest (dataset
// id and version) and record a cases array: InvalidFormat naming the source
// fields' key otherwise.
Status CheckSourceFieldsOf(const DatasetSourceFields& fields, const DatasetManifest& manifest);

// A batch fetched for an index entry belongs to the manifest's dataset and
// covers exactly the entry's ordinal range: InvalidFormat naming the batch's
// key otherwise.
Status CheckBatchForEntry(const CaseBatchHeader& header, const IndexEntry& entry, const DatasetManifest& manifest);

// `fetch` is StoreBytesFetch over the store(s) the references name.
// Errors: whatever fetch, Verify or a decoder reports (IntegrityError for
// wrong bytes, InvalidFormat for a broken structure), LimitExceeded when the
// recorded batch policy does not fit `budget` (AdmitBatchPolicy) or an object
// exceeds its cap, and IntegrityError when a recomputed identity differs from
// the manifest. Case ids must be unique: the check spills to `scratch_dir`
// within the budget's external-sort and validation-spool bytes
// (InvalidFormat at `$.cases[j].id` for the first repeat). `on_case`, if
// set, sees each record in ordinal order (before uniqueness is known).
Result<ReadDatasetSummary> ReadDataset(const ObjectRef& manifest_ref, const BudgetConfig& budget,
                                       const std::filesystem::path& scratch_dir, const ObjectBytesFetch& fetch,
                                       const std::function<Status(const CaseRecord&)>& on_case = {});

}  // namespace vigilo::cases
