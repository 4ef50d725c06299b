// `vigilo dataset list|show|verify|export|cases` on a packed dataset, read
// through every REF form (@FILE, -, inline JSON, a path) and --store DIR.
// Names need a published root (`dataset ingest`); the engine test covers them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.h"

namespace vigilo::cli {
namespace {

using cli_test::CliRun;
using cli_test::ReadFile;
using cli_test::TempPath;
using cli_test::Vigilo;
using cli_test::WriteFile;

// The value on the text line "KEY  VALUE" (keys padded to one width).
std::string TextValue(const std::string& out, const std::string& key) {
  size_t at = out.rfind(key + " ", 0) == 0 ? 0 : out.find("\n" + key + " ");
  if (at == std::string::npos) return "<absent>";
  if (at != 0) ++at;
  size_t end = out.find('\n', at);
  std::string rest = out.substr(at + key.size(), end - at - key.size());
  return rest.substr(rest.find_first_not_of(' '));
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }  // refs hold no single quote

const std::string kInput = std::string(VIGILO_SOURCE_DIR) + "/tests/fixtures/identity/small-dataset/dataset.json";
const std::string kAttempt = "0f8e5c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b";
const std::string kHash = "c72eb36962365aa410aaad9987c3838eae79434d634b0d9149053c80fa6d3b26";
const std::string kPrefix = "datasets/capitals/attempts/" + kAttempt + "/g1/";

// One packed dataset (5 cases, 2 per batch: [0,2) [2,4) [4,5)) per test
// process, in a fresh directory, with its reference in a file.
class DatasetReadCliTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    store_ = new std::string(TempPath("store"));
    std::filesystem::remove_all(*store_);
    CliRun packed =
        Vigilo("dataset pack " + kInput + " --out " + *store_ + " --attempt " + kAttempt + " --max-cases 2");
    ASSERT_EQ(packed.exit_code, 0) << packed.err;
    ref_ = new std::string(packed.out);
    ref_file_ = new std::string(TempPath("ref.json"));
    WriteFile(*ref_file_, *ref_);
    canonical_ = new std::string(Vigilo("json canon " + kInput).out);
    ASSERT_FALSE(canonical_->empty());
  }
  void SetUp() override {
    // No configured aliases and no published names unless a test makes them.
    empty_stores_ = TempPath("no-stores.json");
    WriteFile(empty_stores_, R"({"version":1,"stores":{}})");
    ::setenv("VIGILO_STORES", empty_stores_.c_str(), 1);
    control_ = TempPath("control-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove(control_);
    ::setenv("VIGILO_CONTROL", control_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("VIGILO_STORES");
    ::unsetenv("VIGILO_CONTROL");
  }
  // The stored line (without LF) of record `n` of the batch [start, end).
  static std::string BatchLine(int start, int end, int n) {
    char name[64];
    std::snprintf(name, sizeof name, "batches/%010d-%010d.jsonl", start, end);
    std::string bytes = ReadFile(*store_ + "/" + kPrefix + name);
    size_t at = 0;
    for (int i = 0; i <= n; ++i) at = bytes.find('\n', at) + 1;  // the header, then earlier records
    return bytes.substr(at, bytes.find('\n', at) - at);
  }
  std::string Store() const { return " --store " + *store_; }

  static std::string* store_;
  static std::string* ref_;
  static std::string* ref_file_;
  static std::string* canonical_;
  std::string empty_stores_;
  std::string control_;
};
std::string* DatasetReadCliTest::store_;
std::string* DatasetReadCliTest::ref_;
std::string* DatasetReadCliTest::ref_file_;
std::string* DatasetReadCliTest::canonical_;

TEST_F(DatasetReadCliTest, ExportWritesTheCanonicalSubmittedBytesThroughEveryRefForm) {
  std::string inline_ref = ref_->substr(0, ref_->size() - 1);
  std::vector<std::pair<std::string, std::string>> forms = {
      {"@" + *ref_file_, ""}, {*ref_file_, ""}, {"-", *ref_}, {Quoted(inline_ref), ""}};
  for (const auto& [target, input] : forms) {
    SCOPED_TRACE(target);
    CliRun run = Vigilo("dataset export " + target + Store(), input);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, *canonical_);
    EXPECT_EQ(run.err, "");
  }
  std::string file = TempPath("export.json");
  CliRun to_file = Vigilo("dataset export @" + *ref_file_ + Store() + " -o " + file);
  EXPECT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(ReadFile(file), *canonical_);
  // The BLAKE3 of the exported bytes is the dataset_hash.
  CliRun hashed = Vigilo("hash --blake3 " + file);
  EXPECT_EQ(hashed.out, kHash + "  " + file + "\n");
}

TEST_F(DatasetReadCliTest, ShowPrintsIdentitiesAndLayout) {
  CliRun text = Vigilo("dataset show @" + *ref_file_ + Store());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(TextValue(text.out, "dataset_id"), "capitals");
  EXPECT_EQ(TextValue(text.out, "dataset_hash"), kHash);
  EXPECT_EQ(TextValue(text.out, "case_count"), "5");
  EXPECT_EQ(TextValue(text.out, "batch_count"), "3");
  EXPECT_EQ(TextValue(text.out, "batch_limits.max_cases"), "2");
  EXPECT_EQ(TextValue(text.out, "object_count"), "6");  // manifest, source fields, 1 page, 3 batches
  EXPECT_EQ(TextValue(text.out, "root.key"), kPrefix + "manifest.json");
  EXPECT_EQ(TextValue(text.out, "name"), "<absent>");  // a REF has no publication

  CliRun json = Vigilo("dataset show --json @" + *ref_file_ + Store());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.rfind(R"({"batch_count":3,"batch_limits":{"max_bytes":8388608,"max_cases":2},"case_count":5,)"
                           R"("dataset_hash":")" + kHash + R"(","dataset_id":"capitals","dataset_version":"2026-12",)",
                           0),
            0u)
      << json.out;
  EXPECT_EQ(std::count(json.out.begin(), json.out.end(), '\n'), 1);
}

TEST_F(DatasetReadCliTest, VerifyTakesAnyRefForm) {
  CliRun json = Vigilo("dataset verify --json -" + Store(), *ref_);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, R"({"batch_count":3,"case_count":5,"dataset_hash":")" + kHash +
                          R"(","dataset_id":"capitals","dataset_version_id":"f6f887b1-731a-8819-a21d-23afcfc562d0",)"
                          R"("index_page_count":1,"object_bytes":)" +
                          TextValue(Vigilo("dataset show @" + *ref_file_ + Store()).out, "object_bytes") +
                          R"(,"verified":true})" + "\n");
  CliRun text = Vigilo("dataset verify @" + *ref_file_ + Store());
  EXPECT_EQ(TextValue(text.out, "verified"), "true") << text.err;
}

TEST_F(DatasetReadCliTest, CasesPrintsTheStoredRecordLinesOfTheRange) {
  CliRun run = Vigilo("dataset cases @" + *ref_file_ + Store() + " --from 1 --to 3");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, BatchLine(0, 2, 1) + "\n" + BatchLine(2, 4, 0) + "\n");
  CliRun all = Vigilo("dataset cases @" + *ref_file_ + Store());
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out, BatchLine(0, 2, 0) + "\n" + BatchLine(0, 2, 1) + "\n" + BatchLine(2, 4, 0) + "\n" +
                         BatchLine(2, 4, 1) + "\n" + BatchLine(4, 5, 0) + "\n");

  CliRun past = Vigilo("dataset cases @" + *ref_file_ + Store() + " --from 5");
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_EQ(past.err,
            "vigilo: invalid_argument: the range starting at 5 starts past the last case of a dataset of 5 cases\n");
  EXPECT_EQ(past.out, "");
  CliRun empty = Vigilo("dataset cases @" + *ref_file_ + Store() + " --from 3 --to 2");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err, "vigilo: invalid_argument: the range [3, 2) of a dataset of 5 cases is empty\n");
}

TEST_F(DatasetReadCliTest, ListIsEmptyWithAFreshControlStore) {
  CliRun text = Vigilo("dataset list");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, "no datasets are published\n");
  CliRun json = Vigilo("dataset list --json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, "");
  EXPECT_FALSE(std::filesystem::exists(control_));  // reading never creates the control store
}

TEST_F(DatasetReadCliTest, WhereTheObjectsAreRead) {
  // A REF without --store needs its storage alias configured.
  CliRun no_store = Vigilo("dataset show @" + *ref_file_);
  EXPECT_EQ(no_store.exit_code, 2);
  EXPECT_EQ(no_store.err, "vigilo: invalid_argument: --store: a reference needs a store to read from: its storage "
                          "alias \"local\" is not configured in " +
                              empty_stores_ + "\n");
  // A name with nothing published.
  CliRun unknown = Vigilo("dataset export capitals");
  EXPECT_EQ(unknown.exit_code, 8);
  EXPECT_EQ(unknown.err, "vigilo: not_found: no dataset is published under capitals\n");
  EXPECT_EQ(unknown.out, "");
  CliRun bad_name = Vigilo("dataset show .hidden");
  EXPECT_EQ(bad_name.exit_code, 2);
  EXPECT_EQ(bad_name.err.rfind("vigilo: invalid_argument: \".hidden\" is not a dataset name (", 0), 0u) << bad_name.err;
}

TEST_F(DatasetReadCliTest, ATamperedBatchFailsExportVerifyAndItsCases) {
  std::string copy = TempPath("tampered");
  std::filesystem::remove_all(copy);
  std::filesystem::copy(*store_, copy, std::filesystem::copy_options::recursive);
  std::string batch = copy + "/" + kPrefix + "batches/0000000002-0000000004.jsonl";
  std::string bytes = ReadFile(batch);
  bytes[bytes.size() / 2] ^= 1;
  WriteFile(batch, bytes);
  std::string expected_err = "vigilo: integrity_error: " + kPrefix +
                             "batches/0000000002-0000000004.jsonl: ";

  std::string file = TempPath("tampered-export.json");
  CliRun exported = Vigilo("dataset export @" + *ref_file_ + " --store " + copy + " -o " + file);
  EXPECT_EQ(exported.exit_code, 6);
  EXPECT_EQ(exported.err.rfind(expected_err, 0), 0u) << exported.err;
  EXPECT_FALSE(std::filesystem::exists(file));  // a failed export leaves no file
  // An existing -o FILE is replaced only by a whole, verified export: a
  // failed one leaves it as it was, and no temporary beside it (issue 34).
  WriteFile(file, "the user's own file\n");
  CliRun over = Vigilo("dataset export @" + *ref_file_ + " --store " + copy + " -o " + file);
  EXPECT_EQ(over.exit_code, 6);
  EXPECT_EQ(ReadFile(file), "the user's own file\n");
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(file).parent_path())) {
    EXPECT_EQ(e.path().filename().string().find(".tampered-export.json.vigilo-export-"), std::string::npos);
  }
  std::filesystem::remove(file);
  CliRun to_stdout = Vigilo("dataset export @" + *ref_file_ + " --store " + copy);
  EXPECT_EQ(to_stdout.exit_code, 6);
  CliRun verified = Vigilo("dataset verify @" + *ref_file_ + " --store " + copy);
  EXPECT_EQ(verified.exit_code, 6);
  EXPECT_EQ(verified.err.rfind(expected_err, 0), 0u) << verified.err;
  CliRun cases = Vigilo("dataset cases @" + *ref_file_ + " --store " + copy + " --from 2 --to 3");
  EXPECT_EQ(cases.exit_code, 6);
  CliRun untouched = Vigilo("dataset cases @" + *ref_file_ + " --store " + copy + " --from 4");
  EXPECT_EQ(untouched.exit_code, 0) << untouched.err;
  EXPECT_EQ(untouched.out, BatchLine(4, 5, 0) + "\n");
}

// A published batch policy that the reader's budget does not admit is
// reported under the flag that admits it.
TEST_F(DatasetReadCliTest, ABudgetErrorNamesTheFlag) {
  std::string big = TempPath("big-batches");
  std::filesystem::remove_all(big);
  CliRun packed = Vigilo("dataset pack " + kInput + " --out " + big + " --attempt " + kAttempt +
                         " --max-bytes 16777216");
  ASSERT_EQ(packed.exit_code, 0) << packed.err;
  std::string ref = TempPath("big-ref.json");
  WriteFile(ref, packed.out);
  CliRun run = Vigilo("dataset verify @" + ref + " --store " + big + " --staging-spool 8MiB");
  EXPECT_EQ(run.exit_code, 7);
  EXPECT_EQ(run.err.rfind("vigilo: limit_exceeded: --staging-spool: a published batch of up to ", 0), 0u) << run.err;
  CliRun admitted = Vigilo("dataset verify @" + ref + " --store " + big + " --staging-spool 16MiB");
  EXPECT_EQ(admitted.exit_code, 0) << admitted.err;
}

}  // namespace
}  // namespace vigilo::cli
