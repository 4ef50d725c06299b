// The SQLite backend of the control store. One connection per store object,
// used under a mutex; every change is one BEGIN IMMEDIATE transaction that
// reads the attempt row, applies the shared rules (ledger_rules.h) and
// writes, so two processes can never both pass a fence check on one epoch.
#include "vigilo/control/sqlite_control_store.h"

#include <filesystem>
#include <mutex>
#include <set>

#include "ledger_rules.h"
#include "sqlite_db.h"
#include "sqlite_schema.h"

namespace vigilo::control {
namespace {

using sqlite::Database;
using sqlite::Statement;
using sqlite::Transaction;

constexpr std::string_view kAttemptColumns =
    "attempt_id, generation, namespace, name, store, key_prefix, owner, state, epoch, lease_expires_at, "
    "admission_limits, created_at, updated_at, cleanup_due_at";
constexpr std::string_view kRootColumns =
    "h.namespace, h.name, h.version, h.value, h.attempt_id, h.generation, h.epoch, h.published_at";

Result<AttemptState> ParseState(std::string_view text) {
  if (text == "active") return AttemptState::kActive;
  if (text == "published") return AttemptState::kPublished;
  if (text == "abandoned") return AttemptState::kAbandoned;
  return InvalidFormat("the control database holds an unknown attempt state \"" + std::string(text) + "\"");
}

Result<AttemptRef> ReadRef(const Statement& stmt, int column) {
  VIGILO_ASSIGN_OR_RETURN(Uuid id, Uuid::Parse(stmt.Text(column)));
  return AttemptRef{id, static_cast<uint32_t>(stmt.Int(column + 1))};
}

Result<AttemptRecord> ReadAttempt(const Statement& stmt) {
  AttemptRecord r;
  VIGILO_ASSIGN_OR_RETURN(r.attempt, ReadRef(stmt, 0));
  VIGILO_ASSIGN_OR_RETURN(r.ns, ParseNamespace(stmt.Text(2)));
  r.name = stmt.Text(3);
  r.store = stmt.Text(4);
  r.key_prefix = stmt.Text(5);
  r.owner = stmt.Text(6);
  VIGILO_ASSIGN_OR_RETURN(r.state, ParseState(stmt.Text(7)));
  r.epoch = static_cast<uint64_t>(stmt.Int(8));
  r.lease_expires_at = stmt.Int(9);
  r.admission_limits = stmt.Text(10);
  r.created_at = stmt.Int(11);
  r.updated_at = stmt.Int(12);
  if (!stmt.IsNull(13)) r.cleanup_due_at = stmt.Int(13);
  return r;
}

Result<RootRecord> ReadRoot(const Statement& stmt) {
  RootRecord r;
  VIGILO_ASSIGN_OR_RETURN(r.ns, ParseNamespace(stmt.Text(0)));
  r.name = stmt.Text(1);
  r.version = static_cast<uint64_t>(stmt.Int(2));
  r.value = stmt.Text(3);
  VIGILO_ASSIGN_OR_RETURN(r.attempt, ReadRef(stmt, 4));
  r.epoch = static_cast<uint64_t>(stmt.Int(6));
  r.published_at = stmt.Int(7);
  return r;
}

Result<ShardRoute> ReadRoute(const Statement& stmt) {
  ShardRoute r;
  r.run = stmt.Text(0);
  r.run_shard = static_cast<int32_t>(stmt.Int(1));
  r.route = stmt.Text(2);
  r.epoch = static_cast<uint64_t>(stmt.Int(3));
  r.updated_at = stmt.Int(4);
  return r;
}

constexpr std::string_view kRouteColumns = "run, run_shard, route, epoch, updated_at";

class SqliteControlStore final : public ControlStore {
 public:
  SqliteControlStore(std::unique_ptr<Database> db, store::Clock& clock, store::RandomSource& random)
      : db_(std::move(db)), clock_(clock), random_(random) {}

  Result<Lease> BeginAttempt(const AttemptSpec& spec) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateSpec(spec));
    AttemptRef ref{spec.attempt_id.value_or(store::RandomUuidV4(random_)), spec.generation};
    std::string prefix = AttemptKeyPrefix(spec.ns, spec.name, ref.attempt_id, ref.generation);
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    VIGILO_ASSIGN_OR_RETURN(std::optional<AttemptRecord> existing, LoadAttempt(ref));
    if (existing.has_value()) {
      return AlreadyExists("attempt " + AttemptName(ref) + " exists already (" +
                           std::string(AttemptStateName(existing->state)) +
                           "); an attempt ID and generation are used once");
    }
    const Micros now = clock_.Now();
    VIGILO_ASSIGN_OR_RETURN(uint64_t epoch, NextEpoch());
    Lease lease{ref, epoch, now + spec.lease_duration, prefix};
    VIGILO_ASSIGN_OR_RETURN(Statement insert,
                            db_->Prepare("INSERT INTO attempts (attempt_id, generation, namespace, name, store, "
                                         "key_prefix, owner, state, epoch, lease_expires_at, admission_limits, "
                                         "created_at, updated_at) "
                                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'active', ?8, ?9, ?10, ?11, ?11)"));
    insert.Bind(1, ref.attempt_id.ToString())
        .Bind(2, int64_t{ref.generation})
        .Bind(3, NamespaceName(spec.ns))
        .Bind(4, spec.name)
        .Bind(5, spec.store)
        .Bind(6, prefix)
        .Bind(7, spec.owner)
        .Bind(8, static_cast<int64_t>(epoch))
        .Bind(9, lease.expires_at)
        .Bind(10, spec.admission_limits)
        .Bind(11, now);
    VIGILO_RETURN_IF_ERROR(insert.Run());
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return lease;
  }

  Result<Lease> ResumeAttempt(const AttemptRef& attempt, std::string_view owner, Micros lease_duration) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateOwner(owner));
    VIGILO_RETURN_IF_ERROR(rules::ValidateLeaseDuration(lease_duration));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(attempt));
    const Micros now = clock_.Now();
    VIGILO_RETURN_IF_ERROR(rules::CheckTakeover(row, now, "resumed"));
    VIGILO_ASSIGN_OR_RETURN(uint64_t epoch, NextEpoch());
    row.epoch = epoch;
    row.lease_expires_at = now + lease_duration;
    VIGILO_ASSIGN_OR_RETURN(Statement update,
                            db_->Prepare("UPDATE attempts SET owner = ?3, epoch = ?4, lease_expires_at = ?5, "
                                         "updated_at = ?6 WHERE attempt_id = ?1 AND generation = ?2"));
    BindRef(update, attempt).Bind(3, owner).Bind(4, static_cast<int64_t>(epoch)).Bind(5, row.lease_expires_at)
        .Bind(6, now);
    VIGILO_RETURN_IF_ERROR(update.Run());
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return rules::LeaseOf(row);
  }

  Result<Lease> RenewLease(const Lease& lease, Micros lease_duration) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateLeaseDuration(lease_duration));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    const Micros now = clock_.Now();
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, FencedAttempt(lease, now));
    row.lease_expires_at = now + lease_duration;
    VIGILO_ASSIGN_OR_RETURN(Statement update,
                            db_->Prepare("UPDATE attempts SET lease_expires_at = ?3, updated_at = ?4 "
                                         "WHERE attempt_id = ?1 AND generation = ?2"));
    BindRef(update, lease.attempt).Bind(3, row.lease_expires_at).Bind(4, now);
    VIGILO_RETURN_IF_ERROR(update.Run());
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return rules::LeaseOf(row);
  }

  Status RecordKeys(const Lease& lease, std::span<const std::string> keys) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateRecordedKeys(lease.key_prefix, keys));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    const Micros now = clock_.Now();
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, FencedAttempt(lease, now));
    // The prefix the caller checked against must be the attempt's own.
    VIGILO_RETURN_IF_ERROR(rules::ValidateRecordedKeys(row.key_prefix, keys));
    VIGILO_ASSIGN_OR_RETURN(Statement insert,
                            db_->Prepare("INSERT OR IGNORE INTO attempt_keys (attempt_id, generation, key, "
                                         "recorded_at) VALUES (?1, ?2, ?3, ?4)"));
    for (const std::string& key : keys) {
      BindRef(insert, lease.attempt).Bind(3, key).Bind(4, now);
      VIGILO_RETURN_IF_ERROR(insert.Run());
      insert.Reset();
    }
    return tx.Commit();
  }

  Status Abandon(const Lease& lease) override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    const Micros now = clock_.Now();
    VIGILO_RETURN_IF_ERROR(FencedAttempt(lease, now).status());
    VIGILO_RETURN_IF_ERROR(MarkAbandoned(lease.attempt, now, now));
    return tx.Commit();
  }

  Status AbandonExpired(const AttemptRef& attempt, Micros settle) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateDelay(settle, 0, "the settle time"));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(attempt));
    if (row.state == AttemptState::kAbandoned) return Status::Ok();  // already cleanup work
    const Micros now = clock_.Now();
    VIGILO_RETURN_IF_ERROR(rules::CheckTakeover(row, now, "abandoned"));
    VIGILO_RETURN_IF_ERROR(MarkAbandoned(attempt, now, now + settle));
    return tx.Commit();
  }

  Result<AttemptRecord> GetAttempt(const AttemptRef& attempt) override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kRead));
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(attempt));
    VIGILO_ASSIGN_OR_RETURN(Statement keys,
                            db_->Prepare("SELECT key FROM attempt_keys WHERE attempt_id = ?1 AND generation = ?2 "
                                         "ORDER BY key"));
    BindRef(keys, attempt);
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, keys.Step());
      if (!more) break;
      row.keys.push_back(keys.Text(0));
    }
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return row;
  }

  Result<std::vector<AttemptRecord>> ListAttempts(Namespace ns, std::string_view name) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT " + std::string(kAttemptColumns) +
                                         " FROM attempts WHERE namespace = ?1 AND name = ?2 "
                                         "ORDER BY created_at, attempt_id, generation"));
    stmt.Bind(1, NamespaceName(ns)).Bind(2, name);
    std::vector<AttemptRecord> out;
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, stmt.Step());
      if (!more) return out;
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, ReadAttempt(stmt));
      out.push_back(std::move(row));
    }
  }

  Result<PublishOutcome> PublishRoot(const Lease& lease, std::string_view value) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateRootValue(value, "the root reference"));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(lease.attempt));
    VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> current, LoadRoot(row.ns, row.name));
    if (IsReplay(row, lease, current, value)) return PublishOutcome::kAlreadyIdentical;
    const Micros now = clock_.Now();
    VIGILO_RETURN_IF_ERROR(rules::CheckFence(row, lease, now));
    PublishOutcome outcome = PublishOutcome::kAlreadyIdentical;
    if (!current.has_value()) {
      // A free name: version 1, or after a retirement the next version.
      VIGILO_ASSIGN_OR_RETURN(uint64_t version, NextVersion(row.ns, row.name));
      VIGILO_RETURN_IF_ERROR(AppendVersion(row, lease.epoch, version, value, now));
      outcome = PublishOutcome::kPublished;
    } else if (current->value != value) {
      return AlreadyExists(rules::RootPath(row.ns, row.name) + " holds another root (version " +
                           std::to_string(current->version) + ", published by attempt " +
                           AttemptName(current->attempt) +
                           "); publishing a different root takes an explicit replace of that value");
    }
    VIGILO_RETURN_IF_ERROR(MarkPublished(lease.attempt, now));
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return outcome;
  }

  Result<PublishOutcome> ReplaceRoot(const Lease& lease, std::string_view expected, std::string_view value) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateRootValue(expected, "the expected root reference"));
    VIGILO_RETURN_IF_ERROR(rules::ValidateRootValue(value, "the root reference"));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(lease.attempt));
    VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> current, LoadRoot(row.ns, row.name));
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
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return outcome;
  }

  Result<std::optional<RootRecord>> GetRoot(Namespace ns, std::string_view name) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    return LoadRoot(ns, name);
  }

  Result<std::vector<RootRecord>> RootHistory(Namespace ns, std::string_view name) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT " + std::string(kRootColumns) +
                                         ", t.retired_at FROM root_history h LEFT JOIN root_retirements t USING "
                                         "(namespace, name, version) WHERE h.namespace = ?1 AND h.name = ?2 "
                                         "ORDER BY h.version"));
    stmt.Bind(1, NamespaceName(ns)).Bind(2, name);
    std::vector<RootRecord> out;
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, stmt.Step());
      if (!more) return out;
      VIGILO_ASSIGN_OR_RETURN(RootRecord record, ReadRoot(stmt));
      if (!stmt.IsNull(8)) record.retired_at = stmt.Int(8);
      out.push_back(std::move(record));
    }
  }

  Result<std::vector<RootRecord>> ListRoots(Namespace ns) override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT " + std::string(kRootColumns) +
                                         " FROM roots r JOIN root_history h USING (namespace, name, version) "
                                         "WHERE r.namespace = ?1 AND r.retired_at IS NULL ORDER BY r.name"));
    stmt.Bind(1, NamespaceName(ns));
    return ReadRoots(stmt);
  }

  Result<RetiredRoot> RetireRoot(Namespace ns, std::string_view name,
                                 std::optional<uint64_t> expected_version) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    const std::string path = rules::RootPath(ns, name);
    VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> current, LoadRoot(ns, name));
    if (!current.has_value()) {
      VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> retired, LoadRetiredRoot(ns, name));
      if (!retired.has_value()) return NotFound("nothing is published under " + path + " to retire");
      if (expected_version.has_value() && *expected_version != retired->version) {
        return AlreadyExists(path + " was retired at version " + std::to_string(retired->version) + ", not " +
                             std::to_string(*expected_version));
      }
      VIGILO_RETURN_IF_ERROR(tx.Commit());
      return RetiredRoot{std::move(*retired), true};
    }
    if (expected_version.has_value() && *expected_version != current->version) {
      return AlreadyExists(path + " changed: its current version is " + std::to_string(current->version) +
                           ", not " + std::to_string(*expected_version));
    }
    const Micros now = clock_.Now();
    VIGILO_ASSIGN_OR_RETURN(Statement mark,
                            db_->Prepare("UPDATE roots SET retired_at = ?3 WHERE namespace = ?1 AND name = ?2"));
    mark.Bind(1, NamespaceName(ns)).Bind(2, name).Bind(3, now);
    VIGILO_RETURN_IF_ERROR(mark.Run());
    VIGILO_ASSIGN_OR_RETURN(Statement log,
                            db_->Prepare("INSERT INTO root_retirements (namespace, name, version, retired_at) "
                                         "VALUES (?1, ?2, ?3, ?4)"));
    log.Bind(1, NamespaceName(ns)).Bind(2, name).Bind(3, static_cast<int64_t>(current->version)).Bind(4, now);
    VIGILO_RETURN_IF_ERROR(log.Run());
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    current->retired_at = now;
    return RetiredRoot{std::move(*current), false};
  }

  Result<std::optional<RootRecord>> GetRetiredRoot(Namespace ns, std::string_view name) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(name));
    std::lock_guard lock(mu_);
    return LoadRetiredRoot(ns, name);
  }

  Result<std::vector<CleanupItem>> ClaimCleanup(std::string_view store, size_t max_items,
                                                Micros claim_duration) override {
    VIGILO_RETURN_IF_ERROR(rules::ValidateDelay(claim_duration, 1, "a cleanup claim"));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    const Micros now = clock_.Now();
    // Keys that failed least often first, so that one key that always fails
    // cannot starve the others.
    VIGILO_ASSIGN_OR_RETURN(
        Statement select,
        db_->Prepare("SELECT k.attempt_id, k.generation, k.key FROM attempt_keys k JOIN attempts a "
                     "USING (attempt_id, generation) "
                     "WHERE a.store = ?1 AND a.state = 'abandoned' AND a.cleanup_due_at <= ?2 "
                     "AND (a.cleanup_claimed_until IS NULL OR a.cleanup_claimed_until <= ?2) "
                     "ORDER BY k.cleanup_failures, a.cleanup_due_at, k.attempt_id, k.generation, k.key LIMIT ?3"));
    select.Bind(1, store).Bind(2, now).Bind(3, static_cast<int64_t>(max_items));
    std::vector<CleanupItem> items;
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, select.Step());
      if (!more) break;
      VIGILO_ASSIGN_OR_RETURN(AttemptRef ref, ReadRef(select, 0));
      items.push_back(CleanupItem{ref, select.Text(2)});
    }
    VIGILO_ASSIGN_OR_RETURN(Statement claim,
                            db_->Prepare("UPDATE attempts SET cleanup_claimed_until = ?3 "
                                         "WHERE attempt_id = ?1 AND generation = ?2"));
    for (const AttemptRef& ref : DistinctAttempts(items)) {
      BindRef(claim, ref).Bind(3, now + claim_duration);
      VIGILO_RETURN_IF_ERROR(claim.Run());
      claim.Reset();
    }
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return items;
  }

  Status FinishCleanup(std::span<const CleanupItem> claimed, std::span<const CleanupItem> deleted,
                       std::span<const CleanupFailure> failed) override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    VIGILO_ASSIGN_OR_RETURN(Statement forget,
                            db_->Prepare("DELETE FROM attempt_keys WHERE attempt_id = ?1 AND generation = ?2 "
                                         "AND key = ?3"));
    std::vector<CleanupItem> touched(claimed.begin(), claimed.end());
    touched.insert(touched.end(), deleted.begin(), deleted.end());
    for (const CleanupItem& item : deleted) {
      BindRef(forget, item.attempt).Bind(3, item.key);
      VIGILO_RETURN_IF_ERROR(forget.Run());
      forget.Reset();
    }
    VIGILO_ASSIGN_OR_RETURN(Statement note,
                            db_->Prepare("UPDATE attempt_keys SET cleanup_failures = cleanup_failures + 1, "
                                         "last_cleanup_error = ?4 WHERE attempt_id = ?1 AND generation = ?2 "
                                         "AND key = ?3"));
    for (const CleanupFailure& failure : failed) {
      BindRef(note, failure.item.attempt).Bind(3, failure.item.key).Bind(4, failure.error);
      VIGILO_RETURN_IF_ERROR(note.Run());
      note.Reset();
      touched.push_back(failure.item);
    }
    VIGILO_ASSIGN_OR_RETURN(Statement release,
                            db_->Prepare("UPDATE attempts SET cleanup_claimed_until = NULL "
                                         "WHERE attempt_id = ?1 AND generation = ?2"));
    for (const AttemptRef& ref : DistinctAttempts(touched)) {
      BindRef(release, ref);
      VIGILO_RETURN_IF_ERROR(release.Run());
      release.Reset();
    }
    return tx.Commit();
  }

  Result<std::vector<std::string>> StoresWithDueCleanup() override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT DISTINCT a.store FROM attempts a JOIN attempt_keys k "
                                         "USING (attempt_id, generation) "
                                         "WHERE a.state = 'abandoned' AND a.cleanup_due_at <= ?1 ORDER BY a.store"));
    stmt.Bind(1, clock_.Now());
    std::vector<std::string> out;
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, stmt.Step());
      if (!more) return out;
      out.push_back(stmt.Text(0));
    }
  }

  Result<ShardRoute> MoveShard(std::string_view run, int32_t run_shard, std::string_view route,
                               std::optional<uint64_t> expected_epoch) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(run));
    VIGILO_RETURN_IF_ERROR(ValidateRunShard(run_shard));
    VIGILO_RETURN_IF_ERROR(ValidateShardRoute(route));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kWrite));
    VIGILO_RETURN_IF_ERROR(RequirePublishedRun(run));
    VIGILO_ASSIGN_OR_RETURN(std::optional<ShardRoute> current, LoadRoute(run, run_shard));
    const uint64_t current_epoch = current.has_value() ? current->epoch : 0;
    if (expected_epoch.has_value() && *expected_epoch != current_epoch) {
      return Fenced(rules::RootPath(Namespace::kRuns, run) + " shard " + std::to_string(run_shard) +
                    ": route epoch is " + std::to_string(current_epoch) + ", not " +
                    std::to_string(*expected_epoch));
    }
    ShardRoute moved{std::string(run), run_shard, std::string(route), current_epoch + 1, clock_.Now()};
    VIGILO_ASSIGN_OR_RETURN(
        Statement write,
        db_->Prepare(current.has_value()
                         ? "UPDATE shard_routes SET route = ?3, epoch = ?4, updated_at = ?5 "
                           "WHERE namespace = 'runs' AND run = ?1 AND run_shard = ?2"
                         : "INSERT INTO shard_routes (run, run_shard, route, epoch, updated_at) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)"));
    write.Bind(1, run)
        .Bind(2, int64_t{run_shard})
        .Bind(3, route)
        .Bind(4, static_cast<int64_t>(moved.epoch))
        .Bind(5, moved.updated_at);
    VIGILO_RETURN_IF_ERROR(write.Run());
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return moved;
  }

  Result<std::vector<ShardRoute>> ShardRoutes(std::string_view run) override {
    VIGILO_RETURN_IF_ERROR(ValidateRootName(run));
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(*db_, Transaction::Kind::kRead));
    VIGILO_RETURN_IF_ERROR(RequirePublishedRun(run));
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT " + std::string(kRouteColumns) +
                                         " FROM shard_routes WHERE namespace = 'runs' AND run = ?1 "
                                         "ORDER BY run_shard"));
    stmt.Bind(1, run);
    std::vector<ShardRoute> out;
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, stmt.Step());
      if (!more) break;
      VIGILO_ASSIGN_OR_RETURN(ShardRoute route, ReadRoute(stmt));
      out.push_back(std::move(route));
    }
    VIGILO_RETURN_IF_ERROR(tx.Commit());
    return out;
  }

  Result<uint64_t> PendingCleanupKeys(std::string_view store) override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT count(*) FROM attempt_keys k JOIN attempts a "
                                         "USING (attempt_id, generation) "
                                         "WHERE a.store = ?1 AND a.state = 'abandoned'"));
    stmt.Bind(1, store);
    VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return Internal("count(*) returned no row");
    return static_cast<uint64_t>(stmt.Int(0));
  }

  Result<std::vector<AttemptRecord>> AttemptsAwaitingCleanup(std::string_view store) override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(
        Statement stmt,
        db_->Prepare("SELECT " + std::string(kAttemptColumns) +
                     " FROM attempts a WHERE store = ?1 AND state = 'abandoned' AND EXISTS (SELECT 1 FROM "
                     "attempt_keys k WHERE k.attempt_id = a.attempt_id AND k.generation = a.generation) "
                     "ORDER BY cleanup_due_at, attempt_id, generation"));
    stmt.Bind(1, store);
    return ReadAttempts(stmt);
  }

  Result<std::vector<AttemptRecord>> ExpiredAttempts(std::string_view store, Micros expired_by) override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT " + std::string(kAttemptColumns) +
                                         " FROM attempts WHERE store = ?1 AND state = 'active' AND "
                                         "lease_expires_at <= ?2 ORDER BY lease_expires_at, attempt_id, generation"));
    stmt.Bind(1, store).Bind(2, expired_by);
    return ReadAttempts(stmt);
  }

  Result<std::vector<std::string>> StoresWithExpiredAttempts(Micros expired_by) override {
    std::lock_guard lock(mu_);
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT DISTINCT store FROM attempts WHERE state = 'active' AND "
                                         "lease_expires_at <= ?1 ORDER BY store"));
    stmt.Bind(1, expired_by);
    std::vector<std::string> out;
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, stmt.Step());
      if (!more) return out;
      out.push_back(stmt.Text(0));
    }
  }

 private:
  static Result<std::vector<AttemptRecord>> ReadAttempts(Statement& stmt) {
    std::vector<AttemptRecord> out;
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, stmt.Step());
      if (!more) return out;
      VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, ReadAttempt(stmt));
      out.push_back(std::move(row));
    }
  }

  static Statement& BindRef(Statement& stmt, const AttemptRef& ref) {
    return stmt.Bind(1, ref.attempt_id.ToString()).Bind(2, int64_t{ref.generation});
  }

  static std::vector<AttemptRef> DistinctAttempts(const std::vector<CleanupItem>& items) {
    std::set<std::pair<std::string, uint32_t>> seen;
    std::vector<AttemptRef> out;
    for (const CleanupItem& item : items) {
      if (seen.emplace(item.attempt.attempt_id.ToString(), item.attempt.generation).second) {
        out.push_back(item.attempt);
      }
    }
    return out;
  }

  // The writer's own publication replayed (a reply it never saw): the
  // attempt is published at this epoch and the name holds exactly `value`.
  static bool IsReplay(const AttemptRecord& row, const Lease& lease, const std::optional<RootRecord>& current,
                       std::string_view value) {
    return row.state == AttemptState::kPublished && row.epoch == lease.epoch && current.has_value() &&
           current->value == value;
  }

  Result<uint64_t> NextEpoch() {
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("UPDATE fencing SET last_epoch = last_epoch + 1 WHERE singleton = 1 "
                                         "RETURNING last_epoch"));
    VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return Internal("the control database has no fencing row");
    uint64_t epoch = static_cast<uint64_t>(stmt.Int(0));
    VIGILO_RETURN_IF_ERROR(stmt.Run());
    return epoch;
  }

  Result<std::optional<AttemptRecord>> LoadAttempt(const AttemptRef& ref) {
    VIGILO_ASSIGN_OR_RETURN(Statement stmt, db_->Prepare("SELECT " + std::string(kAttemptColumns) +
                                                         " FROM attempts WHERE attempt_id = ?1 AND generation = ?2"));
    BindRef(stmt, ref);
    VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return std::optional<AttemptRecord>();
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord record, ReadAttempt(stmt));
    return std::optional<AttemptRecord>(std::move(record));
  }

  Result<AttemptRecord> RequireAttempt(const AttemptRef& ref) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<AttemptRecord> row, LoadAttempt(ref));
    if (!row.has_value()) return NotFound("no attempt " + AttemptName(ref) + " in the control ledger");
    return std::move(*row);
  }

  Result<AttemptRecord> FencedAttempt(const Lease& lease, Micros now) {
    VIGILO_ASSIGN_OR_RETURN(AttemptRecord row, RequireAttempt(lease.attempt));
    VIGILO_RETURN_IF_ERROR(rules::CheckFence(row, lease, now));
    return row;
  }

  Result<std::optional<RootRecord>> LoadRoot(Namespace ns, std::string_view name) {
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT " + std::string(kRootColumns) +
                                         " FROM roots r JOIN root_history h USING (namespace, name, version) "
                                         "WHERE r.namespace = ?1 AND r.name = ?2 AND r.retired_at IS NULL"));
    stmt.Bind(1, NamespaceName(ns)).Bind(2, name);
    VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return std::optional<RootRecord>();
    VIGILO_ASSIGN_OR_RETURN(RootRecord record, ReadRoot(stmt));
    return std::optional<RootRecord>(std::move(record));
  }

  Result<std::optional<RootRecord>> LoadRetiredRoot(Namespace ns, std::string_view name) {
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT " + std::string(kRootColumns) +
                                         ", r.retired_at FROM roots r JOIN root_history h USING (namespace, name, "
                                         "version) WHERE r.namespace = ?1 AND r.name = ?2 AND r.retired_at IS NOT "
                                         "NULL"));
    stmt.Bind(1, NamespaceName(ns)).Bind(2, name);
    VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return std::optional<RootRecord>();
    VIGILO_ASSIGN_OR_RETURN(RootRecord record, ReadRoot(stmt));
    record.retired_at = stmt.Int(8);
    return std::optional<RootRecord>(std::move(record));
  }

  // The version after the name's last one (1 for a name never published).
  Result<uint64_t> NextVersion(Namespace ns, std::string_view name) {
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT coalesce(max(version), 0) + 1 FROM root_history "
                                         "WHERE namespace = ?1 AND name = ?2"));
    stmt.Bind(1, NamespaceName(ns)).Bind(2, name);
    VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return Internal("max(version) returned no row");
    return static_cast<uint64_t>(stmt.Int(0));
  }

  static Result<std::vector<RootRecord>> ReadRoots(Statement& stmt) {
    std::vector<RootRecord> out;
    for (;;) {
      VIGILO_ASSIGN_OR_RETURN(bool more, stmt.Step());
      if (!more) return out;
      VIGILO_ASSIGN_OR_RETURN(RootRecord record, ReadRoot(stmt));
      out.push_back(std::move(record));
    }
  }

  // Routes exist only for published runs (the foreign key says so too; this
  // says it in words).
  Status RequirePublishedRun(std::string_view run) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<RootRecord> root, LoadRoot(Namespace::kRuns, run));
    if (!root.has_value()) {
      return NotFound("no run is published under " + rules::RootPath(Namespace::kRuns, run) +
                      "; shards have routes only once their run is published");
    }
    return Status::Ok();
  }

  Result<std::optional<ShardRoute>> LoadRoute(std::string_view run, int32_t run_shard) {
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("SELECT " + std::string(kRouteColumns) +
                                         " FROM shard_routes WHERE namespace = 'runs' AND run = ?1 "
                                         "AND run_shard = ?2"));
    stmt.Bind(1, run).Bind(2, int64_t{run_shard});
    VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return std::optional<ShardRoute>();
    VIGILO_ASSIGN_OR_RETURN(ShardRoute route, ReadRoute(stmt));
    return std::optional<ShardRoute>(std::move(route));
  }

  Status AppendVersion(const AttemptRecord& row, uint64_t epoch, uint64_t version, std::string_view value,
                       Micros now) {
    VIGILO_ASSIGN_OR_RETURN(Statement history,
                            db_->Prepare("INSERT INTO root_history (namespace, name, version, value, attempt_id, "
                                         "generation, epoch, published_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
    history.Bind(1, NamespaceName(row.ns))
        .Bind(2, row.name)
        .Bind(3, static_cast<int64_t>(version))
        .Bind(4, value)
        .Bind(5, row.attempt.attempt_id.ToString())
        .Bind(6, int64_t{row.attempt.generation})
        .Bind(7, static_cast<int64_t>(epoch))
        .Bind(8, now);
    VIGILO_RETURN_IF_ERROR(history.Run());
    VIGILO_ASSIGN_OR_RETURN(Statement current,
                            db_->Prepare("INSERT INTO roots (namespace, name, version) VALUES (?1, ?2, ?3) "
                                         "ON CONFLICT (namespace, name) DO UPDATE SET version = excluded.version, "
                                         "retired_at = NULL"));
    current.Bind(1, NamespaceName(row.ns)).Bind(2, row.name).Bind(3, static_cast<int64_t>(version));
    return current.Run();
  }

  Status MarkPublished(const AttemptRef& ref, Micros now) {
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("UPDATE attempts SET state = 'published', updated_at = ?3 "
                                         "WHERE attempt_id = ?1 AND generation = ?2"));
    BindRef(stmt, ref).Bind(3, now);
    return stmt.Run();
  }

  Status MarkAbandoned(const AttemptRef& ref, Micros now, Micros due) {
    VIGILO_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("UPDATE attempts SET state = 'abandoned', updated_at = ?3, "
                                         "cleanup_due_at = ?4 WHERE attempt_id = ?1 AND generation = ?2"));
    BindRef(stmt, ref).Bind(3, now).Bind(4, due);
    return stmt.Run();
  }

  std::mutex mu_;
  std::unique_ptr<Database> db_;
  store::Clock& clock_;
  store::RandomSource& random_;
};

}  // namespace

// The route rules are backend-independent; they live here, next to their
// only backend, until a second backend shares them.
Result<std::unique_ptr<ControlStore>> OpenSqliteControlStore(const std::string& path, const SqliteOptions& options) {
  if (path.empty()) return InvalidArgument("the control database path is empty");
  if (options.create) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
      std::filesystem::create_directories(parent, ec);
      if (ec) return IoError("cannot create " + parent.string() + " for the control database: " + ec.message());
    }
  }
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<Database> db,
                          Database::Open(path, options.create, options.busy_timeout_ms));
  VIGILO_RETURN_IF_ERROR(sqlite::MigrateSchema(*db));
  store::Clock& clock = options.wall_clock != nullptr ? *options.wall_clock : DefaultWallClock();
  store::RandomSource& random = options.random != nullptr ? *options.random : store::DefaultRandom();
  return std::unique_ptr<ControlStore>(new SqliteControlStore(std::move(db), clock, random));
}

}  // namespace vigilo::control
