// `vigilo dataset identity FILE`, `vigilo dataset pack FILE --out DIR` and
// `vigilo dataset verify ROOT_REF --store DIR`.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "commands.h"
#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/store/local_dir.h"

namespace vigilo::cli {
namespace {

Status PrintJsonLine(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(std::string line, json::ToCanonical(value));
  line.push_back('\n');
  return WriteStdout(line);
}

struct PackArgs {
  std::string file;
  std::string out;
  std::string attempt;
  uint32_t generation = 1;
  std::string alias = "local";
  uint64_t max_cases = cases::BatchLimits{}.max_cases;
  uint64_t max_bytes = cases::BatchLimits{}.max_bytes;
  std::string scratch;
};

// Where the duplicate-ID sort spills: --scratch, else the system temporary
// directory ($TMPDIR or /tmp).
std::filesystem::path ScratchDir(const std::string& flag) {
  if (!flag.empty()) return flag;
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  return ec ? std::filesystem::path("/tmp") : tmp;
}

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
  cases::BudgetConfig budget = cases::BudgetConfig::Defaults();
  budget.case_batch_max_cases = args.max_cases;
  budget.case_batch_max_bytes = args.max_bytes;
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetWriter writer,
                          cases::DatasetWriter::Start(std::move(sf), budget, ScratchDir(args.scratch), prefix, sink));
  VIGILO_ASSIGN_OR_RETURN(auto second, FileByteSource::Open(args.file));
  VIGILO_RETURN_IF_ERROR(cases::ForEachDatasetCase(*second, limits, [&](const json::Value& c) {
    return writer.AddCase(c);
  }));
  VIGILO_ASSIGN_OR_RETURN(cases::WrittenDataset written, writer.Finish());
  return PrintJsonLine(written.manifest_ref.ToJson());
}

// Reads the dataset a root reference names from a local directory store and
// verifies all of it (cases::ReadDataset); prints what it found.
Status Verify(const std::string& root_ref_file, const std::string& store_dir, const std::string& scratch) {
  VIGILO_ASSIGN_OR_RETURN(auto source, FileByteSource::Open(root_ref_file));
  std::string text;
  char buf[4096];
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(size_t n, source->Read(std::span<char>(buf, sizeof buf)));
    if (n == 0) break;
    if (text.size() + n > 64 * 1024) return LimitExceeded("root reference file exceeds 64 KiB");
    text.append(buf, n);
  }
  if (!text.empty() && text.back() == '\n') text.pop_back();  // as `dataset pack` prints it
  VIGILO_ASSIGN_OR_RETURN(json::Value parsed, json::Parse(text));
  VIGILO_ASSIGN_OR_RETURN(cases::ObjectRef root, cases::ObjectRef::FromJson(parsed, "$"));
  cases::ObjectBytesFetch fetch = [&](const cases::ObjectRef& ref, uint64_t max_bytes) {
    return store::ReadObject(store_dir, ref.key, max_bytes);
  };
  VIGILO_ASSIGN_OR_RETURN(cases::ReadDatasetSummary summary,
                          cases::ReadDataset(root, cases::BudgetConfig::Defaults(), ScratchDir(scratch), fetch));
  json::Object o;
  o.Set("batch_count", json::Value::Uint(summary.batch_count));
  o.Set("case_count", json::Value::Uint(static_cast<uint64_t>(summary.manifest.case_count)));
  o.Set("dataset_hash", json::Value(summary.manifest.dataset_hash));
  o.Set("dataset_id", json::Value(summary.manifest.dataset_id));
  o.Set("dataset_version_id", json::Value(summary.manifest.dataset_version_id.ToString()));
  o.Set("index_page_count", json::Value::Uint(summary.index_page_count));
  o.Set("object_bytes", json::Value::Uint(summary.object_bytes));
  o.Set("verified", json::Value(true));
  return PrintJsonLine(json::Value(std::move(o)));
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
  pack->add_option("--scratch", args->scratch, "Directory for the duplicate-ID sort's spill files (default: $TMPDIR)");
  pack->callback([args, action] { *action = [args] { return Pack(*args); }; });

  auto root_file = std::make_shared<std::string>();
  auto store_dir = std::make_shared<std::string>();
  auto verify_scratch = std::make_shared<std::string>();
  auto* verify = dataset->add_subcommand(
      "verify", "Read a packed dataset from its root reference and verify every object, record and identity");
  verify->add_option("root", *root_file, "File holding the manifest's object reference (as `pack` prints it)")
      ->required();
  verify->add_option("--store", *store_dir, "Directory the objects were packed into")->required();
  verify->add_option("--scratch", *verify_scratch, "Directory for the duplicate-ID sort's spill files (default: $TMPDIR)");
  verify->callback([root_file, store_dir, verify_scratch, action] {
    *action = [root_file, store_dir, verify_scratch] { return Verify(*root_file, *store_dir, *verify_scratch); };
  });
}

}  // namespace vigilo::cli
