// Where a publishing command writes: the object store (and the governor
// every request to it goes through), the alias its references record, and
// the control store that owns attempts, leases and named roots.
#pragma once

#include <string>
#include <string_view>

#include "vigilo/cases/object_ref.h"
#include "vigilo/control/control_store.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/object_store.h"

namespace vigilo::engine {

struct WriteTarget {
  control::ControlStore* control = nullptr;
  // The opened store: a remote one is already governed by the dispatcher;
  // the attempt writer governs it again only to add its cancel token (a call
  // that arrives governed passes through: GovernedStore).
  store::ObjectStore* store = nullptr;
  store::RequestGovernor* governor = nullptr;  // governs every request to it
  std::string alias;                           // recorded in every reference
  std::string ledger_store_id;                 // control::LedgerStoreId of the store
  // The store's directory when it is a local one (engine::LocalRootOfStore):
  // cleanup removes the directories its deletes leave empty. "" otherwise.
  std::string local_root;
  store::Clock* wall_clock = nullptr;          // leases (control::DefaultWallClock())
  store::RandomSource* random = nullptr;       // identifiers drawn once (run ids); null: store::DefaultRandom()
};


// What publishing a root under a name did.
enum class RootOutcome {
  kPublished,  // the name was free (or already held exactly this root)
  kReplaced,   // `replace`: the name held another root, which this one replaced
  kUnchanged,  // the name already held the same content: nothing was published
};
std::string_view RootOutcomeName(RootOutcome outcome);  // "published", "replaced", "unchanged"

// What publishing a root did: every publishing operation's result starts
// with it (IngestResult, PlanRunResult).
struct PublicationReport {
  RootOutcome outcome = RootOutcome::kPublished;
  std::string name;
  uint64_t root_version = 0;
  cases::ObjectRef root;  // the root reference the name now holds
  control::AttemptRef attempt;
  bool resumed = false;
  uint64_t objects_written = 0;   // created by this run
  uint64_t objects_replayed = 0;  // already there, verified identical (a resumed attempt's)
  uint64_t bytes_written = 0;     // bytes of the objects this run created
  uint64_t cleanup_deleted = 0;   // objects of abandoned attempts deleted on this store
};

// Everything a write needs is there, the alias is valid and the store can
// be written safely (conditional creates, read after create).
Status CheckWriteTarget(const WriteTarget& target);

}  // namespace vigilo::engine
