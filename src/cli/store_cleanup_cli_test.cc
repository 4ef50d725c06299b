// `vigilo store cleanup` driven as a user would (issue 34, "attempts nobody
// cleans"): the attempt a refused name keeps is reported, listed by a dry
// run with its bytes, and abandoned once the grace period is over; a failed
// ingestion leaves no directory behind; bad arguments are refused before
// anything is opened. The timing rules (the grace, the settle time, a
// killed writer's expired lease) are tested on an injected clock in
// src/engine/cleanup_test.cc.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.h"

namespace {

namespace fs = std::filesystem;
using vigilo::cli_test::CliRun;

class StoreCleanupCliTest : public vigilo::cli_test::CliDirTest {
 protected:
  std::vector<std::string> EmptyDirectories(const std::string& name) const {
    std::vector<std::string> out;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir_ / name)) {
      if (e.is_directory() && fs::is_empty(e.path())) out.push_back(fs::relative(e.path(), dir_).string());
    }
    return out;
  }
  size_t Files(const std::string& name) const {
    size_t n = 0;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir_ / name)) n += e.is_regular_file();
    return n;
  }
};

std::string Case(int i, const std::string& prompt = "q") {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
  return std::string(R"({"id":")") + id + R"(","input":{"prompt":")" + prompt + std::to_string(i) +
         R"("},"task_type":"generation"})";
}

std::string Dataset(int n, const std::string& prompt = "q") {
  std::string s = R"({"dataset_id":"cli-set","cases":[)";
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + Case(i, prompt);
  return s + "]}";
}

TEST_F(StoreCleanupCliTest, ARefusedNamesAttemptIsReportedListedAndCleanedAfterTheGrace) {
  Write("a.json", Dataset(40));
  Write("b.json", Dataset(40, "other "));
  ASSERT_EQ(Vigilo("dataset ingest a.json --store ./store -q").exit_code, 0);
  const size_t published_files = Files("store");
  CliRun refused = Vigilo("dataset ingest b.json --store ./store -q");
  ASSERT_EQ(refused.exit_code, 9) << refused.err;
  // Honest: only a rerun with --replace resumes it usefully.
  EXPECT_EQ(refused.err.find("rerunning the same command resumes it"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("is kept: a rerun with the replace option resumes it and reuses its objects; otherwise "
                             "`vigilo store cleanup` deletes them once the attempt has been idle for 1 hour)"),
            std::string::npos)
      << refused.err;
  const size_t with_kept = Files("store");
  ASSERT_GT(with_kept, published_files);

  // Within the grace: kept, and said so (not "no cleanup work is due").
  CliRun kept = Vigilo("store cleanup");
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_NE(kept.out.find("1 unpublished attempt is kept for a rerun to resume"), std::string::npos) << kept.out;
  CliRun kept_json = Vigilo("store cleanup --json");
  ASSERT_EQ(kept_json.exit_code, 0) << kept_json.err;
  EXPECT_NE(kept_json.out.find("\"kept\":1"), std::string::npos) << kept_json.out;
  EXPECT_NE(kept_json.out.find("\"store\":\"local://"), std::string::npos) << kept_json.out;
  EXPECT_EQ(Files("store"), with_kept);

  // A dry run past the grace lists the attempt, its objects and bytes, and changes nothing.
  CliRun dry = Vigilo("store cleanup --dry-run --grace 0 --json");
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("\"name\":\"datasets/cli-set\""), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("\"reason\":\"expired\""), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("\"objects\":" + std::to_string(with_kept - published_files)), std::string::npos) << dry.out;
  EXPECT_EQ(dry.out.find("\"bytes\":0,"), std::string::npos) << dry.out;
  CliRun dry_text = Vigilo("store cleanup --dry-run --grace 0");
  ASSERT_EQ(dry_text.exit_code, 0) << dry_text.err;
  EXPECT_NE(dry_text.out.find("dry run: would delete " + std::to_string(with_kept - published_files) + " objects ("),
            std::string::npos)
      << dry_text.out;
  EXPECT_EQ(Files("store"), with_kept);

  // Past the grace it is abandoned (its objects go once the settle time after
  // its lease has passed: src/engine/cleanup_test.cc), and a rerun with
  // --replace then starts afresh instead of resuming it.
  CliRun cleaned = Vigilo("store cleanup --grace 0 --json");
  ASSERT_EQ(cleaned.exit_code, 0) << cleaned.err;
  EXPECT_NE(cleaned.out.find("\"abandoned\":1"), std::string::npos) << cleaned.out;
  CliRun replaced = Vigilo("dataset ingest b.json --store ./store --replace --json");
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_NE(replaced.out.find("\"resumed\":false"), std::string::npos) << replaced.out;
}

TEST_F(StoreCleanupCliTest, AFailedIngestionLeavesNoDirectoryBehind) {
  Write("a.json", Dataset(10));
  ASSERT_EQ(Vigilo("dataset ingest a.json --store ./store -q").exit_code, 0);
  // Duplicate ids are found after the attempt wrote its batches.
  std::string dup = R"({"dataset_id":"dup-set","cases":[)";
  for (int i = 0; i < 300; ++i) dup += (i ? "," : "") + Case(i % 150);
  Write("dup.json", dup + "]}");
  CliRun failed = Vigilo("dataset ingest dup.json --store ./store -q");
  ASSERT_NE(failed.exit_code, 0);
  EXPECT_NE(failed.err.find("repeats the id of ordinal 0"), std::string::npos) << failed.err;  // after its batches were written
  EXPECT_FALSE(fs::exists(dir_ / "store" / "datasets" / "dup-set"));
  EXPECT_EQ(EmptyDirectories("store"), std::vector<std::string>{});
  CliRun nothing = Vigilo("store cleanup");
  ASSERT_EQ(nothing.exit_code, 0) << nothing.err;
  EXPECT_EQ(nothing.out, "no cleanup work is due\n");
}

TEST_F(StoreCleanupCliTest, ABadGraceIsRefusedBeforeAnythingIsOpened) {
  for (const char* bad : {"5x", "-1", "h", "1.5h", "367d", "99999999999999"}) {
    CliRun r = Vigilo(std::string("store cleanup --grace ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.err.rfind("vigilo: invalid_argument: --grace: ", 0), 0u) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "control.db"));
  CliRun fine = Vigilo("store cleanup --grace 7d --dry-run");
  ASSERT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_EQ(fine.out, "dry run: nothing would be deleted\n");
}

}  // namespace
