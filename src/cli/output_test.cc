// The shared CLI pieces in isolation: the text and JSON forms of records and
// tables, the progress line and its terminal gating, "did you mean".
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "exit_codes.h"
#include "output.h"
#include "progress.h"
#include "usage.h"

namespace vigilo::cli {
namespace {

Record Sample() {
  Record bytes;
  bytes.Add("postings", json::Value::Uint(1200)).Add("total", json::Value::Uint(1500));
  Record r;
  r.Add("artifact_uuid", json::Value("0f8e5c1a")).Add("ntotal", json::Value::Uint(200));
  r.Add("source_rows", json::Value()).Add("bytes", std::move(bytes));
  return r;
}

// Library errors name settings; the CLI prints them as the flags that set them.
TEST(ErrorTextTest, SettingsPrintAsTheirFlags) {
  EXPECT_EQ(RenderSettings("`nlist` must be 1 to the number of vectors (200), got 500"),
            "--nlist must be 1 to the number of vectors (200), got 500");
  EXPECT_EQ(RenderSettings("`skip_unembeddable` needs `key`: rows left out"),
            "--skip-unembeddable needs --key: rows left out");
  // A backquoted word that is no setting, and a lone backquote, stay as they are.
  EXPECT_EQ(RenderSettings("the directory `vigilo embed import` writes; a ` alone"),
            "the directory `vigilo embed import` writes; a ` alone");
  EXPECT_EQ(ErrorText(InvalidArgument("`text_field` \"t\": no such member").WithPath("in.jsonl")),
            "invalid_argument: in.jsonl: --text-field \"t\": no such member");
  EXPECT_EQ(FlagForLibrarySetting("source_row_group_rows"), "--source-row-group-rows");
  EXPECT_EQ(FlagForLibrarySetting("threads_per_core"), "");
}

TEST(OutputTest, RecordTextIsAlignedKeyValueWithUnquotedStrings) {
  Result<std::string> text = FormatRecord(Sample(), OutputFlags{});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "artifact_uuid   0f8e5c1a\n"
            "ntotal          200\n"
            "source_rows     -\n"
            "bytes.postings  1200\n"
            "bytes.total     1500\n");
}

TEST(OutputTest, RecordJsonIsOneCanonicalLineAndPrettyIsIndented) {
  Result<std::string> line = FormatRecord(Sample(), OutputFlags{.json = true});
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(*line, R"({"artifact_uuid":"0f8e5c1a","bytes":{"postings":1200,"total":1500},"ntotal":200,"source_rows":null})"
                   "\n");
  Result<std::string> pretty = FormatRecord(Sample(), OutputFlags{.pretty = true});
  ASSERT_TRUE(pretty.ok());
  EXPECT_EQ(*pretty,
            "{\n"
            "  \"artifact_uuid\": \"0f8e5c1a\",\n"
            "  \"bytes\": {\n"
            "    \"postings\": 1200,\n"
            "    \"total\": 1500\n"
            "  },\n"
            "  \"ntotal\": 200,\n"
            "  \"source_rows\": null\n"
            "}\n");
}

TEST(OutputTest, PrettyJsonKeepsEmptyContainersAndArrays) {
  json::Array list{json::Value::Uint(1), json::Value("a\"b")};
  json::Object o;
  o.Set("list", json::Value(std::move(list)));
  o.Set("empty", json::Value(json::Object()));
  Result<std::string> text = PrettyJson(json::Value(std::move(o)));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "{\n  \"empty\": {},\n  \"list\": [\n    1,\n    \"a\\\"b\"\n  ]\n}");
}

TEST(OutputTest, TableTextAlignsNumbersRightAndJsonIsOneLinePerRow) {
  std::vector<Record> rows;
  rows.push_back(Record().Add("store", json::Value("local:/a")).Add("deleted", json::Value::Uint(12)));
  rows.push_back(Record().Add("store", json::Value("b")).Add("deleted", json::Value::Uint(3)));
  Result<std::string> text = FormatTable({"store", "deleted"}, rows, OutputFlags{});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "store     deleted\n"
            "local:/a       12\n"
            "b               3\n");
  Result<std::string> lines = FormatTable({"store", "deleted"}, rows, OutputFlags{.json = true});
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(*lines, "{\"deleted\":12,\"store\":\"local:/a\"}\n{\"deleted\":3,\"store\":\"b\"}\n");
  Result<std::string> empty = FormatTable({"store", "deleted"}, {}, OutputFlags{.json = true});
  EXPECT_EQ(*empty, "");
}

TEST(OutputTest, SnakeCase) {
  EXPECT_TRUE(IsSnakeCase("artifact_uuid"));
  EXPECT_TRUE(IsSnakeCase("p50"));
  EXPECT_FALSE(IsSnakeCase("artifact-uuid"));
  EXPECT_FALSE(IsSnakeCase("Artifact"));
  EXPECT_FALSE(IsSnakeCase("_distance"));
  EXPECT_FALSE(IsSnakeCase("a__b"));
  EXPECT_FALSE(IsSnakeCase("a_"));
  EXPECT_FALSE(IsSnakeCase(""));
}

TEST(UsageTest, ClosestMatch) {
  std::vector<std::string> commands = {"build", "query", "eval", "inspect", "validate", "verify"};
  EXPECT_EQ(ClosestMatch("biuld", commands), "build");     // a swap
  EXPECT_EQ(ClosestMatch("verfy", commands), "verify");    // a deletion
  EXPECT_EQ(ClosestMatch("inspekt", commands), "inspect");  // a substitution
  EXPECT_EQ(ClosestMatch("frobnicate", commands), "");
  EXPECT_EQ(ClosestMatch("--nprobes", {"--k", "--nprobe", "--json"}), "--nprobe");
}

// A clock the test moves by hand.
struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  Progress::Clock Fn() {
    return [this] { return now; };
  }
};

std::string Drain(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

TEST(ProgressTest, LineHasBarCountRateAndEta) {
  EXPECT_EQ(Progress::Line("assign", 100, 400, 2.0), "assign [#####               ] 100/400  50.0/s  ETA 0:06");
  EXPECT_EQ(Progress::Line("sample", 400, 400, 8.0), "sample [####################] 400/400  50.0/s  0:08");
  EXPECT_EQ(Progress::Line("read", 7, 0, 3700.0), "read 7  0.0/s  1:01:40");
}

TEST(ProgressTest, DrawsOnlyStepsLongerThanTheThresholdAndOnlyWhenEnabled) {
  FakeClock clock;
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress bar(f, true, clock.Fn());
    bar.Update("sample", 10, 100);  // a quick step: never drawn
    clock.now += std::chrono::milliseconds(500);
    bar.Update("sample", 100, 100);
    bar.Update("train", 0, 10);
    clock.now += std::chrono::seconds(2);
    bar.Update("train", 5, 10);  // 2 s in: drawn
    clock.now += std::chrono::milliseconds(10);
    bar.Update("train", 6, 10);  // too soon after the last draw
    clock.now += std::chrono::seconds(2);
  }  // the destructor ends the line
  EXPECT_EQ(Drain(f),
            "\rtrain [##########          ] 5/10  2.5/s  ETA 0:02\x1b[K"
            "\rtrain [############        ] 6/10  1.5/s  ETA 0:03\x1b[K\n");
  std::fclose(f);

  std::FILE* g = std::tmpfile();
  {
    Progress off(g, false, clock.Fn());
    off.Update("train", 0, 10);
    clock.now += std::chrono::seconds(5);
    off.Update("train", 10, 10);
  }
  EXPECT_EQ(Drain(g), "");
  std::fclose(g);
}

}  // namespace
}  // namespace vigilo::cli
