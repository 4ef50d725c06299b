// Reading published datasets back: locators, names through the control
// store, show, the exact export bytes, and ranges of cases that fetch only
// the batches holding them.
#include "vigilo/engine/dataset_read.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "../cases/store_test_support.h"
#include "../cases/writer_test_support.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/common/hex.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/store/clock.h"

namespace vigilo::engine {
namespace {

using cases::test::TestStore;

json::Value J(std::string_view text) {
  auto v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return *v;
}

std::string CaseJson(int i) {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i + 1);
  return std::string(R"({ "tags": ["t)") + std::to_string(i % 3) + R"(", "all"], "id": ")" + id +
         R"(", "input": {"prompt": "question )" + std::to_string(i) + R"("}})";
}

// A submitted document, not canonical (spaces, unsorted keys), with
// `before` and `after` spliced in as extra top-level members.
std::string Document(int n, const std::string& before, const std::string& after) {
  std::string doc = "{ \"dataset_version\": \"v1\", " + before + "\"dataset_id\": \"geo\", \"cases\": [";
  for (int i = 0; i < n; ++i) doc += (i ? ", " : "") + CaseJson(i);
  return doc + "], " + after + "\"note\": \"x\" }";
}

std::string Blake3Hex(std::string_view bytes) {
  Blake3Hasher h;
  h.Update(bytes);
  return HexEncode(h.Finalize());
}

Result<cases::WrittenDataset> WriteDocument(TestStore& store, const std::string& text, cases::BatchLimits batch,
                                            cases::IndexLimits index = {}) {
  VIGILO_ASSIGN_OR_RETURN(json::Value doc, json::Parse(text));
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetSourceFields sf, cases::DatasetSourceFields::FromDocument(doc));
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetWriter writer,
                          cases::DatasetWriter::Start(std::move(sf), cases::WriterBudget(batch, index),
                                                      cases::TestScratchDir(), "datasets/geo/a/g1/", store.Sink()));
  for (const json::Value& c : doc.as_object().Find("cases")->as_array()) VIGILO_RETURN_IF_ERROR(writer.AddCase(c));
  return writer.Finish();
}

struct Exported {
  Status status;
  std::string bytes;
  ExportSummary summary;
};
Exported Export(TestStore& store, const cases::ObjectRef& root) {
  Exported e;
  auto r = ExportDataset(root, cases::BudgetConfig::Defaults(), store.BytesFetch(), [&](std::string_view b) {
    e.bytes.append(b);
    return Status::Ok();
  });
  if (r.ok()) e.summary = *r;
  e.status = r.status();
  return e;
}

// --- locators ----------------------------------------------------------------

class LocatorTest : public testing::Test {
 protected:
  void SetUp() override {
    auto w = WriteDocument(store_, Document(3, "", ""), cases::BatchLimits{2, 1 << 20});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ref_ = w->manifest_ref;
    ref_text_ = *json::ToCanonical(ref_.ToJson());
  }
  TestStore store_;
  cases::ObjectRef ref_;
  std::string ref_text_;
};

TEST_F(LocatorTest, InlineReferenceTextIsAReference) {
  // Files and standard input are the CLI's to read (cli/root_target_test.cc).
  auto inline_ref = ParseDatasetLocator(ref_text_);
  ASSERT_TRUE(inline_ref.ok()) << inline_ref.status().ToString();
  EXPECT_EQ(inline_ref->ref, ref_);
  EXPECT_EQ(inline_ref->name, "");
  auto with_lf = ParseRootReference(ref_text_ + "\n", "ref.json", control::Namespace::kDatasets);
  ASSERT_TRUE(with_lf.ok()) << with_lf.status().ToString();
  EXPECT_EQ(*with_lf, ref_);

  auto resolved = ResolveDataset(*inline_ref, nullptr);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->root, ref_);
  EXPECT_FALSE(resolved->record.has_value());
  EXPECT_EQ(resolved->ledger_store_id, "");
}

TEST_F(LocatorTest, NamesAndInvalidNames) {
  auto name = ParseDatasetLocator("geo-2026.v1_x");
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  EXPECT_FALSE(name->ref.has_value());
  EXPECT_EQ(name->name, "geo-2026.v1_x");

  for (std::string bad : {std::string(".hidden"), std::string("a b"), std::string(129, 'a'), std::string("é")}) {
    auto r = ParseDatasetLocator(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
    EXPECT_EQ(r.status().message().rfind("\"" + bad + "\" is not a dataset name (", 0), 0u) << r.status().ToString();
  }
  auto empty = ParseDatasetLocator("");
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.status().message(), "a dataset name or reference is required");
}

TEST_F(LocatorTest, BadReferences) {
  auto not_json = ParseDatasetLocator("{\"key\":");
  EXPECT_EQ(not_json.status().code(), StatusCode::kParseError) << not_json.status().ToString();
  EXPECT_EQ(not_json.status().path(), "<reference>");
  auto no_key = ParseDatasetLocator(R"({"key":"k"})");
  EXPECT_EQ(no_key.status().code(), StatusCode::kInvalidFormat) << no_key.status().ToString();
  EXPECT_EQ(no_key.status().path().rfind("<reference>: $", 0), 0u) << no_key.status().ToString();

  // A reference to another kind of object is not a dataset root.
  cases::ObjectRef batch = ref_;
  batch.schema = cases::StorageFormat::kCaseBatch;
  auto wrong = ParseDatasetLocator(*json::ToCanonical(batch.ToJson()));
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(wrong.status().ToString(),
            "invalid_argument: <reference>: the reference names a vigilo/case-batch/v1 object, not a "
            "vigilo/dataset-manifest/v1 root");

  auto too_big = ParseRootReference(std::string(64 * 1024 + 1, ' '), "big.json", control::Namespace::kDatasets);
  EXPECT_EQ(too_big.status().code(), StatusCode::kLimitExceeded) << too_big.status().ToString();
  EXPECT_EQ(too_big.status().path(), "big.json");
}

// --- names through the control store ----------------------------------------------

TEST_F(LocatorTest, ANameResolvesToItsPublishedRootAndTheAttemptsStore) {
  auto dir = std::filesystem::temp_directory_path() / ("vigilo-read-control-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  store::ManualClock clock(store::Micros{1'767'225'600} * 1'000'000);
  store::SeededRandom random(7);
  control::SqliteOptions options;
  options.wall_clock = &clock;
  options.random = &random;
  auto control = control::OpenSqliteControlStore((dir / "control.sqlite3").string(), options);
  ASSERT_TRUE(control.ok()) << control.status().ToString();

  control::AttemptSpec spec;
  spec.ns = control::Namespace::kDatasets;
  spec.name = "geo";
  spec.store = "local:/srv/vigilo";
  spec.owner = "test";
  spec.lease_duration = store::Micros{30} * 1'000'000;
  auto lease = (*control)->BeginAttempt(spec);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  auto published = (*control)->PublishRoot(*lease, ref_text_);
  ASSERT_TRUE(published.ok()) << published.status().ToString();

  auto resolved = ResolveDataset(*ParseDatasetLocator("geo"), control->get());
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->root, ref_);
  EXPECT_EQ(resolved->ledger_store_id, "local:/srv/vigilo");
  ASSERT_TRUE(resolved->record.has_value());
  EXPECT_EQ(resolved->record->version, 1u);
  EXPECT_EQ(resolved->record->attempt, lease->attempt);

  auto unknown = ResolveDataset(*ParseDatasetLocator("nope"), control->get());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "no dataset is published under nope");
  std::filesystem::remove_all(dir);
}

// --- export -------------------------------------------------------------------

struct ExportCase {
  std::string name;
  std::string before;  // extra members in the submitted text (keys sort before or after "cases")
  std::string after;
  int cases;
  cases::BatchLimits batch;
  cases::IndexLimits index;
  int32_t index_level;  // of the root page
};

TEST(DatasetExportTest, BytesAreTheCanonicalSubmittedDocumentAndHashToDatasetHash) {
  std::vector<ExportCase> datasets = {
      {"one batch", "", "", 3, {100, 1 << 20}, {}, 0},
      {"fields before and after cases", R"("a_first": [1, 2.50, {"z": null, "b": true}], "Zeta": "é", )",
       R"("zz": {"k": "\u00e9"}, "description": "d", )", 7, {2, 1 << 20}, {}, 0},
      {"12 batches, three index levels", R"("b": 1, )", R"("d": "x", )", 23, {2, 1 << 20}, {3, 1 << 20, 8}, 2},
      {"19 batches, five index levels", "", R"("extra": [], )", 19, {1, 1 << 20}, {2, 1 << 20, 8}, 4},
  };
  for (const ExportCase& c : datasets) {
    SCOPED_TRACE(c.name);
    TestStore store;
    std::string text = Document(c.cases, c.before, c.after);
    auto written = WriteDocument(store, text, c.batch, c.index);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    EXPECT_EQ(written->manifest.batches.level, c.index_level);
    Exported e = Export(store, written->manifest_ref);
    ASSERT_TRUE(e.status.ok()) << e.status.ToString();
    EXPECT_EQ(e.bytes, *json::ToCanonical(J(text)));
    EXPECT_EQ(Blake3Hex(e.bytes), written->manifest.dataset_hash);
    EXPECT_EQ(e.summary.dataset_hash, written->manifest.dataset_hash);
    EXPECT_EQ(e.summary.bytes_written, e.bytes.size());
    EXPECT_EQ(e.summary.case_count, static_cast<uint64_t>(c.cases));
  }
}

// A cancel mid-way (issue 34: SIGINT on dataset export) stops before the
// next batch is fetched: cancelled after the first piece, the export writes
// nothing more (the caller discards the piece: dataset export -o removes it).
TEST(DatasetExportTest, ACancelStopsBeforeTheNextBatch) {
  TestStore store;
  auto written = WriteDocument(store, Document(10, "", ""), cases::BatchLimits{2, 1 << 20});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  store::CancelToken cancel;
  std::vector<std::string> pieces;
  auto r = ExportDataset(
      written->manifest_ref, cases::BudgetConfig::Defaults(), store.BytesFetch(),
      [&](std::string_view b) {
        pieces.emplace_back(b);
        if (pieces.size() == 2) cancel.Cancel();  // the prefix, then the first batch
        return Status::Ok();
      },
      &cancel);
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled) << r.status().ToString();
  EXPECT_EQ(pieces.size(), 2u);
  store::CancelToken already;
  already.Cancel();
  pieces.clear();
  r = ExportDataset(written->manifest_ref, cases::BudgetConfig::Defaults(), store.BytesFetch(),
                    [&](std::string_view b) {
                      pieces.emplace_back(b);
                      return Status::Ok();
                    },
                    &already);
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_TRUE(pieces.empty());
}

TEST(DatasetExportTest, ATamperedBatchIsAnIntegrityError) {
  TestStore store;
  auto written = WriteDocument(store, Document(10, "", ""), cases::BatchLimits{4, 1 << 20});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  std::string key = "datasets/geo/a/g1/batches/0000000004-0000000008.jsonl";
  ASSERT_TRUE(store.Has(key));
  std::string bytes = store.Object(key);
  bytes[bytes.size() / 2] ^= 1;
  store.memory.Overwrite(key, bytes);
  Exported e = Export(store, written->manifest_ref);
  EXPECT_EQ(e.status.code(), StatusCode::kIntegrityError) << e.status.ToString();
  EXPECT_EQ(e.status.path(), key);
}

// A manifest (re-pointed at by its reference) whose dataset_hash is not the
// hash of its cases: the bytes are written, then the check fails.
TEST(DatasetExportTest, AWrongManifestHashIsAnIntegrityErrorAfterTheBytes) {
  TestStore store;
  auto written = WriteDocument(store, Document(3, "", ""), cases::BatchLimits{100, 1 << 20});
  ASSERT_TRUE(written.ok());
  cases::DatasetManifest m = written->manifest;
  m.dataset_hash = std::string(64, '0');
  cases::ObjectRef root = store.Put("datasets/geo/a/g1/manifest.json", cases::StorageFormat::kDatasetManifest,
                                    *json::ToCanonical(m.ToJson()));
  Exported e = Export(store, root);
  EXPECT_EQ(e.status.code(), StatusCode::kIntegrityError);
  EXPECT_EQ(e.status.path(), "$.dataset_hash");
  EXPECT_EQ(e.bytes, *json::ToCanonical(J(Document(3, "", ""))));  // written before the check
}

// `dataset export -o FILE` for every edge: the file is the whole export,
// or as it was; no temporary is left, and a dead export's is removed.
TEST(DatasetExportTest, ToFileReplacesTheFileOnlyWithAWholeVerifiedExport) {
  TestStore store;
  auto written = WriteDocument(store, Document(10, "", ""), cases::BatchLimits{4, 1 << 20});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("export-to-file-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "out.json").string();
  // A temporary of an export killed earlier: pid 999999999 is no process.
  const std::filesystem::path dead = dir / ".out.json.vigilo-export-999999999";
  std::FILE* f = std::fopen(dead.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  auto done = ExportDatasetToFile(written->manifest_ref, cases::BudgetConfig::Defaults(), store.BytesFetch(), file);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  Exported e = Export(store, written->manifest_ref);
  Result<std::string> read = ReadFileToString(file, 1 << 20);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const std::string& bytes = *read;
  EXPECT_EQ(bytes, e.bytes);
  EXPECT_EQ(done->bytes_written, bytes.size());
  EXPECT_FALSE(std::filesystem::exists(dead));
  // A tampered batch: the earlier file stays, and nothing else is left.
  std::string key = "datasets/geo/a/g1/batches/0000000004-0000000008.jsonl";
  std::string tampered = store.Object(key);
  tampered[tampered.size() / 2] ^= 1;
  store.memory.Overwrite(key, tampered);
  auto failed = ExportDatasetToFile(written->manifest_ref, cases::BudgetConfig::Defaults(), store.BytesFetch(), file);
  EXPECT_EQ(failed.status().code(), StatusCode::kIntegrityError) << failed.status().ToString();
  EXPECT_EQ(std::filesystem::file_size(file), bytes.size());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  std::filesystem::remove_all(dir);
}

// --- show ----------------------------------------------------------------------

TEST(DatasetShowTest, CountsTheLayoutWithoutFetchingBatches) {
  TestStore store;
  // 23 cases, 4 per batch, 3 entries per page: 6 batches, 2 leaf pages + 1 root page.
  auto written = WriteDocument(store, Document(23, "", ""), cases::BatchLimits{4, 1 << 20}, {3, 1 << 20, 8});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  store.fetches = 0;
  auto overview = ShowDataset(written->manifest_ref, cases::BudgetConfig::Defaults(), store.BytesFetch());
  ASSERT_TRUE(overview.ok()) << overview.status().ToString();
  EXPECT_EQ(overview->batch_count, 6u);
  EXPECT_EQ(overview->index_page_count, 3u);
  EXPECT_EQ(overview->object_count, 11u);
  uint64_t total = 0;
  for (const std::string& key : store.memory.Keys()) total += store.Object(key).size();
  EXPECT_EQ(overview->object_bytes, total);
  EXPECT_EQ(store.fetches, 5);  // manifest, source fields, 3 pages
  EXPECT_EQ(overview->manifest.dataset_hash, written->manifest.dataset_hash);
  EXPECT_EQ(overview->source_fields.dataset_id(), "geo");
}

// --- cases ---------------------------------------------------------------------

class DatasetCasesTest : public testing::Test {
 protected:
  void SetUp() override {
    // 23 cases, 4 per batch, 3 entries per page: batches [0,4) [4,8) ... [20,23).
    auto w = WriteDocument(store_, Document(23, "", ""), cases::BatchLimits{4, 1 << 20}, {3, 1 << 20, 8});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    written_ = *w;
  }
  // The stored line of ordinal i (without LF).
  std::string StoredLine(int i) {
    int start = i / 4 * 4;
    char key[96];
    std::snprintf(key, sizeof key, "datasets/geo/a/g1/batches/%010d-%010d.jsonl", start, std::min(start + 4, 23));
    std::string bytes = store_.Object(key);
    size_t at = 0;
    for (int skip = 0; skip <= i - start; ++skip) at = bytes.find('\n', at) + 1;  // the header, then earlier records
    return bytes.substr(at, bytes.find('\n', at) - at);
  }
  Result<CasesSummary> Read(int32_t from, int32_t to, std::vector<std::string>* lines) {
    store_.fetches = 0;
    return ReadDatasetCases(written_.manifest_ref, cases::BudgetConfig::Defaults(), store_.BytesFetch(), from, to,
                            [&](const cases::CaseRecord& record, std::string_view line) {
                              EXPECT_EQ(record.case_ordinal, static_cast<int32_t>(from + lines->size()));
                              lines->emplace_back(line);
                              return Status::Ok();
                            });
  }
  TestStore store_;
  cases::WrittenDataset written_;
};

TEST_F(DatasetCasesTest, ARangeFetchesOnlyTheBatchesHoldingIt) {
  std::vector<std::string> lines;
  auto r = Read(5, 9, &lines);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->from, 5);
  EXPECT_EQ(r->to, 9);
  EXPECT_EQ(r->batches_fetched, 2u);         // [4,8) and [8,12)
  EXPECT_EQ(store_.fetches, 2 + 2 + 2);      // manifest, source fields, root + one leaf page, two batches
  ASSERT_EQ(lines.size(), 4u);
  for (int i = 5; i < 9; ++i) EXPECT_EQ(lines[i - 5], StoredLine(i)) << i;
  EXPECT_NE(lines[0].find(R"("case_ordinal":5,)"), std::string::npos) << lines[0];
}

TEST_F(DatasetCasesTest, ARangeAcrossLeafPagesFetchesEachPageOnce) {
  std::vector<std::string> lines;
  auto r = Read(10, 14, &lines);  // batches [8,12) under leaf page [0,12) and [12,16) under [12,23)
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->batches_fetched, 2u);
  EXPECT_EQ(store_.fetches, 2 + 3 + 2);  // manifest, source fields, root + two leaf pages, two batches
  ASSERT_EQ(lines.size(), 4u);
  for (int i = 10; i < 14; ++i) EXPECT_EQ(lines[i - 10], StoredLine(i)) << i;
}

TEST_F(DatasetCasesTest, ToIsClampedToTheCaseCount) {
  std::vector<std::string> lines;
  auto r = Read(21, 1000, &lines);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->to, 23);
  EXPECT_EQ(r->batches_fetched, 1u);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], StoredLine(22));
  uint64_t expected = written_.manifest_ref.byte_count + written_.manifest.source_fields.byte_count;
  EXPECT_GT(r->bytes_fetched, expected);
}

TEST_F(DatasetCasesTest, BadRangesAreInvalidArguments) {
  std::vector<std::string> lines;
  auto past = Read(23, 30, &lines);
  EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(past.status().message(), "the range starting at 23 starts past the last case of a dataset of 23 cases");
  auto empty = Read(5, 5, &lines);
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.status().message(), "the range [5, 5) of a dataset of 23 cases is empty");
  auto negative = Read(-1, 3, &lines);
  EXPECT_EQ(negative.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.status().message(), "the range [-1, 3) of a dataset of 23 cases starts before ordinal 0");
  EXPECT_TRUE(lines.empty());
}

TEST_F(DatasetCasesTest, ATamperedBatchFailsOnlyTheRangesThatNeedIt) {
  std::string key = "datasets/geo/a/g1/batches/0000000008-0000000012.jsonl";
  std::string bytes = store_.Object(key);
  bytes[bytes.size() - 3] ^= 1;
  store_.memory.Overwrite(key, bytes);
  std::vector<std::string> lines;
  auto bad = Read(9, 10, &lines);
  EXPECT_EQ(bad.status().code(), StatusCode::kIntegrityError) << bad.status().ToString();
  EXPECT_EQ(bad.status().path(), key);
  EXPECT_TRUE(lines.empty());
  auto good = Read(0, 8, &lines);
  EXPECT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(lines.size(), 8u);
}

}  // namespace
}  // namespace vigilo::engine
