#include "vigilo/cases/storage_format.h"

#include <array>
#include <utility>

namespace vigilo::cases {
namespace {
constexpr std::array<std::pair<StorageFormat, std::string_view>, 8> kFormats = {{
    {StorageFormat::kCaseBatch, "vigilo/case-batch/v1"},
    {StorageFormat::kDatasetSourceFields, "vigilo/dataset-source-fields/v1"},
    {StorageFormat::kDatasetManifest, "vigilo/dataset-manifest/v1"},
    {StorageFormat::kOrdinalIndex, "vigilo/ordinal-index/v1"},
    {StorageFormat::kRunChunks, "vigilo/run-chunks/v1"},
    {StorageFormat::kRunPlanManifest, "vigilo/run-plan-manifest/v1"},
    {StorageFormat::kRunConfiguration, "vigilo/run-configuration/v1"},
    {StorageFormat::kGateCounts, "vigilo/gate-counts/v1"},
}};
}  // namespace

std::string_view StorageFormatId(StorageFormat format) {
  for (const auto& [f, id] : kFormats) {
    if (f == format) return id;
  }
  return "";
}

std::optional<StorageFormat> ParseStorageFormat(std::string_view id) {
  for (const auto& [f, name] : kFormats) {
    if (name == id) return f;
  }
  return std::nullopt;
}

}  // namespace vigilo::cases
