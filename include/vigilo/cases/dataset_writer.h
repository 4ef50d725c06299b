// Lays a dataset out as case-storage objects: batches as they fill, then the
// source fields, the batch index and the manifest last (the manifest names
// everything, so it is created only once everything it names exists).
// Objects go to an ObjectSink (StoreSink over a store::ObjectStore outside
// tests); keys follow docs/format/case-storage-v1.md.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/case_id_check.h"
#include "vigilo/cases/dataset.h"

namespace vigilo::cases {

// datasets/<dataset_id>/attempts/<attempt_id>/g<generation>/
std::string DatasetAttemptPrefix(const std::string& dataset_id, const Uuid& attempt_id, uint32_t generation);

struct WrittenDataset {
  DatasetManifest manifest;
  ObjectRef manifest_ref;
};

// The batch policy comes from budget.case_batch_max_cases/_bytes, the index
// fan-out from page_max_entries/_bytes and index_max_height; the
// duplicate-ID sort uses external_sort_buffer_bytes of memory and spills at
// most ingestion_validation_spool_bytes under `scratch_dir`.
class DatasetWriter {
 public:
  // Validates the budget and the source fields before anything is written;
  // LimitExceeded at `$.fields` when the encoded source fields exceed
  // budget.source_fields_max_bytes, and at `logical_key_max_bytes` when the
  // longest batch, index page, source-fields or manifest key under
  // `key_prefix` would exceed budget.logical_key_max_bytes.
  static Result<DatasetWriter> Start(DatasetSourceFields source_fields, const BudgetConfig& budget,
                                     const std::filesystem::path& scratch_dir, std::string key_prefix,
                                     ObjectSink sink);

  // Validates and appends the next case in submitted order. A case whose
  // record cannot fit an empty batch is LimitExceeded at `$.cases[ORDINAL]`,
  // naming its id and the batch limit (the seed's size admission).
  Status AddCase(const json::Value& source_case);
  // Proves the case ids unique (InvalidFormat at `$.cases[j].id` otherwise),
  // then writes the source fields, the index and the manifest. On any error
  // no manifest exists, so nothing is published.
  Result<WrittenDataset> Finish();

 private:
  DatasetWriter(DatasetSourceFields sf, std::string sf_bytes, DatasetIdentityBuilder identity,
                CaseIdUniquenessCheck ids, BatchLimits batch_limits, IndexLimits index_limits,
                std::string key_prefix, ObjectSink sink);
  Status FlushBatch();

  DatasetSourceFields source_fields_;
  std::string source_fields_bytes_;  // encoded at Start, to bound it before any batch
  DatasetIdentityBuilder identity_;
  CaseIdUniquenessCheck ids_;
  BatchLimits batch_limits_;
  std::string key_prefix_;
  ObjectSink sink_;
  CaseBatchBuilder batch_;
  OrdinalIndexBuilder index_;
};

}  // namespace vigilo::cases
