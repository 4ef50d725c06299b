// A thin RAII layer over the SQLite C API for the control store: one
// connection, prepared statements with typed binds and columns, and
// transactions that roll back unless committed. Every SQLite error becomes
// a Status here (busy → Unavailable, full/I/O → IoError, corrupt or not a
// database → InvalidFormat, the rest → Internal).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "vigilo/common/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace vigilo::control::sqlite {

// `what` says which operation failed; the database's own message follows.
Status FromSqlite(int rc, sqlite3* db, std::string_view what);

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds by 1-based index; text is copied (SQLITE_TRANSIENT).
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, std::string_view text);
  Statement& BindNull(int index);
  Statement& BindOptional(int index, const std::optional<int64_t>& value);

  // true: a row is ready; false: done. Errors (a constraint failed, the
  // database is busy) as Status.
  Result<bool> Step();
  // Step until done, for statements that return no rows.
  Status Run();
  // Ready to run again with new binds (the old ones are cleared).
  void Reset();

  int64_t Int(int column) const;
  std::string Text(int column) const;
  bool IsNull(int column) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  Status first_bind_error_;
};

// SQLite's name for a private in-process database.
inline constexpr std::string_view kInMemoryDatabase = ":memory:";

class Database {
 public:
  // Opens (or creates, when `create`) the file with the pragmas of
  // sqlite_control_store.h; kInMemoryDatabase opens a private one.
  static Result<std::unique_ptr<Database>> Open(const std::string& path, bool create, int busy_timeout_ms);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  Result<Statement> Prepare(std::string_view sql);
  // Runs one or more statements without results.
  Status Exec(const std::string& sql);
  const std::string& path() const { return path_; }
  // Rows changed by the last statement.
  int64_t Changes() const;

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// BEGIN IMMEDIATE (a change: takes the write lock up front, waiting up to
// the busy timeout) or BEGIN (a consistent read). Rolls back on destruction
// unless Commit succeeded.
class Transaction {
 public:
  enum class Kind { kRead, kWrite };
  static Result<Transaction> Begin(Database& db, Kind kind);
  Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  ~Transaction();
  Status Commit();

 private:
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;
};

}  // namespace vigilo::control::sqlite
