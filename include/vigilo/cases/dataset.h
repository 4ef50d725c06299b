// Dataset-level objects (seed 004): the source fields that, with the ordered
// raw cases, reconstruct the submitted document, and the dataset manifest root.
#pragma once

#include <optional>
#include <string>

#include "vigilo/cases/case_batch.h"
#include "vigilo/cases/document.h"
#include "vigilo/cases/identity.h"
#include "vigilo/cases/ordinal_index.h"

namespace vigilo::cases {

// `vigilo/dataset-source-fields/v1`: every top-level field of the submitted
// dataset except `cases`, and whether `cases` was supplied.
class DatasetSourceFields final : public StorageDocument {
 public:
  bool cases_present = false;
  json::Object fields;

  // Splits a parsed submitted document into its source fields (and leaves the cases to the caller).
  static Result<DatasetSourceFields> FromDocument(const json::Value& document);
  static Result<DatasetSourceFields> Decode(const VerifiedObject& object);
  static Result<DatasetSourceFields> FromJson(const json::Value& value);

  StorageFormat format() const override { return StorageFormat::kDatasetSourceFields; }
  // dataset_id valid; dataset_version absent, string or null; no `cases`
  // member; every field nests at most json::kMaxNestingDepth - 2 levels, so
  // the encoded object stays within the readers' depth limit (LimitExceeded
  // at `$.fields.<key>` otherwise).
  Status Validate() const override;
  json::Value ToJson() const override;

  std::string dataset_id() const;
  std::optional<std::string> dataset_version() const;  // nullopt for absent or null
};

class DatasetManifest final : public StorageDocument {
 public:
  std::string dataset_id;
  std::optional<std::string> dataset_version;
  Uuid dataset_version_id;
  std::string dataset_hash;  // 64 lowercase hex
  int32_t case_count = 0;
  BatchLimits batch_limits;
  ObjectRef source_fields;
  IndexRootDescriptor batches;

  static Result<DatasetManifest> Decode(const VerifiedObject& object);
  static Result<DatasetManifest> FromJson(const json::Value& value);

  StorageFormat format() const override { return StorageFormat::kDatasetManifest; }
  // Field rules: dataset id, hash form, positive int32 case count, batch limits
  // within the override ceilings, reference schemas, and a batches index that
  // covers exactly [0, case_count).
  Status Validate() const override;
  json::Value ToJson() const override;
};

// The override ceilings on a recorded batching policy (seed 004): 1-65,536
// cases and 256 B-64 MiB per batch.
Status ValidateBatchLimits(const BatchLimits& limits);

}  // namespace vigilo::cases
