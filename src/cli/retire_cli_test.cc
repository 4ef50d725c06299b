// `vigilo dataset retire` / `run retire` and the stores `dataset list` /
// `run list` show (issue 34, "no way to retire a name"), driven as a user
// would: a retired name no longer resolves and says when it was retired,
// every object stays (cleanup has nothing to do), a dataset that a live run
// plan reads (or might: a plan that cannot be read) is refused unless
// --force, and a later ingestion under the name publishes the next version.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cli_test_support.h"

namespace {

namespace fs = std::filesystem;
using vigilo::cli_test::CliRun;

class RetireCliTest : public vigilo::cli_test::CliDirTest {
 protected:
  size_t Files(const std::string& name) const {
    size_t n = 0;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir_ / name)) n += e.is_regular_file();
    return n;
  }
  std::string StoreId(const std::string& name) const {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return "local://" + std::string(host) + fs::weakly_canonical(dir_ / name).string();
  }
  void Plan(const std::string& run) {
    CliRun r = Vigilo("run plan --dataset demo --profile " + std::string(VIGILO_SOURCE_DIR) +
                      "/examples/profiles/geography-qa.json --store ./store --name " + run + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

std::string Dataset(int n, const std::string& prompt = "q") {
  std::string s = R"({"dataset_id":"demo","cases":[)";
  for (int i = 0; i < n; ++i) {
    char id[40];
    std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
    s += std::string(i ? "," : "") + R"({"id":")" + id + R"(","input":{"prompt":")" + prompt + std::to_string(i) +
         R"("},"task_type":"generation"})";
  }
  return s + "]}";
}

TEST_F(RetireCliTest, ARetiredNameStopsResolvingKeepsItsObjectsAndComesBackWithTheNextVersion) {
  Write("a.json", Dataset(30));
  ASSERT_EQ(Vigilo("dataset ingest a.json --store ./store -q").exit_code, 0);
  Plan("r1");

  // The lists show where each name was written.
  CliRun datasets = Vigilo("dataset list --json");
  ASSERT_EQ(datasets.exit_code, 0) << datasets.err;
  EXPECT_NE(datasets.out.find("\"store\":\"" + StoreId("store") + "\""), std::string::npos) << datasets.out;
  CliRun runs = Vigilo("run list");
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("store"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find(StoreId("store")), std::string::npos) << runs.out;

  // A dataset a live plan reads stays in service.
  CliRun refused = Vigilo("dataset retire demo");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("the live run plans 'r1' read it"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("or retire the dataset anyway with --force"), std::string::npos) << refused.err;
  ASSERT_EQ(Vigilo("dataset show demo").exit_code, 0);

  const size_t files = Files("store");
  CliRun run_retired = Vigilo("run retire r1 --json");
  ASSERT_EQ(run_retired.exit_code, 0) << run_retired.err;
  EXPECT_NE(run_retired.out.find("\"outcome\":\"retired\""), std::string::npos) << run_retired.out;
  CliRun gone_run = Vigilo("run show r1");
  EXPECT_EQ(gone_run.exit_code, 8);
  EXPECT_NE(gone_run.err.find("no run is published under r1: the name was retired at "), std::string::npos)
      << gone_run.err;
  EXPECT_EQ(Vigilo("run move r1 --shard 0 --to pool-a").exit_code, 8);
  EXPECT_EQ(Vigilo("run list").out, "no runs are published\n");

  CliRun retired = Vigilo("dataset retire demo --json");
  ASSERT_EQ(retired.exit_code, 0) << retired.err;
  EXPECT_NE(retired.out.find("\"outcome\":\"retired\""), std::string::npos) << retired.out;
  EXPECT_NE(retired.out.find("\"version\":1"), std::string::npos) << retired.out;
  EXPECT_NE(retired.out.find("\"read_by_runs\":[]"), std::string::npos) << retired.out;
  CliRun gone = Vigilo("dataset show demo");
  EXPECT_EQ(gone.exit_code, 8);
  EXPECT_NE(gone.err.find("the name was retired at "), std::string::npos) << gone.err;
  EXPECT_EQ(Vigilo("dataset list").out, "no datasets are published\n");
  CliRun plan = Vigilo("run plan --dataset demo --profile " + std::string(VIGILO_SOURCE_DIR) +
                       "/examples/profiles/geography-qa.json --store ./store --name r3 -q");
  EXPECT_EQ(plan.exit_code, 8);
  EXPECT_NE(plan.err.find("no dataset is published under demo: the name was retired at "), std::string::npos)
      << plan.err;
  // Retiring again changes nothing; every object stays, and none is cleanup work.
  CliRun again = Vigilo("dataset retire demo --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("\"outcome\":\"already_retired\""), std::string::npos) << again.out;
  EXPECT_EQ(Vigilo("store cleanup --grace 0").out, "no cleanup work is due\n");
  EXPECT_EQ(Files("store"), files);

  // The name comes back with the next version.
  Write("b.json", Dataset(30, "again "));
  CliRun back = Vigilo("dataset ingest b.json --store ./store --json");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_NE(back.out.find("\"outcome\":\"published\""), std::string::npos) << back.out;
  EXPECT_NE(back.out.find("\"version\":2"), std::string::npos) << back.out;

  // --force retires it although a live plan reads it, and says which.
  Plan("r2");
  CliRun forced = Vigilo("dataset retire demo --force --json");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.out.find("\"read_by_runs\":[\"r2\"]"), std::string::npos) << forced.out;
  // The plan still reads its dataset: it references a version, not the name.
  EXPECT_EQ(Vigilo("run verify r2").exit_code, 0);
}

TEST_F(RetireCliTest, APlanThatCannotBeReadKeepsTheDatasetInServiceUnlessForced) {
  Write("a.json", Dataset(10));
  ASSERT_EQ(Vigilo("dataset ingest a.json --store ./store -q").exit_code, 0);
  Plan("r1");
  // The plan's root object is gone (a damaged store): whether it reads the
  // dataset cannot be told.
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir_ / "store" / "runs")) {
    if (e.path().filename() == "manifest.json") fs::remove(e.path());
  }
  CliRun refused = Vigilo("dataset retire demo");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("whether these live run plans read it cannot be told here: 'r1: not_found"),
            std::string::npos)
      << refused.err;
  CliRun forced = Vigilo("dataset retire demo --force");
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
}

TEST_F(RetireCliTest, BadNamesAreRefusedBeforeAnythingIsOpened) {
  CliRun bad = Vigilo("dataset retire .hidden");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("vigilo: invalid_argument: \".hidden\" is not a name", 0), 0u) << bad.err;
  EXPECT_EQ(Vigilo("run retire 'a b'").exit_code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "control.db"));
  CliRun none = Vigilo("dataset retire nothing-here");
  EXPECT_EQ(none.exit_code, 8);
  EXPECT_EQ(none.err, "vigilo: not_found: no dataset is published under nothing-here\n");
  EXPECT_FALSE(fs::exists(dir_ / "control.db")) << "a retire of nothing creates no control state";
  EXPECT_EQ(Vigilo("dataset retire").exit_code, 2);
}

}  // namespace
