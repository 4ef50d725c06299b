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

// Issue 34: a plan in another directory than its dataset would verify at
// publication and be unreadable afterwards (both directories record the
// alias "local"), so it is refused up front, naming both and the fix; with
// the stores configured under aliases the plan lives elsewhere and reads.
TEST_F(RunPlanCliTest, APlanInAnotherStoreThanItsDatasetIsReadableOrRefused) {
  const std::string source = VIGILO_SOURCE_DIR;
  const std::string profile = " --profile " + source + "/examples/profiles/geography-qa.json";
  CliRun ingest = Vigilo("dataset ingest " + source + "/examples/demo/dataset.json --store ./one -q");
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  std::filesystem::create_directories(dir_ / "two");
  CliRun refused = Vigilo("run plan --dataset geography-qa" + profile + " --store ./two -q");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_EQ(refused.err,
            "vigilo: invalid_argument: --store: the dataset 'geography-qa' is stored in the directory " +
                std::filesystem::weakly_canonical(dir_ / "one").string() +
                ", not in ./two; its references record only the alias \"local\", which a reader of the plan "
                "resolves to the plan's own directory, so a plan there could not be read: plan into " +
                std::filesystem::weakly_canonical(dir_ / "one").string() +
                ", or configure both stores under aliases (docs/format/stores.md)\n");
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "two"));
  EXPECT_EQ(Vigilo("run list --json").out, "");

  // Configured aliases name their stores: the plan goes to "plans" and
  // every reader finds the dataset in "data".
  const std::string guarantees = R"(,"writable":true,"guarantees":{"conditional_create":true,"read_after_create":true}})";
  Write("stores.json", R"({"version":1,"stores":{"data":{"url":"file://)" + Path("data") + "\"" + guarantees +
                           R"(,"plans":{"url":"file://)" + Path("plans") + "\"" + guarantees + "}}");
  const std::string stores = " --stores " + Path("stores.json");
  std::filesystem::create_directories(dir_ / "data");
  std::filesystem::create_directories(dir_ / "plans");
  CliRun data = Vigilo("dataset ingest " + source + "/examples/demo/dataset.json --name geo --store data -q" + stores);
  ASSERT_EQ(data.exit_code, 0) << data.err;
  CliRun plan = Vigilo("run plan --dataset geo" + profile + " --name geo-run --store plans -q" + stores);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  CliRun verify = Vigilo("run verify geo-run --cases --json" + stores);
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  CliRun chunk = Vigilo("run chunk geo-run --index 0 -q" + stores);
  EXPECT_EQ(chunk.exit_code, 0) << chunk.err;
  EXPECT_EQ(Lines(chunk.out), 1u);
}

// Issue 34: `run plan --store NEWDIR` creates the directory as ingest does
// (a plan there reads a dataset in a configured alias); a plan refused
// there leaves no directory behind.
TEST_F(RunPlanCliTest, APlanIntoANewDirectoryCreatesItAndARefusalLeavesNone) {
  const std::string source = VIGILO_SOURCE_DIR;
  const std::string profile = " --profile " + source + "/examples/profiles/geography-qa.json";
  CliRun ingest = Vigilo("dataset ingest " + source + "/examples/demo/dataset.json --store ./one -q");
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  CliRun refused = Vigilo("run plan --dataset geography-qa" + profile + " --store ./new/plans -q");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("is stored in the directory"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "new" / "plans"));

  const std::string guarantees = R"(,"writable":true,"guarantees":{"conditional_create":true,"read_after_create":true}})";
  Write("stores.json", R"({"version":1,"stores":{"data":{"url":"file://)" + Path("data") + "\"" + guarantees + "}}");
  const std::string stores = " --stores " + Path("stores.json");
  std::filesystem::create_directories(dir_ / "data");
  CliRun data = Vigilo("dataset ingest " + source + "/examples/demo/dataset.json --name geo --store data -q" + stores);
  ASSERT_EQ(data.exit_code, 0) << data.err;
  CliRun plan = Vigilo("run plan --dataset geo" + profile + " --name geo-run --store ./new/plans" + stores);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "new" / "plans"));
  CliRun verify = Vigilo("run verify geo-run --cases --json" + stores);
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
}

// Issue 34: a worker lists its shard's chunks, with the shard's route.
TEST_F(RunPlanCliTest, RunChunksListsAShardsChunksWithItsRoute) {
  const std::string source = VIGILO_SOURCE_DIR;
  ASSERT_EQ(Vigilo("dataset ingest " + source + "/examples/demo/dataset.json --store ./store -q").exit_code, 0);
  const std::string run = "geography-qa.geography-qa-smoke";
  CliRun plan = Vigilo("run plan --dataset geography-qa --profile " + source +
                       "/examples/profiles/geography-qa.json --store ./store -q");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  // Chunk size 1 and four shards: two chunks, chunk i on shard i mod 4.
  CliRun zero = Vigilo("run chunks " + run + " --shard 0 --json");
  ASSERT_EQ(zero.exit_code, 0) << zero.err;
  EXPECT_EQ(Lines(zero.out), 1u) << zero.out;
  EXPECT_NE(zero.out.find("\"chunk_index\":0,"), std::string::npos) << zero.out;
  EXPECT_NE(zero.out.find("\"route\":\"default\""), std::string::npos) << zero.out;
  EXPECT_NE(zero.out.find("\"epoch\":0"), std::string::npos) << zero.out;

  ASSERT_EQ(Vigilo("run move " + run + " --shard 1 --to pool-b").exit_code, 0);
  CliRun one = Vigilo("run chunks " + run + " --shard 1");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.rfind("chunk_index", 0), 0u) << one.out;
  EXPECT_NE(one.out.find("pool-b"), std::string::npos) << one.out;

  CliRun missing = Vigilo("run chunks " + run + " --shard 3");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_EQ(missing.err, "vigilo: invalid_argument: --shard: the run has no shard 3; its plan lists shards 0, 1 "
                         "(only shards with planned work are listed)\n");
  // `run chunk --index` reads each listed chunk.
  CliRun chunk = Vigilo("run chunk " + run + " --index 1 -q");
  EXPECT_EQ(chunk.exit_code, 0) << chunk.err;
}

// Issue 34: many small chunks (cases not in group order) are warned about.
TEST_F(RunPlanCliTest, ManySmallChunksAreWarnedAbout) {
  const std::string source = VIGILO_SOURCE_DIR;
  // Eight cases whose metadata.topic alternates, grouped by topic with a
  // chunk_size of 8: eight chunks of one case, under a quarter of 8.
  std::string lines;
  for (int i = 0; i < 8; ++i) {
    lines += R"({"id":"00000000-0000-4000-8000-00000000000)" + std::to_string(i) + R"(","input":{"prompt":"q"},)" +
             R"("metadata":{"topic":")" + (i % 2 == 0 ? "rivers" : "capitals") + "\"}}\n";
  }
  Write("topics.jsonl", lines);
  ASSERT_EQ(Vigilo("dataset ingest topics.jsonl --dataset-id topics --store ./store -q").exit_code, 0);
  std::string profile = vigilo::cli_test::ReadFile(source + "/examples/profiles/geography-qa.json");
  profile.replace(profile.find("\"chunk_size\": 1"), 15, "\"chunk_size\": 8");
  profile.replace(profile.find("{ \"by\": \"task_type\" }"), 21, "{ \"by\": \"metadata\", \"field\": \"topic\" }");
  Write("profile.json", profile);
  CliRun plan = Vigilo("run plan --dataset topics --profile profile.json --store ./store -q --json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(plan.err,
            "vigilo: warning: 8 cases made 8 chunks, 1.0 cases per chunk against a chunk_size of 8: a chunk closes "
            "wherever the profile group (metadata.topic) changes, and the dataset's cases are not in metadata.topic "
            "order. Workers pay per chunk; to get full chunks, sort the cases by metadata.topic before ingesting the "
            "dataset, or plan with a profile without profile_groups\n");
}

}  // namespace
