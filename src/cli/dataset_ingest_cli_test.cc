// `vigilo dataset ingest` driven as a user would: the real binary, a local
// directory store, a private control database ($VIGILO_CONTROL), and two
// processes racing for one name.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cli_test_support.h"

namespace {

using vigilo::cli_test::CliRun;

class IngestCliTest : public vigilo::cli_test::CliDirTest {};

std::string Case(int i) {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
  return std::string(R"({"id":")") + id + R"(","input":{"prompt":"q)" + std::to_string(i) +
         R"("},"task_type":"generation"})";
}

std::string Dataset(int n) {
  std::string s = R"({"dataset_id":"cli-set","cases":[)";
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + Case(i);
  return s + "]}";
}

std::string JsonField(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return "<absent>";
  at += key.size() + 3;
  if (json[at] == '"') return json.substr(at + 1, json.find('"', at + 1) - at - 1);
  return json.substr(at, json.find_first_of(",}", at) - at);
}

TEST_F(IngestCliTest, IngestPrintsTheRootAndTheNameIsListed) {
  Write("in.json", Dataset(120));
  CliRun r = Vigilo("dataset ingest in.json --store ./store");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(JsonField(r.out, "schema"), "vigilo/dataset-manifest/v1") << r.out;
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_NE(r.err.find("published 'cli-set' version 1: 120 cases, 5 objects written, every object verified"),
            std::string::npos)
      << r.err;
  Write("root.json", r.out);

  CliRun identity = Vigilo("dataset identity in.json --json");
  ASSERT_EQ(identity.exit_code, 0);
  CliRun again = Vigilo("dataset ingest in.json --store ./store --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(JsonField(again.out, "outcome"), "unchanged");
  EXPECT_EQ(JsonField(again.out, "dataset_hash"), JsonField(identity.out, "dataset_hash"));
  EXPECT_EQ(JsonField(again.out, "digest"), JsonField(r.out, "digest"));

  CliRun list = Vigilo("dataset list --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("\"name\":\"cli-set\""), std::string::npos) << list.out;
}

TEST_F(IngestCliTest, StandardInputAndJsonLinesWithDerivedIds) {
  CliRun piped = Vigilo("dataset ingest - --store ./store --name piped -q", Dataset(3));
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err, "");

  Write("cases.jsonl",
        "{\"input\":{\"prompt\":\"a\"},\"metadata\":{\"ref\":\"case-0001\"},\"task_type\":\"generation\"}\n"
        "{\"input\":{\"prompt\":\"b\"},\"metadata\":{\"ref\":42},\"task_type\":\"generation\"}\n");
  CliRun lines = Vigilo("dataset ingest cases.jsonl --store ./store --dataset-id lines-set --derive-ids metadata.ref");
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_NE(lines.err.find("every case was given the id UUIDv5(metadata.ref)"), std::string::npos) << lines.err;
  EXPECT_NE(lines.err.find("published 'lines-set' version 1: 2 cases"), std::string::npos) << lines.err;

  CliRun no_id = Vigilo("dataset ingest cases.jsonl --store ./store");
  EXPECT_EQ(no_id.exit_code, 2);
  EXPECT_EQ(no_id.err, "vigilo: invalid_argument: --dataset-id is required for JSON Lines input\n");
}

// Issue 34: ids of the user's own ("evalset-00000", the common case) are
// refused with the way to keep them, not only the UUID rule.
TEST_F(IngestCliTest, AnIdThatIsNoUuidPointsToDerivedIds) {
  Write("own-ids.jsonl", "{\"id\":\"evalset-00000\",\"input\":{\"prompt\":\"a\"}}\n");
  CliRun own = Vigilo("dataset ingest own-ids.jsonl --store ./store --dataset-id own -q");
  EXPECT_EQ(own.exit_code, 4) << own.err;
  EXPECT_EQ(own.err,
            "vigilo: invalid_format: line 1: $.cases[0].id: UUID must be 36 characters, got 13; a case id is a lowercase "
            "UUID (8-4-4-4-12): to keep ids of your own, put them under metadata (e.g. metadata.key) in JSON Lines "
            "and ingest with --derive-ids metadata.key, which derives each UUID from them (at byte 0)\n");

  // With --derive-ids, a repeated value is named as the user wrote it, with
  // its lines, and nothing is published.
  Write("keys.jsonl",
        "{\"input\":{\"prompt\":\"a\"},\"metadata\":{\"key\":\"evalset-00000\"}}\n"
        "{\"input\":{\"prompt\":\"b\"},\"metadata\":{\"key\":\"evalset-00000\"}}\n");
  CliRun dup = Vigilo("dataset ingest keys.jsonl --store ./store --dataset-id keys --derive-ids metadata.key -q");
  EXPECT_EQ(dup.exit_code, 4) << dup.err;
  EXPECT_EQ(dup.err.rfind("vigilo: invalid_format: line 2: $.cases[1].id: metadata.key \"evalset-00000\" repeats the "
                          "value on line 1, and equal values derive equal case ids (--derive-ids gave both ",
                          0),
            0u)
      << dup.err;
}

TEST_F(IngestCliTest, BadFlagsAreRefusedBeforeAnythingIsRead) {
  Write("in.json", Dataset(2));
  CliRun r = Vigilo("dataset ingest in.json --store ./store --max-bytes 100");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("vigilo: invalid_argument: --max-bytes: case_batch_max_bytes must be between 256 bytes"),
            std::string::npos)
      << r.err;
  r = Vigilo("dataset ingest in.json --store ./store --format yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "vigilo: invalid_argument: --format: expected json or jsonl, got 'yaml'\n");
  r = Vigilo("dataset ingest in.json --store ./store --dataset-id x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("apply to JSON Lines input only"), std::string::npos) << r.err;
  r = Vigilo("dataset ingest in.json --store ./store --name ../up");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("vigilo: invalid_argument: --name:"), std::string::npos) << r.err;
  // None of them created the store or the control database.
  EXPECT_FALSE(std::filesystem::exists(dir_ / "store"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "control.db"));
}

TEST_F(IngestCliTest, ADuplicateIdIsAnErrorAndLeavesNoObject) {
  std::string text = Dataset(150);
  std::string second = R"("id":"00000000-0000-4000-8000-000000000001")";
  size_t at = text.find(R"("id":"00000000-0000-4000-8000-000000000140")");
  text.replace(at, second.size(), second);
  Write("dup.json", text);
  CliRun r = Vigilo("dataset ingest dup.json --store ./store");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("vigilo: invalid_format: $.cases[140].id:"), std::string::npos) << r.err;
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir_ / "store")) {
    files += e.is_regular_file() ? 1 : 0;
  }
  EXPECT_EQ(files, 0u);
}

TEST_F(IngestCliTest, AValidationSpoolTooSmallForTheSortIsRefusedUpFront) {
  CliRun r = Vigilo("dataset ingest - --store ./store --validation-spool 5MiB", Dataset(3));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err,
            "vigilo: invalid_argument: --validation-spool: ingestion_validation_spool_bytes must hold one sort run "
            "plus one batch (external_sort_buffer_bytes + case_batch_max_bytes = 75497472 bytes (72 MiB)), got "
            "5242880 bytes (5 MiB)\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "store"));
}

// Two processes ingest the same dataset under one name at once: one
// publishes, the other finds the name holding the same dataset, and the name
// has one version.
TEST_F(IngestCliTest, TwoConcurrentIngestionsPublishOnce) {
  Write("in.json", Dataset(2000));
  std::string bin = std::string(VIGILO_BIN);
  std::string cmd = "cd " + dir_.string() + " && export VIGILO_CONTROL=" + Path("control.db") + " && (" + bin +
                    " dataset ingest in.json --store ./store --json -q >a.out 2>a.err & " + bin +
                    " dataset ingest in.json --store ./store --json -q >b.out 2>b.err & wait)";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::string a = Read("a.out"), b = Read("b.out");
  ASSERT_NE(a, "") << Read("a.err");
  ASSERT_NE(b, "") << Read("b.err");
  std::string outcomes = JsonField(a, "outcome") + "," + JsonField(b, "outcome");
  EXPECT_TRUE(outcomes == "published,unchanged" || outcomes == "unchanged,published") << outcomes;
  EXPECT_EQ(JsonField(a, "digest"), JsonField(b, "digest"));
  CliRun list = Vigilo("dataset list --json");
  EXPECT_NE(list.out.find("\"version\":1"), std::string::npos) << list.out;
}

}  // namespace
