// Taking names out of service and cleaning stores from Python: `dataset
// retire`, `run retire` (engine::RetirePublishedRoot) and `store cleanup`
// [--dry-run] (engine::CleanStores, PlanCleanup). The records are the CLI's
// `--json` records field for field, built from the same engine results.
#include <optional>
#include <string>
#include <vector>

#include "errors.h"
#include "interrupt.h"
#include "roots.h"
#include "vigilo/engine/cleanup.h"

namespace vigilo::python {
namespace {

json::Value WallTime(std::optional<store::Micros> at) {
  return at ? json::Value(control::FormatWallTime(*at)) : json::Value();
}

// `dataset retire NAME [--force]`, `run retire NAME`.
py::object Retire(Session& session, const std::string& ns_name, const std::string& name, bool force) {
  const control::Namespace ns = Unwrap(control::Namespace::Named(ns_name));
  // The name's form first, in the CLI's words: nothing is opened for a malformed one.
  if (Status s = control::ValidateRootName(name); !s.ok()) {
    Check(InvalidArgument("\"" + name + "\" is not a name: " + std::string(s.message())));
  }
  engine::RetireResult retired = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(session.mutex());
    return Unwrap(engine::RetirePublishedRoot(session.context(), ns, name, engine::RetireOptions{.force = force}));
  }();
  const control::RootRecord& record = retired.retired.record;
  json::Object r;
  r.Set("outcome", json::Value(retired.retired.already ? "already_retired" : "retired"));
  r.Set("name", json::Value(record.name));
  r.Set("version", json::Value::Uint(record.version));
  r.Set("retired_at", WallTime(record.retired_at));
  if (ns == control::Namespace::kDatasets) {
    json::Array readers;
    for (const std::string& run : retired.readers) readers.push_back(json::Value(run));
    r.Set("read_by_runs", json::Value(std::move(readers)));
  }
  return ToPython(json::Value(std::move(r)));
}

// One row per store of `store cleanup --json`.
json::Value ReportJson(const engine::StoreCleanupReport& report) {
  const control::CleanupReport& d = report.drain;
  json::Object r;
  r.Set("store", json::Value(d.store));
  r.Set("abandoned", json::Value::Uint(report.expired_abandoned));
  r.Set("claimed", json::Value::Uint(d.claimed));
  r.Set("deleted", json::Value::Uint(d.deleted));
  r.Set("remaining", json::Value::Uint(d.remaining));
  r.Set("kept", json::Value::Uint(report.expired_kept));
  r.Set("kept_until", WallTime(report.kept_until));
  r.Set("remaining_due_at", WallTime(report.remaining_due_at));
  r.Set("directories_removed", json::Value::Uint(report.directories_removed));
  if (!d.skipped.empty()) r.Set("skipped", json::Value(d.skipped));
  if (!d.status.ok()) r.Set("error", json::Value(d.status.ToString()));
  return json::Value(std::move(r));
}

// One row per attempt of `store cleanup --dry-run --json`.
json::Value CandidateJson(const engine::CleanupCandidate& c, store::Micros now) {
  json::Object r;
  r.Set("store", json::Value(c.store));
  r.Set("name", json::Value(std::string(control::NamespaceName(c.attempt.ns)) + "/" + c.attempt.name));
  r.Set("attempt", json::Value(control::AttemptName(c.attempt.attempt)));
  r.Set("reason", json::Value(c.reason));
  r.Set("keys", json::Value::Uint(c.keys));
  r.Set("objects", json::Value::Uint(c.objects));
  r.Set("bytes", json::Value::Uint(c.bytes));
  r.Set("deletes", json::Value(c.deletable_at <= now ? "now" : control::FormatWallTime(c.deletable_at)));
  return json::Value(std::move(r));
}

// `store cleanup [--store SPEC] [--grace] [--dry-run] --json`: the rows,
// and the stores that failed (a row's "error"; the CLI prints them on
// stderr and exits non-zero, the binding leaves them in the rows).
py::object Cleanup(Session& session, const std::string& store, int64_t grace_seconds, bool dry_run) {
  engine::CleanupOptions options;
  if (!store.empty()) options.store_spec = store;
  if (grace_seconds < 0 || grace_seconds > engine::kMaxCleanupGrace / 1'000'000) {
    Check(InvalidArgument("the grace period is 0 to 366 days, got " + std::to_string(grace_seconds) + " s")
              .WithPath("grace"));
  }
  options.grace = grace_seconds * 1'000'000;
  store::CancelToken cancel;
  InterruptGuard interrupt(cancel);
  options.cancel = &cancel;
  json::Array rows;
  Status done = [&]() -> Status {
    py::gil_scoped_release release;
    std::lock_guard lock(session.mutex());
    if (dry_run) {
      VIGILO_ASSIGN_OR_RETURN(engine::CleanupPlan plan, engine::PlanCleanup(session.context(), options));
      const store::Micros now = session.context().wall_clock().Now();
      for (const engine::CleanupCandidate& c : plan.candidates) rows.push_back(CandidateJson(c, now));
      return Status::Ok();
    }
    VIGILO_ASSIGN_OR_RETURN(std::vector<engine::StoreCleanupReport> reports,
                            engine::CleanStores(session.context(), options));
    for (const engine::StoreCleanupReport& report : reports) rows.push_back(ReportJson(report));
    return Status::Ok();
  }();
  Check(interrupt.Explain(done, "what was not deleted stays recorded for the next cleanup"));
  return ToPython(json::Value(std::move(rows)));
}

}  // namespace

void BindMaintenance(py::class_<Session, std::shared_ptr<Session>>& session) {
  session.def("retire", &Retire, py::arg("namespace"), py::arg("name"), py::arg("force") = false);
  session.def("cleanup", &Cleanup, py::arg("store") = "", py::arg("grace_seconds") = 3600,
              py::arg("dry_run") = false);
}

}  // namespace vigilo::python
