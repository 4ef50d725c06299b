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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  // The keys deleted (or found already gone) and forgotten: what a caller
  // tidying a local directory after the drain starts from.
  std::vector<std::string> deleted_keys;
  // Why this store was not drained, when it was not (a directory of another
  // host: only that host may open it); empty when it was.
  std::string skipped;
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

// ------------------------------------------------------------ store ids
// The identity a store has in the ledger (docs/format/stores.md, "Ledger
// store ids"), so that cleanup and readers find it again from any working
// directory and on any host that shares the control database:
//
//  - a configured (or registered) alias: the alias itself, "primary". An
//    alias names one store for every host sharing the control database;
//  - a local directory named by path or file:// URL:
//    "local://<host>/<absolute, normalized path>", qualified by the name of
//    the host that wrote it, so that the same path on two hosts is two
//    stores and a drain on one host never deletes another host's keys;
//  - "local:<absolute path>", the form before host qualification (one host
//    per database then), still read: as a directory of the host reading it.
//
// An alias has no ':', so the forms never overlap.
inline constexpr size_t kMaxHostNameBytes = 253;

// A host name as ledger ids record it: 1-253 bytes of [A-Za-z0-9._-] (what
// gethostname(2) gives; DNS labels and a NetBIOS-style name both fit).
// InvalidArgument naming the setting `host` otherwise (an empty one: this
// host's name is unknown).
Status ValidateHostName(std::string_view host);

struct LedgerStore {
  enum class Kind { kAlias, kLocalDirectory };
  Kind kind = Kind::kAlias;
  std::string alias;  // kAlias
  std::string host;   // kLocalDirectory: the writing host; empty for a legacy id
  std::string path;   // kLocalDirectory: absolute, normalized
  bool legacy() const { return kind == Kind::kLocalDirectory && host.empty(); }
  // A directory of `this_host` (a legacy id counts as every reader's own);
  // false for an alias.
  bool IsDirectoryOf(std::string_view this_host) const;
  // A directory of some other host than `this_host`.
  bool IsAnotherHostsDirectory(std::string_view this_host) const;
};

// InvalidFormat for text that is none of the three forms.
Result<LedgerStore> ParseLedgerStoreId(std::string_view id);

// The store id of attempts that write no object (a catalog binding: a root
// published under a lease, nothing created). Neither an alias nor a path,
// so it never opens a store; `vigilo store cleanup` abandons such an
// attempt once its lease has expired (a binder killed between its begin and
// its publish) and has no key to delete.
inline constexpr std::string_view kNoObjectsStoreId = "(no objects)";

// The id of the store `spec` resolved to (`spec` is what the user gave as
// `store`, `resolved` what ResolveStore made of it), written by `host`
// (ValidateHostName; only a local directory needs it).
Result<std::string> LedgerStoreId(std::string_view spec, const store::ResolvedStore& resolved, std::string_view host);

// The `store` spec that opens a ledger id on `host`: the alias itself, or
// the path of a directory of this host (legacy ids included).
// InvalidArgument, with the path `store`, for a directory of another host,
// naming that host and its path: it must never be opened here, where the
// same path is another directory; InvalidFormat for a malformed id.
Result<std::string> StoreSpecForLedgerId(std::string_view id, std::string_view host);

// The directory a ledger id names when it is one of `host`'s (legacy ids
// included); nullopt for an alias, another host's directory or a malformed id.
std::optional<std::string> LocalDirectoryOfLedgerId(std::string_view id, std::string_view host);

// Whether `recorded` (an id read from the ledger) names the store this
// process calls `current` (an id LedgerStoreId made here): equal ids, or
// the legacy form of the same directory (legacy ids are this host's).
bool SameLedgerStore(std::string_view recorded, std::string_view current);

// The ids the ledger may hold for `current`: itself and, for a directory,
// its legacy form (what an older vigilo on this host recorded).
std::vector<std::string> LedgerStoreIdForms(std::string_view current);

// A ledger id as a person reads it: the alias; "/path" for this host's
// directory; "/path on host H" for another host's.
std::string DescribeLedgerStore(std::string_view id, std::string_view host);

}  // namespace vigilo::control
