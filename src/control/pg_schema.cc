#include "pg_schema.h"

#include <array>
#include <string>

#include "vigilo/control/postgres_control_store.h"

namespace vigilo::control::pg {
namespace {

// Version 1: the whole ledger as SQLite's version 4 has it (sqlite_schema.cc
// says why each table and trigger exists). Times are wall-clock
// microseconds since the Unix epoch. Text that is sorted is COLLATE "C", so
// that listings come out in byte order, as SQLite's, whatever the
// database's locale. The triggers restate the ledger's invariants inside
// the database, as SQLite's do.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE schema_version (
  version integer NOT NULL
);

CREATE TABLE fencing (
  singleton integer PRIMARY KEY CHECK (singleton = 1),
  last_epoch bigint NOT NULL CHECK (last_epoch >= 0)
);
INSERT INTO fencing (singleton, last_epoch) VALUES (1, 0);

CREATE TABLE attempts (
  attempt_id text COLLATE "C" NOT NULL,
  generation bigint NOT NULL CHECK (generation >= 1),
  namespace text COLLATE "C" NOT NULL CHECK (namespace ~ '^[a-z][a-z0-9_]{0,31}$'),
  name text COLLATE "C" NOT NULL,
  store text COLLATE "C" NOT NULL,
  key_prefix text COLLATE "C" NOT NULL UNIQUE,
  owner text NOT NULL,
  state text NOT NULL CHECK (state IN ('active', 'published', 'abandoned')),
  epoch bigint NOT NULL CHECK (epoch >= 1),
  lease_expires_at bigint NOT NULL,
  admission_limits text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  cleanup_due_at bigint,
  cleanup_claimed_until bigint,
  PRIMARY KEY (attempt_id, generation)
);
CREATE INDEX attempts_by_root ON attempts (namespace, name, created_at);
CREATE INDEX attempts_by_cleanup ON attempts (store, state, cleanup_due_at);

CREATE TABLE attempt_keys (
  attempt_id text COLLATE "C" NOT NULL,
  generation bigint NOT NULL,
  key text COLLATE "C" NOT NULL,
  recorded_at bigint NOT NULL,
  cleanup_failures bigint NOT NULL DEFAULT 0,
  last_cleanup_error text,
  PRIMARY KEY (attempt_id, generation, key),
  FOREIGN KEY (attempt_id, generation) REFERENCES attempts (attempt_id, generation)
);

CREATE TABLE root_history (
  namespace text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  version bigint NOT NULL CHECK (version >= 1),
  value text NOT NULL,
  attempt_id text COLLATE "C" NOT NULL,
  generation bigint NOT NULL,
  epoch bigint NOT NULL,
  published_at bigint NOT NULL,
  PRIMARY KEY (namespace, name, version),
  FOREIGN KEY (attempt_id, generation) REFERENCES attempts (attempt_id, generation)
);

CREATE TABLE roots (
  namespace text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  retired_at bigint,
  PRIMARY KEY (namespace, name),
  FOREIGN KEY (namespace, name, version) REFERENCES root_history (namespace, name, version)
);

CREATE TABLE root_retirements (
  namespace text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  retired_at bigint NOT NULL,
  PRIMARY KEY (namespace, name, version),
  FOREIGN KEY (namespace, name, version) REFERENCES root_history (namespace, name, version)
);

CREATE TABLE shard_routes (
  namespace text COLLATE "C" NOT NULL DEFAULT 'runs' CHECK (namespace = 'runs'),
  run text COLLATE "C" NOT NULL,
  run_shard integer NOT NULL CHECK (run_shard >= 0 AND run_shard < 128),
  route text NOT NULL CHECK (octet_length(route) BETWEEN 1 AND 256),
  epoch bigint NOT NULL CHECK (epoch >= 1),
  updated_at bigint NOT NULL,
  PRIMARY KEY (namespace, run, run_shard),
  FOREIGN KEY (namespace, run) REFERENCES roots (namespace, name)
);

-- One function refuses with the message its trigger passes.
CREATE FUNCTION vigilo_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '%', TG_ARGV[0]; END $$;

CREATE TRIGGER attempt_state_is_final BEFORE UPDATE OF state ON attempts FOR EACH ROW
WHEN (OLD.state <> 'active' AND NEW.state <> OLD.state)
EXECUTE FUNCTION vigilo_refuse('a published or abandoned attempt keeps its state');

CREATE TRIGGER attempt_identity_is_fixed BEFORE UPDATE ON attempts FOR EACH ROW
WHEN ((OLD.attempt_id, OLD.generation, OLD.namespace, OLD.name, OLD.store, OLD.key_prefix) IS DISTINCT FROM
      (NEW.attempt_id, NEW.generation, NEW.namespace, NEW.name, NEW.store, NEW.key_prefix))
EXECUTE FUNCTION vigilo_refuse('an attempt''s identity, store and prefix never change');

CREATE TRIGGER attempts_are_kept BEFORE DELETE ON attempts FOR EACH ROW
EXECUTE FUNCTION vigilo_refuse('attempts are never deleted');

CREATE FUNCTION vigilo_key_rules() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF (SELECT state FROM attempts WHERE attempt_id = NEW.attempt_id AND generation = NEW.generation)
       IS DISTINCT FROM 'active' THEN
      RAISE EXCEPTION 'keys are recorded only by an active attempt';
    END IF;
    RETURN NEW;
  END IF;
  IF (SELECT state FROM attempts WHERE attempt_id = OLD.attempt_id AND generation = OLD.generation)
     IS DISTINCT FROM 'abandoned' THEN
    RAISE EXCEPTION 'only the keys of an abandoned attempt are cleanup work';
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER attempt_key_rules BEFORE INSERT OR DELETE ON attempt_keys FOR EACH ROW
EXECUTE FUNCTION vigilo_key_rules();

CREATE TRIGGER root_history_is_kept BEFORE UPDATE OR DELETE ON root_history FOR EACH ROW
EXECUTE FUNCTION vigilo_refuse('the root history is append-only');

CREATE TRIGGER roots_are_kept BEFORE DELETE ON roots FOR EACH ROW
EXECUTE FUNCTION vigilo_refuse('a published name is never removed');

CREATE TRIGGER root_is_retired_once BEFORE UPDATE ON roots FOR EACH ROW
WHEN (OLD.retired_at IS NOT NULL AND NEW.retired_at IS NOT NULL AND NEW.version = OLD.version)
EXECUTE FUNCTION vigilo_refuse('a name is retired once per version');

CREATE TRIGGER retired_root_returns_with_a_new_version BEFORE UPDATE ON roots FOR EACH ROW
WHEN (OLD.retired_at IS NOT NULL AND NEW.retired_at IS NULL AND NEW.version <= OLD.version)
EXECUTE FUNCTION vigilo_refuse('a retired name comes back only with a new version');

CREATE TRIGGER root_retirements_are_kept BEFORE UPDATE OR DELETE ON root_retirements FOR EACH ROW
EXECUTE FUNCTION vigilo_refuse('retirements are append-only');

CREATE TRIGGER route_starts_at_epoch_one BEFORE INSERT ON shard_routes FOR EACH ROW
WHEN (NEW.epoch <> 1)
EXECUTE FUNCTION vigilo_refuse('a shard route starts at epoch 1');

CREATE TRIGGER route_epoch_counts_moves BEFORE UPDATE ON shard_routes FOR EACH ROW
WHEN (NEW.epoch <> OLD.epoch + 1)
EXECUTE FUNCTION vigilo_refuse('a shard route epoch increases by one per move');

CREATE TRIGGER route_shard_is_fixed BEFORE UPDATE ON shard_routes FOR EACH ROW
WHEN ((OLD.namespace, OLD.run, OLD.run_shard) IS DISTINCT FROM (NEW.namespace, NEW.run, NEW.run_shard))
EXECUTE FUNCTION vigilo_refuse('a shard route never changes its run or shard');

CREATE TRIGGER routes_are_kept BEFORE DELETE ON shard_routes FOR EACH ROW
EXECUTE FUNCTION vigilo_refuse('shard routes are never deleted');
)sql";

// Index i takes version i to i + 1. A migration's text never changes once
// released: schemas of that version were made by it.
constexpr std::array<std::string_view, kPostgresSchemaVersion> kMigrations = {kVersion1};

// The version of the current schema: 0 when it holds no table at all.
Result<int64_t> SchemaVersion(Session& session) {
  VIGILO_ASSIGN_OR_RETURN(Rows schema, session.Query("SELECT current_schema()"));
  if (schema.IsNull(0, 0)) {
    return NotFound("the control database " + session.display() +
                    " has no schema to hold the control state: its search_path names no existing schema");
  }
  const std::string name = schema.Text(0, 0);
  VIGILO_ASSIGN_OR_RETURN(Rows tables, session.Query("SELECT count(*), count(*) FILTER (WHERE c.relname = "
                                                     "'schema_version') FROM pg_class c JOIN pg_namespace n ON "
                                                     "n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind "
                                                     "IN ('r', 'p', 'v')",
                                                     {P(name)}));
  if (tables.Int(0, 1) == 0) {
    if (tables.Int(0, 0) != 0) {
      return InvalidFormat("the schema " + name + " of " + session.display() +
                           " is not a vigilo control state (it has tables but no schema_version)");
    }
    return 0;
  }
  VIGILO_ASSIGN_OR_RETURN(Rows version, session.Query("SELECT version FROM schema_version"));
  if (version.size() != 1 || version.IsNull(0, 0) || version.Int(0, 0) < 1) {
    return InvalidFormat("the control state in schema " + name + " of " + session.display() +
                         " has a malformed schema_version table");
  }
  return version.Int(0, 0);
}

Status CheckKnown(Session& session, int64_t version) {
  if (version > kPostgresSchemaVersion) {
    return Unimplemented("the control database " + session.display() + " has schema version " +
                         std::to_string(version) + "; this vigilo knows versions up to " +
                         std::to_string(kPostgresSchemaVersion) + ": use a newer vigilo");
  }
  return Status::Ok();
}

}  // namespace

std::string_view MigrationSql(int64_t to_version) {
  if (to_version < 1 || to_version > kPostgresSchemaVersion) return {};
  return kMigrations[static_cast<size_t>(to_version - 1)];
}

Status MigrateSchema(Session& session, bool create) {
  return session.TransactStatus(true, [&]() -> Status {
    // Concurrent first opens queue here; the second finds the tables made.
    VIGILO_RETURN_IF_ERROR(
        session.Query("SELECT pg_advisory_xact_lock(hashtextextended('vigilo control schema ' || "
                      "coalesce(current_schema(), ''), 0))")
            .status());
    VIGILO_ASSIGN_OR_RETURN(int64_t version, SchemaVersion(session));
    VIGILO_RETURN_IF_ERROR(CheckKnown(session, version));
    if (version == kPostgresSchemaVersion) return Status::Ok();
    if (version == 0 && !create) {
      return NotFound("the control database " + session.display() + " holds no control state yet");
    }
    for (int64_t v = version; v < kPostgresSchemaVersion; ++v) {
      VIGILO_RETURN_IF_ERROR(session.Script(kMigrations[static_cast<size_t>(v)]));
    }
    VIGILO_RETURN_IF_ERROR(session.Query("DELETE FROM schema_version").status());
    return session.Query("INSERT INTO schema_version (version) VALUES ($1)", {P(int64_t{kPostgresSchemaVersion})})
        .status();
  });
}

}  // namespace vigilo::control::pg
