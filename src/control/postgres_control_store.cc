// The PostgreSQL backend of the control store. One connection per store
// object, used under a mutex. Every change is one READ COMMITTED
// transaction that locks what it decides on before it reads it: the
// attempt row (SELECT … FOR UPDATE), the fencing row (UPDATE … RETURNING),
// and, for anything that reads and writes a root name or its shard routes,
// a transaction-scoped advisory lock on that name (a name not yet published
// has no row to lock). The shared rules (ledger_rules.h) then decide on what
// was read, and the write commits in the same transaction, so two processes
// can never both pass a fence check on one epoch. Why row locks and not
// SERIALIZABLE: docs/format/control-postgresql.md, "Fencing".
#include "vigilo/control/postgres_control_store.h"

#include <mutex>
#include <set>

#include "ledger_rules.h"
#include "pg_db.h"
#include "pg_schema.h"

namespace vigilo::control {
namespace {

using pg::P;
using pg::Rows;
using pg::Session;

constexpr std::string_view kAttemptColumns =
    "attempt_id, generation, namespace, name, store, key_prefix, owner, state, epoch, lease_expires_at, "
    "admission_limits, created_at, updated_at, cleanup_due_at";
constexpr std::string_view kRootColumns =
    "h.namespace, h.name, h.version, h.value, h.attempt_id, h.generation, h.epoch, h.published_at";
constexpr std::string_view kRouteColumns = "run, run_shard, route, epoch, updated_at";

Result<AttemptState> ParseState(std::string_view text) {
  if (text == "active") return AttemptState::kActive;
  if (text == "published") return AttemptState::kPublished;
  if (text == "abandoned") return AttemptState::kAbandoned;
  return InvalidFormat("the control database holds an unknown attempt state \"" + std::string(text) + "\"");
}

Result<AttemptRef> ReadRef(const Rows& rows, int row, int column) {
  VIGILO_ASSIGN_OR_RETURN(Uuid id, Uuid::Parse(rows.Text(row, column)));
  return AttemptRef{id, static_cast<uint32_t>(rows.Int(row, column + 1))};
}

Result<AttemptRecord> ReadAttempt(const Rows& rows, int i) {
  AttemptRecord r;
  VIGILO_ASSIGN_OR_RETURN(r.attempt, ReadRef(rows, i, 0));
  VIGILO_ASSIGN_OR_RETURN(r.ns, ParseNamespace(rows.Text(i, 2)));
  r.name = rows.Text(i, 3);
  r.store = rows.Text(i, 4);
  r.key_prefix = rows.Text(i, 5);
  r.owner = rows.Text(i, 6);
  VIGILO_ASSIGN_OR_RETURN(r.state, ParseState(rows.Text(i, 7)));
  r.epoch = static_cast<uint64_t>(rows.Int(i, 8));
  r.lease_expires_at = rows.Int(i, 9);
  r.admission_limits = rows.Text(i, 10);
  r.created_at = rows.Int(i, 11);
  r.updated_at = rows.Int(i, 12);
  if (!rows.IsNull(i, 13)) r.cleanup_due_at = rows.Int(i, 13);
  return r;
}

Result<std::vector<AttemptRecord>> ReadAttempts(const Rows& rows) {
  std::vector<AttemptRecord> out;
  for (int i = 0; i < rows.size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, ReadAttempt(rows, i));
    out.push_back(std::move(row));
  }
  return out;
}

// kRootColumns, then retired_at when `with_retired`.
Result<RootRecord> ReadRoot(const Rows& rows, int i, bool with_retired) {
  RootRecord r;
  VIGILO_ASSIGN_OR_RETURN(r.ns, ParseNamespace(rows.Text(i, 0)));
  r.name = rows.Text(i, 1);
  r.version = static_cast<uint64_t>(rows.Int(i, 2));
  r.value = rows.Text(i, 3);
  VIGILO_ASSIGN_OR_RETURN(r.attempt, ReadRef(rows, i, 4));
  r.epoch = static_cast<uint64_t>(rows.Int(i, 6));
  r.published_at = rows.Int(i, 7);
  if (with_retired && !rows.IsNull(i, 8)) r.retired_at = rows.Int(i, 8);
  return r;
}

Result<std::vector<RootRecord>> ReadRoots(const Rows& rows, bool with_retired) {
  std::vector<RootRecord> out;
  for (int i = 0; i < rows.size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(RootRecord record, ReadRoot(rows, i, with_retired));
    out.push_back(std::move(record));
  }
  return out;
}

ShardRoute ReadRoute(const Rows& rows, int i) {
  return ShardRoute{rows.Text(i, 0), static_cast<int32_t>(rows.Int(i, 1)), rows.Text(i, 2),
                    static_cast<uint64_t>(rows.Int(i, 3)), rows.Int(i, 4)};
}

std::vector<std::string> Column(const Rows& rows) {
  std::vector<std::string> out;
  for (int i = 0; i < rows.size(); ++i) out.push_back(rows.Text(i, 0));
  return out;
}

std::vector<pg::Param> RefParams(const AttemptRef& ref) {
  return {P(ref.attempt_id.ToString()), P(int64_t{ref.generation})};
}

std::vector<AttemptRef> DistinctAttempts(const std::vector<CleanupItem>& items) {
  std::set<std::pair<std::string, uint32_t>> seen;
  std::vector<AttemptRef> out;
  for (const CleanupItem& item : items) {
    if (seen.emplace(item.attempt.attempt_id.ToString(), item.attempt.generation).second) {
      out.push_back(item.attempt);
    }
  }
  return out;
}

// The writer's own publication replayed (a reply it never saw).
bool IsReplay(const AttemptRecord& row, const Lease& lease, const std::optional<RootRecord>& current,
              std::string_view value) {
  return row.state == AttemptState::kPublished && row.epoch == lease.epoch && current.has_value() &&
         current->value == value;
}

class PostgresControlStore final : public ControlStore {
 public:
  PostgresControlStore(std::unique_ptr<Session> db, store::Clock& clock, store::RandomSource& random)
      : db_(std::move(db)), clock_(clock), random_(random) {}

  Result<Lease> BeginAttempt(const AttemptSpec& spec) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateSpec(spec));
    // Drawn once, outside the transaction: a retried transaction inserts
    // the same attempt.
    AttemptRef ref{spec.attempt_id.value_or(store::RandomUuidV4(random_)), spec.generation};
    std::string prefix = AttemptKeyPrefix(spec.ns, spec.name, ref.attempt_id, ref.generation);
    std::lock_guard lock(mu_);
    return db_->Transact<Lease>(true, [&]() -> Result<Lease> {
      VIGILO_ASSIGN_OR_RETURN(std::optional<AttemptRecord> existing, LoadAttempt(ref, false));
      if (existing.has_value()) {
        return AlreadyExists("attempt " + AttemptName(ref) + " exists already (" +
                             std::string(AttemptStateName(existing->state)) +
                             "); an attempt ID and generation are used once");
      }
      const Micros now = clock_.Now();
      VIGILO_ASSIGN_OR_RETURN(uint64_t epoch, NextEpoch());
      Lease lease{ref, epoch, now + spec.lease_duration, prefix};
      VIGILO_RETURN_IF_ERROR(
          db_->Query("INSERT INTO attempts (attempt_id, generation, namespace, name, store, key_prefix, owner, "
                     "state, epoch, lease_expires_at, admission_limits, created_at, updated_at) "
                     "VALUES ($1, $2, $3, $4, $5, $6, $7, 'active', $8, $9, $10, $11, $11)",
                     {P(ref.attempt_id.ToString()), P(int64_t{ref.generation}), P(NamespaceName(spec.ns)),
                      P(spec.name), P(spec.store), P(prefix), P(spec.owner), P(static_cast<int64_t>(epoch)),
                      P(lease.expires_at), P(spec.admission_limits), P(now)})
              .status());
      return lease;
    });
  }

  Result<Lease> ResumeAttempt(const AttemptRef& attempt, std::string_view owner, Micros lease_duration) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateOwner(owner));
    VIGILO_RETURN_IF_ERROR(rules::ValidateLeaseDuration(lease_duration));
    std::lock_guard lock(mu_);
    return db_->Transact<Lease>(true, [&]() -> Result<Lease> {
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(attempt, true));
      const Micros now = clock_.Now();
      VIGILO_RETURN_IF_ERROR(rules::CheckTakeover(row, now, "resumed"));
      VIGILO_ASSIGN_OR_RETURN(row.epoch, NextEpoch());
      row.lease_expires_at = now + lease_duration;
      std::vector<pg::Param> params = RefParams(attempt);
      params.insert(params.end(), {P(owner), P(static_cast<int64_t>(row.epoch)), P(row.lease_expires_at), P(now)});
      VIGILO_RETURN_IF_ERROR(db_->Query("UPDATE attempts SET owner = $3, epoch = $4, lease_expires_at = $5, "
                                        "updated_at = $6 WHERE attempt_id = $1 AND generation = $2",
                                        params)
                                 .status());
      return rules::LeaseOf(row);
    });
  }

  Result<Lease> RenewLease(const Lease& lease, Micros lease_duration) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateLeaseDuration(lease_duration));
    std::lock_guard lock(mu_);
    return db_->Transact<Lease>(true, [&]() -> Result<Lease> {
      const Micros now = clock_.Now();
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, FencedAttempt(lease, now));
      row.lease_expires_at = now + lease_duration;
      std::vector<pg::Param> params = RefParams(lease.attempt);
      params.insert(params.end(), {P(row.lease_expires_at), P(now)});
      VIGILO_RETURN_IF_ERROR(db_->Query("UPDATE attempts SET lease_expires_at = $3, updated_at = $4 "
                                        "WHERE attempt_id = $1 AND generation = $2",
                                        params)
                                 .status());
      return rules::LeaseOf(row);
    });
  }

  Status RecordKeys(const Lease& lease, std::span<const std::string> keys) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateRecordedKeys(lease.key_prefix, keys));
    std::lock_guard lock(mu_);
    return db_->TransactStatus(true, [&]() -> Status {
      const Micros now = clock_.Now();
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, FencedAttempt(lease, now));
      VIGILO_RETURN_IF_ERROR(rules::ValidateRecordedKeys(row.key_prefix, keys));
      for (const std::string& key : keys) {
        std::vector<pg::Param> params = RefParams(lease.attempt);
        params.insert(params.end(), {P(key), P(now)});
        VIGILO_RETURN_IF_ERROR(db_->Query("INSERT INTO attempt_keys (attempt_id, generation, key, recorded_at) "
                                          "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                                          params)
                                   .status());
      }
      return Status::Ok();
    });
  }

  Status Abandon(const Lease& lease) override {
    std::lock_guard lock(mu_);
    return db_->TransactStatus(true, [&]() -> Status {
      const Micros now = clock_.Now();
      VIGILO_RETURN_IF_ERROR(FencedAttempt(lease, now).status());
      return MarkAbandoned(lease.attempt, now, now);
    });
  }

  Status AbandonExpired(const AttemptRef& attempt, Micros settle) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateDelay(settle, 0, "the settle time"));
    std::lock_guard lock(mu_);
    return db_->TransactStatus(true, [&]() -> Status {
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(attempt, true));
      if (row.state == AttemptState::kAbandoned) return Status::Ok();  // already cleanup work
      const Micros now = clock_.Now();
      VIGILO_RETURN_IF_ERROR(rules::CheckTakeover(row, now, "abandoned"));
      return MarkAbandoned(attempt, now, now + settle);
    });
  }

  Result<AttemptRecord> GetAttempt(const AttemptRef& attempt) override {
    std::lock_guard lock(mu_);
    return db_->Transact<AttemptRecord>(false, [&]() -> Result<AttemptRecord> {
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(attempt, false));
      VIGILO_ASSIGN_OR_RETURN(Rows keys, db_->Query("SELECT key FROM attempt_keys WHERE attempt_id = $1 AND "
                                                    "generation = $2 ORDER BY key",
                                                    RefParams(attempt)));
      row.keys = Column(keys);
      return row;
    });
  }

  Result<std::vector<AttemptRecord>> ListAttempts(Namespace ns, std::string_view name) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    return ReadAttemptsWhere("namespace = $1 AND name = $2 ORDER BY created_at, attempt_id, generation",
                             {P(NamespaceName(ns)), P(name)});
  }

  Result<PublishOutcome> PublishRoot(const Lease& lease, std::string_view value) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateRootValue(value, "the root reference"));
    std::lock_guard lock(mu_);
    return db_->Transact<PublishOutcome>(true, [&]() -> Result<PublishOutcome> {
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(lease.attempt, true));
      VIGILO_RETURN_IF_ERROR(LockName(row.ns, row.name));
      VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> current, LoadRoot(row.ns, row.name, false));
      if (IsReplay(row, lease, current, value)) return PublishOutcome::kAlreadyIdentical;
      const Micros now = clock_.Now();
      VIGILO_RETURN_IF_ERROR(rules::CheckFence(row, lease, now));
      PublishOutcome outcome = PublishOutcome::kAlreadyIdentical;
      if (!current.has_value()) {
        // A free name: version 1, or after a retirement the next version.
        VIGILO_ASSIGN_OR_RETURN(Rows next, db_->Query("SELECT coalesce(max(version), 0) + 1 FROM root_history "
                                                      "WHERE namespace = $1 AND name = $2",
                                                      {P(NamespaceName(row.ns)), P(row.name)}));
        VIGILO_RETURN_IF_ERROR(AppendVersion(row, lease.epoch, static_cast<uint64_t>(next.Int(0, 0)), value, now));
        outcome = PublishOutcome::kPublished;
      } else if (current->value != value) {
        return AlreadyExists(rules::RootPath(row.ns, row.name) + " holds another root (version " +
                             std::to_string(current->version) + ", published by attempt " +
                             AttemptName(current->attempt) +
                             "); publishing a different root takes an explicit replace of that value");
      }
      VIGILO_RETURN_IF_ERROR(MarkPublished(lease.attempt, now));
      return outcome;
    });
  }

  Result<PublishOutcome> ReplaceRoot(const Lease& lease, std::string_view expected, std::string_view value) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateRootValue(expected, "the expected root reference"));
    VIGILO_RETURN_IF_ERROR(rules::ValidateRootValue(value, "the root reference"));
    std::lock_guard lock(mu_);
    return db_->Transact<PublishOutcome>(true, [&]() -> Result<PublishOutcome> {
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(lease.attempt, true));
      VIGILO_RETURN_IF_ERROR(LockName(row.ns, row.name));
      VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> current, LoadRoot(row.ns, row.name, false));
      if (IsReplay(row, lease, current, value)) return PublishOutcome::kAlreadyIdentical;
      const Micros now = clock_.Now();
      VIGILO_RETURN_IF_ERROR(rules::CheckFence(row, lease, now));
      const std::string path = rules::RootPath(row.ns, row.name);
      if (!current.has_value()) return NotFound("nothing is published under " + path + " to replace");
      if (current->value != expected) {
        return AlreadyExists(path + " changed: its current root (version " + std::to_string(current->version) +
                             ", published by attempt " + AttemptName(current->attempt) +
                             ") is not the expected one");
      }
      PublishOutcome outcome = PublishOutcome::kAlreadyIdentical;
      if (current->value != value) {
        VIGILO_RETURN_IF_ERROR(AppendVersion(row, lease.epoch, current->version + 1, value, now));
        outcome = PublishOutcome::kReplaced;
      }
      VIGILO_RETURN_IF_ERROR(MarkPublished(lease.attempt, now));
      return outcome;
    });
  }

  Result<std::optional<RootRecord>> GetRoot(Namespace ns, std::string_view name) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    return db_->Transact<std::optional<RootRecord>>(false, [&] { return LoadRoot(ns, name, false); });
  }

  Result<std::vector<RootRecord>> RootHistory(Namespace ns, std::string_view name) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    return db_->Transact<std::vector<RootRecord>>(false, [&]() -> Result<std::vector<RootRecord>> {
      VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("SELECT " + std::string(kRootColumns) +
                                                    ", t.retired_at FROM root_history h LEFT JOIN root_retirements "
                                                    "t USING (namespace, name, version) WHERE h.namespace = $1 AND "
                                                    "h.name = $2 ORDER BY h.version",
                                                    {P(NamespaceName(ns)), P(name)}));
      return ReadRoots(rows, true);
    });
  }

  Result<std::vector<RootRecord>> ListRoots(Namespace ns) override {
    std::lock_guard lock(mu_);
    return db_->Transact<std::vector<RootRecord>>(false, [&]() -> Result<std::vector<RootRecord>> {
      VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("SELECT " + std::string(kRootColumns) +
                                                    " FROM roots r JOIN root_history h USING (namespace, name, "
                                                    "version) WHERE r.namespace = $1 AND r.retired_at IS NULL "
                                                    "ORDER BY r.name",
                                                    {P(NamespaceName(ns))}));
      return ReadRoots(rows, false);
    });
  }

  Result<RetiredRoot> RetireRoot(Namespace ns, std::string_view name,
                                 std::optional<uint64_t> expected_version) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    return db_->Transact<RetiredRoot>(true, [&]() -> Result<RetiredRoot> {
      const std::string path = rules::RootPath(ns, name);
      VIGILO_RETURN_IF_ERROR(LockName(ns, name));
      VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> current, LoadRoot(ns, name, false));
      if (!current.has_value()) {
        VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> retired, LoadRoot(ns, name, true));
        if (!retired.has_value()) return NotFound("nothing is published under " + path + " to retire");
        if (expected_version.has_value() && *expected_version != retired->version) {
          return AlreadyExists(path + " was retired at version " + std::to_string(retired->version) + ", not " +
                               std::to_string(*expected_version));
        }
        return RetiredRoot{std::move(*retired), true};
      }
      if (expected_version.has_value() && *expected_version != current->version) {
        return AlreadyExists(path + " changed: its current version is " + std::to_string(current->version) +
                             ", not " + std::to_string(*expected_version));
      }
      const Micros now = clock_.Now();
      VIGILO_RETURN_IF_ERROR(db_->Query("UPDATE roots SET retired_at = $3 WHERE namespace = $1 AND name = $2",
                                        {P(NamespaceName(ns)), P(name), P(now)})
                                 .status());
      VIGILO_RETURN_IF_ERROR(db_->Query("INSERT INTO root_retirements (namespace, name, version, retired_at) "
                                        "VALUES ($1, $2, $3, $4)",
                                        {P(NamespaceName(ns)), P(name), P(static_cast<int64_t>(current->version)),
                                         P(now)})
                                 .status());
      current->retired_at = now;
      return RetiredRoot{std::move(*current), false};
    });
  }

  Result<std::optional<RootRecord>> GetRetiredRoot(Namespace ns, std::string_view name) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    return db_->Transact<std::optional<RootRecord>>(false, [&] { return LoadRoot(ns, name, true); });
  }

  Result<std::vector<CleanupItem>> ClaimCleanup(std::string_view store, size_t max_items,
                                                Micros claim_duration) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateDelay(claim_duration, 1, "a cleanup claim"));
    std::lock_guard lock(mu_);
    return db_->Transact<std::vector<CleanupItem>>(true, [&]() -> Result<std::vector<CleanupItem>> {
      const Micros now = clock_.Now();
      // The attempts' rows are locked (FOR UPDATE OF a), so two drains never
      // claim one attempt; keys that failed least often come first, so that
      // one key that always fails cannot starve the others.
      VIGILO_ASSIGN_OR_RETURN(
          Rows rows,
          db_->Query("SELECT k.attempt_id, k.generation, k.key FROM attempt_keys k JOIN attempts a "
                     "USING (attempt_id, generation) "
                     "WHERE a.store = $1 AND a.state = 'abandoned' AND a.cleanup_due_at <= $2 "
                     "AND (a.cleanup_claimed_until IS NULL OR a.cleanup_claimed_until <= $2) "
                     "ORDER BY k.cleanup_failures, a.cleanup_due_at, k.attempt_id, k.generation, k.key LIMIT $3 "
                     "FOR UPDATE OF a",
                     {P(store), P(now), P(static_cast<int64_t>(max_items))}));
      std::vector<CleanupItem> items;
      for (int i = 0; i < rows.size(); ++i) {
        VIGILO_ASSIGN_OR_RETURN(AttemptRef ref, ReadRef(rows, i, 0));
        items.push_back(CleanupItem{ref, rows.Text(i, 2)});
      }
      for (const AttemptRef& ref : DistinctAttempts(items)) {
        std::vector<pg::Param> params = RefParams(ref);
        params.push_back(P(now + claim_duration));
        VIGILO_RETURN_IF_ERROR(db_->Query("UPDATE attempts SET cleanup_claimed_until = $3 "
                                          "WHERE attempt_id = $1 AND generation = $2",
                                          params)
                                   .status());
      }
      return items;
    });
  }

  Status FinishCleanup(std::span<const CleanupItem> claimed, std::span<const CleanupItem> deleted,
                       std::span<const CleanupFailure> failed) override {
    std::lock_guard lock(mu_);
    return db_->TransactStatus(true, [&]() -> Status {
      std::vector<CleanupItem> touched(claimed.begin(), claimed.end());
      touched.insert(touched.end(), deleted.begin(), deleted.end());
      for (const CleanupItem& item : deleted) {
        std::vector<pg::Param> params = RefParams(item.attempt);
        params.push_back(P(item.key));
        VIGILO_RETURN_IF_ERROR(
            db_->Query("DELETE FROM attempt_keys WHERE attempt_id = $1 AND generation = $2 AND key = $3", params)
                .status());
      }
      for (const CleanupFailure& failure : failed) {
        std::vector<pg::Param> params = RefParams(failure.item.attempt);
        params.insert(params.end(), {P(failure.item.key), P(failure.error)});
        VIGILO_RETURN_IF_ERROR(db_->Query("UPDATE attempt_keys SET cleanup_failures = cleanup_failures + 1, "
                                          "last_cleanup_error = $4 WHERE attempt_id = $1 AND generation = $2 "
                                          "AND key = $3",
                                          params)
                                   .status());
        touched.push_back(failure.item);
      }
      for (const AttemptRef& ref : DistinctAttempts(touched)) {
        VIGILO_RETURN_IF_ERROR(db_->Query("UPDATE attempts SET cleanup_claimed_until = NULL "
                                          "WHERE attempt_id = $1 AND generation = $2",
                                          RefParams(ref))
                                   .status());
      }
      return Status::Ok();
    });
  }

  Result<std::vector<std::string>> StoresWithDueCleanup() override {
    std::lock_guard lock(mu_);
    return db_->Transact<std::vector<std::string>>(false, [&]() -> Result<std::vector<std::string>> {
      VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("SELECT DISTINCT a.store FROM attempts a JOIN attempt_keys k "
                                                    "USING (attempt_id, generation) WHERE a.state = 'abandoned' "
                                                    "AND a.cleanup_due_at <= $1 ORDER BY a.store",
                                                    {P(clock_.Now())}));
      return Column(rows);
    });
  }

  Result<uint64_t> PendingCleanupKeys(std::string_view store) override {
    std::lock_guard lock(mu_);
    return db_->Transact<uint64_t>(false, [&]() -> Result<uint64_t> {
      VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("SELECT count(*) FROM attempt_keys k JOIN attempts a "
                                                    "USING (attempt_id, generation) "
                                                    "WHERE a.store = $1 AND a.state = 'abandoned'",
                                                    {P(store)}));
      return static_cast<uint64_t>(rows.Int(0, 0));
    });
  }

  Result<std::vector<AttemptRecord>> AttemptsAwaitingCleanup(std::string_view store) override {
    return ReadAttemptsWhere("store = $1 AND state = 'abandoned' AND EXISTS (SELECT 1 FROM attempt_keys k WHERE "
                             "k.attempt_id = attempts.attempt_id AND k.generation = attempts.generation) "
                             "ORDER BY cleanup_due_at, attempt_id, generation",
                             {P(store)});
  }

  Result<std::vector<AttemptRecord>> ExpiredAttempts(std::string_view store, Micros expired_by) override {
    return ReadAttemptsWhere("store = $1 AND state = 'active' AND lease_expires_at <= $2 "
                             "ORDER BY lease_expires_at, attempt_id, generation",
                             {P(store), P(expired_by)});
  }

  Result<std::vector<std::string>> StoresWithExpiredAttempts(Micros expired_by) override {
    std::lock_guard lock(mu_);
    return db_->Transact<std::vector<std::string>>(false, [&]() -> Result<std::vector<std::string>> {
      VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("SELECT DISTINCT store FROM attempts WHERE state = 'active' "
                                                    "AND lease_expires_at <= $1 ORDER BY store",
                                                    {P(expired_by)}));
      return Column(rows);
    });
  }

  Result<ShardRoute> MoveShard(std::string_view run, int32_t run_shard, std::string_view route,
                               std::optional<uint64_t> expected_epoch) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(run));
    VIGILO_RETURN_IF_ERROR(ValidateRunShard(run_shard));
    VIGILO_RETURN_IF_ERROR(ValidateShardRoute(route));
    std::lock_guard lock(mu_);
    return db_->Transact<ShardRoute>(true, [&]() -> Result<ShardRoute> {
      VIGILO_RETURN_IF_ERROR(LockName(Namespace::kRuns, run));
      VIGILO_RETURN_IF_ERROR(RequirePublishedRun(run));
      VIGILO_ASSIGN_OR_RETURN(Rows current, db_->Query("SELECT " + std::string(kRouteColumns) +
                                                       " FROM shard_routes WHERE namespace = 'runs' AND run = $1 "
                                                       "AND run_shard = $2",
                                                       {P(run), P(int64_t{run_shard})}));
      const uint64_t current_epoch = current.size() > 0 ? ReadRoute(current, 0).epoch : 0;
      if (expected_epoch.has_value() && *expected_epoch != current_epoch) {
        return Fenced(rules::RootPath(Namespace::kRuns, run) + " shard " + std::to_string(run_shard) +
                      ": route epoch is " + std::to_string(current_epoch) + ", not " +
                      std::to_string(*expected_epoch));
      }
      ShardRoute moved{std::string(run), run_shard, std::string(route), current_epoch + 1, clock_.Now()};
      VIGILO_RETURN_IF_ERROR(
          db_->Query(current.size() > 0 ? "UPDATE shard_routes SET route = $3, epoch = $4, updated_at = $5 "
                                          "WHERE namespace = 'runs' AND run = $1 AND run_shard = $2"
                                        : "INSERT INTO shard_routes (run, run_shard, route, epoch, updated_at) "
                                          "VALUES ($1, $2, $3, $4, $5)",
                     {P(run), P(int64_t{run_shard}), P(route), P(static_cast<int64_t>(moved.epoch)),
                      P(moved.updated_at)})
              .status());
      return moved;
    });
  }

  Result<std::vector<ShardRoute>> ShardRoutes(std::string_view run) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(run));
    std::lock_guard lock(mu_);
    return db_->Transact<std::vector<ShardRoute>>(false, [&]() -> Result<std::vector<ShardRoute>> {
      VIGILO_RETURN_IF_ERROR(RequirePublishedRun(run));
      VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("SELECT " + std::string(kRouteColumns) +
                                                    " FROM shard_routes WHERE namespace = 'runs' AND run = $1 "
                                                    "ORDER BY run_shard",
                                                    {P(run)}));
      std::vector<ShardRoute> out;
      for (int i = 0; i < rows.size(); ++i) out.push_back(ReadRoute(rows, i));
      return out;
    });
  }

 private:
  Result<std::vector<AttemptRecord>> ReadAttemptsWhere(const std::string& where, const std::vector<pg::Param>& params) {
    std::lock_guard lock(mu_);
    return db_->Transact<std::vector<AttemptRecord>>(false, [&]() -> Result<std::vector<AttemptRecord>> {
      VIGILO_ASSIGN_OR_RETURN(Rows rows,
                              db_->Query("SELECT " + std::string(kAttemptColumns) + " FROM attempts WHERE " + where,
                                         params));
      return ReadAttempts(rows);
    });
  }

  // The one fencing counter; its row lock orders every epoch handed out.
  Result<uint64_t> NextEpoch() {
    VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("UPDATE fencing SET last_epoch = last_epoch + 1 WHERE singleton = 1 "
                                                  "RETURNING last_epoch"));
    if (rows.size() != 1) return Internal("the control database has no fencing row");
    return static_cast<uint64_t>(rows.Int(0, 0));
  }

  // `lock`: FOR UPDATE, held until the transaction ends, so the decision
  // made on the row and the write commit together.
  Result<std::optional<AttemptRecord>> LoadAttempt(const AttemptRef& ref, bool lock) {
    VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("SELECT " + std::string(kAttemptColumns) +
                                                  " FROM attempts WHERE attempt_id = $1 AND generation = $2" +
                                                  (lock ? " FOR UPDATE" : ""),
                                                  RefParams(ref)));
    if (rows.size() == 0) return std::optional<AttemptRecord>();
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord record, ReadAttempt(rows, 0));
    return std::optional<AttemptRecord>(std::move(record));
  }

  Result<AttemptRecord> RequireAttempt(const AttemptRef& ref, bool lock) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<AttemptRecord> row, LoadAttempt(ref, lock));
    if (!row.has_value()) return NotFound("no attempt " + AttemptName(ref) + " in the control ledger");
    return std::move(*row);
  }

  Result<AttemptRecord> FencedAttempt(const Lease& lease, Micros now) {
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(lease.attempt, true));
    VIGILO_RETURN_IF_ERROR(rules::CheckFence(row, lease, now));
    return row;
  }

  // A name that may have no row yet cannot be locked by FOR UPDATE; an
  // advisory lock on the name, released at commit, orders publishers,
  // retirements and route moves of one name.
  Status LockName(Namespace ns, std::string_view name) {
    return db_->Query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", {P(rules::RootPath(ns, name))})
        .status();
  }

  // The live version (retired: false) or the retired one (true).
  Result<std::optional<RootRecord>> LoadRoot(Namespace ns, std::string_view name, bool retired) {
    VIGILO_ASSIGN_OR_RETURN(Rows rows, db_->Query("SELECT " + std::string(kRootColumns) +
                                                  ", r.retired_at FROM roots r JOIN root_history h USING "
                                                  "(namespace, name, version) WHERE r.namespace = $1 AND r.name = "
                                                  "$2 AND (r.retired_at IS NOT NULL) = $3",
                                                  {P(NamespaceName(ns)), P(name), P(retired ? "true" : "false")}));
    if (rows.size() == 0) return std::optional<RootRecord>();
    VIGILO_ASSIGN_OR_RETURN(RootRecord record, ReadRoot(rows, 0, retired));
    return std::optional<RootRecord>(std::move(record));
  }

  Status RequirePublishedRun(std::string_view run) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> root, LoadRoot(Namespace::kRuns, run, false));
    if (!root.has_value()) {
      return NotFound("no run is published under " + rules::RootPath(Namespace::kRuns, run) +
                      "; shards have routes only once their run is published");
    }
    return Status::Ok();
  }

  Status AppendVersion(const AttemptRecord& row, uint64_t epoch, uint64_t version, std::string_view value,
                       Micros now) {
    VIGILO_RETURN_IF_ERROR(db_->Query("INSERT INTO root_history (namespace, name, version, value, attempt_id, "
                                      "generation, epoch, published_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                                      {P(NamespaceName(row.ns)), P(row.name), P(static_cast<int64_t>(version)),
                                       P(value), P(row.attempt.attempt_id.ToString()),
                                       P(int64_t{row.attempt.generation}), P(static_cast<int64_t>(epoch)), P(now)})
                               .status());
    return db_->Query("INSERT INTO roots (namespace, name, version) VALUES ($1, $2, $3) ON CONFLICT (namespace, "
                      "name) DO UPDATE SET version = excluded.version, retired_at = NULL",
                      {P(NamespaceName(row.ns)), P(row.name), P(static_cast<int64_t>(version))})
        .status();
  }

  Status MarkPublished(const AttemptRef& ref, Micros now) {
    std::vector<pg::Param> params = RefParams(ref);
    params.push_back(P(now));
    return db_->Query("UPDATE attempts SET state = 'published', updated_at = $3 WHERE attempt_id = $1 AND "
                      "generation = $2",
                      params)
        .status();
  }

  Status MarkAbandoned(const AttemptRef& ref, Micros now, Micros due) {
    std::vector<pg::Param> params = RefParams(ref);
    params.insert(params.end(), {P(now), P(due)});
    return db_->Query("UPDATE attempts SET state = 'abandoned', updated_at = $3, cleanup_due_at = $4 "
                      "WHERE attempt_id = $1 AND generation = $2",
                      params)
        .status();
  }

  std::mutex mu_;
  std::unique_ptr<Session> db_;
  store::Clock& clock_;
  store::RandomSource& random_;
};

}  // namespace

Result<std::unique_ptr<ControlStore>> OpenPostgresControlStore(const std::string& locator,
                                                               const PostgresOptions& options) {
  if (!IsPostgresLocator(locator)) {
    return InvalidArgument("a PostgreSQL control locator starts with postgresql:// or postgres://");
  }
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Open(locator, options));
  VIGILO_RETURN_IF_ERROR(pg::MigrateSchema(*session, options.create));
  store::Clock& clock = options.wall_clock != nullptr ? *options.wall_clock : DefaultWallClock();
  store::RandomSource& random = options.random != nullptr ? *options.random : store::DefaultRandom();
  return std::unique_ptr<ControlStore>(new PostgresControlStore(std::move(session), clock, random));
}

}  // namespace vigilo::control
