// Rule checklist (docs/format/case-storage-checklist.md), dataset reading and
// publication checks: ReadDataset over an in-memory store, one broken rule per
// test (budgets admitted before loading, one dataset identity, index walk).
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/cases/identity.h"
#include "vigilo/cases/ordinal_index.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/canonical.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "store_test_support.h"
#include "writer_test_support.h"

namespace vigilo::cases {
namespace {

json::Value J(std::string_view text) { return *json::Parse(text); }

std::string CaseJson(int i) {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i + 1);
  return std::string(R"({"id":")") + id + R"(","input":{"prompt":"question )" + std::to_string(i) + R"("}})";
}

using test::TestStore;

::testing::AssertionResult Fails(const Status& s, StatusCode code, std::string_view path, std::string_view fragment) {
  if (s.ok()) return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << ", got ok";
  if (s.code() != code || s.path() != path || s.message().find(fragment) == std::string_view::npos) {
    return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << " at \"" << path << "\" with \""
                                         << fragment << "\", got " << s.ToString() << " (path \"" << s.path()
                                         << "\")";
  }
  return ::testing::AssertionSuccess();
}

class ChecklistDatasetTest : public testing::Test {
 protected:
  // n cases, 4 per batch; `fan_out` entries per index page.
  void Write(int n, uint64_t fan_out = 256, std::string fields = R"({"dataset_id":"geo","dataset_version":"v1"})") {
    auto sf = DatasetSourceFields::FromDocument(J(fields));
    ASSERT_TRUE(sf.ok()) << sf.status().ToString();
    sf->cases_present = true;
    auto writer = DatasetWriter::Start(*sf, WriterBudget(BatchLimits{4, 1 << 20}, IndexLimits{fan_out, 1 << 20, 8}), TestScratchDir(),
                                       "datasets/geo/attempts/a/g1/", store_.Sink());
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (int i = 0; i < n; ++i) ASSERT_TRUE(writer->AddCase(J(CaseJson(i))).ok());
    auto written = writer->Finish();
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    written_ = *written;
  }
  Status Read(const BudgetConfig& budget = BudgetConfig::Defaults()) {
    store_.fetches = 0;
    return ReadDataset(written_.manifest_ref, budget, TestScratchDir(), store_.BytesFetch()).status();
  }
  void RewriteManifest(const std::function<void(DatasetManifest&)>& edit) {
    DatasetManifest m = written_.manifest;
    edit(m);
    written_.manifest = m;
    written_.manifest_ref = store_.Put(written_.manifest_ref.key, StorageFormat::kDatasetManifest,
                                       *json::ToCanonical(m.ToJson()));
  }
  OrdinalIndexPage RootPage() {
    auto page = OrdinalIndexPage::FromJson(J(store_.Object(written_.manifest.batches.object.key)));
    EXPECT_TRUE(page.ok());
    return *page;
  }
  // Stores `page` under the root page's key and points the manifest at it.
  void ReplaceRootPage(const OrdinalIndexPage& page) {
    ObjectRef ref = store_.Put(written_.manifest.batches.object.key, StorageFormat::kOrdinalIndex,
                               *json::ToCanonical(page.ToJson()));
    RewriteManifest([&](DatasetManifest& m) { m.batches.object = ref; });
  }
  TestStore store_;
  WrittenDataset written_;
};

// V-DM-06 (positive): "Its object digest is distinct from dataset_hash".
TEST_F(ChecklistDatasetTest, RootDigestIsNotTheDatasetHash) {
  Write(10);
  ASSERT_TRUE(Read().ok()) << Read().ToString();
  EXPECT_NE(written_.manifest_ref.digest, written_.manifest.dataset_hash);
}

// V-DM-12: "identity_scheme names the identity algorithms; it adds no bytes to
// their hash preimages": the manifest's dataset_hash is BLAKE3 of exactly the
// canonical submitted document, and its version UUID is the identity builder's
// over the same cases, with the scheme string appearing in neither input.
TEST_F(ChecklistDatasetTest, IdentitySchemeAddsNoBytesToTheHashPreimages) {
  std::string doc = R"({"dataset_id":"geo","dataset_version":"v1","cases":[)";
  for (int i = 0; i < 6; ++i) doc += (i > 0 ? "," : "") + CaseJson(i);
  doc += "]}";
  auto sf = DatasetSourceFields::FromDocument(J(doc));
  ASSERT_TRUE(sf.ok()) << sf.status().ToString();
  auto writer = DatasetWriter::Start(*sf, WriterBudget(BatchLimits{4, 1 << 20}), TestScratchDir(), "p/", store_.Sink());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  auto identity = DatasetIdentityBuilder::Start(sf->fields, true);
  ASSERT_TRUE(identity.ok());
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(writer->AddCase(J(CaseJson(i))).ok());
    ASSERT_TRUE(identity->AddCase(J(CaseJson(i))).ok());
  }
  auto written = writer->Finish();
  auto ids = identity->Finish();
  ASSERT_TRUE(written.ok() && ids.ok());
  EXPECT_NE(store_.Object(written->manifest_ref.key).find(R"("identity_scheme":"vigilo/dataset-json/v1")"),
            std::string::npos);
  auto canonical = json::Canonicalize(doc);
  ASSERT_TRUE(canonical.ok());
  EXPECT_EQ(canonical->find("vigilo/dataset-json/v1"), std::string::npos);
  EXPECT_EQ(written->manifest.dataset_hash, Blake3Hex(*canonical));
  EXPECT_EQ(written->manifest.dataset_version_id, ids->dataset_version_id);
}

// V-DM-07: "Changing batching defaults does not change these recorded limits
// or repack a finalized dataset": a reader configured with other batching
// defaults reads the dataset under the limits its manifest records.
TEST_F(ChecklistDatasetTest, OtherBatchingDefaultsReadTheRecordedLimits) {
  Write(10);  // 4 cases per batch, recorded in the manifest
  BudgetConfig other = BudgetConfig::Defaults();
  other.case_batch_max_cases = 2;
  other.case_batch_max_bytes = 512;
  auto read = ReadDataset(written_.manifest_ref, other, TestScratchDir(), store_.BytesFetch());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->manifest.batch_limits, (BatchLimits{4, 1 << 20}));
  EXPECT_EQ(read->batch_count, 3u);  // 4 + 4 + 2: not repacked into batches of 2
  EXPECT_EQ(read->manifest.dataset_hash, written_.manifest.dataset_hash);
}

// V-BUD-08: "Validate positive limits and relationships before I/O": a
// reader with an invalid budget is refused before its first fetch.
TEST_F(ChecklistDatasetTest, AnInvalidBudgetIsRefusedBeforeAnyFetch) {
  Write(10);
  BudgetConfig bad = BudgetConfig::Defaults();
  bad.staging_spool_bytes = bad.case_batch_max_bytes - 1;
  EXPECT_TRUE(Fails(Read(bad), StatusCode::kInvalidArgument, "staging_spool_bytes", "at least one admitted batch"));
  EXPECT_EQ(store_.fetches, 0);
  bad = BudgetConfig::Defaults();
  bad.page_max_entries = 0;
  EXPECT_TRUE(Fails(Read(bad), StatusCode::kInvalidArgument, "page_max_entries", "between 1 and 4096, got 0"));
  EXPECT_EQ(store_.fetches, 0);
  ASSERT_TRUE(Read().ok());
  EXPECT_GT(store_.fetches, 0);
}

// V-BATCH-05: a batch has "one dataset identity": a verified batch of another
// dataset under a valid entry is refused.
TEST_F(ChecklistDatasetTest, ABatchOfAnotherDatasetIsRefused) {
  Write(10);
  OrdinalIndexPage page = RootPage();
  CaseBatchBuilder other("geo2", 4, BatchLimits{4, 1 << 20});
  for (int i = 4; i < 8; ++i) ASSERT_TRUE(*other.Add(J(CaseJson(i))));
  ObjectRef foreign = store_.Put("datasets/geo2/b.jsonl", StorageFormat::kCaseBatch, *other.Finish());
  page.entries[1].object = foreign;
  ReplaceRootPage(page);
  EXPECT_TRUE(Fails(Read(), StatusCode::kInvalidFormat, foreign.key, "batch belongs to dataset 'geo2'"));
}

// V-DM-07: "Readers explicitly admit the published policy ... before loading its
// batches": a batch larger than the recorded max_bytes is refused before it is fetched.
TEST_F(ChecklistDatasetTest, ABatchOverTheRecordedByteCapIsNotFetched) {
  Write(10);
  std::string first_batch = RootPage().entries[0].object.key;
  RewriteManifest([](DatasetManifest& m) { m.batch_limits.max_bytes = 256; });
  EXPECT_TRUE(Fails(Read(), StatusCode::kLimitExceeded, first_batch, "256-byte budget"));
  EXPECT_EQ(store_.fetches, 3);  // manifest, source fields, index page; no batch
}

TEST_F(ChecklistDatasetTest, ABatchOverTheRecordedCaseCapIsRefused) {
  Write(10);
  std::string first_batch = RootPage().entries[0].object.key;
  RewriteManifest([](DatasetManifest& m) { m.batch_limits.max_cases = 2; });
  EXPECT_TRUE(Fails(Read(), StatusCode::kLimitExceeded, first_batch, "declares 4 records; the admitted limit is 2"));
}

// V-BUD-04: source fields 8 MiB default, "explicit oversized-input error".
TEST_F(ChecklistDatasetTest, OversizedSourceFieldsAreRefusedBeforeFetching) {
  Write(3, 256, R"({"dataset_id":"geo","note":")" + std::string(400, 'n') + R"("})");
  BudgetConfig budget;
  budget.source_fields_max_bytes = 256;
  ASSERT_TRUE(budget.Validate().ok());
  EXPECT_TRUE(Fails(Read(budget), StatusCode::kLimitExceeded, written_.manifest.source_fields.key, "256-byte budget"));
  EXPECT_EQ(store_.fetches, 1);  // the manifest only
}

// V-BUD-02: "JSON metadata/index/chunk/gate page: 1 MiB and 256 entries. Both caps apply."
TEST_F(ChecklistDatasetTest, IndexPagesAreReadUnderBothPageCaps) {
  Write(10);
  BudgetConfig bytes_cap;
  bytes_cap.page_max_bytes = 256;
  ASSERT_TRUE(bytes_cap.Validate().ok());
  EXPECT_TRUE(Fails(Read(bytes_cap), StatusCode::kLimitExceeded, written_.manifest.batches.object.key,
                    "256-byte budget"));
  BudgetConfig entries_cap;
  entries_cap.page_max_entries = 2;  // the page holds 3 batches
  EXPECT_TRUE(Fails(Read(entries_cap), StatusCode::kLimitExceeded, written_.manifest.batches.object.key,
                    "3 entries; the limit is 2"));
}

// V-IDX-03/11: "Higher levels reference index pages at the immediately preceding
// level with the same kind"; "invalid level transitions, and excessive depth fail closed".
TEST_F(ChecklistDatasetTest, TheIndexWalkChecksKindLevelRangeAndDepth) {
  Write(23, 3);  // 6 batches, 2 leaf pages, 1 root page at level 1
  ASSERT_EQ(written_.manifest.batches.level, 1);
  ASSERT_TRUE(Read().ok()) << Read().ToString();
  const std::string root_key = written_.manifest.batches.object.key;
  const OrdinalIndexPage original = RootPage();

  // Depth: a height of one page cannot hold a level-1 root.
  BudgetConfig flat;
  flat.index_max_height = 1;
  EXPECT_TRUE(Fails(Read(flat), StatusCode::kLimitExceeded, root_key, "height limit"));

  // A run-chunks page inside a dataset index.
  OrdinalIndexPage run_kind = original;
  run_kind.kind = IndexKind::kRunChunks;
  ReplaceRootPage(run_kind);
  EXPECT_TRUE(Fails(Read(), StatusCode::kInvalidFormat, root_key, "wrong kind (run-chunks)"));

  // A child entry that names a page with another range (the first leaf twice).
  OrdinalIndexPage swapped = original;
  swapped.entries[1].object = original.entries[0].object;
  ReplaceRootPage(swapped);
  EXPECT_TRUE(Fails(Read(), StatusCode::kInvalidFormat, original.entries[0].object.key,
                    "does not match the level and range"));

  // The descriptor names a level the root page does not have.
  ReplaceRootPage(original);
  ASSERT_TRUE(Read().ok());
  RewriteManifest([](DatasetManifest& m) { m.batches.level = 2; });
  EXPECT_TRUE(Fails(Read(), StatusCode::kInvalidFormat, root_key, "does not match the level and range"));
}

// V-REF-10 (positive): "An upload attempt ID and generation identify staging
// ownership ... they do not change logical dataset identity".
TEST(ChecklistAttemptTest, AttemptPrefixesDoNotChangeIdentity) {
  auto write = [](TestStore& store, const std::string& prefix) -> Result<WrittenDataset> {
    VIGILO_ASSIGN_OR_RETURN(DatasetSourceFields sf,
                            DatasetSourceFields::FromDocument(J(R"({"dataset_id":"geo","cases":[]})")));
    VIGILO_ASSIGN_OR_RETURN(DatasetWriter w, DatasetWriter::Start(sf, WriterBudget(BatchLimits{4, 1 << 20}, IndexLimits{}), TestScratchDir(), prefix,
                                                                  store.Sink()));
    for (int i = 0; i < 6; ++i) VIGILO_RETURN_IF_ERROR(w.AddCase(J(CaseJson(i))));
    return w.Finish();
  };
  TestStore a, b;
  Uuid attempt1 = *Uuid::Parse("00000000-0000-4000-8000-0000000000a1");
  Uuid attempt2 = *Uuid::Parse("00000000-0000-4000-8000-0000000000a2");
  EXPECT_EQ(DatasetAttemptPrefix("geo", attempt1, 1), "datasets/geo/attempts/00000000-0000-4000-8000-0000000000a1/g1/");
  auto one = write(a, DatasetAttemptPrefix("geo", attempt1, 1));
  auto two = write(b, DatasetAttemptPrefix("geo", attempt2, 7));
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(one->manifest.dataset_hash, two->manifest.dataset_hash);
  EXPECT_EQ(one->manifest.dataset_version_id, two->manifest.dataset_version_id);
  EXPECT_NE(one->manifest_ref.digest, two->manifest_ref.digest);  // the keys differ, the identities do not
}

// V-DM-10 / V-VB-04 (writer): "Publication requires bounded verification of
// ... unique case IDs"; a repeated id stops the writer before the manifest.
TEST_F(ChecklistDatasetTest, RepeatedIdsAreRefusedBeforeTheManifestIsWritten) {
  auto sf = DatasetSourceFields::FromDocument(J(R"({"dataset_id":"geo","cases":[]})"));
  ASSERT_TRUE(sf.ok());
  auto writer = DatasetWriter::Start(*sf, WriterBudget(BatchLimits{4, 1 << 20}), TestScratchDir(), "p/", store_.Sink());
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(writer->AddCase(J(CaseJson(i == 7 ? 2 : i))).ok());
  EXPECT_TRUE(Fails(writer->Finish().status(), StatusCode::kInvalidFormat, "$.cases[7].id",
                    "at ordinal 7 repeats the id of ordinal 2 (1 case repeats an earlier id)"));
  EXPECT_FALSE(store_.Has("p/manifest.json"));
  EXPECT_FALSE(store_.Has("p/source-fields.json"));
}

// V-DM-10 (publication verification): a dataset packed by hand, bypassing
// the writer's check, is refused by ReadDataset although every object,
// hash and identity in it is consistent.
TEST_F(ChecklistDatasetTest, VerificationRefusesRepeatedIdsInAConsistentDataset) {
  auto sf = DatasetSourceFields::FromDocument(J(R"({"dataset_id":"geo","cases":[]})"));
  ASSERT_TRUE(sf.ok());
  auto identity = DatasetIdentityBuilder::Start(sf->fields, true);
  ASSERT_TRUE(identity.ok());
  CaseBatchBuilder batch("geo", 0, BatchLimits{});
  for (int i = 0; i < 5; ++i) {
    json::Value c = J(CaseJson(i == 4 ? 1 : i));
    auto hash = identity->AddCase(c);
    ASSERT_TRUE(hash.ok());
    ASSERT_TRUE(*batch.Add(c, *hash));
  }
  ObjectSink sink = store_.Sink();
  auto batch_ref = sink("p/batches/0-5.jsonl", StorageFormat::kCaseBatch, *batch.Finish());
  ASSERT_TRUE(batch_ref.ok());
  OrdinalIndexBuilder index(IndexKind::kDatasetBatches, "p/index/", IndexLimits{}, sink);
  ASSERT_TRUE(index.Add(IndexEntry{0, 5, *batch_ref}).ok());
  auto root = index.Finish();
  auto sf_ref = sink("p/source-fields.json", StorageFormat::kDatasetSourceFields, *sf->Encode());
  auto ids = identity->Finish();
  ASSERT_TRUE(root.ok() && sf_ref.ok() && ids.ok());
  DatasetManifest m;
  m.dataset_id = "geo";
  m.dataset_version_id = ids->dataset_version_id;
  m.dataset_hash = ids->dataset_hash;
  m.case_count = 5;
  m.batch_limits = BatchLimits{};
  m.source_fields = *sf_ref;
  m.batches = *root;
  auto manifest_ref = sink("p/manifest.json", StorageFormat::kDatasetManifest, *m.Encode());
  ASSERT_TRUE(manifest_ref.ok());
  written_.manifest = m;
  written_.manifest_ref = *manifest_ref;
  EXPECT_TRUE(Fails(Read(), StatusCode::kInvalidFormat, "$.cases[4].id", "repeats the id of ordinal 1"));
}

// V-SF-08 / V-BUD-04 (writer): oversized source fields are an explicit
// error before any batch is written.
TEST_F(ChecklistDatasetTest, TheWriterRefusesOversizedSourceFieldsBeforeAnyBatch) {
  auto sf = DatasetSourceFields::FromDocument(
      J(R"({"dataset_id":"geo","cases":[],"note":")" + std::string(400, 'n') + R"("})"));
  ASSERT_TRUE(sf.ok());
  BudgetConfig budget = WriterBudget();
  budget.source_fields_max_bytes = 256;
  auto writer = DatasetWriter::Start(*sf, budget, TestScratchDir(), "p/", store_.Sink());
  EXPECT_TRUE(Fails(writer.status(), StatusCode::kLimitExceeded, "$.fields", "the limit is 256"));
  EXPECT_EQ(store_.memory.object_count(), 0u);
}

// V-SF-08 (streaming pass one): the top-level fields are bounded together,
// not only one by one, so pass one never holds more than the budget.
TEST(ChecklistDatasetStreamTest, SourceFieldsAreBoundedInTotal) {
  std::string doc = R"({"a":")" + std::string(200, 'a') + R"(","b":")" + std::string(200, 'b') +
                    R"(","cases":[],"dataset_id":"geo"})";
  DatasetStreamLimits limits;
  limits.max_source_fields_bytes = 300;  // each field fits, the two do not
  StringByteSource source(doc);
  auto sf = ReadDatasetSourceFields(source, limits);
  EXPECT_TRUE(Fails(sf.status(), StatusCode::kLimitExceeded, "$.b", "exceed 300 canonical bytes"));
  StringByteSource again(doc);
  limits.max_source_fields_bytes = 8u << 20;
  EXPECT_TRUE(ReadDatasetSourceFields(again, limits).ok());
}

// V-SF-05: "runs require a nonempty dataset": the writer refuses to finish an empty one.
TEST_F(ChecklistDatasetTest, AnEmptyDatasetIsNotPublished) {
  auto sf = DatasetSourceFields::FromDocument(J(R"({"dataset_id":"geo","cases":[]})"));
  ASSERT_TRUE(sf.ok());
  auto writer = DatasetWriter::Start(*sf, WriterBudget(BatchLimits{}, IndexLimits{}), TestScratchDir(), "p/", store_.Sink());
  ASSERT_TRUE(writer.ok());
  EXPECT_TRUE(Fails(writer->Finish().status(), StatusCode::kInvalidFormat, "$.cases", "at least one case"));
  EXPECT_EQ(store_.memory.object_count(), 0u);
  // A writer refuses a batching policy outside the override ceilings (the
  // budget is validated before anything else).
  EXPECT_TRUE(Fails(DatasetWriter::Start(*sf, WriterBudget(BatchLimits{65537, 1 << 20}, IndexLimits{}), TestScratchDir(), "p/", store_.Sink()).status(),
                    StatusCode::kInvalidArgument, "case_batch_max_cases", "between 1 and 65536, got 65537"));
}

}  // namespace
}  // namespace vigilo::cases
