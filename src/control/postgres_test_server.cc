#include "postgres_test_server.h"

#include <libpq-fe.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace vigilo::control::testing_support {
namespace {

std::string Script() { return std::string(VIGILO_SOURCE_DIR) + "/scripts/postgres"; }

// Runs `command` with sh, returning its stdout; its stderr is in the error.
Result<std::string> Run(const std::string& command) {
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("vigilo-pg-" + std::to_string(::getpid()) + ".log"))
                              .string();
  std::FILE* pipe = ::popen((command + " 2>" + log).c_str(), "r");
  if (pipe == nullptr) return IoError("cannot run " + command);
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  const int status = ::pclose(pipe);
  std::string err;
  if (std::FILE* f = std::fopen(log.c_str(), "r")) {
    while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) err.append(buffer, n);
    std::fclose(f);
  }
  std::remove(log.c_str());
  if (status != 0) return IoError(command + " failed (status " + std::to_string(status) + "): " + err);
  return out;
}

struct Holder {
  std::unique_ptr<SharedPostgres> server;
  Status status = Status::Ok();
  std::string base;
  pid_t owner = 0;
  ~Holder() {
    // Forked children leave with _exit; only the process that started the
    // server stops it.
    if (base.empty() || ::getpid() != owner) return;
    (void)!std::system(("bash " + Script() + " down " + base + " >/dev/null 2>&1").c_str());
  }
};

using Connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;

Connection Connect(const std::string& locator) { return Connection(PQconnectdb(locator.c_str()), &PQfinish); }

}  // namespace

Result<SharedPostgres*> SharedPostgres::Get() {
  static std::mutex mu;
  static Holder holder;
  static bool tried = false;
  std::lock_guard lock(mu);
  if (!tried) {
    tried = true;
    auto server = std::unique_ptr<SharedPostgres>(new SharedPostgres());
    const std::string base =
        (std::filesystem::temp_directory_path() / ("vigilo-pg-" + std::to_string(::getpid()))).string();
    holder.base = base;
    holder.owner = ::getpid();
    Result<std::string> out = Run("bash " + Script() + " up " + base + " " + std::to_string(::getpid()));
    if (!out.ok()) {
      holder.status = out.status();
      return holder.status;
    }
    std::map<std::string, std::string> values;
    std::istringstream lines(*out);
    for (std::string line; std::getline(lines, line);) {
      const size_t eq = line.find('=');
      if (eq != std::string::npos) values[line.substr(0, eq)] = line.substr(eq + 1);
    }
    server->base_ = base;
    server->url_ = values["url"];
    server->port_ = std::atoi(values["port"].c_str());
    if (server->url_.empty() || server->port_ == 0) {
      holder.status = IoError("scripts/postgres printed no url: " + *out);
      return holder.status;
    }
    holder.server = std::move(server);
  }
  if (!holder.server) return holder.status;
  return holder.server.get();
}

Result<std::string> SharedPostgres::FreshSchema() {
  static std::mutex mu;
  std::string schema;
  {
    std::lock_guard lock(mu);
    schema = "t" + std::to_string(::getpid()) + "_" + std::to_string(next_++);
  }
  if (std::string error = Exec(url_, "CREATE SCHEMA " + schema); !error.empty()) {
    return IoError("cannot create the schema " + schema + ": " + error);
  }
  return url_ + "&options=-csearch_path%3D" + schema;
}

std::string SharedPostgres::Exec(const std::string& locator, const std::string& sql) {
  Connection conn = Connect(locator);
  if (PQstatus(conn.get()) != CONNECTION_OK) return PQerrorMessage(conn.get());
  PGresult* r = PQexec(conn.get(), sql.c_str());
  const ExecStatusType status = PQresultStatus(r);
  std::string message = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK ? "" : PQresultErrorMessage(r);
  PQclear(r);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return message;
}

std::string SharedPostgres::Query(const std::string& locator, const std::string& sql) {
  Connection conn = Connect(locator);
  if (PQstatus(conn.get()) != CONNECTION_OK) return std::string("error: ") + PQerrorMessage(conn.get());
  PGresult* r = PQexec(conn.get(), sql.c_str());
  std::string out;
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    out = std::string("error: ") + PQresultErrorMessage(r);
  } else if (PQntuples(r) == 0) {
    out = "no row";
  } else {
    out = PQgetisnull(r, 0, 0) ? "null" : PQgetvalue(r, 0, 0);
  }
  PQclear(r);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

Status SharedPostgres::Restart() { return Run("bash " + Script() + " restart " + base_).status(); }
Status SharedPostgres::Stop() { return Run("bash " + Script() + " stop " + base_).status(); }
Status SharedPostgres::Start() { return Run("bash " + Script() + " up " + base_).status(); }

}  // namespace vigilo::control::testing_support
