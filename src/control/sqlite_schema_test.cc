// The SQLite backend's own guarantees: WAL and a tagged, versioned schema;
// refusal of newer schemas and of files that are not control databases;
// and the triggers that restate the ledger's invariants inside the
// database, so that not even a hand-written statement makes published
// objects cleanup work.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "control_test_support.h"
#include "sqlite_schema.h"
#include "vigilo/control/sqlite_control_store.h"

namespace vigilo::control {
namespace {

using testing_support::RawExec;
using testing_support::RawQuery;

using testing_support::kLease;
using testing_support::kT0;
using testing_support::RootValue;


class SqliteSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "vigilo_sqlite_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "control.sqlite3").string();
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Result<std::unique_ptr<ControlStore>> Open(bool create = true) {
    SqliteOptions options;
    options.wall_clock = &clock_;
    options.random = &random_;
    options.create = create;
    return OpenSqliteControlStore(path_, options);
  }

  std::filesystem::path dir_;
  std::string path_;
  store::ManualClock clock_{kT0};
  store::SeededRandom random_{1};
};

TEST_F(SqliteSchemaTest, AFreshDatabaseIsVersionedWalAndTagged) {
  ASSERT_TRUE(Open().ok());
  EXPECT_EQ(RawQuery(path_, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(RawQuery(path_, "SELECT version FROM schema_version"), std::to_string(kSqliteSchemaVersion));
  EXPECT_EQ(RawQuery(path_, "PRAGMA application_id"), std::to_string(kSqliteApplicationId));
  EXPECT_EQ(RawQuery(path_, "SELECT last_epoch FROM fencing"), "0");
}

TEST_F(SqliteSchemaTest, ParentDirectoriesAreCreated) {
  path_ = (dir_ / "a" / "b" / "control.sqlite3").string();
  ASSERT_TRUE(Open().ok());
  EXPECT_TRUE(std::filesystem::is_regular_file(path_));
}

TEST_F(SqliteSchemaTest, AMissingFileIsNotFoundWithoutCreate) {
  Status status = Open(/*create=*/false).status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "no control database at " + path_);
}

TEST_F(SqliteSchemaTest, ReopeningKeepsTheLedger) {
  Lease lease;
  {
    Result<std::unique_ptr<ControlStore>> control = Open();
    ASSERT_TRUE(control.ok());
    AttemptSpec spec{Namespace::kDatasets, "geo", "s", "w", "{}", std::nullopt, 1, kLease};
    Result<Lease> begun = (*control)->BeginAttempt(spec);
    ASSERT_TRUE(begun.ok());
    lease = *begun;
  }
  Result<std::unique_ptr<ControlStore>> again = Open(/*create=*/false);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  Result<AttemptRecord> row = (*again)->GetAttempt(lease.attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->epoch, 1u);
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM schema_version"), "1");
}

TEST_F(SqliteSchemaTest, ANewerSchemaIsRefused) {
  ASSERT_TRUE(Open().ok());
  const std::string newer = std::to_string(kSqliteSchemaVersion + 1);
  ASSERT_EQ(RawExec(path_, "UPDATE schema_version SET version = " + newer), "");
  Status status = Open().status();
  EXPECT_EQ(status.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(status.message(), "the control database " + path_ +
                                  " has schema version " + newer + "; this vigilo knows versions up to " +
                                  std::to_string(kSqliteSchemaVersion) + ": use a newer vigilo");
}

TEST_F(SqliteSchemaTest, AnotherApplicationsDatabaseIsRefused) {
  ASSERT_EQ(RawExec(path_, "PRAGMA application_id = 42; CREATE TABLE t (x)"), "");
  Status status = Open().status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(status.message(), path_ + " is not a vigilo control database (its SQLite application_id is 0x0000002a)");
}

TEST_F(SqliteSchemaTest, AnUntaggedDatabaseWithTablesIsRefused) {
  ASSERT_EQ(RawExec(path_, "CREATE TABLE t (x)"), "");
  Status status = Open().status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(status.message(), path_ + " is not a vigilo control database (it has tables but no schema_version)");
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM sqlite_schema"), "1");  // untouched
}

TEST_F(SqliteSchemaTest, AFileThatIsNotADatabaseIsRefused) {
  {
    std::ofstream out(path_, std::ios::binary);
    out << std::string(4096, 'x');
  }
  Status status = Open().status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(status.message().substr(0, 30), "not a usable control database:");
}

TEST_F(SqliteSchemaTest, TriggersKeepPublishedObjectsOutOfCleanup) {
  Result<std::unique_ptr<ControlStore>> opened = Open();
  ASSERT_TRUE(opened.ok());
  ControlStore& control = **opened;
  AttemptSpec spec{Namespace::kDatasets, "geo", "s", "w", "{}", std::nullopt, 1, kLease};
  Result<Lease> published = control.BeginAttempt(spec);
  ASSERT_TRUE(published.ok());
  ASSERT_TRUE(control.RecordKey(*published, published->key_prefix + "m").ok());
  ASSERT_TRUE(control.PublishRoot(*published, RootValue("m")).ok());
  const std::string id = "'" + published->attempt.attempt_id.ToString() + "'";

  EXPECT_EQ(RawExec(path_, "DELETE FROM attempt_keys WHERE attempt_id = " + id),
            "only the keys of an abandoned attempt are cleanup work");
  EXPECT_EQ(RawExec(path_, "UPDATE attempts SET state = 'abandoned' WHERE attempt_id = " + id),
            "a published or abandoned attempt keeps its state");
  EXPECT_EQ(RawExec(path_, "UPDATE attempts SET state = 'active' WHERE attempt_id = " + id),
            "a published or abandoned attempt keeps its state");
  EXPECT_EQ(RawExec(path_, "INSERT INTO attempt_keys VALUES (" + id + ", 1, 'datasets/geo/x', 0, 0, NULL)"),
            "keys are recorded only by an active attempt");
  EXPECT_EQ(RawExec(path_, "UPDATE attempts SET key_prefix = 'datasets/' WHERE attempt_id = " + id),
            "an attempt's identity, store and prefix never change");
  EXPECT_EQ(RawExec(path_, "DELETE FROM attempts"), "attempts are never deleted");
  EXPECT_EQ(RawExec(path_, "DELETE FROM root_history"), "the root history is append-only");
  EXPECT_EQ(RawExec(path_, "UPDATE root_history SET value = '{}'"), "the root history is append-only");
  EXPECT_EQ(RawExec(path_, "DELETE FROM roots"), "a published name is never removed");
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM attempt_keys"), "1");

  // An abandoned attempt's keys may leave, and only through cleanup.
  Result<Lease> abandoned = control.BeginAttempt(spec);
  ASSERT_TRUE(abandoned.ok());
  ASSERT_TRUE(control.RecordKey(*abandoned, abandoned->key_prefix + "b").ok());
  ASSERT_TRUE(control.Abandon(*abandoned).ok());
  EXPECT_EQ(RawExec(path_, "DELETE FROM attempt_keys WHERE attempt_id = '" +
                               abandoned->attempt.attempt_id.ToString() + "'"),
            "");
}

}  // namespace
}  // namespace vigilo::control

namespace vigilo::control {
namespace {

using testing_support::RawExec;
using testing_support::RawQuery;

// A database written by a version-3 vigilo (made by versions 1-3's own SQL)
// holding a published dataset: opening it migrates to version 4 (retired
// names), keeps the root, and the name can then be retired and its history
// read; the retirement triggers hold.
TEST(RetirementSchemaTest, AVersionThreeDatabaseMigratesAndItsNamesCanBeRetired) {
  std::string pattern = (std::filesystem::path(::testing::TempDir()) / "vigilo_v3_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::string path = (std::filesystem::path(pattern) / "control.sqlite3").string();
  const std::string id = "00000000-0000-4000-8000-000000000003";
  const std::string prefix = "datasets/geo/attempts/" + id + "/g1/";
  const std::string t0 = std::to_string(testing_support::kT0);
  std::string create;
  for (int v = 1; v <= 3; ++v) create += std::string(sqlite::MigrationSql(v));
  ASSERT_EQ(RawExec(path, create + "INSERT INTO schema_version (version) VALUES (3);"
                                   "PRAGMA application_id = " + std::to_string(kSqliteApplicationId) + ";"),
            "");
  ASSERT_EQ(RawExec(path,
                    "BEGIN;"
                    "UPDATE fencing SET last_epoch = 1;"
                    "INSERT INTO attempts (attempt_id, generation, namespace, name, store, key_prefix, owner, state, "
                    "epoch, lease_expires_at, admission_limits, created_at, updated_at) VALUES ('" + id +
                        "', 1, 'datasets', 'geo', 'local:/srv/v', '" + prefix + "', 'w', 'published', 1, " + t0 +
                        ", '{}', " + t0 + ", " + t0 + ");"
                    "INSERT INTO root_history VALUES ('datasets', 'geo', 1, '{\"key\":\"m\"}', '" + id +
                        "', 1, 1, " + t0 + ");"
                    "INSERT INTO roots VALUES ('datasets', 'geo', 1);"
                    "COMMIT;"),
            "");
  ASSERT_EQ(RawQuery(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'root_retirements'"), "0");

  store::ManualClock clock(testing_support::kT0 + 1'000'000);
  SqliteOptions options;
  options.wall_clock = &clock;
  options.create = false;
  Result<std::unique_ptr<ControlStore>> opened = OpenSqliteControlStore(path, options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ControlStore& control = **opened;
  EXPECT_EQ(RawQuery(path, "SELECT version FROM schema_version"), "4");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
  EXPECT_EQ(RawQuery(path, "SELECT retired_at FROM roots"), "null");
  Result<std::optional<RootRecord>> root = control.GetRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(root.ok() && root->has_value()) << root.status().ToString();
  EXPECT_EQ((*root)->value, R"({"key":"m"})");

  Result<RetiredRoot> retired = control.RetireRoot(Namespace::kDatasets, "geo", 1);
  ASSERT_TRUE(retired.ok()) << retired.status().ToString();
  EXPECT_FALSE(control.GetRoot(Namespace::kDatasets, "geo")->has_value());
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM root_retirements"), "1");
  // The database restates the rules: retirements are append-only, a name is
  // retired once per version, and comes back only with a new version.
  EXPECT_EQ(RawExec(path, "DELETE FROM root_retirements"), "retirements are append-only");
  EXPECT_EQ(RawExec(path, "UPDATE root_retirements SET retired_at = 0"), "retirements are append-only");
  EXPECT_EQ(RawExec(path, "UPDATE roots SET retired_at = 5"), "a name is retired once per version");
  EXPECT_EQ(RawExec(path, "UPDATE roots SET retired_at = NULL"), "a retired name comes back only with a new version");
  EXPECT_EQ(RawExec(path, "DELETE FROM roots"), "a published name is never removed");
  opened->reset();
  std::error_code ec;
  std::filesystem::remove_all(pattern, ec);
}

}  // namespace
}  // namespace vigilo::control
