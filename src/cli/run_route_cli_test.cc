// Shard movement does not rewrite case objects (seed 004): with the real
// binary, a run is planned, every file of its store is snapshotted, one
// shard is moved twice (and a stale move is fenced), and afterwards every
// file is byte-identical, none was added or removed, and the run still
// verifies with every case. The route lives in the control database only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "cli_test_support.h"

namespace {

using vigilo::cli_test::CliRun;
using vigilo::cli_test::ReadFile;

constexpr const char* kRun = "geography-qa.geography-qa-smoke";

class RunRouteCliTest : public vigilo::cli_test::CliDirTest {
 protected:
  // Every file under ./store: relative path → bytes.
  std::map<std::string, std::string> Snapshot() const {
    std::map<std::string, std::string> files;
    const std::filesystem::path root = dir_ / "store";
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.is_regular_file()) {
        files[std::filesystem::relative(entry.path(), root).string()] = ReadFile(entry.path());
      }
    }
    return files;
  }

  void IngestAndPlan() {
    const std::string source = VIGILO_SOURCE_DIR;
    CliRun ingest = Vigilo("dataset ingest " + source + "/examples/demo/dataset.json --store ./store -q");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
    CliRun plan = Vigilo("run plan --dataset geography-qa --profile " + source +
                         "/examples/profiles/geography-qa.json --store ./store -q");
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
  }
};

TEST_F(RunRouteCliTest, ShardMovementDoesNotRewriteCaseObjects) {
  ASSERT_NO_FATAL_FAILURE(IngestAndPlan());
  const std::map<std::string, std::string> before = Snapshot();
  ASSERT_GT(before.size(), 3u) << "the dataset and run objects are in the store";

  CliRun none = Vigilo(std::string("run routes ") + kRun);
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, std::string("no shard of ") + kRun + " has moved: every shard is on route default (epoch 0)\n");
  CliRun none_json = Vigilo(std::string("run routes ") + kRun + " --json");
  ASSERT_EQ(none_json.exit_code, 0) << none_json.err;
  EXPECT_EQ(none_json.out, "");

  CliRun first = Vigilo(std::string("run move ") + kRun + " --shard 1 --to pool-a --json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find(R"("epoch":1,"name":"geography-qa.geography-qa-smoke","route":"pool-a","run_shard":1,)"),
            std::string::npos)
      << first.out;

  CliRun second = Vigilo(std::string("run move ") + kRun + " --shard 1 --to eu-west/pool-b --epoch 1 --json");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find(R"("epoch":2,"name":"geography-qa.geography-qa-smoke","route":"eu-west/pool-b",)"),
            std::string::npos)
      << second.out;

  // A mover that still believes epoch 1 is fenced (exit 11) and changes nothing.
  CliRun stale = Vigilo(std::string("run move ") + kRun + " --shard 1 --to pool-c --epoch 1");
  EXPECT_EQ(stale.exit_code, 11) << stale.err;
  EXPECT_EQ(stale.err, std::string("vigilo: fenced: runs/") + kRun + " shard 1: route epoch is 2, not 1\n");
  EXPECT_EQ(stale.out, "");

  CliRun routes = Vigilo(std::string("run routes ") + kRun + " --json");
  ASSERT_EQ(routes.exit_code, 0) << routes.err;
  ASSERT_EQ(routes.out.rfind(R"({"epoch":2,"route":"eu-west/pool-b","run_shard":1,"updated_at":")", 0), 0u)
      << routes.out;
  EXPECT_EQ(std::count(routes.out.begin(), routes.out.end(), '\n'), 1) << routes.out;
  CliRun table = Vigilo(std::string("run routes ") + kRun);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("run_shard  route           epoch  updated_at", 0), 0u) << table.out;

  const std::map<std::string, std::string> after = Snapshot();
  ASSERT_EQ(after.size(), before.size()) << "no object was added or removed";
  for (const auto& [path, bytes] : before) {
    auto it = after.find(path);
    ASSERT_NE(it, after.end()) << path << " disappeared";
    EXPECT_TRUE(it->second == bytes) << path << " was rewritten";
  }

  CliRun verify = Vigilo(std::string("run verify ") + kRun + " --cases --json");
  ASSERT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_NE(verify.out.find("\"cases_checked\":true"), std::string::npos) << verify.out;
}

TEST_F(RunRouteCliTest, RefusalsExitWithTheirCodes) {
  CliRun no_control = Vigilo("run routes nothing-here");
  EXPECT_EQ(no_control.exit_code, 8) << no_control.err;
  EXPECT_EQ(no_control.err, "vigilo: not_found: no run is published under nothing-here\n");

  ASSERT_NO_FATAL_FAILURE(IngestAndPlan());
  CliRun unknown = Vigilo("run move geography-qa --shard 0 --to pool");  // a dataset name, not a run
  EXPECT_EQ(unknown.exit_code, 8) << unknown.err;
  EXPECT_EQ(unknown.err,
            "vigilo: not_found: no run is published under runs/geography-qa; shards have routes only once their run "
            "is published\n");

  CliRun shard = Vigilo(std::string("run move ") + kRun + " --shard 128 --to pool");
  EXPECT_EQ(shard.exit_code, 2) << shard.err;
  EXPECT_EQ(shard.err, "vigilo: invalid_argument: a run shard is 0..127; got 128\n");

  // Issue 34: a shard the plan does not list is refused, naming those it does.
  CliRun absent = Vigilo(std::string("run move ") + kRun + " --shard 127 --to pool");
  EXPECT_EQ(absent.exit_code, 2) << absent.err;
  EXPECT_EQ(absent.err, std::string("vigilo: invalid_argument: --shard: run '") + kRun +
                            "' has no shard 127: its plan lists shards 0, 1 (shards without planned work are not "
                            "listed)\n");

  CliRun url = Vigilo(std::string("run move ") + kRun + " --shard 0 --to https://user:secret@host/pool");
  EXPECT_EQ(url.exit_code, 2) << url.err;
  EXPECT_EQ(url.err.find("secret"), std::string::npos) << "a refused route is never echoed: " << url.err;

  CliRun missing = Vigilo(std::string("run move ") + kRun + " --to pool");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  CliRun routes = Vigilo(std::string("run routes ") + kRun + " --json");
  EXPECT_EQ(routes.out, "") << "no refused move was recorded";
}

}  // namespace
