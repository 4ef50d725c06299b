// The control store: the one durable record of who is writing what (seed
// 004). Object stores hold immutable bytes and cannot be listed; this layer
// holds everything mutable around them:
//
//  - the attempt ledger: an attempt (UUID + generation) owns the staging
//    prefix <namespace>/<name>/attempts/<attempt_id>/g<generation>/, under a
//    lease with a fencing epoch, with its admission limits and every key it
//    will create, recorded before the create is issued;
//  - named roots: the published root reference of each dataset and run, by
//    name, with its full history.
//  - shard routes: the current worker route and route epoch of each shard
//    of a published run (never stored in an object).
//
// Every change is one transaction fenced by the caller's Lease: once another
// writer has taken the attempt over (a higher epoch), or the lease has
// expired, or the attempt is no longer active, the change is refused with
// `fenced`. Safety rests on the epoch compared inside the transaction, not
// on any clock: clocks only decide when a lease may be taken over.
//
// This header is the contract every backend implements (SQLite now,
// PostgreSQL later); src/control/*_test.cc run one parameterized suite over
// all of them. docs/architecture.md ("The control layer") has the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/common/uuid.h"
#include "vigilo/store/clock.h"

namespace vigilo::control {

using store::Micros;

// Named roots live in separate namespaces; the namespace is also the first
// segment of an attempt's staging prefix (docs/format/case-storage-v1.md).
// A namespace is data, not a closed set: seed 004's two (kDatasets, kRuns)
// and any a layer above adds (the catalog's publications) are each a name
// of 1-32 of [a-z0-9_] starting with a letter, and the control store keeps
// whichever it is given.
class Namespace {
 public:
  static const Namespace kDatasets;  // "datasets"
  static const Namespace kRuns;      // "runs"
  // InvalidArgument for a name outside the rule.
  static Result<Namespace> Named(std::string_view name);

  const std::string& name() const { return name_; }
  friend bool operator==(const Namespace&, const Namespace&) = default;
  friend auto operator<=>(const Namespace&, const Namespace&) = default;

 private:
  explicit Namespace(std::string name) : name_(std::move(name)) {}
  std::string name_;
};
inline const Namespace Namespace::kDatasets{"datasets"};
inline const Namespace Namespace::kRuns{"runs"};

inline std::string_view NamespaceName(const Namespace& ns) { return ns.name(); }
// Namespace::Named, for a namespace read back from storage.
Result<Namespace> ParseNamespace(std::string_view text);

inline constexpr size_t kMaxRootNameChars = 128;
// A root name: 1-128 of [A-Za-z0-9._-], not starting with '.' (so that it is
// a valid key segment, and exactly the rule of a dataset_id). InvalidFormat
// naming the rule otherwise.
Status ValidateRootName(std::string_view name);

// <namespace>/<name>/attempts/<attempt_id>/g<generation>/ — the same layout
// as cases::DatasetAttemptPrefix. Unique per attempt ID and generation, so
// one attempt's keys can never be another's.
std::string AttemptKeyPrefix(Namespace ns, std::string_view name, const Uuid& attempt_id, uint32_t generation);

// The attempt whose prefix holds `key`, when `key` lies under an attempt
// prefix (<namespace>/<name>/attempts/<uuid>/g<generation>/...); nullopt
// otherwise. Keys are the only link from an object back to its writer.
struct AttemptKey {
  Namespace ns = Namespace::kDatasets;
  std::string name;
  Uuid attempt_id;
  uint32_t generation = 0;
  std::string prefix;  // AttemptKeyPrefix of the above
};
std::optional<AttemptKey> AttemptOfKey(std::string_view key);

enum class AttemptState { kActive, kPublished, kAbandoned };
std::string_view AttemptStateName(AttemptState state);  // "active", "published", "abandoned"

// Limits on what callers may record (each refused with InvalidArgument).
inline constexpr size_t kMaxOwnerBytes = 256;
inline constexpr size_t kMaxStoreIdBytes = 4096;
inline constexpr size_t kMaxAdmissionLimitsBytes = 64 * 1024;
inline constexpr size_t kMaxRootValueBytes = 64 * 1024;
inline constexpr Micros kMaxLeaseDuration = Micros{24} * 3600 * 1'000'000;
// How long an attempt abandoned by someone other than its holder (its lease
// expired) waits before its keys become cleanup work: a writer paused in the
// middle of a create may still finish it, and the object-operation deadline
// (seed 004: 120 s) is how long a create may legitimately take.
inline constexpr Micros kDefaultAbandonSettle = Micros{120} * 1'000'000;

struct AttemptRef {
  Uuid attempt_id;
  uint32_t generation = 0;
  friend bool operator==(const AttemptRef&, const AttemptRef&) = default;
};
// "<attempt_id>/g<generation>", as errors name an attempt.
std::string AttemptName(const AttemptRef& ref);

// The fencing token a writer carries into every change it makes.
struct Lease {
  AttemptRef attempt;
  uint64_t epoch = 0;     // unique and increasing across the whole control store
  Micros expires_at = 0;  // wall-clock microseconds since the Unix epoch
  std::string key_prefix;
};

struct AttemptSpec {
  Namespace ns = Namespace::kDatasets;
  std::string name;                       // the root name it will publish (ValidateRootName)
  std::string store;                      // the store its keys live in (see LedgerStoreId)
  std::string owner;                      // who writes: diagnostics only (ProcessOwner())
  std::string admission_limits = "{}";    // a canonical JSON object, kept for resume
  std::optional<Uuid> attempt_id;         // none: a fresh random UUID (version 4)
  uint32_t generation = 1;                // ≥ 1
  Micros lease_duration = 0;              // (0, kMaxLeaseDuration]
};

struct AttemptRecord {
  AttemptRef attempt;
  Namespace ns = Namespace::kDatasets;
  std::string name;
  std::string store;
  std::string key_prefix;
  std::string owner;
  AttemptState state = AttemptState::kActive;
  uint64_t epoch = 0;
  Micros lease_expires_at = 0;
  std::string admission_limits;
  Micros created_at = 0;
  Micros updated_at = 0;
  std::optional<Micros> cleanup_due_at;  // abandoned attempts only
  std::vector<std::string> keys;         // recorded keys still in the ledger, sorted (GetAttempt only)
};

enum class PublishOutcome {
  kPublished,         // the name was free; it now holds the value
  kAlreadyIdentical,  // the name already held exactly these bytes: nothing changed
  kReplaced,          // ReplaceRoot swapped the expected value for the new one
};
std::string_view PublishOutcomeName(PublishOutcome outcome);

struct RootRecord {
  Namespace ns = Namespace::kDatasets;
  std::string name;
  uint64_t version = 0;  // 1 for the first publication, +1 per replace
  std::string value;     // the root reference: canonical JSON
  AttemptRef attempt;    // the attempt that published this version
  uint64_t epoch = 0;    // its fencing epoch then
  Micros published_at = 0;
  // Set when the name was retired at this version (GetRetiredRoot,
  // RetireRoot); a live name's record has none.
  std::optional<Micros> retired_at;
};

// What RetireRoot did.
struct RetiredRoot {
  RootRecord record;     // the version the name held, with retired_at
  bool already = false;  // it was retired before: nothing changed
};

// One recorded key of an abandoned attempt, due for deletion.
struct CleanupItem {
  AttemptRef attempt;
  std::string key;
};

struct CleanupFailure {
  CleanupItem item;
  std::string error;  // the Status as text, kept for `vigilo store cleanup`
};

// ------------------------------------------------------------ shard routes
// Where each shard of a published run is executed right now: an opaque
// worker-pool/route name and an epoch, per (run name, run_shard). This is
// routing metadata, kept here and never in an object (seed 004: "current
// route/epoch authority is resolved through routing metadata, not frozen
// into blobs"), so moving a shard rewrites no object. A shard that was never
// moved has no entry: workers treat it as route kDefaultRoute at epoch 0.
inline constexpr int32_t kRunShards = 128;  // run shards are 0..127
inline constexpr size_t kMaxRouteBytes = 256;
inline constexpr std::string_view kDefaultRoute = "default";

struct ShardRoute {
  std::string run;        // the run's root name (namespace runs)
  int32_t run_shard = 0;  // 0..kRunShards-1
  std::string route;      // non-secret pool/route name (ValidateShardRoute)
  uint64_t epoch = 0;     // 1 after the first move, +1 per move
  Micros updated_at = 0;  // wall time of the last move
  friend bool operator==(const ShardRoute&, const ShardRoute&) = default;
};

// InvalidArgument unless 0 <= run_shard < kRunShards.
Status ValidateRunShard(int32_t run_shard);
// A route: 1-256 bytes of [A-Za-z0-9._:/-] and no "://". The alphabet has
// no '@', '?', '=', '%' or '&', so no user info, query string or signature
// can be stored, and "://" keeps URLs (endpoints) out: a route names a pool,
// the pool's own configuration knows where it is. InvalidArgument otherwise
// (the message never repeats the route).
Status ValidateShardRoute(std::string_view route);

class ControlStore {
 public:
  virtual ~ControlStore() = default;

  // ------------------------------------------------------------ attempts
  // A new active attempt with a lease of spec.lease_duration and the next
  // fencing epoch. AlreadyExists if that attempt ID and generation were ever
  // used (prefixes are never reused); InvalidArgument/InvalidFormat for a
  // spec that breaks the rules above.
  virtual Result<Lease> BeginAttempt(const AttemptSpec& spec) = 0;

  // Takes over an active attempt whose lease has expired: same attempt ID,
  // generation and keys, a new owner and lease, and a higher epoch, so the
  // previous holder is fenced from now on. Unavailable while the lease is
  // held (the message says until when); AlreadyExists once published;
  // Fenced once abandoned; NotFound for an unknown attempt.
  virtual Result<Lease> ResumeAttempt(const AttemptRef& attempt, std::string_view owner,
                                      Micros lease_duration) = 0;

  // Extends the holder's lease to now + lease_duration (same epoch).
  virtual Result<Lease> RenewLease(const Lease& lease, Micros lease_duration) = 0;

  // Records keys the holder is about to create. Each must be a valid logical
  // key under the attempt's key prefix (InvalidArgument otherwise); a key
  // recorded twice is recorded once. All or nothing.
  virtual Status RecordKeys(const Lease& lease, std::span<const std::string> keys) = 0;
  Status RecordKey(const Lease& lease, std::string_view key);

  // The holder gives up: its recorded keys become cleanup work at once.
  virtual Status Abandon(const Lease& lease) = 0;
  // Anyone gives up an active attempt whose lease has expired (a writer that
  // died). Its keys become cleanup work after `settle` (kDefaultAbandonSettle
  // in production). Unavailable while the lease is held.
  virtual Status AbandonExpired(const AttemptRef& attempt, Micros settle) = 0;

  // The attempt with its recorded keys; NotFound if unknown.
  virtual Result<AttemptRecord> GetAttempt(const AttemptRef& attempt) = 0;
  // The attempts for one root name, oldest first, without keys: how a
  // restarted writer finds what it may resume.
  virtual Result<std::vector<AttemptRecord>> ListAttempts(Namespace ns, std::string_view name) = 0;

  // ------------------------------------------------------------ named roots
  // Publishes `value` (canonical JSON) under the attempt's own name, and
  // marks the attempt published: from then on none of its keys can become
  // cleanup work. kPublished when the name was free, kAlreadyIdentical when
  // it held exactly these bytes (the attempt is marked published too: what
  // it created is kept rather than risk deleting what a root references).
  // AlreadyExists, naming the current version, when the name holds another
  // value: that takes ReplaceRoot. Fenced unless the lease is current.
  virtual Result<PublishOutcome> PublishRoot(const Lease& lease, std::string_view value) = 0;

  // Compare-and-set: replaces the name's current value, which must be
  // exactly `expected` (AlreadyExists naming the current version otherwise;
  // NotFound when nothing is published yet). The old version stays in the
  // history and its attempt stays published. kAlreadyIdentical when the
  // current value already is `value`.
  virtual Result<PublishOutcome> ReplaceRoot(const Lease& lease, std::string_view expected,
                                             std::string_view value) = 0;

  // The current version, or nullopt when nothing is published under the name.
  virtual Result<std::optional<RootRecord>> GetRoot(Namespace ns, std::string_view name) = 0;
  // Every version ever published under the name, oldest first, retired
  // ones too (with the time each was retired).
  virtual Result<std::vector<RootRecord>> RootHistory(Namespace ns, std::string_view name) = 0;
  // Every name of a namespace with its current version, by name (retired
  // names are not listed).
  virtual Result<std::vector<RootRecord>> ListRoots(Namespace ns) = 0;

  // Takes a published name out of service (schema version 4): from then on
  // GetRoot and ListRoots do not return it, MoveShard and ShardRoutes treat
  // a retired run as unpublished, and a publication under the name starts
  // the next version as on a free name. RootHistory keeps every version,
  // and their attempts stay published, so nothing they reference ever
  // becomes cleanup work. With `expected_version`, a compare-and-set:
  // AlreadyExists unless that is the current version. A retired name is
  // retired once (`already`, no change); NotFound when nothing was ever
  // published under it.
  virtual Result<RetiredRoot> RetireRoot(Namespace ns, std::string_view name,
                                         std::optional<uint64_t> expected_version) = 0;
  // The version a retired name held when it was retired (retired_at set);
  // nullopt when the name is live or was never published.
  virtual Result<std::optional<RootRecord>> GetRetiredRoot(Namespace ns, std::string_view name) = 0;

  // ------------------------------------------------------------ cleanup
  // Claims up to `max_items` due keys on `store`: recorded keys of abandoned
  // attempts whose cleanup is due and not claimed by another drain. Their
  // attempts stay claimed until FinishCleanup or for `claim_duration`, so
  // concurrent drains do not repeat each other's deletes (repeating one is
  // harmless: deletes are idempotent). Keys of a published or active attempt
  // are never returned.
  virtual Result<std::vector<CleanupItem>> ClaimCleanup(std::string_view store, size_t max_items,
                                                        Micros claim_duration) = 0;
  // Forgets the deleted keys, records why the failed ones failed, and
  // releases the claims of every claimed item's attempt. Keys not deleted
  // (failed, or never tried) stay recorded.
  virtual Status FinishCleanup(std::span<const CleanupItem> claimed, std::span<const CleanupItem> deleted,
                               std::span<const CleanupFailure> failed) = 0;
  // The stores with cleanup work due now (claimed or not), sorted.
  virtual Result<std::vector<std::string>> StoresWithDueCleanup() = 0;
  // Recorded keys of abandoned attempts on `store`, due or not.
  virtual Result<uint64_t> PendingCleanupKeys(std::string_view store) = 0;
  // The abandoned attempts on `store` that still have recorded keys, due or
  // not, by cleanup due time, without keys (GetAttempt has them): what
  // drains will delete, for a dry run. Nothing is claimed.
  virtual Result<std::vector<AttemptRecord>> AttemptsAwaitingCleanup(std::string_view store) = 0;
  // Active attempts on `store` whose lease expired at or before
  // `expired_by`, by lease expiry, without keys: writers that died (kill -9)
  // or released their lease to be resumed (a refused name, a retryable
  // failure). Never a published attempt. `vigilo store cleanup` abandons
  // them (AbandonExpired) once a grace period has passed.
  virtual Result<std::vector<AttemptRecord>> ExpiredAttempts(std::string_view store, Micros expired_by) = 0;
  // The stores with such attempts, sorted.
  virtual Result<std::vector<std::string>> StoresWithExpiredAttempts(Micros expired_by) = 0;

  // ------------------------------------------------------------ shard routes
  // Moves one shard of the published run `run` to `route`, as one
  // transaction: epoch 1 for a shard's first move, then +1 per move (a move
  // to the route it is already on counts too: it fences the old epoch's
  // workers). With `expected_epoch`, a compare-and-set: Fenced ("route epoch
  // is N, not M") unless the shard's current epoch is exactly that (0 for a
  // shard never moved). NotFound when no run of that name is published;
  // InvalidArgument/InvalidFormat for a bad shard, route or name.
  virtual Result<ShardRoute> MoveShard(std::string_view run, int32_t run_shard, std::string_view route,
                                       std::optional<uint64_t> expected_epoch) = 0;
  // The routes of the run's shards moved so far, by run_shard (shards never
  // moved have no entry: route kDefaultRoute, epoch 0). NotFound when no run
  // of that name is published.
  virtual Result<std::vector<ShardRoute>> ShardRoutes(std::string_view run) = 0;
};

// "<hostname>:<pid>": the owner recorded for this process's attempts.
std::string ProcessOwner();

// The wall clock leases and ledger timestamps use: std::chrono::system_clock
// in microseconds since the Unix epoch. Leases span processes (and later
// machines), so a monotonic clock, which is per boot, cannot express them;
// tests inject a store::ManualClock instead. SleepFor sleeps on the steady
// clock.
class SystemWallClock final : public store::Clock {
 public:
  Micros Now() override;
  Status SleepFor(Micros duration, const store::CancelToken* cancel) override;
};
store::Clock& DefaultWallClock();

// "2026-05-01T12:00:00.250000Z": wall-clock micros as errors print them.
std::string FormatWallTime(Micros unix_micros);

}  // namespace vigilo::control
