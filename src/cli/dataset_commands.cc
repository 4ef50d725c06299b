// `vigilo dataset identity FILE`, `vigilo dataset pack FILE --out DIR` and
// `vigilo dataset verify ROOT_REF --store SPEC`. Objects are read and written
// only through the store seam (cases::StoreSink/StoreBytesFetch over a
// store::ObjectStore); which store is store::ResolveStore's business.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "output.h"
#include "vigilo/cases/dataset_reader.h"
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

struct VerifyArgs {
  std::string root_file;
  std::string store;
  std::string stores_file;
  std::string scratch;
  OutputFlags output;
};

// The offline packer: a local directory, created if missing, whose objects
// are reproducible byte for byte (the attempt is given, not drawn).
Status Pack(const PackArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(Uuid attempt, Uuid::Parse(args.attempt));
  if (Status s = ValidateStorageAlias(args.alias); !s.ok()) {
    return InvalidArgument("--alias: " + std::string(s.message()));
  }
  cases::DatasetStreamLimits limits;
  VIGILO_ASSIGN_OR_RETURN(auto first, FileByteSource::Open(args.file));
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetSourceFields sf, cases::ReadDatasetSourceFields(*first, limits));
  std::string prefix = cases::DatasetAttemptPrefix(sf.dataset_id(), attempt, args.generation);
  cases::BudgetConfig budget = cases::BudgetConfig::Defaults();
  budget.case_batch_max_cases = args.max_cases;
  budget.case_batch_max_bytes = args.max_bytes;
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

// Reads the dataset a root reference names from the store --store names and
// verifies all of it (cases::ReadDataset); prints what it found. Each
// reference's storage_alias picks its store (store::StoreSet).
Status Verify(const VerifyArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(auto source, FileByteSource::Open(args.root_file));
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
  std::optional<std::string> stores_file;
  if (!args.stores_file.empty()) stores_file = args.stores_file;
  VIGILO_ASSIGN_OR_RETURN(store::StoreConfig config, store::StoreConfig::Load(stores_file));
  VIGILO_ASSIGN_OR_RETURN(store::ResolvedStore resolved, store::ResolveStore(config, args.store, store::OpenOptions{}));
  store::StoreSet stores(std::move(config), std::move(resolved));
  cases::StoreResolver resolve = [&stores](std::string_view alias) { return stores.ForAlias(alias); };
  VIGILO_ASSIGN_OR_RETURN(cases::ReadDatasetSummary summary,
                          cases::ReadDataset(root, cases::BudgetConfig::Defaults(), ScratchDir(args.scratch),
                                             cases::StoreBytesFetch(resolve)));
  Record r;
  r.Add("verified", json::Value(true));
  r.Add("dataset_id", json::Value(summary.manifest.dataset_id));
  r.Add("dataset_hash", json::Value(summary.manifest.dataset_hash));
  r.Add("dataset_version_id", json::Value(summary.manifest.dataset_version_id.ToString()));
  r.Add("case_count", json::Value::Uint(static_cast<uint64_t>(summary.manifest.case_count)));
  r.Add("batch_count", json::Value::Uint(summary.batch_count));
  r.Add("index_page_count", json::Value::Uint(summary.index_page_count));
  r.Add("object_bytes", json::Value::Uint(summary.object_bytes));
  return PrintRecord(r, args.output);
}

}  // namespace

void RegisterDatasetCommands(CLI::App& app, Action* action) {
  auto* dataset = app.add_subcommand("dataset", "Evaluation datasets as case-storage objects");
  dataset->require_subcommand(1);
  RegisterDatasetIngestCommand(dataset, action);
  RegisterDatasetReadCommands(dataset, action);

  struct IdentityArgs {
    std::string file;
    OutputFlags output;
  };
  auto id_args = std::make_shared<IdentityArgs>();
  auto* identity = dataset->add_subcommand(
      "identity", "Print the dataset hash, dataset-version UUID and case count of a dataset JSON file");
  identity->add_option("file", id_args->file, "Dataset JSON file")->required();
  AddJsonFlags(identity, &id_args->output);
  identity->callback([id_args, action] {
    *action = [id_args]() -> Status {
      VIGILO_ASSIGN_OR_RETURN(cases::DatasetIdentity id, cases::ComputeDatasetIdentity(id_args->file));
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

  auto verify_args = std::make_shared<VerifyArgs>();
  auto* verify = dataset->add_subcommand(
      "verify", "Read a packed dataset from its root reference and verify every object, record and identity");
  verify
      ->add_option("root", verify_args->root_file, "File holding the manifest's object reference (as `pack` prints it)")
      ->required()
      ->type_name("ROOT_REF");
  verify->add_option("--store", verify_args->store,
                     "Store holding the objects: a configured alias, or a directory (a path with '/', or file://)")
      ->required()
      ->type_name("SPEC");
  verify->add_option("--stores", verify_args->stores_file,
                     "Stores config mapping aliases to stores (default: $VIGILO_STORES, else "
                     "$XDG_DATA_HOME/vigilo/stores.json)");
  verify->add_option("--scratch", verify_args->scratch,
                     "Directory for the duplicate-ID sort's spill files (default: $TMPDIR)");
  AddJsonFlags(verify, &verify_args->output);
  verify->callback([verify_args, action] { *action = [verify_args] { return Verify(*verify_args); }; });
}

}  // namespace vigilo::cli
