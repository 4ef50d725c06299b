// The shared control store: a PostgreSQL database (Debian's libpq) that
// processes on many machines use at once (docs/format/control-postgresql.md).
// Selected by a locator postgresql://… or postgres://… (a libpq connection
// URI) in control::OpenControlStore. The tables live in the connection's
// current schema (search_path), so one database can hold several control
// states. Every change is one READ COMMITTED transaction that locks the rows
// it decides on (SELECT … FOR UPDATE; an advisory lock per root name), so the
// epoch check and the write commit together.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/control/control_store.h"
#include "vigilo/store/clock.h"

namespace vigilo::control {

// The schema this build writes and understands (table schema_version). A
// newer one is refused (Unimplemented); an older one is migrated on open.
inline constexpr int kPostgresSchemaVersion = 1;

struct PostgresOptions {
  // Wall clock for leases and timestamps; random source for attempt IDs.
  // Both outlive the store (defaults: DefaultWallClock(), DefaultRandom()).
  store::Clock* wall_clock = nullptr;
  store::RandomSource* random = nullptr;
  // Connection loss and server-requested retries: at most `max_attempts`
  // tries of one operation, sleeping on `retry_clock` (default: the steady
  // clock) backoff_base × 2^n, at most backoff_cap, between them.
  int max_attempts = 5;
  Micros backoff_base = 100'000;
  Micros backoff_cap = 2'000'000;
  store::Clock* retry_clock = nullptr;
  // How long a change waits for another transaction's lock, and how long a
  // connection attempt may take.
  int lock_timeout_ms = 10'000;
  int connect_timeout_s = 5;
  // Create the tables in an empty schema; otherwise an empty schema is
  // NotFound.
  bool create = true;
  // Tests only: called at named points of a transaction ("commit": before
  // COMMIT is sent; "commit_sent": after, before its reply is read) with
  // the connection's socket, to restart the server or drop the connection
  // exactly there.
  std::function<void(std::string_view stage, int socket)> fault_hook;
};

// True for postgresql://… and postgres://… locators.
bool IsPostgresLocator(std::string_view locator);

// The locator as errors and logs show it: the password (in the user info or
// a password= parameter) removed.
std::string RedactLocator(std::string_view locator);

// Connects, creates or migrates the schema, and returns the store.
// Unimplemented when the schema is newer than kPostgresSchemaVersion;
// InvalidFormat when the schema holds tables that are not a vigilo control
// state; Unavailable when the server stays unreachable.
Result<std::unique_ptr<ControlStore>> OpenPostgresControlStore(const std::string& locator,
                                                               const PostgresOptions& options = {});

}  // namespace vigilo::control
