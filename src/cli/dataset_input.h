// The flags that say what a dataset file holds, shared by `dataset ingest`
// and `dataset identity` (so that both read JSON Lines the same way):
// --format, --dataset-id, --dataset-version, --derive-ids.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "vigilo/common/result.h"
#include "vigilo/engine/dataset_ingest.h"

namespace vigilo::cli {

struct DatasetInputFlags {
  std::string file;
  std::string format;  // "", "json", "jsonl"
  std::string dataset_id;
  std::optional<std::string> dataset_version;
  std::string derive_ids;
};

void AddDatasetInputFlags(CLI::App* command, DatasetInputFlags* flags);

// The input the flags describe (the format from --format, else the file
// name: .jsonl/.ndjson are JSON Lines), checked before any input is read:
// InvalidArgument naming the flag.
Result<engine::IngestInput> InputFromFlags(const DatasetInputFlags& flags);

}  // namespace vigilo::cli
