// Cleaning stores of what unpublished attempts left (docs/format/
// case-storage-ingest.md, "Cleanup"): what `vigilo store cleanup` runs, and
// what a binding calls.
//
//  - Keys of abandoned attempts that are due are deleted (control::
//    DrainCleanup), drain after drain until none is due.
//  - Active attempts whose lease expired more than `grace` ago (a writer
//    that was killed, or a lease released so that a rerun could resume: a
//    refused name, a retryable failure) are abandoned first, so their keys
//    are deleted in the same run. Within the grace they are kept for a rerun
//    to resume, and reported.
//  - In a local directory, the directories the deleted keys leave empty are
//    removed (and a dead writer's temporary files in its own attempt's
//    directories), so nothing empty is left behind.
//  - A directory of another host is never opened (issue 33): reported.
//
// Only keys the ledger recorded for an attempt are ever deleted, and only
// when that attempt is abandoned; a published attempt is never abandoned.
// Nothing is listed: every key comes from the ledger.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/engine/context.h"
#include "vigilo/store/clock.h"

namespace vigilo::engine {

// How long after its lease expired an unpublished attempt is kept for a
// rerun to resume before `store cleanup` abandons it (decision, issue 34).
inline constexpr store::Micros kDefaultCleanupGrace = store::Micros{3600} * 1'000'000;
inline constexpr store::Micros kMaxCleanupGrace = store::Micros{366} * 24 * 3600 * 1'000'000;

struct CleanupOptions {
  // That store only (a `store` spec); none: every store the ledger has
  // cleanup work or expired attempts on.
  std::optional<std::string> store_spec;
  // 0 to kMaxCleanupGrace (InvalidArgument naming `grace` otherwise).
  store::Micros grace = kDefaultCleanupGrace;
  // Stops between and during deletes; what is not deleted stays recorded.
  const store::CancelToken* cancel = nullptr;
};

// One store's cleanup.
struct StoreCleanupReport {
  control::CleanupReport drain;  // store id, claimed, deleted, remaining, skipped, status
  uint64_t expired_abandoned = 0;     // expired attempts past the grace abandoned by this run
  uint64_t expired_kept = 0;          // expired attempts within the grace, kept for a rerun
  std::optional<store::Micros> kept_until;  // when the first kept one passes the grace
  // With drain.remaining > 0: when the first remaining key becomes deletable
  // (an attempt abandoned within the settle time after its lease expired).
  std::optional<store::Micros> remaining_due_at;
  uint64_t directories_removed = 0;   // emptied directories (and dead temporaries) removed
};

// Cleans one store (`store_spec`) or every store with work; one report per
// store, in the ledger's order (a store that could not be opened or drained
// has its error in its report; the others still run). No control state
// yet: nothing to do (an empty list).
Result<std::vector<StoreCleanupReport>> CleanStores(Context& context, const CleanupOptions& options);

// What CleanStores would delete now, attempt by attempt (a dry run:
// nothing is abandoned, claimed or deleted).
struct CleanupCandidate {
  std::string store;                // the ledger's id
  control::AttemptRecord attempt;   // without keys
  // "abandoned" (its keys are cleanup work already) or "expired" (an
  // active attempt past its lease and the grace, which a run abandons).
  std::string reason;
  uint64_t keys = 0;                // recorded keys
  uint64_t objects = 0;             // of them, objects that exist
  uint64_t bytes = 0;               // their bytes (Head)
  // When its keys may be deleted: now, or after the settle time that lets a
  // paused writer's create land (control::kDefaultAbandonSettle).
  store::Micros deletable_at = 0;
};
struct CleanupPlan {
  std::vector<CleanupCandidate> candidates;
  // Per store: expired attempts kept for the grace, and stores skipped
  // (another host's directory) or failing (status).
  std::vector<StoreCleanupReport> stores;
};
Result<CleanupPlan> PlanCleanup(Context& context, const CleanupOptions& options);

// The directory on this host of the store a ledger id names: this host's
// directory (a legacy id too), or an alias configured as a file:// URL;
// "" otherwise (a remote store, another host's directory).
std::string LocalRootOfStore(Context& context, std::string_view ledger_store_id);

// Removes the directories below `root` (a local store's directory) that the
// deletion of `deleted_keys` left empty: each key's parent directories,
// deepest first, while empty, up to the attempt's own prefix; above it
// <namespace>/<name>/attempts and <namespace>/<name> only while `ledger`
// knows no active attempt of that name on the store (`store_ids`, its ids),
// and <namespace> only while it knows none on the store at all, so that a
// writer creating its directories there is not raced: a writer records its
// attempt before it creates anything. Inside an attempt's own
// prefix a dead writer's temporary file (".<name>.tmp-<pid>-<hex>" of a
// process that is gone) does not keep a directory. Returns how many
// directories and files were removed; failures are ignored (a later
// cleanup retries).
uint64_t RemoveEmptiedDirectories(const std::string& root, std::span<const std::string> deleted_keys,
                                  control::ControlStore& ledger, std::span<const std::string> store_ids);

}  // namespace vigilo::engine
