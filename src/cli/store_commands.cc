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
#include "vigilo/engine/cleanup.h"
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
  if (!report.skipped.empty()) r.Add("skipped", json::Value(report.skipped));
  if (!report.status.ok()) r.Add("error", json::Value(report.status.ToString()));
  return r;
}

Status Cleanup(const CleanupArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext(args.stores_file));
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  std::optional<std::string> only;
  if (!args.store.empty()) only = args.store;
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::CleanupReport> reports,
                          engine::DrainDueCleanup(*context, only, &cancel));
  // No control state, or no store with work due: a sentence for people,
  // zero records for programs.
  if (reports.empty()) return args.output.json ? Status::Ok() : WriteStdout("no cleanup work is due\n");
  Status first;
  std::vector<Record> rows;
  bool any_error = false, any_skipped = false;
  for (const control::CleanupReport& report : reports) {
    rows.push_back(ReportRecord(report));
    any_error = any_error || !report.status.ok();
    any_skipped = any_skipped || !report.skipped.empty();
    if (first.ok() && !report.status.ok()) first = report.status;
  }
  std::vector<std::string> columns = {"store", "claimed", "deleted", "remaining"};
  if (any_skipped) columns.push_back("skipped");
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
