// DatasetWriter and ReadDataset together, over an in-memory object store:
// the round trip, and each way a stored dataset can be wrong.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/json/canonical.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "store_test_support.h"
#include "writer_test_support.h"

namespace vigilo::cases {
namespace {

json::Value J(std::string_view text) {
  auto v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return *v;
}

std::string CaseJson(int i) {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i + 1);
  return std::string(R"({"id":")") + id + R"(","input":{"prompt":"question )" + std::to_string(i) +
         R"("},"tags":["t)" + std::to_string(i % 3) + R"(","all"]})";
}

using test::TestStore;

constexpr std::string_view kFields = R"({"dataset_id":"geo","dataset_version":"v1","note":"x"})";

Result<WrittenDataset> Write(TestStore& store, int n, BatchLimits batch, IndexLimits index = {}) {
  VIGILO_ASSIGN_OR_RETURN(DatasetSourceFields sf, DatasetSourceFields::FromDocument(J(kFields)));
  sf.cases_present = true;
  VIGILO_ASSIGN_OR_RETURN(DatasetWriter writer,
                          DatasetWriter::Start(std::move(sf), WriterBudget(batch, index), TestScratchDir(), "datasets/geo/a/g1/", store.Sink()));
  for (int i = 0; i < n; ++i) VIGILO_RETURN_IF_ERROR(writer.AddCase(J(CaseJson(i))));
  return writer.Finish();
}

TEST(DatasetIoTest, RoundTripsEveryCaseInOrderAndRecomputesTheIdentities) {
  TestStore store;
  // 23 cases, 4 per batch, 3 entries per page: 6 batches, 2 leaf pages + 1 root page.
  auto written = Write(store, 23, BatchLimits{4, 1 << 20}, IndexLimits{3, 1 << 20, 8});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->manifest.case_count, 23);
  EXPECT_EQ(written->manifest.batches.level, 1);
  EXPECT_EQ(store.memory.object_count(), 6u + 3u + 2u);  // batches, pages, source fields + manifest

  std::vector<std::string> seen;
  auto summary = ReadDataset(written->manifest_ref, BudgetConfig::Defaults(), TestScratchDir(), store.BytesFetch(),
                             [&](const CaseRecord& r) -> Status {
                               EXPECT_EQ(r.case_ordinal, static_cast<int32_t>(seen.size()));
                               seen.push_back(*json::ToCanonical(r.source));
                               return Status::Ok();
                             });
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->batch_count, 6u);
  EXPECT_EQ(summary->index_page_count, 3u);
  EXPECT_EQ(summary->manifest.dataset_hash, written->manifest.dataset_hash);
  uint64_t total = 0;
  for (const std::string& key : store.memory.Keys()) total += store.Object(key).size();
  EXPECT_EQ(summary->object_bytes, total);
  ASSERT_EQ(seen.size(), 23u);
  for (int i = 0; i < 23; ++i) EXPECT_EQ(seen[i], *json::Canonicalize(CaseJson(i))) << i;
}

TEST(DatasetIoTest, WriterRejectsAnInvalidCaseAndAnEmptyDataset) {
  TestStore store;
  auto sf = DatasetSourceFields::FromDocument(J(kFields));
  ASSERT_TRUE(sf.ok());
  sf->cases_present = true;
  auto writer = DatasetWriter::Start(*sf, WriterBudget(BatchLimits{}, IndexLimits{}), TestScratchDir(), "p/", store.Sink());
  ASSERT_TRUE(writer.ok());
  Status bad = writer->AddCase(J(R"({"id":"00000000-0000-4000-8000-000000000001","input":{}})"));
  EXPECT_EQ(bad.code(), StatusCode::kInvalidFormat) << bad.ToString();
  auto empty = DatasetWriter::Start(*sf, WriterBudget(BatchLimits{}, IndexLimits{}), TestScratchDir(), "q/", store.Sink());
  ASSERT_TRUE(empty.ok());
  auto finished = empty->Finish();
  EXPECT_FALSE(finished.ok());
  EXPECT_EQ(finished.status().code(), StatusCode::kInvalidFormat) << finished.status().ToString();
}

class DatasetTamperTest : public testing::Test {
 protected:
  void SetUp() override {
    auto w = Write(store_, 10, BatchLimits{4, 1 << 20});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    written_ = *w;
  }
  Status Read() {
    return ReadDataset(written_.manifest_ref, BudgetConfig::Defaults(), TestScratchDir(), store_.BytesFetch()).status();
  }
  // Re-encodes the manifest after `edit` and points the root reference at it.
  void RewriteManifest(const std::function<void(DatasetManifest&)>& edit) {
    DatasetManifest m = written_.manifest;
    edit(m);
    written_.manifest_ref =
        store_.Put(written_.manifest_ref.key, StorageFormat::kDatasetManifest, *json::ToCanonical(m.ToJson()));
  }
  std::string BatchKey(size_t i) { return FirstPageEntries().at(i).object.key; }
  std::vector<IndexEntry> FirstPageEntries() {
    auto page = OrdinalIndexPage::FromJson(J(store_.Object(written_.manifest.batches.object.key)));
    EXPECT_TRUE(page.ok());
    return page->entries;
  }
  TestStore store_;
  WrittenDataset written_;
};

TEST_F(DatasetTamperTest, AChangedBatchByteIsAnIntegrityError) {
  std::string bytes = store_.Object(BatchKey(1));
  bytes[bytes.size() / 2] ^= 1;
  store_.memory.Overwrite(BatchKey(1), bytes);
  Status s = Read();
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError) << s.ToString();
  EXPECT_EQ(s.path(), BatchKey(1));
}

TEST_F(DatasetTamperTest, AMissingObjectIsNotFound) {
  ASSERT_TRUE(store_.memory.Delete(written_.manifest.source_fields.key).ok());
  EXPECT_EQ(Read().code(), StatusCode::kNotFound);
}

TEST_F(DatasetTamperTest, AWrongDatasetHashInTheManifestIsAnIntegrityError) {
  RewriteManifest([](DatasetManifest& m) { m.dataset_hash = std::string(64, 'a'); });
  Status s = Read();
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError) << s.ToString();
  EXPECT_EQ(s.path(), "$.dataset_hash");
}

TEST_F(DatasetTamperTest, AWrongVersionIdInTheManifestIsAnIntegrityError) {
  RewriteManifest([](DatasetManifest& m) { m.dataset_version_id = *Uuid::Parse("00000000-0000-8000-8000-000000000001"); });
  Status s = Read();
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError) << s.ToString();
  EXPECT_EQ(s.path(), "$.dataset_version_id");
}

TEST_F(DatasetTamperTest, SourceFieldsOfAnotherVersionAreInvalid) {
  auto sf = DatasetSourceFields::FromDocument(J(R"({"dataset_id":"geo","dataset_version":"v2","note":"x"})"));
  ASSERT_TRUE(sf.ok());
  sf->cases_present = true;
  ObjectRef moved = store_.Put(written_.manifest.source_fields.key, StorageFormat::kDatasetSourceFields,
                               *json::ToCanonical(sf->ToJson()));
  RewriteManifest([&](DatasetManifest& m) { m.source_fields = moved; });
  Status s = Read();
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat) << s.ToString();
  EXPECT_NE(s.message().find("another dataset id or version"), std::string_view::npos) << s.ToString();
}

TEST_F(DatasetTamperTest, SourceFieldsWithoutCasesAreInvalid) {
  auto sf = DatasetSourceFields::FromDocument(J(kFields));
  ASSERT_TRUE(sf.ok());
  ObjectRef moved = store_.Put(written_.manifest.source_fields.key, StorageFormat::kDatasetSourceFields,
                               *json::ToCanonical(sf->ToJson()));
  RewriteManifest([&](DatasetManifest& m) { m.source_fields = moved; });
  EXPECT_EQ(Read().code(), StatusCode::kInvalidFormat);
}

TEST_F(DatasetTamperTest, ABatchUnderAnotherEntryIsInvalid) {
  // Point the index's second entry at the third batch: a verified, valid
  // batch, but not the range its entry names.
  std::vector<IndexEntry> entries = FirstPageEntries();
  OrdinalIndexPage page;
  page.kind = IndexKind::kDatasetBatches;
  page.level = 0;
  page.range_start = 0;
  page.range_end = 10;
  page.entries = entries;
  page.entries[1].object = entries[2].object;
  ObjectRef moved = store_.Put(written_.manifest.batches.object.key, StorageFormat::kOrdinalIndex,
                               *json::ToCanonical(page.ToJson()));
  RewriteManifest([&](DatasetManifest& m) { m.batches.object = moved; });
  Status s = Read();
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat) << s.ToString();
  EXPECT_NE(s.message().find("its index entry says [4, 8)"), std::string_view::npos) << s.ToString();
}

TEST_F(DatasetTamperTest, AnOversizedRootIsRefusedBeforeAnyFetch) {
  BudgetConfig budget;
  budget.root_manifest_max_bytes = 256;  // the manifest is larger
  ASSERT_GT(written_.manifest_ref.byte_count, 256u);
  auto r = ReadDataset(written_.manifest_ref, budget, TestScratchDir(), store_.BytesFetch());
  EXPECT_EQ(r.status().code(), StatusCode::kLimitExceeded) << r.status().ToString();
  EXPECT_EQ(store_.fetches, 0);
}

TEST_F(DatasetTamperTest, ABatchPolicyBeyondTheBudgetIsRefused) {
  RewriteManifest([](DatasetManifest& m) { m.batch_limits.max_bytes = 64u << 20; });
  BudgetConfig budget;
  budget.staging_spool_bytes = 32u << 20;  // a 64 MiB batch cannot be staged
  auto r = ReadDataset(written_.manifest_ref, budget, TestScratchDir(), store_.BytesFetch());
  EXPECT_EQ(r.status().code(), StatusCode::kLimitExceeded) << r.status().ToString();
}

TEST_F(DatasetTamperTest, TheRootMustBeAManifestReference) {
  ObjectRef wrong = written_.manifest_ref;
  wrong.schema = StorageFormat::kOrdinalIndex;
  auto r = ReadDataset(wrong, BudgetConfig::Defaults(), TestScratchDir(), store_.BytesFetch());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vigilo::cases
