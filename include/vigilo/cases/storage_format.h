// The schema identifiers of case storage (seed 004). Every stored object names
// its format in its `schema` field; readers reject unknown identifiers.
#pragma once

#include <optional>
#include <string_view>

namespace vigilo::cases {

enum class StorageFormat {
  kCaseBatch,            // vigilo/case-batch/v1 (JSONL)
  kDatasetSourceFields,  // vigilo/dataset-source-fields/v1
  kDatasetManifest,      // vigilo/dataset-manifest/v1
  kOrdinalIndex,         // vigilo/ordinal-index/v1
  kRunChunks,            // vigilo/run-chunks/v1
  kRunPlanManifest,      // vigilo/run-plan-manifest/v1
  kRunConfiguration,     // vigilo/run-configuration/v1
  kGateCounts,           // vigilo/gate-counts/v1
};

std::string_view StorageFormatId(StorageFormat format);
std::optional<StorageFormat> ParseStorageFormat(std::string_view id);

// Names the identity algorithms of a dataset manifest; adds no bytes to any preimage.
inline constexpr std::string_view kDatasetIdentityScheme = "vigilo/dataset-json/v1";
inline constexpr std::string_view kHashScheme = "blake3-256";

}  // namespace vigilo::cases
