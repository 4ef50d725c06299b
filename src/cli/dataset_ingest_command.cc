// `vigilo dataset ingest FILE --store SPEC`: a dataset file in, a verified
// dataset published under a name out (engine::IngestDataset does the
// work; this file turns flags into its request and its result into output).
#include <memory>
#include <optional>
#include <string>

#include "budget_flags.h"
#include "commands.h"
#include "dataset_input.h"
#include "interrupt.h"
#include "output.h"
#include "progress.h"
#include "published_roots.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/dataset_ingest.h"
#include "vigilo/store/config.h"
#include "vigilo/store/governor.h"

namespace vigilo::cli {
namespace {

struct IngestArgs : DatasetInputFlags {
  std::string store;
  std::string stores_file;
  std::string name;
  bool replace = false;
  BudgetFlags budget;
  bool quiet = false;
  OutputFlags output;
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// --format, else the file name: .jsonl/.ndjson are JSON Lines.
Result<engine::InputFormat> ChooseFormat(const DatasetInputFlags& a) {
  if (a.format == "json") return engine::InputFormat::kDatasetJson;
  if (a.format == "jsonl") return engine::InputFormat::kCaseLines;
  if (!a.format.empty()) return InvalidArgument("--format: expected json or jsonl, got '" + a.format + "'");
  if (EndsWith(a.file, ".jsonl") || EndsWith(a.file, ".ndjson")) return engine::InputFormat::kCaseLines;
  return engine::InputFormat::kDatasetJson;
}

}  // namespace

// Everything the flags decide, checked before any input is read.
Result<engine::IngestInput> InputFromFlags(const DatasetInputFlags& a) {
  engine::IngestInput input;
  input.path = a.file;
  VIGILO_ASSIGN_OR_RETURN(input.format, ChooseFormat(a));
  bool lines = input.format == engine::InputFormat::kCaseLines;
  if (lines) {
    if (a.dataset_id.empty()) return InvalidArgument("--dataset-id is required for JSON Lines input");
    input.lines.dataset_id = a.dataset_id;
    input.lines.dataset_version = a.dataset_version;
    input.lines.derive_ids_from = a.derive_ids;
    if (Status s = cases::ValidateCaseLinesOptions(input.lines); !s.ok()) {
      std::string flag = s.path() == "derive_ids_from" ? "--derive-ids"
                         : s.path() == "dataset_version" ? "--dataset-version"
                                                         : "--dataset-id";
      std::string message(s.message());
      if (size_t at = message.find(s.path()); at != std::string::npos) {
        message.replace(at, s.path().size(), flag);
        return InvalidArgument(message);
      }
      return InvalidArgument(flag + ": " + message);
    }
  } else if (!a.dataset_id.empty() || a.dataset_version || !a.derive_ids.empty()) {
    return InvalidArgument(
        "--dataset-id, --dataset-version and --derive-ids apply to JSON Lines input only (a dataset document "
        "carries its own fields)");
  }
  return input;
}

void AddDatasetInputFlags(CLI::App* cmd, DatasetInputFlags* a) {
  cmd->add_option("--format", a->format, "json (a dataset document) or jsonl (one case per line); default: by "
                                         "file extension")
      ->type_name("FORMAT");
  cmd->add_option("--dataset-id", a->dataset_id, "JSON Lines: the dataset_id of the submitted document");
  cmd->add_option("--dataset-version", a->dataset_version, "JSON Lines: its dataset_version (default: absent)");
  cmd->add_option("--derive-ids", a->derive_ids,
                  "JSON Lines: give each case the id UUIDv5(metadata.FIELD); the id becomes part of the stored "
                  "case")
      ->type_name("metadata.FIELD");
}

namespace {

std::string_view PhaseLabel(const std::string& phase) {
  if (phase == "reading") return "reading input";
  if (phase == "writing") return "writing cases";
  if (phase == "verifying") return "verifying";
  return "publishing";
}

Status Ingest(const IngestArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(engine::IngestInput input, InputFromFlags(a));
  VIGILO_ASSIGN_OR_RETURN(cases::BudgetConfig budget, BudgetFromFlags(a.budget));
  engine::IngestOptions options;
  options.name = a.name;
  options.replace = a.replace;
  options.budget = budget;
  options.scratch_dir = ScratchDirFromFlags(a.budget);
  if (!a.name.empty()) {
    if (Status s = control::ValidateRootName(a.name); !s.ok()) {
      return InvalidArgument("--name: " + std::string(s.message()));
    }
  }

  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<OpenedWriteTarget> opened,
                          OpenWriteTarget(a.store, a.stores_file, /*create_root=*/true));

  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  Progress bar = Progress::ForStderr(a.quiet);
  options.cancel = &cancel;
  options.progress = [&bar](const engine::IngestProgress& p) {
    if (p.phase == "reading" || p.phase == "writing") {
      bar.Update(PhaseLabel(p.phase), p.bytes, p.total_bytes);
    } else {
      bar.Update(PhaseLabel(p.phase), p.cases, 0);
    }
  };
  Result<engine::IngestResult> done = engine::IngestDataset(input, options, opened->target);
  bar.Finish();
  if (!done.ok()) return UnderFlag(done.status());
  const engine::IngestResult& r = *done;
  if (a.output.json) {
    Record rec;
    AddPublicationReport(r, &rec);
    rec.Add("dataset_id", json::Value(r.manifest.dataset_id));
    rec.Add("dataset_hash", json::Value(r.manifest.dataset_hash));
    rec.Add("dataset_version_id", json::Value(r.manifest.dataset_version_id.ToString()));
    rec.Add("case_count", json::Value::Uint(static_cast<uint64_t>(r.manifest.case_count)));
    rec.Add("input_bytes", json::Value::Uint(r.input_bytes));
    rec.Add("verified_bytes", json::Value::Uint(r.verified_bytes));
    rec.Add("cleanup_deleted", json::Value::Uint(r.cleanup_deleted));
    return PrintRecord(rec, a.output);
  }
  // The root reference on stdout (the next command's input); what happened
  // in words on stderr.
  VIGILO_RETURN_IF_ERROR(PrintSeedObject(r.root.ToJson(), a.output));
  if (!a.quiet && !a.derive_ids.empty() && r.outcome != engine::IngestOutcome::kUnchanged) {
    std::fprintf(stderr,
                 "vigilo: every case was given the id UUIDv5(%s); the ids are part of the stored cases and of the "
                 "dataset hash\n",
                 a.derive_ids.c_str());
  }
  if (!a.quiet) {
    std::string what = r.outcome == engine::IngestOutcome::kUnchanged
                           ? "unchanged: '" + r.name + "' already holds this dataset (version " +
                                 std::to_string(r.root_version) + ")"
                           : std::string(engine::RootOutcomeName(r.outcome)) + " '" + r.name + "' version " +
                                 std::to_string(r.root_version) + ": " + std::to_string(r.manifest.case_count) +
                                 " cases, " + std::to_string(r.objects_written) + " objects written" +
                                 (r.objects_replayed > 0
                                      ? ", " + std::to_string(r.objects_replayed) + " reused from an earlier attempt"
                                      : std::string()) +
                                 ", every object verified";
    std::fprintf(stderr, "vigilo: %s\n", what.c_str());
  }
  return Status::Ok();
}

}  // namespace

void RegisterDatasetIngestCommand(CLI::App* dataset, Action* action) {
  auto a = std::make_shared<IngestArgs>();
  auto* cmd = dataset->add_subcommand(
      "ingest",
      "Store a dataset file (JSON document, or JSON Lines of cases) in a store, verify it, and publish it under a "
      "name; prints the root reference");
  cmd->add_option("file", a->file, "Dataset JSON file, or .jsonl/.ndjson of cases; - reads stdin")->required();
  cmd->add_option("--store", a->store,
                  "Store to write: a configured alias, or a directory (a path with '/', or file://)")
      ->required()
      ->type_name("SPEC");
  cmd->add_option("--stores", a->stores_file, kStoresFlagHelp);
  cmd->add_option("--name", a->name, "Name to publish under (default: the dataset_id)");
  cmd->add_flag("--replace", a->replace, "Replace the dataset the name holds (it stays in the name's history)");
  AddDatasetInputFlags(cmd, a.get());
  AddWriterBudgetFlags(cmd, &a->budget);
  cmd->add_flag("-q,--quiet", a->quiet, "No progress bar and no summary on stderr");
  AddJsonFlags(cmd, &a->output);
  cmd->callback([a, action] { *action = [a] { return Ingest(*a); }; });
}

}  // namespace vigilo::cli
