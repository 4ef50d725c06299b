// `vigilo dataset identity FILE` and `vigilo dataset pack FILE --out DIR`
// (the read commands are in dataset_read_commands.cc). Objects are written
// only through the store seam (cases::StoreSink/StoreBytesFetch over a
// store::ObjectStore); which store is store::ResolveStore's business.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "budget_flags.h"
#include "commands.h"
#include "dataset_input.h"
#include "output.h"
#include "published_roots.h"
#include "vigilo/cases/case_lines.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/common/paths.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/store/config.h"
#include "vigilo/store/local_store.h"

namespace vigilo::cli {
namespace {

struct PackArgs {
  std::string file;
  std::string out;
  std::string attempt;
  uint32_t generation = 1;
  std::string alias = std::string(store::kDefaultLocalAlias);
  uint64_t max_cases = cases::BatchLimits{}.max_cases;
  uint64_t max_bytes = cases::BatchLimits{}.max_bytes;
  std::string scratch;
  OutputFlags output;
};

// Where the duplicate-ID sort spills: --scratch, else the system temporary
// directory ($TMPDIR or /tmp).
std::filesystem::path ScratchDir(const std::string& flag) {
  if (!flag.empty()) return flag;
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  return ec ? std::filesystem::path("/tmp") : tmp;
}

// The offline packer: a local directory, created if missing, whose objects
// are reproducible byte for byte (the attempt is given, not drawn).
Status Pack(const PackArgs& args) {
  // Every flag is checked before any input is read or anything is written.
  auto attempt_or = Uuid::Parse(args.attempt);
  if (!attempt_or.ok()) return InvalidArgument("--attempt: " + std::string(attempt_or.status().message()));
  const Uuid attempt = *attempt_or;
  if (args.generation == 0) return InvalidArgument("--generation: generations start at 1, got 0");
  if (Status s = ValidateStorageAlias(args.alias); !s.ok()) {
    return InvalidArgument("--alias: " + std::string(s.message()));
  }
  cases::BudgetConfig budget = cases::BudgetConfig::Defaults();
  budget.case_batch_max_cases = args.max_cases;
  budget.case_batch_max_bytes = args.max_bytes;
  if (Status s = budget.Validate(); !s.ok()) {
    std::string flag = FlagForSetting(s.path());  // --max-cases or --max-bytes
    if (!flag.empty()) return InvalidArgument(flag + ": " + std::string(s.message()));
    return s;
  }
  cases::DatasetStreamLimits limits;
  // Whether a case fits a batch is the batch builder's decision on its
  // encoded record, whose error names the case: read any case a format-valid
  // batch could hold (input whitespace may make it longer than its record).
  limits.max_case_bytes = cases::budget_bounds::kMaxBatchBytes;
  VIGILO_ASSIGN_OR_RETURN(auto first, FileByteSource::Open(args.file));
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetSourceFields sf, cases::ReadDatasetSourceFields(*first, limits));
  std::string prefix = cases::DatasetAttemptPrefix(sf.dataset_id(), attempt, args.generation);
  store::LocalStoreOptions open;
  open.writable = true;
  open.create_root = true;
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<store::ObjectStore> out, store::OpenLocalStore(args.out, open));
  VIGILO_RETURN_IF_ERROR(store::RequireWritable(*out, args.alias));
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetWriter writer,
                          cases::DatasetWriter::Start(std::move(sf), budget, ScratchDir(args.scratch), prefix,
                                                      cases::StoreSink(*out, args.alias)));
  VIGILO_ASSIGN_OR_RETURN(auto second, FileByteSource::Open(args.file));
  VIGILO_RETURN_IF_ERROR(cases::ForEachDatasetCase(*second, limits, [&](const json::Value& c) {
    return writer.AddCase(c);
  }));
  VIGILO_ASSIGN_OR_RETURN(cases::WrittenDataset written, writer.Finish());
  return PrintSeedObject(written.manifest_ref.ToJson(), args.output);
}

}  // namespace

void RegisterDatasetCommands(CLI::App& app, Action* action) {
  auto* dataset = app.add_subcommand("dataset", "Evaluation datasets as case-storage objects");
  dataset->require_subcommand(1);
  RegisterDatasetIngestCommand(dataset, action);
  RegisterDatasetReadCommands(dataset, action);

  struct IdentityArgs : DatasetInputFlags {
    OutputFlags output;
  };
  auto id_args = std::make_shared<IdentityArgs>();
  auto* identity = dataset->add_subcommand(
      "identity",
      "Print the dataset hash, dataset-version UUID and case count of a dataset file (JSON document, or JSON Lines "
      "of cases read as ingest reads them)");
  identity->add_option("file", id_args->file, "Dataset JSON file, or .jsonl/.ndjson of cases")->required();
  AddDatasetInputFlags(identity, id_args.get());
  AddJsonFlags(identity, &id_args->output);
  identity->callback([id_args, action] {
    *action = [id_args]() -> Status {
      VIGILO_ASSIGN_OR_RETURN(engine::IngestInput input, InputFromFlags(*id_args));
      Result<cases::DatasetIdentity> computed =
          input.format == engine::InputFormat::kCaseLines
              ? cases::ComputeCaseLinesIdentity(
                    [&input]() -> Result<std::unique_ptr<ByteSource>> {
                      VIGILO_ASSIGN_OR_RETURN(auto source, FileByteSource::Open(input.path));
                      return std::unique_ptr<ByteSource>(std::move(source));
                    },
                    input.lines)
              : cases::ComputeDatasetIdentity(input.path);
      if (!computed.ok()) return UnderFlag(computed.status());
      const cases::DatasetIdentity& id = *computed;
      Record r;
      r.Add("dataset_hash", json::Value(id.dataset_hash));
      r.Add("dataset_version_id", json::Value(id.dataset_version_id.ToString()));
      r.Add("case_count", json::Value::Uint(id.case_count));
      return PrintRecord(r, id_args->output);
    };
  });

  auto args = std::make_shared<PackArgs>();
  auto* pack = dataset->add_subcommand(
      "pack", "Write a dataset as batches, index, source fields and manifest under a directory (create-if-absent)");
  pack->add_option("file", args->file, "Dataset JSON file")->required();
  pack->add_option("-o,--out", args->out, "Directory; each object's logical key is its path below it")
      ->required()
      ->type_name("DIR");
  pack->add_option("--attempt", args->attempt, "Upload attempt ID (a UUID) for the staging prefix")
      ->required()
      ->type_name("UUID");
  pack->add_option("--generation", args->generation, "Attempt generation (default 1)");
  pack->add_option("--alias", args->alias, "Storage alias recorded in references (default local)");
  pack->add_option("--max-cases", args->max_cases, "Cases per batch (default 100)");
  pack->add_option("--max-bytes", args->max_bytes, "Encoded bytes per batch (default 8 MiB)");
  pack->add_option("--scratch", args->scratch, "Directory for the duplicate-ID sort's spill files (default: $TMPDIR)");
  AddJsonFlags(pack, &args->output);
  pack->callback([args, action] { *action = [args] { return Pack(*args); }; });

  struct RetireArgs {
    std::string name;
    bool force = false;
    OutputFlags output;
  };
  auto retire_args = std::make_shared<RetireArgs>();
  auto* retire = dataset->add_subcommand(
      "retire",
      "Take a dataset name out of service: it no longer resolves (a later ingest under it starts the next "
      "version); its history and every object stay. Refused while a live run plan reads it, unless --force");
  retire->add_option("NAME", retire_args->name, "The dataset's published name")->required()->type_name("NAME");
  retire->add_flag("--force", retire_args->force,
                   "Retire it even though live run plans read it (they go on reading its objects)");
  AddJsonFlags(retire, &retire_args->output);
  retire->callback([retire_args, action] {
    *action = [retire_args] {
      return RetireName(control::Namespace::kDatasets, retire_args->name, retire_args->force, retire_args->output);
    };
  });
}

}  // namespace vigilo::cli
