#include "control_test_support.h"

#include <sqlite3.h>

#include <stdlib.h>

#include <cstdio>

#include "vigilo/control/sqlite_control_store.h"

namespace vigilo::control::testing_support {

void ControlTest::SetUp() {
  std::string pattern = (std::filesystem::path(::testing::TempDir()) / "vigilo_control_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  scratch_ = pattern;
  location_ = GetParam().create(scratch_);
  control_ = Connect(clock_);
  ASSERT_NE(control_, nullptr);
}

void ControlTest::TearDown() {
  control_.reset();
  std::error_code ec;
  std::filesystem::remove_all(scratch_, ec);
}

std::unique_ptr<ControlStore> ControlTest::Connect(store::Clock& clock) {
  Result<std::unique_ptr<ControlStore>> opened = GetParam().open(location_, clock, random_);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  return opened.ok() ? std::move(opened).value() : nullptr;
}

void ControlTest::Reopen() {
  control_.reset();
  control_ = Connect(clock_);
  ASSERT_NE(control_, nullptr);
}

AttemptSpec ControlTest::Spec(const std::string& name, const std::string& owner) const {
  AttemptSpec spec;
  spec.ns = Namespace::kDatasets;
  spec.name = name;
  spec.store = store_id_;
  spec.owner = owner;
  spec.admission_limits = R"({"case_batch_max_bytes":1048576})";
  spec.lease_duration = kLease;
  return spec;
}

Lease ControlTest::Begin(const std::string& name, const std::string& owner) {
  Result<Lease> lease = control_->BeginAttempt(Spec(name, owner));
  EXPECT_TRUE(lease.ok()) << lease.status().ToString();
  return lease.ok() ? *lease : Lease{};
}

Uuid ControlTest::Id(int n) const {
  char text[40];
  std::snprintf(text, sizeof text, "00000000-0000-4000-8000-%012x", n);
  return Uuid::Parse(text).value();
}

std::string RootValue(const std::string& key) { return R"({"key":")" + key + R"("})"; }

std::string RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return "cannot open";
  sqlite3_busy_timeout(db, 5000);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = rc == SQLITE_OK ? "" : (error != nullptr ? error : "error");
  sqlite3_free(error);
  sqlite3_close(db);
  return message;
}

std::string RawQuery(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return "cannot open";
  sqlite3_stmt* stmt = nullptr;
  std::string out = "no row";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    out = text != nullptr ? reinterpret_cast<const char*>(text) : "null";
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

}  // namespace vigilo::control::testing_support
