#include "pg_db.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace vigilo::control::pg {
namespace {

// SQLSTATEs after which running the whole transaction again may succeed:
// serialization failure, deadlock, and a unique key another transaction
// inserted first (the retry reads it and decides).
bool IsRetryState(std::string_view state) {
  return state == "40001" || state == "40P01" || state == "23505";
}

// SQLSTATEs that mean the connection is gone or the server is going away:
// class 08, admin/crash shutdown, "the database system is starting up".
bool IsConnectionState(std::string_view state) {
  return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03";
}

// Connection failures that no retry cures (the server answered and refused).
bool IsFinalConnectError(std::string_view message) {
  for (std::string_view refusal : {"authentication failed", "does not exist", "no password supplied",
                                   "permission denied", "invalid ", "not permitted", "no pg_hba.conf entry"}) {
    if (message.find(refusal) != std::string_view::npos) return true;
  }
  return false;
}

std::string Trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string PasswordOf(const std::string& locator) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(locator.c_str(), &error);
  if (error != nullptr) PQfreemem(error);
  std::string password;
  if (options == nullptr) return password;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (std::string_view(o->keyword) == "password" && o->val != nullptr) password = o->val;
  }
  PQconninfoFree(options);
  return password;
}

}  // namespace

Rows::Rows(pg_result* result) : result_(result) {}
Rows::Rows(Rows&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
Rows& Rows::operator=(Rows&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}
Rows::~Rows() {
  if (result_ != nullptr) PQclear(result_);
}
int Rows::size() const { return PQntuples(result_); }
std::string Rows::Text(int row, int column) const { return PQgetvalue(result_, row, column); }
int64_t Rows::Int(int row, int column) const { return std::strtoll(PQgetvalue(result_, row, column), nullptr, 10); }
bool Rows::IsNull(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }

Session::Session(std::string locator, const PostgresOptions& options)
    : locator_(std::move(locator)),
      display_(RedactLocator(locator_)),
      password_(PasswordOf(locator_)),
      options_(options) {
  if (options_.retry_clock == nullptr) options_.retry_clock = &store::DefaultClock();
  options_.max_attempts = std::max(options_.max_attempts, 1);
}

Session::~Session() {
  if (conn_ != nullptr) PQfinish(conn_);
}

Result<std::unique_ptr<Session>> Session::Open(const std::string& locator, const PostgresOptions& options) {
  std::unique_ptr<Session> session(new Session(locator, options));
  VIGILO_RETURN_IF_ERROR(session->Reconnect(Status::Ok()));
  return session;
}

std::string Session::Scrub(std::string message) const {
  if (password_.empty()) return message;
  for (size_t at = message.find(password_); at != std::string::npos; at = message.find(password_, at)) {
    message.replace(at, password_.size(), "***");
  }
  return message;
}

void Session::Hook(std::string_view stage) {
  if (options_.fault_hook) options_.fault_hook(stage, conn_ != nullptr ? PQsocket(conn_) : -1);
}

Status Session::ConnectOnce() {
  if (conn_ != nullptr) PQfinish(conn_);
  // Defaults first: what the locator itself says overrides them. A server
  // that stops answering without closing the connection (a host gone, a
  // partition) is noticed by TCP keepalives and tcp_user_timeout (30 s)
  // instead of a read that waits forever; statement_timeout bounds a
  // statement the server itself never finishes. All are ignored on a Unix
  // socket, where the kernel sees a dead peer at once.
  const std::string timeout = std::to_string(options_.connect_timeout_s);
  const char* keywords[] = {"connect_timeout", "application_name", "keepalives", "keepalives_idle",
                            "keepalives_interval", "keepalives_count", "tcp_user_timeout", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), "vigilo", "1", "10", "5", "3", "30000", locator_.c_str(), nullptr};
  conn_ = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK) {
    // SET LOCAL would need a transaction; the session setting is simpler.
    PGresult* r = PQexec(conn_, ("SET lock_timeout = " + std::to_string(options_.lock_timeout_ms) +
                                 "; SET statement_timeout = 60000")
                                    .c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    Status s = ok ? Status::Ok() : Classify(r, "configuring the connection");
    PQclear(r);
    return s;
  }
  std::string detail = conn_ != nullptr ? Trim(PQerrorMessage(conn_)) : "out of memory";
  std::string message = Scrub("cannot connect to the control database " + display_ + ": " + detail);
  failure_ = IsFinalConnectError(detail) ? Failure::kFinal : Failure::kConnection;
  return failure_ == Failure::kFinal ? IoError(message) : Unavailable(message);
}

Status Session::Sleep(int attempt) {
  Micros wait = options_.backoff_base;
  for (int i = 1; i < attempt && wait < options_.backoff_cap; ++i) wait *= 2;
  return options_.retry_clock->SleepFor(std::min(wait, options_.backoff_cap), nullptr);
}

// Up to max_attempts connection attempts; `why` (the lost connection) is
// what the error reports if none succeeds.
Status Session::Reconnect(const Status& why) {
  Status last = why;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (attempt > 1) VIGILO_RETURN_IF_ERROR(Sleep(attempt - 1));
    last = ConnectOnce();
    if (last.ok() || failure_ == Failure::kFinal) return last;
  }
  return Status(last.code(), std::string(last.message()) + " (after " + std::to_string(options_.max_attempts) +
                                 " attempts)");
}

Status Session::Classify(pg_result* result, std::string_view what) {
  const char* state_field = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const std::string state = state_field != nullptr ? state_field : "";
  const std::string detail = Trim(result != nullptr && PQresultErrorMessage(result)[0] != '\0'
                                      ? PQresultErrorMessage(result)
                                      : PQerrorMessage(conn_));
  std::string message = Scrub("the control database " + display_ + " failed " + std::string(what) + ": " + detail);
  if (PQstatus(conn_) == CONNECTION_BAD || IsConnectionState(state)) {
    failure_ = Failure::kConnection;
    return Unavailable(message);
  }
  if (IsRetryState(state)) {
    failure_ = Failure::kRetry;
    return Unavailable(message);
  }
  failure_ = Failure::kFinal;
  if (state == "55P03") {
    return Unavailable("the control database is busy (a lock was held past the lock timeout): " + message);
  }
  return Internal(message);
}

Result<Rows> Session::Query(std::string_view sql, const std::vector<Param>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const Param& p : params) values.push_back(p.has_value() ? p->c_str() : nullptr);
  const std::string text(sql);
  PGresult* r = PQexecParams(conn_, text.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                             nullptr, 0);
  const ExecStatusType status = PQresultStatus(r);
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) return Rows(r);
  Status s = Classify(r, "a query");
  PQclear(r);
  return s;
}

Status Session::Script(std::string_view sql) {
  PGresult* r = PQexec(conn_, std::string(sql).c_str());
  const ExecStatusType status = PQresultStatus(r);
  Status s = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK ? Status::Ok() : Classify(r, "a statement");
  PQclear(r);
  return s;
}

Status Session::TransactStatus(bool write, const std::function<Status()>& body) {
  Status last;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (attempt > 1) VIGILO_RETURN_IF_ERROR(Sleep(attempt - 1));
    failure_ = Failure::kNone;
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
      last = ConnectOnce();
      if (!last.ok()) {
        if (failure_ == Failure::kFinal) return last;
        continue;
      }
    }
    last = RunOnce(write, body);
    if (last.ok() || failure_ == Failure::kNone || failure_ == Failure::kFinal) return last;
    if (failure_ == Failure::kConnection) {  // never reuse a connection that failed once
      PQfinish(conn_);
      conn_ = nullptr;
    }
  }
  return Status(last.code(), std::string(last.message()) + " (after " + std::to_string(options_.max_attempts) +
                                 " attempts)");
}

Status Session::RunOnce(bool write, const std::function<Status()>& body) {
  std::optional<std::string> xid;
  if (write) {
    // The transaction id, read before any change, is how a lost COMMIT
    // reply is resolved (ResolveCommit).
    VIGILO_ASSIGN_OR_RETURN(Rows rows, Query("BEGIN ISOLATION LEVEL READ COMMITTED"));
    VIGILO_ASSIGN_OR_RETURN(Rows id, Query("SELECT pg_current_xact_id()::text"));
    xid = id.Text(0, 0);
  } else {
    VIGILO_RETURN_IF_ERROR(Script("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  }
  Status s = body();
  if (!s.ok()) {
    if (PQstatus(conn_) == CONNECTION_OK) {
      PGresult* r = PQexec(conn_, "ROLLBACK");
      PQclear(r);
    }
    return s;
  }
  return Commit(xid);
}

Status Session::Commit(const std::optional<std::string>& xid) {
  Hook("commit");
  Status lost;
  if (PQsendQuery(conn_, "COMMIT") == 1) {
    Hook("commit_sent");
    Status result = Status::Ok();
    bool any = false;
    while (PGresult* r = PQgetResult(conn_)) {
      any = true;
      if (PQresultStatus(r) != PGRES_COMMAND_OK && result.ok()) result = Classify(r, "COMMIT");
      PQclear(r);
    }
    if (any && result.ok() && PQstatus(conn_) == CONNECTION_OK) return Status::Ok();
    if (!result.ok() && failure_ != Failure::kConnection) return result;  // refused: not committed
    lost = result.ok() ? Classify(nullptr, "COMMIT") : result;
  } else {
    lost = Classify(nullptr, "sending COMMIT");
  }
  // The connection broke around COMMIT: the transaction may or may not have
  // committed. A read-only one changed nothing, so running it again is safe.
  if (!xid.has_value()) return lost;
  return ResolveCommit(*xid, lost);
}

// Reconnects and asks the server what became of transaction `xid`:
// committed → done; aborted → the caller runs it again; still in progress
// (its backend has not noticed yet) → asked again after a pause.
Status Session::ResolveCommit(const std::string& xid, const Status& lost) {
  for (int attempt = 1; attempt <= options_.max_attempts * 10; ++attempt) {
    if (attempt > 1) VIGILO_RETURN_IF_ERROR(options_.retry_clock->SleepFor(20'000, nullptr));
    if (PQstatus(conn_) != CONNECTION_OK) {
      Status connected = Reconnect(lost);
      if (!connected.ok()) {
        failure_ = Failure::kFinal;
        return Unavailable("the connection to the control database " + display_ +
                           " was lost during COMMIT, and whether it committed cannot be read back: " +
                           std::string(connected.message()));
      }
    }
    PGresult* r = PQexecParams(conn_, "SELECT pg_xact_status($1::xid8)", 1, nullptr,
                               std::vector<const char*>{xid.c_str()}.data(), nullptr, nullptr, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
      Status s = Classify(r, "reading a transaction's status");
      PQclear(r);
      if (failure_ == Failure::kConnection) continue;
      return s;
    }
    const std::string status = PQgetisnull(r, 0, 0) ? "" : PQgetvalue(r, 0, 0);
    PQclear(r);
    if (status == "committed") {
      failure_ = Failure::kNone;
      return Status::Ok();
    }
    if (status == "aborted") {
      failure_ = Failure::kConnection;  // not committed: run it again
      return lost;
    }
    if (status != "in progress") break;
  }
  failure_ = Failure::kFinal;
  return Unavailable("the connection to the control database " + display_ + " was lost during COMMIT of transaction " +
                     xid + ", and the server cannot say whether it committed: " + std::string(lost.message()));
}

}  // namespace vigilo::control::pg
