// `vigilo dataset identity FILE` and `vigilo dataset pack FILE --out DIR`.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/json/write.h"
#include "vigilo/store/local_dir.h"

namespace vigilo::cli {
namespace {

Status PrintJsonLine(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(std::string line, json::ToCanonical(value));
  line.push_back('\n');
  if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size()) return IoError("cannot write to stdout");
  return Status::Ok();
}

struct PackArgs {
  std::string file;
  std::string out;
  std::string attempt;
  uint32_t generation = 1;
  std::string alias = "local";
  uint64_t max_cases = cases::BatchLimits{}.max_cases;
  uint64_t max_bytes = cases::BatchLimits{}.max_bytes;
};

Status Pack(const PackArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(Uuid attempt, Uuid::Parse(args.attempt));
  cases::DatasetStreamLimits limits;
  VIGILO_ASSIGN_OR_RETURN(auto first, FileByteSource::Open(args.file));
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetSourceFields sf, cases::ReadDatasetSourceFields(*first, limits));
  std::string prefix = cases::DatasetAttemptPrefix(sf.dataset_id(), attempt, args.generation);
  cases::ObjectSink sink = [&](const std::string& key, cases::StorageFormat schema,
                               std::string bytes) -> Result<cases::ObjectRef> {
    VIGILO_RETURN_IF_ERROR(store::CreateIfAbsent(args.out, key, bytes).status());
    return cases::ObjectRef::ForBytes(args.alias, key, schema, bytes);
  };
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetWriter writer,
                          cases::DatasetWriter::Start(std::move(sf), cases::BatchLimits{args.max_cases, args.max_bytes},
                                                      cases::IndexLimits{}, prefix, sink));
  VIGILO_ASSIGN_OR_RETURN(auto second, FileByteSource::Open(args.file));
  VIGILO_RETURN_IF_ERROR(cases::ForEachDatasetCase(*second, limits, [&](const json::Value& c) {
    return writer.AddCase(c);
  }));
  VIGILO_ASSIGN_OR_RETURN(cases::WrittenDataset written, writer.Finish());
  return PrintJsonLine(written.manifest_ref.ToJson());
}

}  // namespace

void RegisterDatasetCommands(CLI::App& app, Action* action) {
  auto* dataset = app.add_subcommand("dataset", "Evaluation datasets as case-storage objects");
  dataset->require_subcommand(1);

  auto file = std::make_shared<std::string>();
  auto* identity = dataset->add_subcommand(
      "identity", "Print the dataset hash, dataset-version UUID and case count of a dataset JSON file");
  identity->add_option("file", *file, "Dataset JSON file")->required();
  identity->callback([file, action] {
    *action = [file]() -> Status {
      VIGILO_ASSIGN_OR_RETURN(cases::DatasetIdentity id, cases::ComputeDatasetIdentity(*file));
      json::Object o;
      o.Set("case_count", json::Value::Uint(id.case_count));
      o.Set("dataset_hash", json::Value(id.dataset_hash));
      o.Set("dataset_version_id", json::Value(id.dataset_version_id.ToString()));
      return PrintJsonLine(json::Value(std::move(o)));
    };
  });

  auto args = std::make_shared<PackArgs>();
  auto* pack = dataset->add_subcommand(
      "pack", "Write a dataset as batches, index, source fields and manifest under a directory (create-if-absent)");
  pack->add_option("file", args->file, "Dataset JSON file")->required();
  pack->add_option("--out", args->out, "Directory; each object's logical key is its path below it")->required();
  pack->add_option("--attempt", args->attempt, "Upload attempt ID (a UUID) for the staging prefix")->required();
  pack->add_option("--generation", args->generation, "Attempt generation (default 1)");
  pack->add_option("--alias", args->alias, "Storage alias recorded in references (default local)");
  pack->add_option("--max-cases", args->max_cases, "Cases per batch (default 100)");
  pack->add_option("--max-bytes", args->max_bytes, "Encoded bytes per batch (default 8 MiB)");
  pack->callback([args, action] { *action = [args] { return Pack(*args); }; });
}

}  // namespace vigilo::cli
