// Durable cleanup: deleting the recorded keys of abandoned attempts from
// their store, under seed 004's failed-attempt cleanup budget (30 s, the
// governor's cleanup_deadline_ms). What a drain does not finish — the
// budget ran out, the caller cancelled (SIGINT), a delete failed — stays
// recorded in the ledger; the next writing command on that store drains it
// first, and `vigilo store cleanup` drains it explicitly.
//
// Only keys of abandoned attempts are ever deleted, and an attempt's state
// never leaves published or abandoned, so nothing a published root
// references is ever deleted (given that a root references only keys under
// its own attempt's prefix, which is how every vigilo writer lays keys out).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/control/control_store.h"
#include "vigilo/store/config.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/object_store.h"

namespace vigilo::control {

// Keys claimed per drain: bounds the memory of one drain (keys are at most
// 1 KiB); the rest stays due for the next one.
inline constexpr size_t kMaxCleanupKeysPerDrain = 4096;

struct CleanupReport {
  std::string store;        // the ledger's store id
  uint64_t claimed = 0;     // due keys this drain took on
  uint64_t deleted = 0;     // deleted (or already gone) and forgotten
  uint64_t remaining = 0;   // recorded keys of abandoned attempts still on this store (due or not)
  // OK when everything claimed was deleted; otherwise the governor's
  // CleanupOutcome status (DeadlineExceeded: budget; Cancelled; the first
  // failed delete), or the control store's own error.
  Status status;
};

// Drains the due cleanup work of `store_id` from `store`, which must be the
// backend itself, not a GovernedStore: each delete runs as one governed
// operation of `governor`'s RunCleanup (a permit, retries on transient
// failures, one cleanup budget for the whole drain). `cancel` stops it
// between and during deletes. Writing commands call this before they write.
CleanupReport DrainCleanup(ControlStore& control, std::string_view store_id, store::ObjectStore& store,
                           store::RequestGovernor& governor, const store::CancelToken* cancel = nullptr);

// The identity a store has in the ledger, so cleanup finds it again from any
// working directory: the configured alias, or for a local directory named by
// path or file:// URL "local:" + its absolute, normalized path. `spec` is
// what the user gave --store (what ResolveStore resolved).
Result<std::string> LedgerStoreId(std::string_view spec, const store::ResolvedStore& resolved);

// The inverse, for `vigilo store cleanup` without --store: the --store spec
// that opens a ledger store id (the alias itself, or the local path).
std::string StoreSpecForLedgerId(std::string_view store_id);

}  // namespace vigilo::control
