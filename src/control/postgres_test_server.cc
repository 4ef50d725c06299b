#include "postgres_test_server.h"

#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "script_server_testing.h"

namespace vigilo::control::testing_support {
namespace {

struct Holder {
  std::unique_ptr<SharedPostgres> server;
  Status status = Status::Ok();
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
    Result<store::testing::ScriptServer> started = store::testing::StartScriptServer("scripts/postgres", "pg");
    if (!started.ok()) {
      holder.status = started.status();
      return holder.status;
    }
    const std::string& base = started->base;
    std::map<std::string, std::string>& values = started->values;
    server->base_ = base;
    server->url_ = values["url"];
    server->port_ = std::atoi(values["port"].c_str());
    if (server->url_.empty() || server->port_ == 0) {
      holder.status = IoError("scripts/postgres printed no url");
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

Status SharedPostgres::Restart() { return store::testing::RunScript("scripts/postgres", "restart " + base_).status(); }
Status SharedPostgres::Stop() { return store::testing::RunScript("scripts/postgres", "stop " + base_).status(); }
Status SharedPostgres::Start() { return store::testing::RunScript("scripts/postgres", "up " + base_).status(); }

}  // namespace vigilo::control::testing_support
