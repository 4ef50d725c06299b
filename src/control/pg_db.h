// A thin layer over libpq for the PostgreSQL control store: one connection
// that reconnects, queries with text parameters, and transactions that are
// retried a bounded number of times when the connection is lost or the
// server asks for a retry (serialization failure, deadlock, a unique-key
// race). A COMMIT whose reply was lost is never guessed: the transaction's
// id is read at BEGIN and, after reconnecting, pg_xact_status says whether
// it committed. Every error names the server by its locator with the
// password removed (RedactLocator), and the password never appears in one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/control/postgres_control_store.h"

struct pg_conn;
struct pg_result;

namespace vigilo::control::pg {

// A query's rows (a PGresult), read as text or integers.
class Rows {
 public:
  explicit Rows(pg_result* result);
  Rows(Rows&&) noexcept;
  Rows& operator=(Rows&&) noexcept;
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;
  ~Rows();

  int size() const;
  std::string Text(int row, int column) const;
  int64_t Int(int row, int column) const;
  bool IsNull(int row, int column) const;

 private:
  pg_result* result_;
};

using Param = std::optional<std::string>;  // nullopt: SQL NULL
inline Param P(int64_t value) { return std::to_string(value); }
inline Param P(std::string_view text) { return std::string(text); }

class Session {
 public:
  // Connects (with the retries of `options`); the locator is a libpq
  // connection URI.
  static Result<std::unique_ptr<Session>> Open(const std::string& locator, const PostgresOptions& options);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  // Inside a Transact body: one statement with $1.. parameters.
  Result<Rows> Query(std::string_view sql, const std::vector<Param>& params = {});
  // Inside a Transact body: statements without parameters or results.
  Status Script(std::string_view sql);

  // Runs `body` in one transaction (READ COMMITTED for a write, a read-only
  // REPEATABLE READ snapshot otherwise) and commits it. An error the body
  // returns rolls back and is returned as is, unless it came from a lost
  // connection or a server-requested retry: then the whole body runs again,
  // at most options.max_attempts times, with backoff on options.retry_clock.
  template <typename T>
  Result<T> Transact(bool write, const std::function<Result<T>()>& body) {
    std::optional<Result<T>> out;
    Status s = TransactStatus(write, [&]() -> Status {
      out.emplace(body());
      return out->status();
    });
    if (!s.ok()) return s;
    return std::move(*out);
  }
  Status TransactStatus(bool write, const std::function<Status()>& body);

  // The locator without its password, as errors print it.
  const std::string& display() const { return display_; }

 private:
  enum class Failure { kNone, kConnection, kRetry, kFinal };
  Session(std::string locator, const PostgresOptions& options);

  Status ConnectOnce();
  Status Reconnect(const Status& why);
  Status RunOnce(bool write, const std::function<Status()>& body);
  Status Commit(const std::optional<std::string>& xid);
  Status ResolveCommit(const std::string& xid, const Status& lost);
  Status Sleep(int attempt);
  // The Status of a failed result (or of a lost connection), recording in
  // failure_ whether a retry may help.
  Status Classify(pg_result* result, std::string_view what);
  std::string Scrub(std::string message) const;
  void Hook(std::string_view stage);

  std::string locator_;
  std::string display_;
  std::string password_;  // to scrub from messages; never printed
  PostgresOptions options_;
  pg_conn* conn_ = nullptr;
  Failure failure_ = Failure::kNone;
};

}  // namespace vigilo::control::pg
