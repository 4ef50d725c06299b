// `vigilo run plan --dataset NAME|REF --profile FILE --store SPEC`: plans a
// run over a published dataset and publishes it under a name
// (engine::PlanRun does the work; this file turns flags into its request
// and its result into output).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget_flags.h"
#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "progress.h"
#include "published_roots.h"
#include "root_target.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/dataset_read.h"
#include "vigilo/engine/run_planner.h"
#include "vigilo/engine/run_profile.h"
#include "vigilo/store/config.h"
#include "vigilo/store/governor.h"

namespace vigilo::cli {
namespace {

struct PlanArgs {
  std::string dataset;
  std::string profile;
  std::string store;
  std::string stores_file;
  std::string name;
  bool replace = false;
  BudgetFlags budget;
  bool quiet = false;
  OutputFlags output;
};

// Removes a store directory this command created, and the directories
// below it, if they hold no file when the command fails: only directories,
// each only when empty (std::filesystem::remove refuses a nonempty one).
class RemoveIfEmpty {
 public:
  explicit RemoveIfEmpty(std::optional<std::filesystem::path> root) : root_(std::move(root)) {}
  RemoveIfEmpty(const RemoveIfEmpty&) = delete;
  RemoveIfEmpty& operator=(const RemoveIfEmpty&) = delete;
  ~RemoveIfEmpty() {
    if (!root_) return;
    std::error_code ec;
    std::vector<std::filesystem::path> dirs;
    for (auto it = std::filesystem::recursive_directory_iterator(*root_, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) dirs.push_back(it->path());
    }
    for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) std::filesystem::remove(*d, ec);  // deepest first
    std::filesystem::remove(*root_, ec);
  }
  void Keep() { root_.reset(); }

 private:
  std::optional<std::filesystem::path> root_;
};

Status Plan(const PlanArgs& a) {
  // Everything the flags decide, before any store is opened.
  VIGILO_ASSIGN_OR_RETURN(cases::BudgetConfig budget, BudgetFromFlags(a.budget));
  if (!a.name.empty()) {
    if (Status s = control::ValidateRootName(a.name); !s.ok()) {
      return InvalidArgument("--name: " + std::string(s.message()));
    }
  }
  Result<std::string> profile_text = ReadFileToString(a.profile, engine::kMaxProfileBytes);
  if (!profile_text.ok()) {
    const Status& s = profile_text.status();
    return Status(s.code(), "--profile: " + std::string(s.message())).WithPath(a.profile);
  }
  Result<engine::EvaluationProfile> profile = engine::ParseProfile(*profile_text);
  if (!profile.ok()) {
    const Status& s = profile.status();
    return Status(s.code(), std::string(s.message())).WithPath(a.profile + ": " + std::string(s.path()));
  }
  std::unique_ptr<FileByteSource> stdin_source = FileByteSource::Stdin();
  VIGILO_ASSIGN_OR_RETURN(engine::DatasetLocator locator,
                          ParseRootTarget(a.dataset, stdin_source.get(), control::Namespace::kDatasets));

  // A store directory that does not exist is created, as ingest creates
  // it (issue 34); if planning then fails and leaves it holding nothing, it
  // is removed again, so a refused plan leaves no empty directory behind.
  Result<std::unique_ptr<OpenedWriteTarget>> existing = OpenWriteTarget(a.store, a.stores_file, /*create_root=*/false);
  std::optional<std::filesystem::path> created;
  if (!existing.ok() && existing.status().code() == StatusCode::kNotFound) {
    existing = OpenWriteTarget(a.store, a.stores_file, /*create_root=*/true);
    if (existing.ok()) {
      if (std::optional<std::string> dir = control::LocalDirectoryOfLedgerId(
              (*existing)->target.ledger_store_id, (*existing)->context->settings().host)) {
        created = *dir;
      }
    }
  }
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<OpenedWriteTarget> opened, std::move(existing));
  RemoveIfEmpty remove_if_empty(created);
  const engine::WriteTarget& target = opened->target;
  Result<std::unique_ptr<engine::PlanDataset>> opened_dataset =
      engine::OpenPlanDataset(*opened->context, *opened->session, locator);
  if (!opened_dataset.ok()) return UnderFlag(opened_dataset.status());
  std::unique_ptr<engine::PlanDataset> dataset = std::move(opened_dataset).value();

  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  Progress bar = Progress::ForStderr(a.quiet);
  engine::PlanRunOptions options;
  options.name = a.name;
  options.replace = a.replace;
  options.budget = budget;
  options.scratch_dir = ScratchDirFromFlags(a.budget);
  options.cancel = &cancel;
  options.progress = [&bar](const engine::PlanProgress& p) {
    bar.Update(p.phase == "planning" ? "planning cases" : p.phase, p.cases, p.total_cases);
  };
  Result<engine::PlanRunResult> done = engine::PlanRun(dataset->resolved.root, dataset->fetch, *profile, options, target);
  bar.Finish();
  if (!done.ok()) return UnderFlag(done.status());
  remove_if_empty.Keep();
  const engine::PlanRunResult& r = *done;
  // Always, even with --quiet or --json (on stderr): a plan of many small
  // chunks is the costly kind a user would want to know about (issue 34).
  if (std::string warning = engine::ChunkSizeWarning(r, *profile); !warning.empty()) {
    std::fprintf(stderr, "vigilo: warning: %s\n", warning.c_str());
  }
  if (a.output.json) {
    Record rec;
    AddPublicationReport(r, &rec);
    rec.Add("run_id", json::Value(r.plan.run_id.ToString()));
    rec.Add("chunk_count", json::Value::Uint(static_cast<uint64_t>(r.plan.chunk_count)));
    rec.Add("shard_count", json::Value::Uint(r.plan.shards.size()));
    rec.Add("cases_read", json::Value::Uint(r.cases_read));
    rec.Add("chunk_pages", json::Value::Uint(r.chunk_pages));
    rec.Add("gate_pages", json::Value::Uint(r.gate_pages));
    return PrintRecord(rec, a.output);
  }
  VIGILO_RETURN_IF_ERROR(PrintSeedObject(r.root.ToJson(), a.output));
  if (!a.quiet) {
    std::string what =
        r.outcome == engine::PlanOutcome::kUnchanged
            ? "unchanged: '" + r.name + "' already holds this plan (version " + std::to_string(r.root_version) + ")"
            : std::string(engine::RootOutcomeName(r.outcome)) + " run '" + r.name + "' version " +
                  std::to_string(r.root_version) + ": " + std::to_string(r.cases_read) + " cases in " +
                  std::to_string(r.plan.chunk_count) + " chunks over " + std::to_string(r.plan.shards.size()) +
                  " shards, " + std::to_string(r.objects_written) + " objects written, verified";
    std::fprintf(stderr, "vigilo: %s\n", what.c_str());
  }
  return Status::Ok();
}

}  // namespace

void RegisterRunPlanCommand(CLI::App* run, Action* action) {
  auto a = std::make_shared<PlanArgs>();
  auto* cmd = run->add_subcommand(
      "plan",
      "Plan a run of an evaluation profile over a published dataset (chunks, shards, gate counts), verify it and "
      "publish it under a name; prints the root reference");
  cmd->add_option("--dataset", a->dataset, "The dataset: a published name, or a reference (@FILE, - or inline JSON)")
      ->required()
      ->type_name("NAME|REF");
  cmd->add_option("--profile", a->profile, "Evaluation profile JSON file (docs/format/case-storage-runs.md)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--store", a->store,
                  "Store to write the plan to: a configured alias, or a directory (a path with '/', or file://)")
      ->required()
      ->type_name("SPEC");
  cmd->add_option("--stores", a->stores_file, kStoresFlagHelp);
  cmd->add_option("--name", a->name, "Name to publish the run under (default: DATASET_ID.PROFILE_ID)");
  cmd->add_flag("--replace", a->replace, "Replace the plan the name holds (it stays in the name's history)");
  AddReaderBudgetFlags(cmd, &a->budget);
  cmd->add_flag("-q,--quiet", a->quiet, "No progress bar and no summary on stderr");
  AddJsonFlags(cmd, &a->output);
  cmd->callback([a, action] { *action = [a] { return Plan(*a); }; });
}

}  // namespace vigilo::cli
