// `vigilo run plan` end to end with the real binary: a dataset ingested,
// a run planned over it by name, listed, verified with every case, and
// every chunk read back by a worker.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cli_test_support.h"

namespace {

using vigilo::cli_test::CliRun;

class RunPlanCliTest : public vigilo::cli_test::CliDirTest {};

size_t Lines(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n' ? 1 : 0;
  return n;
}

TEST_F(RunPlanCliTest, PlanVerifyAndReadEveryChunk) {
  const std::string source = VIGILO_SOURCE_DIR;
  CliRun ingest = Vigilo("dataset ingest " + source + "/examples/demo/dataset.json --store ./store -q");
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;

  CliRun plan = Vigilo("run plan --dataset geography-qa --profile " + source +
                       "/examples/profiles/geography-qa.json --store ./store --json -q");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("\"outcome\":\"published\""), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("\"name\":\"geography-qa.geography-qa-smoke\""), std::string::npos) << plan.out;

  CliRun again = Vigilo("run plan --dataset geography-qa --profile " + source +
                        "/examples/profiles/geography-qa.json --store ./store --json -q");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("\"outcome\":\"unchanged\""), std::string::npos) << again.out;

  CliRun list = Vigilo("run list --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(Lines(list.out), 1u) << list.out;

  CliRun verify = Vigilo("run verify geography-qa.geography-qa-smoke --cases --json");
  ASSERT_EQ(verify.exit_code, 0) << verify.err;

  // Chunk size 1 in this profile: one case per chunk, two chunks.
  std::string all;
  for (int i = 0; i < 2; ++i) {
    CliRun chunk = Vigilo("run chunk geography-qa.geography-qa-smoke --index " + std::to_string(i) + " -q");
    ASSERT_EQ(chunk.exit_code, 0) << chunk.err;
    EXPECT_EQ(Lines(chunk.out), 1u);
    all += chunk.out;
  }
  CliRun cases = Vigilo("dataset cases geography-qa");
  ASSERT_EQ(cases.exit_code, 0) << cases.err;
  EXPECT_EQ(all, cases.out) << "the chunks hold every case exactly once, in order";

  CliRun bad = Vigilo("run plan --dataset geography-qa --profile missing.json --store ./store");
  EXPECT_EQ(bad.exit_code, 8) << bad.err;
  EXPECT_NE(bad.err.find("--profile"), std::string::npos) << bad.err;
}

}  // namespace
