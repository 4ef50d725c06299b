// Rule checklist (docs/format/case-storage-checklist.md), "Index page": the
// root descriptor, page fields, limits, child checks and lookups.
#include <gtest/gtest.h>

#include <string>

#include "runs_test_support.h"
#include "vigilo/cases/ordinal_index.h"

namespace vigilo::cases {
namespace {

using runs_test::IsError;
using runs_test::J;
using test::TestStore;
using runs_test::With;

::testing::AssertionResult Fails(const Status& s, StatusCode code, std::string_view path, std::string_view fragment) {
  ::testing::AssertionResult r = IsError(s, code, path);
  if (!r) return r;
  if (s.message().find(fragment) == std::string_view::npos) {
    return ::testing::AssertionFailure() << "message lacks \"" << fragment << "\": " << s.ToString();
  }
  return ::testing::AssertionSuccess();
}

ObjectRef BatchRef(int32_t start) {
  return ObjectRef::ForBytes("mem", "b/" + std::to_string(start) + ".jsonl", StorageFormat::kCaseBatch,
                             "batch " + std::to_string(start));
}
ObjectRef PageRef(const std::string& key) {
  return ObjectRef::ForBytes("mem", key, StorageFormat::kOrdinalIndex, "page " + key);
}

IndexRootDescriptor Descriptor() { return IndexRootDescriptor{1, 0, 20, PageRef("idx/L1/root.json")}; }
Status DescriptorStatus(const json::Value& v) { return IndexRootDescriptor::FromJson(v, "$.batches").status(); }

// V-IDX-06: "The root descriptor has exactly level, range_start, range_end, and object".
TEST(ChecklistIndexDescriptorTest, HasExactlyItsFourFields) {
  ASSERT_TRUE(DescriptorStatus(Descriptor().ToJson()).ok());
  for (std::string_view f : {"level", "range_start", "range_end", "object"}) {
    EXPECT_TRUE(Fails(DescriptorStatus(With(Descriptor().ToJson(), f, std::nullopt)), StatusCode::kInvalidFormat,
                      "$.batches." + std::string(f), "missing required field"));
  }
  EXPECT_TRUE(Fails(DescriptorStatus(With(Descriptor().ToJson(), "entry_count", json::Value::Int(3))),
                    StatusCode::kInvalidFormat, "$.batches.entry_count", "unexpected field"));
  EXPECT_TRUE(Fails(DescriptorStatus(With(Descriptor().ToJson(), "range_end", json::Value::Int(0))),
                    StatusCode::kInvalidFormat, "$.batches.range_end", "greater than range_start"));
  EXPECT_TRUE(Fails(DescriptorStatus(With(Descriptor().ToJson(), "level", json::Value::Int(-1))),
                    StatusCode::kOutOfRange, "$.batches.level", "out of range"));
  EXPECT_TRUE(Fails(DescriptorStatus(With(Descriptor().ToJson(), "object", BatchRef(0).ToJson())),
                    StatusCode::kInvalidFormat, "$.batches.object.schema", "vigilo/ordinal-index/v1"));
}

// V-IDX-10: "Record counts and level are bounded"; height 8 pages => levels 0..7.
TEST(ChecklistIndexDescriptorTest, LevelIsBoundedByTheHeight) {
  IndexRootDescriptor d = Descriptor();
  d.level = 7;
  EXPECT_TRUE(d.Validate({}).ok());
  d.level = 8;
  EXPECT_TRUE(Fails(d.Validate({}), StatusCode::kLimitExceeded, ".level", "height limit of 8"));
  IndexLimits low;
  low.max_height = 2;
  d.level = 2;
  EXPECT_TRUE(Fails(d.Validate(low), StatusCode::kLimitExceeded, ".level", "height limit of 2"));
}

OrdinalIndexPage LeafPage(int32_t n = 2, int32_t width = 10) {
  OrdinalIndexPage page;
  page.kind = IndexKind::kDatasetBatches;
  page.level = 0;
  page.range_start = 0;
  page.range_end = n * width;
  for (int32_t i = 0; i < n; ++i) page.entries.push_back(IndexEntry{i * width, (i + 1) * width, BatchRef(i * width)});
  return page;
}
Status PageStatus(const json::Value& v) { return OrdinalIndexPage::FromJson(v).status(); }

// V-IDX-01: "A page has exactly schema, kind, level, range_start, range_end, and
// entries. Each entry has exactly range_start, range_end, and object".
TEST(ChecklistIndexPageTest, HasExactlyItsFieldsAndEntryFields) {
  json::Value page = LeafPage().ToJson();
  ASSERT_TRUE(PageStatus(page).ok());
  for (std::string_view f : {"schema", "kind", "level", "range_start", "range_end", "entries"}) {
    EXPECT_TRUE(Fails(PageStatus(With(page, f, std::nullopt)), StatusCode::kInvalidFormat, "$." + std::string(f),
                      "missing required field"));
  }
  EXPECT_TRUE(Fails(PageStatus(With(page, "next", json::Value())), StatusCode::kInvalidFormat, "$.next",
                    "unexpected field"));
  for (std::string_view f : {"range_start", "range_end", "object"}) {
    EXPECT_TRUE(Fails(PageStatus(With(page, "entries[1]." + std::string(f), std::nullopt)), StatusCode::kInvalidFormat,
                      "$.entries[1]." + std::string(f), "missing required field"));
  }
  EXPECT_TRUE(Fails(PageStatus(With(page, "entries[0].count", json::Value::Int(10))), StatusCode::kInvalidFormat,
                    "$.entries[0].count", "unexpected field"));
  EXPECT_TRUE(Fails(PageStatus(With(page, "kind", json::Value("case-ordinals"))), StatusCode::kInvalidFormat, "$.kind",
                    "kind must be \"dataset-batches\" or \"run-chunks\""));
  EXPECT_TRUE(Fails(PageStatus(With(page, "entries", J("{}"))), StatusCode::kInvalidFormat, "$.entries",
                    "expected an array"));
  EXPECT_TRUE(Fails(PageStatus(With(page, "schema", json::Value("vigilo/run-chunks/v1"))), StatusCode::kInvalidFormat,
                    "$.schema", "expected schema"));
  EXPECT_TRUE(Fails(PageStatus(With(page, "level", json::Value::Int(-1))), StatusCode::kOutOfRange, "$.level",
                    "out of range"));
  EXPECT_TRUE(Fails(PageStatus(With(page, "range_end", json::Value::Int(2147483648))), StatusCode::kOutOfRange,
                    "$.range_end", "out of range"));
  EXPECT_TRUE(Fails(PageStatus(With(page, "entries[0].range_start", json::Value::Int(-1))), StatusCode::kOutOfRange,
                    "$.entries[0].range_start", "out of range"));
  EXPECT_TRUE(Fails(PageStatus(With(page, "entries[0].object.digest", json::Value("00"))), StatusCode::kInvalidFormat,
                    "$.entries[0].object.digest", "64 lowercase hex"));
}

// V-IDX-04: "Entries are sorted, nonempty, adjacent half-open ranges; their union
// equals the parent range" (ordinal_index_test.cc checks paths; this pins the code).
TEST(ChecklistIndexPageTest, RangeViolationsAreInvalidFormat) {
  auto decode = [](const OrdinalIndexPage& page) { return OrdinalIndexPage::FromJson(page.ToJson()).status(); };
  OrdinalIndexPage gap = LeafPage(3);
  gap.entries[1].range_start = 11;
  EXPECT_TRUE(Fails(decode(gap), StatusCode::kInvalidFormat, "$.entries[1].range_start", "gap before this entry"));
  OrdinalIndexPage overlap = LeafPage(3);
  overlap.entries[2].range_start = 15;
  EXPECT_TRUE(Fails(decode(overlap), StatusCode::kInvalidFormat, "$.entries[2].range_start", "overlaps"));
  OrdinalIndexPage unsorted = LeafPage(3);
  std::swap(unsorted.entries[0], unsorted.entries[1]);
  EXPECT_TRUE(Fails(decode(unsorted), StatusCode::kInvalidFormat, "$.entries[0].range_start", "gap before this entry"));
  OrdinalIndexPage empty_entry = LeafPage(2);
  empty_entry.entries[1].range_end = 10;
  empty_entry.range_end = 10;
  EXPECT_TRUE(Fails(decode(empty_entry), StatusCode::kInvalidFormat, "$.entries[1].range_end", "empty entry range"));
  OrdinalIndexPage short_union = LeafPage(2);
  short_union.range_end = 30;
  EXPECT_TRUE(Fails(decode(short_union), StatusCode::kInvalidFormat, "$.range_end", "entries end at 20"));
  OrdinalIndexPage no_entries = LeafPage(1);
  no_entries.entries.clear();
  EXPECT_TRUE(Fails(decode(no_entries), StatusCode::kInvalidFormat, "$.entries", "at least one entry"));
  OrdinalIndexPage wrong_child = LeafPage(2);
  wrong_child.entries[1].object = PageRef("idx/x.json");  // level 0 must reference case batches
  EXPECT_TRUE(Fails(decode(wrong_child), StatusCode::kInvalidFormat, "$.entries[1].object.schema",
                    "vigilo/case-batch/v1"));
}

// V-IDX-08/10: "The default maximum fan-out is 256"; "Both caps apply"; levels bounded.
TEST(ChecklistIndexPageTest, ValidateWithinAppliesFanOutAndHeight) {
  OrdinalIndexPage page = LeafPage(257, 1);
  EXPECT_TRUE(page.Validate().ok());
  EXPECT_TRUE(Fails(page.ValidateWithin({}), StatusCode::kLimitExceeded, "$.entries", "257 entries; the limit is 256"));
  EXPECT_TRUE(LeafPage(256, 1).ValidateWithin({}).ok());
  OrdinalIndexPage high = LeafPage();
  high.level = 8;
  for (IndexEntry& e : high.entries) e.object = PageRef("idx/" + std::to_string(e.range_start));
  EXPECT_TRUE(high.Validate().ok());
  EXPECT_TRUE(Fails(high.ValidateWithin({}), StatusCode::kLimitExceeded, "$.level", "height limit"));
  high.level = 7;
  EXPECT_TRUE(high.ValidateWithin({}).ok());
}

// V-IDX-05: "Parent references verify child ... schema, and ranges"; "Higher levels
// reference index pages at the immediately preceding level with the same kind".
TEST(ChecklistIndexPageTest, CheckChildNamesEachMismatch) {
  OrdinalIndexPage parent = LeafPage();
  parent.level = 1;
  OrdinalIndexPage child = LeafPage(1);
  IndexEntry entry{0, 10, PageRef("idx/L0/0.json")};
  EXPECT_TRUE(CheckChild(parent, entry, child).ok());
  OrdinalIndexPage other_kind = child;
  other_kind.kind = IndexKind::kRunChunks;
  other_kind.entries[0].object.schema = StorageFormat::kRunChunks;
  EXPECT_TRUE(Fails(CheckChild(parent, entry, other_kind), StatusCode::kInvalidFormat, "$.kind", "different kind"));
  OrdinalIndexPage same_level = child;
  same_level.level = 1;
  EXPECT_TRUE(Fails(CheckChild(parent, entry, same_level), StatusCode::kInvalidFormat, "$.level",
                    "level 0 is required"));
  EXPECT_TRUE(Fails(CheckChild(parent, IndexEntry{0, 11, entry.object}, child), StatusCode::kInvalidFormat,
                    "$.range_start", "range differs"));
}

// Builds a two-level tree (3 entries per page) in `store`; returns its root.
IndexRootDescriptor TwoLevels(TestStore& store) {
  IndexLimits limits;
  limits.max_entries = 3;
  OrdinalIndexBuilder builder(IndexKind::kDatasetBatches, "idx/", limits, store.Sink());
  for (int32_t i = 0; i < 6; ++i) EXPECT_TRUE(builder.Add(IndexEntry{i * 10, (i + 1) * 10, BatchRef(i * 10)}).ok());
  auto root = builder.Finish();
  EXPECT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->level, 1);
  return *root;
}

// V-IDX-11: "Cycles, overlap, gaps, invalid level transitions, and excessive depth fail closed".
TEST(ChecklistIndexLookupTest, InvalidLevelTransitionsFailClosed) {
  TestStore store;
  IndexRootDescriptor root = TwoLevels(store);
  ASSERT_TRUE(LookupOrdinal(root, IndexKind::kDatasetBatches, 35, {}, store.Fetch()).ok());
  // The root descriptor names a level the page does not have.
  IndexRootDescriptor wrong_level = root;
  wrong_level.level = 2;
  EXPECT_TRUE(Fails(LookupOrdinal(wrong_level, IndexKind::kDatasetBatches, 35, {}, store.Fetch()).status(),
                    StatusCode::kInvalidFormat, root.object.key, "does not match the level and range"));
  IndexRootDescriptor wrong_range = root;
  wrong_range.range_end = 59;
  EXPECT_TRUE(Fails(LookupOrdinal(wrong_range, IndexKind::kDatasetBatches, 35, {}, store.Fetch()).status(),
                    StatusCode::kInvalidFormat, root.object.key, "does not match the level and range"));
  // A level-1 page whose entry names another level-1 page (a loop back up the
  // tree would look like this): the child is not one level down.
  OrdinalIndexPage loop;
  loop.kind = IndexKind::kDatasetBatches;
  loop.level = 1;
  loop.range_start = 0;
  loop.range_end = 60;
  loop.entries = {IndexEntry{0, 60, root.object}};
  ObjectRef loop_ref = store.Put("idx/loop.json", StorageFormat::kOrdinalIndex, *loop.Encode());
  IndexRootDescriptor looped{1, 0, 60, loop_ref};
  EXPECT_TRUE(Fails(LookupOrdinal(looped, IndexKind::kDatasetBatches, 35, {}, store.Fetch()).status(),
                    StatusCode::kInvalidFormat, root.object.key, "does not match the level and range"));
  // Excessive depth: the descriptor's level is refused before any fetch.
  IndexLimits low;
  low.max_height = 1;
  store.fetches = 0;
  EXPECT_TRUE(Fails(LookupOrdinal(root, IndexKind::kDatasetBatches, 35, low, store.Fetch()).status(),
                    StatusCode::kLimitExceeded, ".level", "height limit of 1"));
  EXPECT_EQ(store.fetches, 0);
  // Dataset and run intervals are distinguished by kind.
  EXPECT_TRUE(Fails(LookupOrdinal(root, IndexKind::kRunChunks, 35, {}, store.Fetch()).status(),
                    StatusCode::kInvalidFormat, root.object.key, "wrong kind"));
  // A page that exceeds the fan-out limit it is read under.
  IndexLimits narrow;
  narrow.max_entries = 1;
  EXPECT_TRUE(Fails(LookupOrdinal(root, IndexKind::kDatasetBatches, 35, narrow, store.Fetch()).status(),
                    StatusCode::kLimitExceeded, root.object.key, "2 entries; the limit is 1"));
}

// V-IDX-09: "each index descriptor must fit its page": one entry that cannot
// fit an otherwise empty page fails instead of producing an oversized page.
TEST(ChecklistIndexBuilderTest, AnEntryThatCannotFitAPageFails) {
  TestStore store;
  IndexLimits limits;
  limits.max_page_bytes = 256;
  OrdinalIndexBuilder builder(IndexKind::kDatasetBatches, "idx/", limits, store.Sink());
  Status s = builder.Add(IndexEntry{0, 10, BatchRef(0)});
  EXPECT_TRUE(Fails(s, StatusCode::kLimitExceeded, "", "one index entry does not fit in a 256-byte page"));
  EXPECT_EQ(store.writes, 0);
  // Leaves must be nonempty ranges.
  OrdinalIndexBuilder empty_leaf(IndexKind::kDatasetBatches, "idx/", {}, store.Sink());
  EXPECT_TRUE(Fails(empty_leaf.Add(IndexEntry{5, 5, BatchRef(5)}), StatusCode::kInvalidArgument, "", "empty leaf range"));
}

}  // namespace
}  // namespace vigilo::cases
