// `vigilo dataset list|show|verify|export|cases`: published datasets read
// back (engine/dataset_read.h). A NAME is looked up in the control store
// and read from the store its publishing attempt wrote to; a REF (@FILE, -,
// inline JSON, or a path) from --store, or from the configured alias its
// storage_alias names. Every object is verified before it is used.
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "budget_flags.h"
#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "published_roots.h"
#include "vigilo/cases/dataset_reader.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/control_store.h"
#include "vigilo/json/parse.h"
#include "vigilo/engine/dataset_read.h"
#include "vigilo/store/config.h"

namespace vigilo::cli {
namespace {

struct ReadArgs {
  std::string target;  // NAME|REF
  std::string store;
  std::string stores_file;
  BudgetFlags budget;
  OutputFlags output;
  std::string out_file;  // export -o
  int32_t from = 0;      // cases --from
  int32_t to = std::numeric_limits<int32_t>::max();
};

Result<OpenedRoot> OpenDataset(const ReadArgs& args) {
  return OpenPublishedRoot(args.target, args.store, args.stores_file, args.budget, control::Namespace::kDatasets);
}

json::Value OptionalString(const std::optional<std::string>& s) { return s ? json::Value(*s) : json::Value(); }

Status List(const ReadArgs& args) {
  return ListPublished(control::Namespace::kDatasets, "manifest", "no datasets are published", args.output);
}

Status Show(const ReadArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened, OpenDataset(args));
  auto overview = engine::ShowDataset(opened.resolved.root, opened.budget, opened.fetch);
  if (!overview.ok()) return UnderFlag(overview.status());
  const cases::DatasetManifest& m = overview->manifest;
  Record r;
  AddPublication(opened.resolved, &r);
  r.Add("dataset_id", json::Value(m.dataset_id));
  r.Add("dataset_version", OptionalString(m.dataset_version));
  r.Add("dataset_version_id", json::Value(m.dataset_version_id.ToString()));
  r.Add("dataset_hash", json::Value(m.dataset_hash));
  r.Add("case_count", json::Value::Uint(static_cast<uint64_t>(m.case_count)));
  json::Array fields;
  for (const auto& [key, value] : overview->source_fields.fields) fields.push_back(json::Value(key));
  r.Add("source_fields", json::Value(std::move(fields)));
  Record limits;
  limits.Add("max_cases", json::Value::Uint(m.batch_limits.max_cases));
  limits.Add("max_bytes", json::Value::Uint(m.batch_limits.max_bytes));
  r.Add("batch_limits", std::move(limits));
  r.Add("batch_count", json::Value::Uint(overview->batch_count));
  r.Add("index_levels", json::Value::Uint(static_cast<uint64_t>(m.batches.level) + 1));
  r.Add("index_page_count", json::Value::Uint(overview->index_page_count));
  r.Add("object_count", json::Value::Uint(overview->object_count));
  r.Add("object_bytes", json::Value::Uint(overview->object_bytes));
  Record root;
  root.Add("storage_alias", json::Value(opened.resolved.root.storage_alias));
  root.Add("key", json::Value(opened.resolved.root.key));
  root.Add("digest", json::Value(opened.resolved.root.digest));
  root.Add("byte_count", json::Value::Uint(opened.resolved.root.byte_count));
  r.Add("root", std::move(root));
  return PrintRecord(r, args.output);
}

// Reads the whole dataset and verifies every object, record and identity
// (cases::ReadDataset); prints what it found.
Status Verify(const ReadArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened, OpenDataset(args));
  auto summary =
      cases::ReadDataset(opened.resolved.root, opened.budget, ScratchDirFromFlags(args.budget), opened.fetch);
  if (!summary.ok()) return UnderFlag(summary.status());
  Record r;
  AddPublication(opened.resolved, &r);
  r.Add("verified", json::Value(true));
  r.Add("dataset_id", json::Value(summary->manifest.dataset_id));
  r.Add("dataset_hash", json::Value(summary->manifest.dataset_hash));
  r.Add("dataset_version_id", json::Value(summary->manifest.dataset_version_id.ToString()));
  r.Add("case_count", json::Value::Uint(static_cast<uint64_t>(summary->manifest.case_count)));
  r.Add("batch_count", json::Value::Uint(summary->batch_count));
  r.Add("index_page_count", json::Value::Uint(summary->index_page_count));
  r.Add("object_bytes", json::Value::Uint(summary->object_bytes));
  return PrintRecord(r, args.output);
}

// The exact canonical submitted document. Bytes are written as they are
// verified; a failure found at the end still exits non-zero. -o FILE is
// replaced only by a whole, verified export (engine::ExportDatasetToFile).
// SIGINT/SIGTERM stop it before the next batch (docs/errors.md, "Signals").
Status Export(const ReadArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened, OpenDataset(args));
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  Status status;
  if (!args.out_file.empty()) {
    status = engine::ExportDatasetToFile(opened.resolved.root, opened.budget, opened.fetch, args.out_file, &cancel)
                 .status();
  } else {
    status = engine::ExportDataset(opened.resolved.root, opened.budget, opened.fetch, WriteStdout, &cancel).status();
  }
  const std::string left = !args.out_file.empty() ? "nothing was exported, and " + args.out_file + " is as it was"
                                                  : "what was written to stdout is incomplete";
  return UnderFlag(interrupt.Explain(status, left));
}

Status Cases(const ReadArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened, OpenDataset(args));
  std::string line_out;
  auto read = engine::ReadDatasetCases(opened.resolved.root, opened.budget, opened.fetch, args.from, args.to,
                                        [&](const cases::CaseRecord&, std::string_view line) {
                                          line_out.assign(line);
                                          line_out.push_back('\n');
                                          return WriteStdout(line_out);
                                        });
  return UnderFlag(read.status());
}

// NAME|REF, --store and --stores: what every command reading one dataset takes.
void AddTargetFlags(CLI::App* command, ReadArgs* args) {
  AddRootTargetFlags(command, "dataset", "A published name, or the manifest's reference: @FILE, - (stdin) or inline JSON", &args->target, &args->store, &args->stores_file);
}

}  // namespace

void RegisterDatasetReadCommands(CLI::App* dataset, Action* action) {
  auto list_args = std::make_shared<ReadArgs>();
  auto* list = dataset->add_subcommand("list", "List the published dataset names, their versions and roots");
  AddJsonFlag(list, &list_args->output);
  list->callback([list_args, action] { *action = [list_args] { return List(*list_args); }; });

  auto show_args = std::make_shared<ReadArgs>();
  auto* show = dataset->add_subcommand(
      "show", "Print a published dataset's identities, source fields and object layout (batches are not read)");
  AddTargetFlags(show, show_args.get());
  AddReaderBudgetFlags(show, &show_args->budget);
  AddJsonFlags(show, &show_args->output);
  show->callback([show_args, action] { *action = [show_args] { return Show(*show_args); }; });

  auto verify_args = std::make_shared<ReadArgs>();
  auto* verify = dataset->add_subcommand(
      "verify", "Read a published dataset and verify every object, record and identity");
  AddTargetFlags(verify, verify_args.get());
  AddReaderBudgetFlags(verify, &verify_args->budget);
  AddJsonFlags(verify, &verify_args->output);
  verify->callback([verify_args, action] { *action = [verify_args] { return Verify(*verify_args); }; });

  auto export_args = std::make_shared<ReadArgs>();
  auto* exported = dataset->add_subcommand(
      "export", "Write the exact canonical dataset JSON that was submitted (its BLAKE3 is the dataset_hash)");
  AddTargetFlags(exported, export_args.get());
  exported->add_option("-o,--out", export_args->out_file, "Write to FILE instead of stdout: replaced only by a whole, verified export (a failure or an interrupt leaves it as it was)")
      ->type_name("FILE");
  AddReaderBudgetFlags(exported, &export_args->budget);
  exported->callback([export_args, action] { *action = [export_args] { return Export(*export_args); }; });

  auto cases_args = std::make_shared<ReadArgs>();
  auto* cases_cmd = dataset->add_subcommand(
      "cases",
      "Print the stored case records with ordinals in [--from, --to) as JSON lines, reading only their batches");
  AddTargetFlags(cases_cmd, cases_args.get());
  cases_cmd->add_option("--from", cases_args->from, "First ordinal (default 0)")->type_name("N");
  cases_cmd->add_option("--to", cases_args->to, "End ordinal, exclusive (default: the case count)")->type_name("M");
  AddReaderBudgetFlags(cases_cmd, &cases_args->budget);
  cases_cmd->callback([cases_args, action] { *action = [cases_args] { return Cases(*cases_args); }; });
}

}  // namespace vigilo::cli
