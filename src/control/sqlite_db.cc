#include "sqlite_db.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace vigilo::control::sqlite {

Status FromSqlite(int rc, sqlite3* db, std::string_view what) {
  std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  detail += " (SQLite code " + std::to_string(rc) + ")";
  std::string message = std::string(what) + ": " + detail;
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Unavailable("the control database is busy (another process holds it past the busy timeout): " +
                         message);
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_PROTOCOL:
      return IoError(message);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return InvalidFormat("not a usable control database: " + message);
    default:
      return Internal(message);
  }
}

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      stmt_(std::exchange(other.stmt_, nullptr)),
      first_bind_error_(std::move(other.first_bind_error_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this == &other) return *this;
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  db_ = std::exchange(other.db_, nullptr);
  stmt_ = std::exchange(other.stmt_, nullptr);
  first_bind_error_ = std::move(other.first_bind_error_);
  return *this;
}

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

// Bind errors (a wrong index: a bug) are kept and reported by Step, so that
// binds chain.
Statement& Statement::Bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK && first_bind_error_.ok()) first_bind_error_ = FromSqlite(rc, db_, "bind");
  return *this;
}

Statement& Statement::Bind(int index, std::string_view text) {
  int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && first_bind_error_.ok()) first_bind_error_ = FromSqlite(rc, db_, "bind");
  return *this;
}

Statement& Statement::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK && first_bind_error_.ok()) first_bind_error_ = FromSqlite(rc, db_, "bind");
  return *this;
}

Statement& Statement::BindOptional(int index, const std::optional<int64_t>& value) {
  return value.has_value() ? Bind(index, *value) : BindNull(index);
}

Result<bool> Statement::Step() {
  if (!first_bind_error_.ok()) return first_bind_error_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return FromSqlite(rc, db_, "control database statement");
}

Status Statement::Run() {
  for (;;) {
    VIGILO_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::Ok();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return text == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n));
}

bool Statement::IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

Result<std::unique_ptr<Database>> Database::Open(const std::string& path, bool create, int busy_timeout_ms) {
  std::error_code ec;
  // ":memory:" is SQLite's private in-process database: nothing on disk,
  // nothing to find, no write-ahead log (and no other process to share it).
  const bool in_memory = path == kInMemoryDatabase;
  if (!create && !in_memory && !std::filesystem::exists(path, ec)) {
    return NotFound("no control database at " + path);
  }
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  std::unique_ptr<Database> db(new Database(raw, path));
  if (rc != SQLITE_OK) return FromSqlite(rc, raw, "cannot open the control database " + path);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  VIGILO_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys = ON"));
  // Switching to WAL needs a moment's exclusive access and is persistent;
  // on a database already in WAL this is a read. SQLite reports a busy
  // database here at once, without its busy handler (waiting could
  // deadlock two openers), so the wait is ours, bounded by the same timeout.
  if (in_memory) return db;
  VIGILO_ASSIGN_OR_RETURN(Statement wal, db->Prepare("PRAGMA journal_mode = WAL"));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  Result<bool> stepped = wal.Step();
  while (!stepped.ok() && stepped.status().code() == StatusCode::kUnavailable &&
         std::chrono::steady_clock::now() < give_up) {
    wal.Reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stepped = wal.Step();
  }
  VIGILO_ASSIGN_OR_RETURN(bool row, std::move(stepped));
  if (!row || wal.Text(0) != "wal") {
    return IoError("the control database " + path + " cannot use a write-ahead log (journal mode " +
                   (row ? wal.Text(0) : std::string("unknown")) + ")");
  }
  VIGILO_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous = FULL"));
  return db;
}

Database::~Database() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return FromSqlite(rc, db_, "control database statement");
  return Statement(db_, stmt);
}

Status Database::Exec(const std::string& sql) {
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) return Status::Ok();
  return FromSqlite(rc, db_, "control database " + path_);
}

int64_t Database::Changes() const { return sqlite3_changes64(db_); }

Result<Transaction> Transaction::Begin(Database& db, Kind kind) {
  VIGILO_RETURN_IF_ERROR(db.Exec(kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN"));
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  Database* db = std::exchange(db_, nullptr);
  Status status = db->Exec("COMMIT");
  if (!status.ok()) (void)db->Exec("ROLLBACK");
  return status;
}

}  // namespace vigilo::control::sqlite
