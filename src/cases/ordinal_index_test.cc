#include "vigilo/cases/ordinal_index.h"

#include <gtest/gtest.h>

#include <string>

#include "store_test_support.h"
#include "vigilo/json/parse.h"

namespace vigilo::cases {
namespace {

using test::TestStore;

IndexEntry Leaf(int32_t start, int32_t end) {
  return IndexEntry{start, end,
                    ObjectRef::ForBytes("mem", "b/" + std::to_string(start) + ".jsonl", StorageFormat::kCaseBatch,
                                        "batch " + std::to_string(start))};
}

Result<IndexRootDescriptor> BuildTree(TestStore& store, int leaves, IndexLimits limits, int width = 100) {
  OrdinalIndexBuilder builder(IndexKind::kDatasetBatches, "idx/", limits, store.Sink());
  for (int i = 0; i < leaves; ++i) VIGILO_RETURN_IF_ERROR(builder.Add(Leaf(i * width, (i + 1) * width)));
  return builder.Finish();
}

TEST(OrdinalIndexTest, OneLeafPageForFewBatches) {
  TestStore store;
  auto root = BuildTree(store, 3, {});
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->level, 0);
  EXPECT_EQ(root->range_start, 0);
  EXPECT_EQ(root->range_end, 300);
  EXPECT_EQ(store.writes, 1);
  EXPECT_EQ(root->object.key, "idx/L0/0000000000-0000000300.json");
}

TEST(OrdinalIndexTest, SeedExample1000BatchesNeedFourLeavesAndOneParent) {
  TestStore store;
  auto root = BuildTree(store, 1000, {});
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->level, 1);
  EXPECT_EQ(store.writes, 5);  // 256+256+256+232 leaves, one parent
  EXPECT_EQ(root->range_end, 100000);
  for (int32_t ordinal : {0, 99, 100, 25599, 25600, 99999}) {
    auto leaf = LookupOrdinal(*root, IndexKind::kDatasetBatches, ordinal, {}, store.Fetch(1 << 20));
    ASSERT_TRUE(leaf.ok()) << ordinal << ": " << leaf.status().ToString();
    EXPECT_LE(leaf->range_start, ordinal);
    EXPECT_GT(leaf->range_end, ordinal);
    EXPECT_EQ(leaf->range_start, ordinal / 100 * 100);
  }
  EXPECT_EQ(LookupOrdinal(*root, IndexKind::kDatasetBatches, 100000, {}, store.Fetch(1 << 20)).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(LookupOrdinal(*root, IndexKind::kRunChunks, 5, {}, store.Fetch(1 << 20)).status().code(),
            StatusCode::kInvalidFormat);
}

TEST(OrdinalIndexTest, LookupRefusesAnOversizedPageBeforeFetching) {
  TestStore store;
  auto root = BuildTree(store, 3, {});
  ASSERT_TRUE(root.ok());
  int fetches = 0;
  ObjectFetch counting = [&](const ObjectRef& ref) {
    ++fetches;
    return store.Fetch(1 << 20)(ref);
  };
  IndexLimits small;
  small.max_page_bytes = root->object.byte_count - 1;
  auto leaf = LookupOrdinal(*root, IndexKind::kDatasetBatches, 5, small, counting);
  EXPECT_EQ(leaf.status().code(), StatusCode::kLimitExceeded) << leaf.status().ToString();
  EXPECT_EQ(leaf.status().path(), root->object.key);
  EXPECT_EQ(fetches, 0);
}

TEST(OrdinalIndexTest, LookupRefusesBytesVerifiedAgainstAnotherReference) {
  TestStore store;
  auto root = BuildTree(store, 3, {});
  auto other = BuildTree(store, 4, {});  // another valid page under another key
  ASSERT_TRUE(root.ok() && other.ok());
  ObjectFetch swapping = [&](const ObjectRef&) { return store.Fetch(1 << 20)(other->object); };
  auto leaf = LookupOrdinal(*root, IndexKind::kDatasetBatches, 5, {}, swapping);
  EXPECT_EQ(leaf.status().code(), StatusCode::kIntegrityError) << leaf.status().ToString();
  EXPECT_EQ(leaf.status().path(), root->object.key);
}

TEST(OrdinalIndexTest, SplitsOnEncodedBytesToo) {
  TestStore store;
  IndexLimits limits;
  limits.max_page_bytes = 1500;  // about three entries
  auto root = BuildTree(store, 10, limits);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  for (const std::string& key : store.memory.Keys()) EXPECT_LE(store.Object(key).size(), 1500u) << key;
  EXPECT_GE(root->level, 1);
  auto leaf = LookupOrdinal(*root, IndexKind::kDatasetBatches, 950, limits, store.Fetch(1 << 20));
  ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
  EXPECT_EQ(leaf->range_start, 900);
}

TEST(OrdinalIndexTest, RefusesToExceedTheHeightLimit) {
  TestStore store;
  IndexLimits limits;
  limits.max_entries = 2;
  limits.max_height = 3;  // at most 2^3 = 8 leaves
  EXPECT_TRUE(BuildTree(store, 8, limits).ok());
  TestStore store2;
  auto too_deep = BuildTree(store2, 9, limits);
  EXPECT_EQ(too_deep.status().code(), StatusCode::kLimitExceeded);
  EXPECT_NE(too_deep.status().message().find("unreadable"), std::string_view::npos);
}

TEST(OrdinalIndexTest, BuilderRejectsGapsAndWrongSchemas) {
  TestStore store;
  OrdinalIndexBuilder builder(IndexKind::kDatasetBatches, "idx/", {}, store.Sink());
  ASSERT_TRUE(builder.Add(Leaf(0, 10)).ok());
  EXPECT_EQ(builder.Add(Leaf(11, 20)).code(), StatusCode::kInvalidArgument);
  IndexEntry chunk = Leaf(10, 20);
  chunk.object.schema = StorageFormat::kRunChunks;
  EXPECT_EQ(builder.Add(chunk).code(), StatusCode::kInvalidArgument);
  OrdinalIndexBuilder empty(IndexKind::kRunChunks, "idx/", {}, store.Sink());
  EXPECT_EQ(empty.Finish().status().code(), StatusCode::kInvalidArgument);
}

OrdinalIndexPage Page() {
  OrdinalIndexPage page;
  page.range_start = 0;
  page.range_end = 20;
  page.entries = {Leaf(0, 10), Leaf(10, 20)};
  return page;
}

void ExpectInvalid(const OrdinalIndexPage& page, std::string_view path, std::string_view fragment) {
  Status s = page.Validate();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.path(), path) << s.ToString();
  EXPECT_NE(s.message().find(fragment), std::string_view::npos) << s.ToString();
}

TEST(OrdinalIndexPageTest, ValidatesStructure) {
  EXPECT_TRUE(Page().Validate().ok());
  OrdinalIndexPage p = Page();
  p.entries.clear();
  ExpectInvalid(p, "$.entries", "at least one");
  p = Page();
  p.entries[1] = Leaf(11, 20);
  ExpectInvalid(p, "$.entries[1].range_start", "gap");
  p = Page();
  p.entries[1] = Leaf(5, 20);
  ExpectInvalid(p, "$.entries[1].range_start", "overlap");
  p = Page();
  p.range_end = 25;
  ExpectInvalid(p, "$.range_end", "entries end at 20");
  p = Page();
  p.range_start = 5;
  ExpectInvalid(p, "$.entries[0].range_start", "overlap");
  p = Page();
  p.entries[0].range_end = 0;
  p.entries[1].range_start = 0;
  ExpectInvalid(p, "$.entries[0].range_end", "empty");
  p = Page();
  p.level = 1;  // level-1 entries must reference index pages
  ExpectInvalid(p, "$.entries[0].object.schema", "vigilo/ordinal-index/v1");
  p = Page();
  p.kind = IndexKind::kRunChunks;
  ExpectInvalid(p, "$.entries[0].object.schema", "vigilo/run-chunks/v1");
  p = Page();
  p.range_end = p.range_start;
  ExpectInvalid(p, "$.range_end", "greater");
}

TEST(OrdinalIndexPageTest, DecodeIsStrict) {
  std::string bytes = *Page().Encode();
  auto ok = OrdinalIndexPage::Decode(*ObjectRef::ForBytes("mem", "p.json", StorageFormat::kOrdinalIndex, bytes)
                                          .Verify(bytes, 1 << 20));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->entries, Page().entries);
  auto decode = [](std::string text) {
    return OrdinalIndexPage::Decode(
               *ObjectRef::ForBytes("mem", "p.json", StorageFormat::kOrdinalIndex, text).Verify(text, 1 << 20))
        .status();
  };
  std::string kind_bad = bytes;
  kind_bad.replace(kind_bad.find("dataset-batches"), 15, "dataset-batchez");
  EXPECT_NE(decode(kind_bad).message().find("kind must be"), std::string_view::npos);
  std::string extra = bytes;
  extra.insert(1, "\"a\":1,");
  EXPECT_NE(decode(extra).ToString().find("unexpected field"), std::string::npos);
  EXPECT_EQ(decode(bytes + "\n").code(), StatusCode::kNotCanonical);
  // A child must sit one level below its parent, with the same kind and range.
  OrdinalIndexPage parent = Page();
  parent.level = 1;
  OrdinalIndexPage child = Page();
  child.range_end = 10;
  child.entries = {Leaf(0, 10)};
  EXPECT_TRUE(CheckChild(parent, IndexEntry{0, 10, {}}, child).ok());
  EXPECT_FALSE(CheckChild(parent, IndexEntry{0, 11, {}}, child).ok());
  child.level = 1;
  EXPECT_FALSE(CheckChild(parent, IndexEntry{0, 10, {}}, child).ok());
}

}  // namespace
}  // namespace vigilo::cases
