// Shard routes: the epoch counts moves and fences stale movers
// (compare-and-set), routes exist only for published runs, routes are
// validated so that no URL or credential can be stored, two connections
// racing for one shard leave exactly one winner, and a version-1 database
// migrates to version 2 keeping its ledger.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "control_test_support.h"
#include "sqlite_schema.h"
#include "vigilo/control/sqlite_control_store.h"

namespace vigilo::control {
namespace {

using testing_support::RawExec;
using testing_support::RawQuery;

using testing_support::BackendName;
using testing_support::ControlBackends;
using testing_support::kLease;
using testing_support::kSecond;
using testing_support::kT0;
using testing_support::RootValue;

class RoutesTest : public testing_support::ControlTest {
 protected:
  // Publishes runs/<name> (a run has routes only once published).
  void PublishRun(const std::string& name) {
    AttemptSpec spec = Spec(name);
    spec.ns = Namespace::kRuns;
    Result<Lease> lease = control_->BeginAttempt(spec);
    ASSERT_TRUE(lease.ok()) << lease.status().ToString();
    ASSERT_TRUE(control_->PublishRoot(*lease, RootValue(name)).ok());
  }

  std::vector<ShardRoute> Routes(const std::string& run) {
    Result<std::vector<ShardRoute>> routes = control_->ShardRoutes(run);
    EXPECT_TRUE(routes.ok()) << routes.status().ToString();
    return routes.ok() ? *routes : std::vector<ShardRoute>{};
  }

  void ExpectRefused(const Status& status, StatusCode code, const std::string& message) {
    EXPECT_EQ(status.code(), code) << status.ToString();
    EXPECT_EQ(status.message(), message);
  }
};

TEST_P(RoutesTest, EveryMoveAddsOneToTheEpoch) {
  PublishRun("geo");
  EXPECT_TRUE(Routes("geo").empty()) << "no shard has moved: every shard is on the default route";

  Result<ShardRoute> first = control_->MoveShard("geo", 1, "pool-a", std::nullopt);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, (ShardRoute{"geo", 1, "pool-a", 1, kT0}));

  clock_.Advance(kSecond);
  Result<ShardRoute> second = control_->MoveShard("geo", 1, "pool-b", 1);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, (ShardRoute{"geo", 1, "pool-b", 2, kT0 + kSecond}));

  // Moving to the route it is on is a move too: it fences epoch 2's workers.
  clock_.Advance(kSecond);
  Result<ShardRoute> again = control_->MoveShard("geo", 1, "pool-b", std::nullopt);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->epoch, 3u);

  ASSERT_TRUE(control_->MoveShard("geo", 127, "eu-west-1/pool.a_b:2", std::nullopt).ok());
  ASSERT_TRUE(control_->MoveShard("geo", 0, "pool-a", 0).ok());
  EXPECT_EQ(Routes("geo"), (std::vector<ShardRoute>{{"geo", 0, "pool-a", 1, kT0 + 2 * kSecond},
                                                    {"geo", 1, "pool-b", 3, kT0 + 2 * kSecond},
                                                    {"geo", 127, "eu-west-1/pool.a_b:2", 1, kT0 + 2 * kSecond}}));
}

TEST_P(RoutesTest, AStaleExpectedEpochIsFenced) {
  PublishRun("geo");
  ExpectRefused(control_->MoveShard("geo", 2, "pool-a", 1).status(), StatusCode::kFenced,
                "runs/geo shard 2: route epoch is 0, not 1");
  ASSERT_TRUE(control_->MoveShard("geo", 2, "pool-a", 0).ok());
  ExpectRefused(control_->MoveShard("geo", 2, "pool-b", 0).status(), StatusCode::kFenced,
                "runs/geo shard 2: route epoch is 1, not 0");
  ExpectRefused(control_->MoveShard("geo", 2, "pool-b", 5).status(), StatusCode::kFenced,
                "runs/geo shard 2: route epoch is 1, not 5");
  EXPECT_EQ(Routes("geo"), (std::vector<ShardRoute>{{"geo", 2, "pool-a", 1, kT0}})) << "a refused move changes nothing";
}

TEST_P(RoutesTest, RoutesAndShardsAreValidated) {
  PublishRun("geo");
  const StatusCode bad = StatusCode::kInvalidArgument;
  ExpectRefused(control_->MoveShard("geo", -1, "pool", std::nullopt).status(), bad, "a run shard is 0..127; got -1");
  ExpectRefused(control_->MoveShard("geo", 128, "pool", std::nullopt).status(), bad, "a run shard is 0..127; got 128");
  ExpectRefused(control_->MoveShard("geo", 0, "", std::nullopt).status(), bad, "a route is 1-256 bytes; got 0");
  ExpectRefused(control_->MoveShard("geo", 0, std::string(257, 'a'), std::nullopt).status(), bad,
                "a route is 1-256 bytes; got 257");
  const std::string alphabet = "a route is made of A-Z, a-z, 0-9, '.', '_', ':', '/' and '-' only (byte ";
  // No user info, query string or signature can be written down.
  ExpectRefused(control_->MoveShard("geo", 0, "user:secret@pool", std::nullopt).status(), bad, alphabet + "11 is not)");
  ExpectRefused(control_->MoveShard("geo", 0, "pool?X-Amz-Signature=abc", std::nullopt).status(), bad,
                alphabet + "4 is not)");
  ExpectRefused(control_->MoveShard("geo", 0, "pool a", std::nullopt).status(), bad, alphabet + "4 is not)");
  ExpectRefused(control_->MoveShard("geo", 0, "https://workers.example/pool", std::nullopt).status(), bad,
                "a route names a worker pool, not a URL: it must not contain \"://\"");
  ExpectRefused(control_->MoveShard("", 0, "pool", std::nullopt).status(), StatusCode::kInvalidFormat,
                "a root name is 1-128 characters; got 0");
  EXPECT_TRUE(Routes("geo").empty());

  Result<ShardRoute> longest = control_->MoveShard("geo", 0, std::string(256, 'r'), std::nullopt);
  ASSERT_TRUE(longest.ok()) << longest.status().ToString();
  EXPECT_EQ(longest->route, std::string(256, 'r'));
}

TEST_P(RoutesTest, OnlyAPublishedRunHasRoutes) {
  const std::string missing = "no run is published under runs/geo; shards have routes only once their run is published";
  ExpectRefused(control_->MoveShard("geo", 0, "pool", std::nullopt).status(), StatusCode::kNotFound, missing);
  ExpectRefused(control_->ShardRoutes("geo").status(), StatusCode::kNotFound, missing);

  // A dataset of that name is another namespace; an unpublished run attempt
  // is not a run yet.
  Lease dataset = Begin("geo");
  ASSERT_TRUE(control_->PublishRoot(dataset, RootValue("d")).ok());
  AttemptSpec spec = Spec("geo");
  spec.ns = Namespace::kRuns;
  ASSERT_TRUE(control_->BeginAttempt(spec).ok());
  ExpectRefused(control_->MoveShard("geo", 0, "pool", std::nullopt).status(), StatusCode::kNotFound, missing);

  PublishRun("geo");
  EXPECT_TRUE(control_->MoveShard("geo", 0, "pool", std::nullopt).ok());
}

TEST_P(RoutesTest, RoutesArePerRunAndSurviveAReopen) {
  PublishRun("geo");
  PublishRun("geo.v2");
  ASSERT_TRUE(control_->MoveShard("geo", 3, "pool-a", std::nullopt).ok());
  ASSERT_TRUE(control_->MoveShard("geo", 3, "pool-b", std::nullopt).ok());
  ASSERT_TRUE(control_->MoveShard("geo.v2", 3, "pool-c", std::nullopt).ok());
  Reopen();
  EXPECT_EQ(Routes("geo"), (std::vector<ShardRoute>{{"geo", 3, "pool-b", 2, kT0}}));
  EXPECT_EQ(Routes("geo.v2"), (std::vector<ShardRoute>{{"geo.v2", 3, "pool-c", 1, kT0}}));
}

// Two connections (two movers) compare-and-set the same shard from epoch 0
// at the same moment: the database orders them, one wins, the other is
// fenced by the winner's epoch.
TEST_P(RoutesTest, TwoConnectionsMovingOneShardExactlyOneWins) {
  PublishRun("geo");
  store::ManualClock clock_a(kT0);
  store::ManualClock clock_b(kT0);
  std::unique_ptr<ControlStore> a = Connect(clock_a);
  std::unique_ptr<ControlStore> b = Connect(clock_b);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  constexpr int kShards = 16;
  for (int32_t shard = 0; shard < kShards; ++shard) {
    std::latch start(2);
    Status result_a, result_b;
    std::thread ta([&] {
      start.arrive_and_wait();
      result_a = a->MoveShard("geo", shard, "pool-a", 0).status();
    });
    std::thread tb([&] {
      start.arrive_and_wait();
      result_b = b->MoveShard("geo", shard, "pool-b", 0).status();
    });
    ta.join();
    tb.join();
    ASSERT_NE(result_a.ok(), result_b.ok()) << "shard " << shard << ": " << result_a.ToString() << " / "
                                            << result_b.ToString();
    const Status& loser = result_a.ok() ? result_b : result_a;
    EXPECT_EQ(loser.code(), StatusCode::kFenced);
    EXPECT_EQ(loser.message(), "runs/geo shard " + std::to_string(shard) + ": route epoch is 1, not 0");
  }
  std::vector<ShardRoute> routes = Routes("geo");
  ASSERT_EQ(routes.size(), static_cast<size_t>(kShards));
  for (const ShardRoute& route : routes) {
    EXPECT_EQ(route.epoch, 1u);
    EXPECT_TRUE(route.route == "pool-a" || route.route == "pool-b") << route.route;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, RoutesTest, ::testing::ValuesIn(ControlBackends()), BackendName);

// ---------------------------------------------------------------- SQLite: schema version 2


class RoutesSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "vigilo_routes_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "control.sqlite3").string();
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Result<std::unique_ptr<ControlStore>> Open() {
    SqliteOptions options;
    options.wall_clock = &clock_;
    options.random = &random_;
    options.create = false;
    return OpenSqliteControlStore(path_, options);
  }

  std::filesystem::path dir_;
  std::string path_;
  store::ManualClock clock_{kT0};
  store::SeededRandom random_{1};
};

// A database written by a version-1 vigilo: made by version 1's own SQL,
// holding one published run (its attempt, recorded key and root) and the
// fencing counter at 1. Opening it migrates to version 2 and keeps all of it.
TEST_F(RoutesSchemaTest, AVersionOneDatabaseMigratesKeepingItsLedger) {
  const std::string id = "00000000-0000-4000-8000-000000000001";
  const std::string prefix = "runs/geo/attempts/" + id + "/g1/";
  const std::string t0 = std::to_string(kT0);
  ASSERT_EQ(RawExec(path_, std::string(sqlite::MigrationSql(1)) +
                               "INSERT INTO schema_version (version) VALUES (1);"
                               "PRAGMA application_id = " + std::to_string(kSqliteApplicationId) + ";"),
            "");
  ASSERT_EQ(RawExec(path_,
                    "BEGIN;"
                    "UPDATE fencing SET last_epoch = 1;"
                    "INSERT INTO attempts (attempt_id, generation, namespace, name, store, key_prefix, owner, state, "
                    "epoch, lease_expires_at, admission_limits, created_at, updated_at) VALUES ('" + id +
                        "', 1, 'runs', 'geo', 'test-store', '" + prefix + "', 'w', 'active', 1, " +
                        std::to_string(kT0 + kLease) + ", '{}', " + t0 + ", " + t0 + ");"
                    "INSERT INTO attempt_keys (attempt_id, generation, key, recorded_at) VALUES ('" + id + "', 1, '" +
                        prefix + "plan.json', " + t0 + ");"
                    "UPDATE attempts SET state = 'published' WHERE attempt_id = '" + id + "';"
                    "INSERT INTO root_history VALUES ('runs', 'geo', 1, '{\"key\":\"plan\"}', '" + id + "', 1, 1, " +
                        t0 + ");"
                    "INSERT INTO roots VALUES ('runs', 'geo', 1);"
                    "COMMIT;"),
            "");
  ASSERT_EQ(RawQuery(path_, "SELECT count(*) FROM sqlite_schema WHERE name = 'shard_routes'"), "0");

  Result<std::unique_ptr<ControlStore>> opened = Open();
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ControlStore& control = **opened;
  EXPECT_EQ(RawQuery(path_, "SELECT version FROM schema_version"), std::to_string(kSqliteSchemaVersion));
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM schema_version"), "1");
  // Version 3 rebuilt attempts: its rows, indexes, triggers and the foreign
  // keys that point at it are all there.
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'attempts'"),
            "3");
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name LIKE 'attempts_by_%'"),
            "2");
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM sqlite_schema WHERE name = 'attempts_v3'"), "0");
  EXPECT_EQ(RawExec(path_, "DELETE FROM attempts"), "attempts are never deleted");

  const AttemptRef ref{Uuid::Parse(id).value(), 1};
  Result<AttemptRecord> attempt = control.GetAttempt(ref);
  ASSERT_TRUE(attempt.ok()) << attempt.status().ToString();
  EXPECT_EQ(attempt->state, AttemptState::kPublished);
  EXPECT_EQ(attempt->epoch, 1u);
  EXPECT_EQ(attempt->key_prefix, prefix);
  EXPECT_EQ(attempt->keys, std::vector<std::string>{prefix + "plan.json"});
  Result<std::optional<RootRecord>> root = control.GetRoot(Namespace::kRuns, "geo");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  ASSERT_TRUE(root->has_value());
  EXPECT_EQ((*root)->value, R"({"key":"plan"})");
  EXPECT_EQ((*root)->attempt, ref);

  // The epoch counter carried over; the migrated run takes routes.
  AttemptSpec spec{Namespace::kDatasets, "d", "s", "w", "{}", std::nullopt, 1, kLease};
  Result<Lease> next = control.BeginAttempt(spec);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->epoch, 2u);
  Result<ShardRoute> moved = control.MoveShard("geo", 5, "pool-a", 0);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(moved->epoch, 1u);

  // Reopening a migrated database migrates nothing again.
  opened->reset();
  Result<std::unique_ptr<ControlStore>> again = Open();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  Result<std::vector<ShardRoute>> routes = (*again)->ShardRoutes("geo");
  ASSERT_TRUE(routes.ok());
  EXPECT_EQ(*routes, (std::vector<ShardRoute>{{"geo", 5, "pool-a", 1, kT0}}));
}

// The database restates the route rules: epochs start at 1 and count moves
// one by one, rows are kept and stay on their shard, and a route names a
// published run.
TEST_F(RoutesSchemaTest, TriggersKeepRouteEpochsCounting) {
  SqliteOptions options;
  options.wall_clock = &clock_;
  options.random = &random_;
  Result<std::unique_ptr<ControlStore>> opened = OpenSqliteControlStore(path_, options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  AttemptSpec spec{Namespace::kRuns, "geo", "s", "w", "{}", std::nullopt, 1, kLease};
  Result<Lease> lease = (*opened)->BeginAttempt(spec);
  ASSERT_TRUE(lease.ok());
  ASSERT_TRUE((*opened)->PublishRoot(*lease, RootValue("plan")).ok());
  ASSERT_TRUE((*opened)->MoveShard("geo", 1, "pool-a", std::nullopt).ok());

  EXPECT_EQ(RawExec(path_, "UPDATE shard_routes SET epoch = epoch + 2"),
            "a shard route epoch increases by one per move");
  EXPECT_EQ(RawExec(path_, "UPDATE shard_routes SET epoch = 1, route = 'x'"),
            "a shard route epoch increases by one per move");
  EXPECT_EQ(RawExec(path_, "UPDATE shard_routes SET run_shard = 2, epoch = epoch + 1"),
            "a shard route never changes its run or shard");
  EXPECT_EQ(RawExec(path_, "DELETE FROM shard_routes"), "shard routes are never deleted");
  EXPECT_EQ(RawExec(path_, "INSERT INTO shard_routes (run, run_shard, route, epoch, updated_at) "
                           "VALUES ('geo', 2, 'p', 2, 0)"),
            "a shard route starts at epoch 1");
  EXPECT_EQ(RawExec(path_, "PRAGMA foreign_keys = ON; INSERT INTO shard_routes (run, run_shard, route, epoch, "
                           "updated_at) VALUES ('other', 2, 'p', 1, 0)"),
            "FOREIGN KEY constraint failed");
  EXPECT_EQ(RawExec(path_, "INSERT INTO shard_routes (run, run_shard, route, epoch, updated_at) "
                           "VALUES ('geo', 128, 'p', 1, 0)"),
            "CHECK constraint failed: run_shard >= 0 AND run_shard < 128");
  EXPECT_EQ(RawQuery(path_, "SELECT route || ' ' || epoch FROM shard_routes"), "pool-a 1");
}

}  // namespace
}  // namespace vigilo::control
