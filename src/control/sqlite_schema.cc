#include "sqlite_schema.h"

#include <array>
#include <cstdio>

#include "vigilo/control/sqlite_control_store.h"

namespace vigilo::control::sqlite {
namespace {

// Version 1. Times are wall-clock microseconds since the Unix epoch. The
// triggers restate the ledger's invariants inside the database, so that no
// bug in a backend (or a hand-edited row) can make published objects
// cleanup work: an attempt's state leaves only 'active'; only the keys of an
// abandoned attempt leave the ledger; keys are recorded only while active;
// attempts, their identity and prefix, and the root history are permanent.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE schema_version (
  version INTEGER NOT NULL
) STRICT;

CREATE TABLE fencing (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  last_epoch INTEGER NOT NULL CHECK (last_epoch >= 0)
) STRICT;
INSERT INTO fencing (singleton, last_epoch) VALUES (1, 0);

CREATE TABLE attempts (
  attempt_id TEXT NOT NULL,
  generation INTEGER NOT NULL CHECK (generation >= 1),
  namespace TEXT NOT NULL CHECK (namespace IN ('datasets', 'runs')),
  name TEXT NOT NULL,
  store TEXT NOT NULL,
  key_prefix TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'published', 'abandoned')),
  epoch INTEGER NOT NULL CHECK (epoch >= 1),
  lease_expires_at INTEGER NOT NULL,
  admission_limits TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  cleanup_due_at INTEGER,
  cleanup_claimed_until INTEGER,
  PRIMARY KEY (attempt_id, generation)
) STRICT;
CREATE INDEX attempts_by_root ON attempts (namespace, name, created_at);
CREATE INDEX attempts_by_cleanup ON attempts (store, state, cleanup_due_at);

CREATE TABLE attempt_keys (
  attempt_id TEXT NOT NULL,
  generation INTEGER NOT NULL,
  key TEXT NOT NULL,
  recorded_at INTEGER NOT NULL,
  cleanup_failures INTEGER NOT NULL DEFAULT 0,
  last_cleanup_error TEXT,
  PRIMARY KEY (attempt_id, generation, key),
  FOREIGN KEY (attempt_id, generation) REFERENCES attempts (attempt_id, generation)
) STRICT;

CREATE TABLE root_history (
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version >= 1),
  value TEXT NOT NULL,
  attempt_id TEXT NOT NULL,
  generation INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  published_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, name, version),
  FOREIGN KEY (attempt_id, generation) REFERENCES attempts (attempt_id, generation)
) STRICT;

CREATE TABLE roots (
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (namespace, name),
  FOREIGN KEY (namespace, name, version) REFERENCES root_history (namespace, name, version)
) STRICT;

CREATE TRIGGER attempt_state_is_final BEFORE UPDATE OF state ON attempts
WHEN OLD.state <> 'active' AND NEW.state <> OLD.state
BEGIN SELECT RAISE(ABORT, 'a published or abandoned attempt keeps its state'); END;

CREATE TRIGGER attempt_identity_is_fixed
BEFORE UPDATE OF attempt_id, generation, namespace, name, store, key_prefix ON attempts
BEGIN SELECT RAISE(ABORT, 'an attempt''s identity, store and prefix never change'); END;

CREATE TRIGGER attempts_are_kept BEFORE DELETE ON attempts
BEGIN SELECT RAISE(ABORT, 'attempts are never deleted'); END;

CREATE TRIGGER keys_are_recorded_while_active BEFORE INSERT ON attempt_keys
WHEN (SELECT state FROM attempts
      WHERE attempt_id = NEW.attempt_id AND generation = NEW.generation) IS NOT 'active'
BEGIN SELECT RAISE(ABORT, 'keys are recorded only by an active attempt'); END;

CREATE TRIGGER only_abandoned_keys_are_cleaned BEFORE DELETE ON attempt_keys
WHEN (SELECT state FROM attempts
      WHERE attempt_id = OLD.attempt_id AND generation = OLD.generation) IS NOT 'abandoned'
BEGIN SELECT RAISE(ABORT, 'only the keys of an abandoned attempt are cleanup work'); END;

CREATE TRIGGER root_history_is_kept BEFORE DELETE ON root_history
BEGIN SELECT RAISE(ABORT, 'the root history is append-only'); END;

CREATE TRIGGER root_history_is_immutable BEFORE UPDATE ON root_history
BEGIN SELECT RAISE(ABORT, 'the root history is append-only'); END;

CREATE TRIGGER roots_are_kept BEFORE DELETE ON roots
BEGIN SELECT RAISE(ABORT, 'a published name is never removed'); END;
)sql";

// Version 2: shard routes (control_store.h). One row per moved shard of a
// published run; the foreign key on roots makes "routes exist only for
// published runs" a rule of the database, and the triggers make the epoch a
// counter: 1 on the first move, exactly +1 per move, never removed, and a
// row never changes which shard it is about.
constexpr std::string_view kVersion2 = R"sql(
CREATE TABLE shard_routes (
  namespace TEXT NOT NULL DEFAULT 'runs' CHECK (namespace = 'runs'),
  run TEXT NOT NULL,
  run_shard INTEGER NOT NULL CHECK (run_shard >= 0 AND run_shard < 128),
  route TEXT NOT NULL CHECK (length(CAST(route AS BLOB)) BETWEEN 1 AND 256),
  epoch INTEGER NOT NULL CHECK (epoch >= 1),
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, run, run_shard),
  FOREIGN KEY (namespace, run) REFERENCES roots (namespace, name)
) STRICT;

CREATE TRIGGER route_starts_at_epoch_one BEFORE INSERT ON shard_routes
WHEN NEW.epoch <> 1
BEGIN SELECT RAISE(ABORT, 'a shard route starts at epoch 1'); END;

CREATE TRIGGER route_epoch_counts_moves BEFORE UPDATE ON shard_routes
WHEN NEW.epoch <> OLD.epoch + 1
BEGIN SELECT RAISE(ABORT, 'a shard route epoch increases by one per move'); END;

CREATE TRIGGER route_shard_is_fixed BEFORE UPDATE OF namespace, run, run_shard ON shard_routes
BEGIN SELECT RAISE(ABORT, 'a shard route never changes its run or shard'); END;

CREATE TRIGGER routes_are_kept BEFORE DELETE ON shard_routes
BEGIN SELECT RAISE(ABORT, 'shard routes are never deleted'); END;
)sql";

// Version 3: namespaces are data (control_store.h, Namespace): any name of
// 1-32 of [a-z0-9_] starting with a letter, not only datasets and runs. A
// CHECK constraint cannot be altered in SQLite, so attempts is rebuilt
// (https://sqlite.org/lang_altertable.html, "Making Other Kinds Of Table
// Schema Changes"): MigrateSchema turns foreign keys off around the
// migration and checks them all before it commits, and the legacy rename
// keeps the other tables' and triggers' references to "attempts" as they
// are written.
constexpr std::string_view kVersion3 = R"sql(
PRAGMA legacy_alter_table = ON;
CREATE TABLE attempts_v3 (
  attempt_id TEXT NOT NULL,
  generation INTEGER NOT NULL CHECK (generation >= 1),
  namespace TEXT NOT NULL CHECK (length(namespace) BETWEEN 1 AND 32 AND namespace GLOB '[a-z]*'
                                 AND namespace NOT GLOB '*[^a-z0-9_]*'),
  name TEXT NOT NULL,
  store TEXT NOT NULL,
  key_prefix TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'published', 'abandoned')),
  epoch INTEGER NOT NULL CHECK (epoch >= 1),
  lease_expires_at INTEGER NOT NULL,
  admission_limits TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  cleanup_due_at INTEGER,
  cleanup_claimed_until INTEGER,
  PRIMARY KEY (attempt_id, generation)
) STRICT;
INSERT INTO attempts_v3 SELECT * FROM attempts;
DROP TABLE attempts;
ALTER TABLE attempts_v3 RENAME TO attempts;
CREATE INDEX attempts_by_root ON attempts (namespace, name, created_at);
CREATE INDEX attempts_by_cleanup ON attempts (store, state, cleanup_due_at);

CREATE TRIGGER attempt_state_is_final BEFORE UPDATE OF state ON attempts
WHEN OLD.state <> 'active' AND NEW.state <> OLD.state
BEGIN SELECT RAISE(ABORT, 'a published or abandoned attempt keeps its state'); END;

CREATE TRIGGER attempt_identity_is_fixed
BEFORE UPDATE OF attempt_id, generation, namespace, name, store, key_prefix ON attempts
BEGIN SELECT RAISE(ABORT, 'an attempt''s identity, store and prefix never change'); END;

CREATE TRIGGER attempts_are_kept BEFORE DELETE ON attempts
BEGIN SELECT RAISE(ABORT, 'attempts are never deleted'); END;
PRAGMA legacy_alter_table = OFF;
)sql";

// Version 4: retired names (control_store.h, RetireRoot). A name's row in
// roots stays (routes refer to it, and a published name is never removed);
// retired_at marks it out of service. root_retirements records each
// retirement, append-only like the history. The triggers: a name is
// retired once per version, and comes back into service only with a new
// version (a publication), never by clearing the mark.
constexpr std::string_view kVersion4 = R"sql(
ALTER TABLE roots ADD COLUMN retired_at INTEGER;

CREATE TABLE root_retirements (
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  retired_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, name, version),
  FOREIGN KEY (namespace, name, version) REFERENCES root_history (namespace, name, version)
) STRICT;

CREATE TRIGGER root_is_retired_once BEFORE UPDATE OF retired_at ON roots
WHEN OLD.retired_at IS NOT NULL AND NEW.retired_at IS NOT NULL AND NEW.version = OLD.version
BEGIN SELECT RAISE(ABORT, 'a name is retired once per version'); END;

CREATE TRIGGER retired_root_returns_with_a_new_version BEFORE UPDATE ON roots
WHEN OLD.retired_at IS NOT NULL AND NEW.retired_at IS NULL AND NEW.version <= OLD.version
BEGIN SELECT RAISE(ABORT, 'a retired name comes back only with a new version'); END;

CREATE TRIGGER root_retirements_are_kept BEFORE DELETE ON root_retirements
BEGIN SELECT RAISE(ABORT, 'retirements are append-only'); END;

CREATE TRIGGER root_retirements_are_immutable BEFORE UPDATE ON root_retirements
BEGIN SELECT RAISE(ABORT, 'retirements are append-only'); END;
)sql";

// Index i takes version i to i + 1. A migration's text never changes once
// released: databases of that version were made by it.
constexpr std::array<std::string_view, kSqliteSchemaVersion> kMigrations = {kVersion1, kVersion2, kVersion3,
                                                                              kVersion4};

Result<int64_t> QueryInt(Database& db, std::string_view sql) {
  VIGILO_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
  VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Internal("no result from " + std::string(sql));
  return stmt.Int(0);
}

std::string Hex32(int64_t value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(static_cast<uint32_t>(value)));
  return buf;
}

}  // namespace

std::string_view MigrationSql(int64_t to_version) {
  if (to_version < 1 || to_version > kSqliteSchemaVersion) return {};
  return kMigrations[static_cast<size_t>(to_version - 1)];
}

Result<int64_t> SchemaVersion(Database& db) {
  VIGILO_ASSIGN_OR_RETURN(int64_t app_id, QueryInt(db, "PRAGMA application_id"));
  if (app_id != 0 && app_id != kSqliteApplicationId) {
    return InvalidFormat(db.path() + " is not a vigilo control database (its SQLite application_id is " +
                         Hex32(app_id) + ")");
  }
  VIGILO_ASSIGN_OR_RETURN(int64_t has_version,
                          QueryInt(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'schema_version'"));
  if (has_version == 0) {
    VIGILO_ASSIGN_OR_RETURN(int64_t objects, QueryInt(db, "SELECT count(*) FROM sqlite_schema"));
    if (objects != 0) {
      return InvalidFormat(db.path() + " is not a vigilo control database (it has tables but no schema_version)");
    }
    return 0;
  }
  VIGILO_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT version FROM schema_version"));
  VIGILO_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return InvalidFormat("the control database " + db.path() + " has an empty schema_version table");
  int64_t version = stmt.Int(0);
  VIGILO_ASSIGN_OR_RETURN(bool second, stmt.Step());
  if (second || version < 1) {
    return InvalidFormat("the control database " + db.path() + " has a malformed schema_version table");
  }
  return version;
}

Status MigrateSchema(Database& db) {
  auto check_known = [&db](int64_t version) -> Status {
    if (version > kSqliteSchemaVersion) {
      return Unimplemented("the control database " + db.path() + " has schema version " + std::to_string(version) +
                           "; this vigilo knows versions up to " + std::to_string(kSqliteSchemaVersion) +
                           ": use a newer vigilo");
    }
    return Status::Ok();
  };
  // The common case reads only, so that processes opening a current
  // database do not queue on the write lock.
  {
    VIGILO_ASSIGN_OR_RETURN(Transaction read, Transaction::Begin(db, Transaction::Kind::kRead));
    VIGILO_ASSIGN_OR_RETURN(int64_t version, SchemaVersion(db));
    VIGILO_RETURN_IF_ERROR(check_known(version));
    if (version == kSqliteSchemaVersion) return read.Commit();
  }
  // A migration may rebuild a table others refer to (version 3): foreign
  // keys are off while it runs (a no-op inside a transaction, so before it)
  // and every one is checked before the commit.
  VIGILO_RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys = OFF"));
  struct KeysBackOn {
    Database& db;
    ~KeysBackOn() { (void)db.Exec("PRAGMA foreign_keys = ON"); }
  } keys_back_on{db};
  VIGILO_ASSIGN_OR_RETURN(Transaction write, Transaction::Begin(db, Transaction::Kind::kWrite));
  VIGILO_ASSIGN_OR_RETURN(int64_t version, SchemaVersion(db));  // another process may have migrated meanwhile
  VIGILO_RETURN_IF_ERROR(check_known(version));
  if (version == kSqliteSchemaVersion) return write.Commit();
  for (int64_t v = version; v < kSqliteSchemaVersion; ++v) {
    VIGILO_RETURN_IF_ERROR(db.Exec(std::string(kMigrations[static_cast<size_t>(v)])));
  }
  VIGILO_RETURN_IF_ERROR(db.Exec("DELETE FROM schema_version"));
  VIGILO_ASSIGN_OR_RETURN(Statement set, db.Prepare("INSERT INTO schema_version (version) VALUES (?1)"));
  VIGILO_RETURN_IF_ERROR(set.Bind(1, int64_t{kSqliteSchemaVersion}).Run());
  VIGILO_RETURN_IF_ERROR(db.Exec("PRAGMA application_id = " + std::to_string(kSqliteApplicationId)));
  VIGILO_ASSIGN_OR_RETURN(int64_t broken, QueryInt(db, "SELECT count(*) FROM pragma_foreign_key_check"));
  if (broken != 0) {
    return Internal("migrating the control database " + db.path() + " would break " + std::to_string(broken) +
                    " foreign keys; nothing was changed");
  }
  return write.Commit();
}

}  // namespace vigilo::control::sqlite
