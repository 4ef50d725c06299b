#include "vigilo/engine/cleanup.h"

namespace vigilo::engine {
namespace {

// One store: resolved for writing (cleanup deletes), named as the ledger
// names it, drained.
control::CleanupReport DrainStore(Context& context, control::ControlStore& ledger, const std::string& spec,
                                  const std::optional<std::string>& known_id, const store::CancelToken* cancel) {
  control::CleanupReport report;
  report.store = known_id.value_or(spec);
  Result<store::ResolvedStore> resolved = context.OpenStore(spec, store::OpenOptions{.writable = true});
  if (!resolved.ok()) {
    report.status = resolved.status();
    return report;
  }
  Result<std::string> id = control::LedgerStoreId(spec, *resolved);
  if (!id.ok()) {
    report.status = id.status();
    return report;
  }
  return control::DrainCleanup(ledger, *id, *resolved->store, context.governor(), cancel);
}

}  // namespace

Result<std::vector<control::CleanupReport>> DrainDueCleanup(Context& context, const std::optional<std::string>& store_spec,
                                                           const store::CancelToken* cancel) {
  VIGILO_RETURN_IF_ERROR(context.StoresConfig().status());
  std::vector<control::CleanupReport> reports;
  Result<control::ControlStore*> opened = context.ExistingControl();
  if (!opened.ok() && opened.status().code() == StatusCode::kNotFound) return reports;
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * ledger, std::move(opened));
  if (store_spec) {
    reports.push_back(DrainStore(context, *ledger, *store_spec, std::nullopt, cancel));
    return reports;
  }
  VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> due, ledger->StoresWithDueCleanup());
  for (const std::string& id : due) {
    if (cancel != nullptr && cancel->cancelled()) break;
    reports.push_back(DrainStore(context, *ledger, control::StoreSpecForLedgerId(id), id, cancel));
  }
  return reports;
}

}  // namespace vigilo::engine
