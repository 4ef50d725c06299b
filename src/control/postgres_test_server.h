// One PostgreSQL server per test process, for the control backend's tests:
// started on first use by scripts/postgres (initdb into a private
// directory, a socket there and a free loopback port; a watchdog stops it
// if this process dies without stopping it) and stopped at exit. Every
// control store a test makes is a fresh schema of its own in that server
// (CREATE SCHEMA, and the locator's search_path names it): a few
// milliseconds, where a database per test would cost a copy of a template.
#pragma once

#include <string>

#include "vigilo/common/result.h"

namespace vigilo::control::testing_support {

class SharedPostgres {
 public:
  // Started once per process (well under a second on an idle machine);
  // the error says what failed (a missing package: run scripts/setup).
  static Result<SharedPostgres*> Get();

  // The server's own database over its socket, as superuser "vigilo".
  const std::string& admin_url() const { return url_; }
  int port() const { return port_; }
  const std::string& base() const { return base_; }

  // The locator of a new, empty schema no other test of this process uses.
  Result<std::string> FreshSchema();
  // Runs SQL on a connection of its own to `locator` (a schema's locator or
  // admin_url()): "" on success, else the server's message.
  static std::string Exec(const std::string& locator, const std::string& sql);
  // The first column of the first row of `sql` as text ("no row", "null",
  // or "error: <message>").
  static std::string Query(const std::string& locator, const std::string& sql);
  // Stops the server and starts it again on the same port and socket
  // (scripts/postgres restart): every open connection is lost.
  Status Restart();
  // Stops the server (connections fail until Start) and starts it again.
  Status Stop();
  Status Start();

 private:
  std::string base_;
  std::string url_;
  int port_ = 0;
  int next_ = 0;
};

}  // namespace vigilo::control::testing_support
