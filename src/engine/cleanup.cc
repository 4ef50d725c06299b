#include "vigilo/engine/cleanup.h"

#include <utility>

namespace vigilo::engine {
namespace {

// Adds one drain of the same store under another of its ids (the legacy
// form of a directory's id) to `into`.
void Merge(control::CleanupReport& into, const control::CleanupReport& more) {
  into.claimed += more.claimed;
  into.deleted += more.deleted;
  into.remaining += more.remaining;
  if (into.status.ok()) into.status = more.status;
}

// One store, resolved for writing (cleanup deletes), drained of the work
// recorded under each of `ids` (what the ledger calls it); the report names
// `ids.front()`.
control::CleanupReport DrainStore(Context& context, control::ControlStore& ledger,
                                  const Result<store::ResolvedStore>& resolved, const std::vector<std::string>& ids,
                                  const store::CancelToken* cancel) {
  control::CleanupReport report;
  report.store = ids.front();
  if (!resolved.ok()) {
    report.status = resolved.status();
    return report;
  }
  for (const std::string& id : ids) {
    control::CleanupReport one = control::DrainCleanup(ledger, id, *resolved->store, context.governor(), cancel);
    Merge(report, one);
  }
  return report;
}

// A store of the ledger this host must not open: a directory of another
// host. Reported with what is recorded for it, never drained.
control::CleanupReport Skipped(control::ControlStore& ledger, const std::string& id, const control::LedgerStore& where) {
  control::CleanupReport report;
  report.store = id;
  report.skipped = "a directory of the host " + where.host + ": its cleanup runs there";
  Result<uint64_t> remaining = ledger.PendingCleanupKeys(id);
  if (remaining.ok()) report.remaining = *remaining;
  report.status = remaining.status();
  return report;
}

}  // namespace

Result<std::vector<control::CleanupReport>> DrainDueCleanup(Context& context, const std::optional<std::string>& store_spec,
                                                           const store::CancelToken* cancel) {
  VIGILO_RETURN_IF_ERROR(context.StoresConfig().status());
  const std::string& host = context.settings().host;
  std::vector<control::CleanupReport> reports;
  Result<control::ControlStore*> opened = context.ExistingControl();
  if (!opened.ok() && opened.status().code() == StatusCode::kNotFound) return reports;
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * ledger, std::move(opened));
  if (store_spec) {
    // The store the user named, under its id and (a directory of this
    // host) the legacy id an older vigilo recorded for it.
    Result<store::ResolvedStore> resolved = context.OpenStore(*store_spec, store::OpenOptions{.writable = true});
    VIGILO_RETURN_IF_ERROR(resolved.status());
    VIGILO_ASSIGN_OR_RETURN(std::string id, control::LedgerStoreId(*store_spec, *resolved, host));
    reports.push_back(DrainStore(context, *ledger, resolved, control::LedgerStoreIdForms(id), cancel));
    return reports;
  }
  VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> due, ledger->StoresWithDueCleanup());
  for (const std::string& id : due) {
    if (cancel != nullptr && cancel->cancelled()) break;
    Result<control::LedgerStore> where = control::ParseLedgerStoreId(id);
    if (where.ok() && where->IsAnotherHostsDirectory(host)) {
      reports.push_back(Skipped(*ledger, id, *where));
      continue;
    }
    Result<std::string> spec = control::StoreSpecForLedgerId(id, host);
    if (!spec.ok()) {
      control::CleanupReport report;
      report.store = id;
      report.status = spec.status();
      reports.push_back(std::move(report));
      continue;
    }
    reports.push_back(
        DrainStore(context, *ledger, context.OpenStore(*spec, store::OpenOptions{.writable = true}), {id}, cancel));
  }
  return reports;
}

}  // namespace vigilo::engine
