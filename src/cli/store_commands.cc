// `vigilo store cleanup [--store SPEC] [--grace DURATION] [--dry-run]
// [--json]`: deletes what unpublished upload attempts left in a store, or in
// every store the control ledger has work on (engine::CleanStores): the
// recorded keys of abandoned attempts, and those of attempts whose lease
// expired more than the grace period ago (a killed writer, a refused name),
// which it abandons first; in a local directory, the directories that
// leaves empty. --dry-run lists, attempt by attempt, what it would delete
// and its bytes, and changes nothing. Writing commands drain their store
// first anyway; this is the explicit form. SIGINT cancels: what is not
// deleted stays recorded for the next run.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "context.h"
#include "exit_codes.h"
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
  std::string grace = "1h";
  bool dry_run = false;
  OutputFlags output;
};

// "0", "90" (seconds), "90s", "30m", "2h", "7d" → microseconds.
Result<store::Micros> ParseGrace(const std::string& text) {
  auto bad = [&text]() {
    return InvalidArgument("'" + text + "' is not a duration: a whole number with s, m, h or d (seconds when "
                           "bare), such as 0, 90s, 30m, 2h or 7d")
        .WithPath("--grace");
  };
  if (text.empty() || text.size() > 12) return bad();
  store::Micros unit = 1'000'000;
  std::string digits = text;
  switch (text.back()) {
    case 's': digits.pop_back(); break;
    case 'm': unit *= 60; digits.pop_back(); break;
    case 'h': unit *= 3600; digits.pop_back(); break;
    case 'd': unit *= 86400; digits.pop_back(); break;
    default: break;
  }
  if (digits.empty()) return bad();
  store::Micros n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return bad();
    n = n * 10 + (c - '0');
  }
  if (n > engine::kMaxCleanupGrace / unit) {
    return InvalidArgument("the grace period is at most 366 days, got " + text).WithPath("--grace");
  }
  return n * unit;
}

std::string WhenText(store::Micros at, store::Micros now) { return at <= now ? "now" : control::FormatWallTime(at); }

// One row per store: what was abandoned, claimed, deleted and remains,
// attempts kept for the grace, directories removed, and a store skipped
// (another host's directory) or failing (also on stderr).
Record ReportRecord(const engine::StoreCleanupReport& report) {
  const control::CleanupReport& d = report.drain;
  Record r;
  r.Add("store", json::Value(d.store));
  r.Add("abandoned", json::Value::Uint(report.expired_abandoned));
  r.Add("claimed", json::Value::Uint(d.claimed));
  r.Add("deleted", json::Value::Uint(d.deleted));
  r.Add("remaining", json::Value::Uint(d.remaining));
  r.Add("kept", json::Value::Uint(report.expired_kept));
  r.Add("kept_until", report.kept_until ? json::Value(control::FormatWallTime(*report.kept_until)) : json::Value());
  r.Add("remaining_due_at",
        report.remaining_due_at ? json::Value(control::FormatWallTime(*report.remaining_due_at)) : json::Value());
  r.Add("directories_removed", json::Value::Uint(report.directories_removed));
  if (!d.skipped.empty()) r.Add("skipped", json::Value(d.skipped));
  if (!d.status.ok()) r.Add("error", json::Value(ErrorText(d.status)));
  return r;
}

Status PrintNotes(const std::vector<engine::StoreCleanupReport>& stores, const OutputFlags& output,
                  const std::string& grace) {
  if (output.json) return Status::Ok();
  uint64_t kept = 0, waiting = 0;
  std::optional<store::Micros> until, due;
  for (const engine::StoreCleanupReport& s : stores) {
    kept += s.expired_kept;
    if (s.kept_until) until = std::min(until.value_or(*s.kept_until), *s.kept_until);
    if (s.remaining_due_at) {
      waiting += s.drain.remaining;
      due = std::min(due.value_or(*s.remaining_due_at), *s.remaining_due_at);
    }
  }
  if (waiting > 0) {
    VIGILO_RETURN_IF_ERROR(WriteStdout(
        std::to_string(waiting) + " recorded key" + (waiting == 1 ? "" : "s") +
        " of abandoned attempts become deletable at " + control::FormatWallTime(*due) +
        " (120 s after the writer's lease expired, in case a paused writer still finishes a create); run "
        "store cleanup again then\n"));
  }
  if (kept == 0) return Status::Ok();
  return WriteStdout(std::to_string(kept) + " unpublished attempt" + (kept == 1 ? " is" : "s are") +
                     " kept for a rerun to resume: idle for less than the grace period (" + grace +
                     "); the first becomes cleanup work at " + control::FormatWallTime(*until) +
                     " (--grace 0 cleans now)\n");
}

Status DryRun(engine::Context& context, const engine::CleanupOptions& options, const CleanupArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(engine::CleanupPlan plan, engine::PlanCleanup(context, options));
  const store::Micros now = context.wall_clock().Now();
  std::vector<Record> rows;
  uint64_t objects = 0, bytes = 0;
  for (const engine::CleanupCandidate& c : plan.candidates) {
    Record r;
    r.Add("store", json::Value(c.store));
    r.Add("name", json::Value(std::string(control::NamespaceName(c.attempt.ns)) + "/" + c.attempt.name));
    r.Add("attempt", json::Value(control::AttemptName(c.attempt.attempt)));
    r.Add("reason", json::Value(c.reason));
    r.Add("keys", json::Value::Uint(c.keys));
    r.Add("objects", json::Value::Uint(c.objects));
    r.Add("bytes", json::Value::Uint(c.bytes));
    r.Add("deletes", json::Value(WhenText(c.deletable_at, now)));
    rows.push_back(std::move(r));
    objects += c.objects;
    bytes += c.bytes;
  }
  Status first;
  for (const engine::StoreCleanupReport& s : plan.stores) {
    if (!s.drain.skipped.empty() && !args.output.json) {
      VIGILO_RETURN_IF_ERROR(WriteStdout("skipped " + s.drain.store + ": " + s.drain.skipped + "\n"));
    }
    if (!s.drain.status.ok()) {
      std::fprintf(stderr, "vigilo: %s: %s\n", s.drain.store.c_str(), ErrorText(s.drain.status).c_str());
      if (first.ok()) first = s.drain.status;
    }
  }
  if (!rows.empty()) {
    VIGILO_RETURN_IF_ERROR(PrintTable({"store", "name", "attempt", "reason", "keys", "objects", "bytes", "deletes"},
                                      rows, args.output));
  }
  if (!args.output.json) {
    if (rows.empty()) {
      VIGILO_RETURN_IF_ERROR(WriteStdout("dry run: nothing would be deleted\n"));
    } else {
      VIGILO_RETURN_IF_ERROR(WriteStdout("dry run: would delete " + std::to_string(objects) + " objects (" +
                                         std::to_string(bytes) + " bytes) of " + std::to_string(rows.size()) +
                                         " attempts; nothing was changed\n"));
    }
  }
  VIGILO_RETURN_IF_ERROR(PrintNotes(plan.stores, args.output, args.grace));
  return first;
}

Status Cleanup(const CleanupArgs& args) {
  engine::CleanupOptions options;
  VIGILO_ASSIGN_OR_RETURN(options.grace, ParseGrace(args.grace));  // before anything is opened
  if (!args.store.empty()) options.store_spec = args.store;
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext(args.stores_file));
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  options.cancel = &cancel;
  if (args.dry_run) return UnderFlag(DryRun(*context, options, args));
  Result<std::vector<engine::StoreCleanupReport>> cleaned = engine::CleanStores(*context, options);
  if (!cleaned.ok()) return UnderFlag(cleaned.status());
  const std::vector<engine::StoreCleanupReport>& reports = *cleaned;
  // No control state, or no store with work: a sentence for people, zero
  // records for programs.
  if (reports.empty()) return args.output.json ? Status::Ok() : WriteStdout("no cleanup work is due\n");
  Status first;
  std::vector<Record> rows;
  bool any_error = false, any_skipped = false;
  for (const engine::StoreCleanupReport& report : reports) {
    rows.push_back(ReportRecord(report));
    any_error = any_error || !report.drain.status.ok();
    any_skipped = any_skipped || !report.drain.skipped.empty();
    if (first.ok() && !report.drain.status.ok()) first = report.drain.status;
  }
  std::vector<std::string> columns = {"store", "abandoned", "deleted", "remaining", "kept", "directories_removed"};
  if (args.output.json) columns = {"store", "abandoned", "claimed", "deleted", "remaining", "remaining_due_at",
                                   "kept", "kept_until", "directories_removed"};
  if (any_skipped) columns.push_back("skipped");
  if (any_error) columns.push_back("error");
  VIGILO_RETURN_IF_ERROR(PrintTable(columns, rows, args.output));
  VIGILO_RETURN_IF_ERROR(PrintNotes(reports, args.output, args.grace));
  if (cancel.cancelled() && first.ok()) first = Cancelled("interrupted; unfinished cleanup stays recorded");
  return UnderFlag(first);
}

}  // namespace

void RegisterStoreCommands(CLI::App& app, Action* action) {
  auto* group = app.add_subcommand("store", "Object stores and the work the control ledger records for them");
  group->require_subcommand(1);
  auto args = std::make_shared<CleanupArgs>();
  auto* cleanup = group->add_subcommand(
      "cleanup",
      "Delete what unpublished upload attempts left: the recorded objects of abandoned attempts, and of attempts idle "
      "past their lease for the grace period (never a published one), then the directories that leaves empty; "
      "--dry-run lists them with their bytes. The control database is $VIGILO_CONTROL, else "
      "$XDG_DATA_HOME/vigilo/control.sqlite3");
  cleanup->add_option("--store", args->store,
                      "Only this store: a configured alias, or a directory (a path with '/', or file://); default: "
                      "every store with cleanup work")
      ->type_name("SPEC");
  cleanup->add_option("--stores", args->stores_file, kStoresFlagHelp);
  cleanup->add_option("--grace", args->grace,
                      "How long an unpublished attempt stays resumable after its lease expired (a killed or refused "
                      "run) before it is cleaned: 0, 90s, 30m, 2h, 7d (default 1h)")
      ->type_name("DURATION");
  cleanup->add_flag("--dry-run", args->dry_run,
                    "List what would be deleted, attempt by attempt, with its objects and bytes; change nothing");
  AddJsonFlag(cleanup, &args->output);
  cleanup->callback([args, action] { *action = [args] { return Cleanup(*args); }; });
}

}  // namespace vigilo::cli
