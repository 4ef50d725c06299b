#include "vigilo/control/cleanup.h"

#include <vector>

namespace vigilo::control {

CleanupReport DrainCleanup(ControlStore& control, std::string_view store_id, store::ObjectStore& store,
                           store::RequestGovernor& governor, const store::CancelToken* cancel) {
  CleanupReport report;
  report.store = std::string(store_id);
  // The claim outlives the drain's budget (plus one delete in flight), so
  // no other drain repeats these deletes while this one may still run them;
  // a drain that died releases its claim by letting it expire.
  const Micros budget =
      std::chrono::duration_cast<std::chrono::microseconds>(governor.limits().cleanup_deadline_ms).count();
  const Micros claim = 2 * budget +
      std::chrono::duration_cast<std::chrono::microseconds>(governor.limits().object_operation_deadline_ms).count();
  Result<std::vector<CleanupItem>> claimed = control.ClaimCleanup(store_id, kMaxCleanupKeysPerDrain, claim);
  if (!claimed.ok()) {
    report.status = claimed.status();
    return report;
  }
  const std::vector<CleanupItem>& items = *claimed;
  report.claimed = items.size();

  std::vector<Status> last(items.size());
  store::CleanupOutcome outcome;
  if (!items.empty()) {
    outcome = governor.RunCleanup(
        "cleanup of " + report.store, items.size(),
        [&](size_t step, const store::AttemptContext&) {
          last[step] = store.Delete(items[step].key);
          return last[step];
        },
        cancel);
  }

  std::vector<bool> unfinished(items.size(), false);
  for (size_t step : outcome.unfinished) unfinished[step] = true;
  std::vector<CleanupItem> deleted;
  std::vector<CleanupFailure> failed;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!unfinished[i]) {
      deleted.push_back(items[i]);
    } else if (!last[i].ok()) {
      failed.push_back(CleanupFailure{items[i], last[i].ToString()});
    }
    // Unfinished and never tried (the budget ran out, or cancelled): it
    // stays recorded as it was.
  }
  Status finish = control.FinishCleanup(items, deleted, failed);
  if (finish.ok()) {
    report.deleted = deleted.size();
    report.deleted_keys.reserve(deleted.size());
    for (const CleanupItem& item : deleted) report.deleted_keys.push_back(item.key);
  }
  Result<uint64_t> remaining = control.PendingCleanupKeys(store_id);
  if (remaining.ok()) report.remaining = *remaining;
  report.status = !finish.ok() ? finish : !outcome.status.ok() ? outcome.status : remaining.status();
  return report;
}

}  // namespace vigilo::control
