// `vigilo store cleanup [--store SPEC] [--json]`: drains the cleanup work
// the control ledger records (the keys of abandoned upload attempts) from
// one store, or from every store that has work due. Writing commands drain
// their store first anyway; this is the explicit form. SIGINT cancels: what
// is not deleted stays recorded for the next drain.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "context.h"
#include "published_roots.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/json/value.h"
#include "vigilo/json/write.h"
#include "vigilo/store/config.h"

namespace vigilo::cli {
namespace {

struct CleanupArgs {
  std::string store;
  std::string stores_file;
  OutputFlags output;
};

// One row per store drained: what was claimed, deleted and remains, and
// the error of a store that could not be drained (also on stderr).
Record ReportRecord(const control::CleanupReport& report) {
  Record r;
  r.Add("store", json::Value(report.store));
  r.Add("claimed", json::Value::Uint(report.claimed));
  r.Add("deleted", json::Value::Uint(report.deleted));
  r.Add("remaining", json::Value::Uint(report.remaining));
  if (!report.status.ok()) r.Add("error", json::Value(report.status.ToString()));
  return r;
}

// One store: resolve it for writing (cleanup deletes), name it as the
// ledger does, drain it.
struct StoreOutcome {
  control::CleanupReport report;
};

StoreOutcome DrainStore(engine::Context& context, control::ControlStore& ledger, const std::string& spec,
                        const std::optional<std::string>& known_id, const store::CancelToken& cancel) {
  StoreOutcome out;
  out.report.store = known_id.value_or(spec);
  Result<store::ResolvedStore> resolved = context.OpenStore(spec, store::OpenOptions{.writable = true});
  if (!resolved.ok()) {
    out.report.status = resolved.status();
    return out;
  }
  Result<std::string> id = control::LedgerStoreId(spec, *resolved);
  if (!id.ok()) {
    out.report.status = id.status();
    return out;
  }
  out.report = control::DrainCleanup(ledger, *id, *resolved->store, context.governor(), &cancel);
  return out;
}

Status Cleanup(const CleanupArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext(args.stores_file));
  VIGILO_RETURN_IF_ERROR(context->StoresConfig().status());
  // No control database yet means no attempt was ever recorded: nothing to do.
  Result<control::ControlStore*> opened = context->ExistingControl();
  if (!opened.ok() && opened.status().code() == StatusCode::kNotFound) {
    return args.output.json ? Status::Ok() : WriteStdout("no cleanup work is due\n");
  }
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * ledger, std::move(opened));
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);

  std::vector<StoreOutcome> outcomes;
  if (!args.store.empty()) {
    outcomes.push_back(DrainStore(*context, *ledger, args.store, std::nullopt, cancel));
  } else {
    VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> due, ledger->StoresWithDueCleanup());
    if (due.empty() && !args.output.json) return WriteStdout("no cleanup work is due\n");
    for (const std::string& id : due) {
      if (cancel.cancelled()) break;
      outcomes.push_back(DrainStore(*context, *ledger, control::StoreSpecForLedgerId(id), id, cancel));
    }
  }
  Status first;
  std::vector<Record> rows;
  bool any_error = false;
  for (const StoreOutcome& outcome : outcomes) {
    rows.push_back(ReportRecord(outcome.report));
    any_error = any_error || !outcome.report.status.ok();
    if (first.ok() && !outcome.report.status.ok()) first = outcome.report.status;
  }
  std::vector<std::string> columns = {"store", "claimed", "deleted", "remaining"};
  if (any_error) columns.push_back("error");
  VIGILO_RETURN_IF_ERROR(PrintTable(columns, rows, args.output));
  if (cancel.cancelled() && first.ok()) first = Cancelled("interrupted; unfinished cleanup stays recorded");
  return first;
}

}  // namespace

void RegisterStoreCommands(CLI::App& app, Action* action) {
  auto* group = app.add_subcommand("store", "Object stores and the work the control ledger records for them");
  group->require_subcommand(1);
  auto args = std::make_shared<CleanupArgs>();
  auto* cleanup = group->add_subcommand(
      "cleanup",
      "Delete the recorded objects of abandoned upload attempts (never a published one); unfinished work stays "
      "recorded. The control database is $VIGILO_CONTROL, else $XDG_DATA_HOME/vigilo/control.sqlite3");
  cleanup->add_option("--store", args->store,
                      "Only this store: a configured alias, or a directory (a path with '/', or file://); default: "
                      "every store with cleanup work due");
  cleanup->add_option("--stores", args->stores_file, kStoresFlagHelp);
  AddJsonFlag(cleanup, &args->output);
  cleanup->callback([args, action] { *action = [args] { return Cleanup(*args); }; });
}

}  // namespace vigilo::cli
