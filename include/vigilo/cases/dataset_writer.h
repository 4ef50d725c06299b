// Lays a dataset out as case-storage objects: batches as they fill, then the
// source fields, the batch index and the manifest last (the manifest names
// everything, so it is created only once everything it names exists).
// Objects go to an ObjectSink; keys follow docs/format/case-storage-v1.md.
#pragma once

#include <string>

#include "vigilo/cases/dataset.h"

namespace vigilo::cases {

// datasets/<dataset_id>/attempts/<attempt_id>/g<generation>/
std::string DatasetAttemptPrefix(const std::string& dataset_id, const Uuid& attempt_id, uint32_t generation);

struct WrittenDataset {
  DatasetManifest manifest;
  ObjectRef manifest_ref;
};

class DatasetWriter {
 public:
  static Result<DatasetWriter> Start(DatasetSourceFields source_fields, BatchLimits batch_limits,
                                     IndexLimits index_limits, std::string key_prefix, ObjectSink sink);

  // Validates and appends the next case in submitted order.
  Status AddCase(const json::Value& source_case);
  Result<WrittenDataset> Finish();

 private:
  DatasetWriter(DatasetSourceFields sf, DatasetIdentityBuilder identity, BatchLimits batch_limits,
                IndexLimits index_limits, std::string key_prefix, ObjectSink sink);
  Status FlushBatch();

  DatasetSourceFields source_fields_;
  DatasetIdentityBuilder identity_;
  BatchLimits batch_limits_;
  std::string key_prefix_;
  ObjectSink sink_;
  CaseBatchBuilder batch_;
  OrdinalIndexBuilder index_;
};

}  // namespace vigilo::cases
