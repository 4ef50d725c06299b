// The embedded control store: one SQLite database file (Debian's libsqlite3)
// shared by every vigilo process on the machine. WAL journal, synchronous =
// FULL (a recorded key must survive a power cut that its object survives),
// BEGIN IMMEDIATE for every change (writers queue on the database lock
// instead of failing half way), a busy timeout, foreign keys on, and a
// versioned schema migrated forward on open.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "vigilo/common/result.h"
#include "vigilo/control/control_store.h"
#include "vigilo/store/clock.h"

namespace vigilo::control {

// The schema this build writes and understands (schema_version table). A
// database with a higher version is refused; a lower one is migrated.
inline constexpr int kSqliteSchemaVersion = 4;
// PRAGMA application_id of a vigilo control database ("VGCS"): a file that
// carries another application's id is refused.
inline constexpr int32_t kSqliteApplicationId = 0x56474353;

struct SqliteOptions {
  // Wall clock for leases and timestamps; random source for attempt IDs.
  // Both outlive the store (defaults: DefaultWallClock(), DefaultRandom()).
  store::Clock* wall_clock = nullptr;
  store::RandomSource* random = nullptr;
  // How long a change waits for another process's transaction.
  int busy_timeout_ms = 10'000;
  // Create the file (and its parent directories) if missing; otherwise a
  // missing file is NotFound.
  bool create = true;
};

// Opens (creating and migrating as needed) the database at `path`.
// Unimplemented when its schema is newer than kSqliteSchemaVersion;
// InvalidFormat when it is not a vigilo control database.
Result<std::unique_ptr<ControlStore>> OpenSqliteControlStore(const std::string& path,
                                                             const SqliteOptions& options = {});

// The control state a locator names (docs/format/stores.md, "Control
// state"): "memory:" is a private in-process state that lives as long as the
// returned store (tests, one-shot embedding: nothing is written anywhere);
// postgresql://… or postgres://… is a PostgreSQL database
// (postgres_control_store.h; the options' clock, random source and `create`
// apply to it too); anything else is the path of the SQLite database file, and an existing
// directory means control.sqlite3 inside it. Which locator is in force is
// the edge's decision (engine::Settings); nothing here reads the
// environment. `options.create` false: a missing file is NotFound.
inline constexpr std::string_view kMemoryControlLocator = "memory:";
inline constexpr std::string_view kControlDatabaseFile = "control.sqlite3";
Result<std::unique_ptr<ControlStore>> OpenControlStore(std::string_view locator, const SqliteOptions& options = {});

}  // namespace vigilo::control
