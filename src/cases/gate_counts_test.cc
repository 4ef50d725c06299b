#include "vigilo/cases/gate_counts.h"

#include <gtest/gtest.h>

#include "runs_test_support.h"

namespace vigilo::cases {
namespace {

using runs_test::Canon;
using runs_test::IsError;
using runs_test::J;
using test::TestStore;
using runs_test::With;

GateCountPage SamplePage() {
  GateCountPage page;
  page.run_shard = 3;
  page.entries = {{"exact", 10}, {"format", 0}, {"tag:geo", 7}};
  return page;
}
json::Value PageJson() { return SamplePage().ToJson(); }
Status FromJsonStatus(const json::Value& v) { return GateCountPage::FromJson(v).status(); }

std::vector<GateCountEntry> Gates(int n, int32_t count = 5) {
  std::vector<GateCountEntry> out;
  for (int i = 0; i < n; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "gate-%04d", i);
    out.push_back({id, count});
  }
  return out;
}

TEST(GateCountPageTest, EncodesCanonicallyAndRoundTrips) {
  GateCountPage page = SamplePage();
  page.next = ObjectRef::ForBytes("mem", "runs/r/gates/003/000001.json", StorageFormat::kGateCounts, "x");
  std::string bytes = *page.Encode();
  EXPECT_EQ(bytes.rfind("{\"entries\":[{\"gate_id\":\"exact\",\"planned_count\":10}", 0), 0u);
  EXPECT_NE(bytes.find("},\"run_shard\":3,\"schema\":\"vigilo/gate-counts/v1\"}"), std::string::npos);
  auto back = GateCountPage::Decode(runs_test::Verified(bytes, StorageFormat::kGateCounts));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->entries, page.entries);
  EXPECT_EQ(back->next, page.next);
  EXPECT_EQ(*back->Encode(), bytes);
  EXPECT_EQ(Canon(SamplePage().ToJson()).find("\"next\":null") != std::string::npos, true);
}

TEST(GateCountPageTest, RequiresExactlyTheFields) {
  for (std::string_view f : {"schema", "run_shard", "entries", "next"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), f, std::nullopt)), StatusCode::kInvalidFormat, "$." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "count", json::Value::Int(1))), StatusCode::kInvalidFormat, "$.count"));
  for (std::string_view f : {"gate_id", "planned_count"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[1]." + std::string(f), std::nullopt)),
                        StatusCode::kInvalidFormat, "$.entries[1]." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[1].weight", json::Value::Int(1))),
                      StatusCode::kInvalidFormat, "$.entries[1].weight"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "schema", json::Value("vigilo/gate-counts/v9"))),
                      StatusCode::kInvalidFormat, "$.schema"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "schema", json::Value("vigilo/run-chunks/v1"))),
                      StatusCode::kInvalidFormat, "$.schema"));
}

TEST(GateCountPageTest, GateIdsAreNonemptyBoundedAndStrictlyIncreasingByUtf8Bytes) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[0].gate_id", json::Value(""))), StatusCode::kInvalidFormat,
                      "$.entries[0].gate_id"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[2].gate_id", json::Value("u" + std::string(1024, 'x')))),
                      StatusCode::kInvalidFormat, "$.entries[2].gate_id"));
  EXPECT_TRUE(FromJsonStatus(With(PageJson(), "entries[2].gate_id", json::Value("u" + std::string(1023, 'x')))).ok());
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[1].gate_id", json::Value("exact"))),
                      StatusCode::kInvalidFormat, "$.entries[1].gate_id"));  // duplicate
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[1].gate_id", json::Value("a"))), StatusCode::kInvalidFormat,
                      "$.entries[1].gate_id"));  // decreasing
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[1].gate_id", json::Value::Int(1))),
                      StatusCode::kInvalidFormat, "$.entries[1].gate_id"));
  // UTF-8 byte order, not UTF-16: U+FFFF (EF BF BF) sorts before U+1F600 (F0 9F 98 80).
  GateCountPage page;
  page.entries = {{"Z", 1}, {"a", 1}, {"\xc3\xa9", 1}, {"\xef\xbf\xbf", 1}, {"\xf0\x9f\x98\x80", 1}};
  EXPECT_TRUE(page.Validate().ok()) << page.Validate().ToString();
  std::swap(page.entries[3], page.entries[4]);
  EXPECT_TRUE(IsError(page.Validate(), StatusCode::kInvalidFormat, "$.entries[4].gate_id"));
}

TEST(GateCountPageTest, PlannedCountsAndShardAndEntries) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[0].planned_count", json::Value::Int(-1))),
                      StatusCode::kOutOfRange, "$.entries[0].planned_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[0].planned_count", json::Value::Int(2147483648))),
                      StatusCode::kOutOfRange, "$.entries[0].planned_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries[0].planned_count", json::Value::Double(1.0))),
                      StatusCode::kInvalidFormat, "$.entries[0].planned_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "run_shard", json::Value::Int(128))), StatusCode::kOutOfRange,
                      "$.run_shard"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "entries", J("[]"))), StatusCode::kInvalidFormat, "$.entries"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "next", json::Value::Int(1))), StatusCode::kInvalidFormat, "$.next"));
  json::Value wrong_next =
      ObjectRef::ForBytes("mem", "runs/r/chunks/x.json", StorageFormat::kRunChunks, "x").ToJson();
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "next", wrong_next)), StatusCode::kInvalidFormat, "$.next.schema"));
  GateCountPage page = SamplePage();
  page.entries[1].planned_count = -2;
  EXPECT_TRUE(IsError(page.Validate(), StatusCode::kOutOfRange, "$.entries[1].planned_count"));
}

TEST(GateCountPageTest, ValidateWithinAppliesLimitsAndTheShardCaseCount) {
  GateCountPage page = SamplePage();
  EXPECT_TRUE(page.ValidateWithin({}, 10).ok());
  EXPECT_TRUE(IsError(page.ValidateWithin({}, 9), StatusCode::kInvalidFormat, "$.entries[0].planned_count"));
  RunPlanLimits limits;
  limits.max_page_entries = 2;
  EXPECT_TRUE(IsError(page.ValidateWithin(limits, 10), StatusCode::kLimitExceeded, "$.entries"));
  std::string bytes = *page.Encode();
  limits = {};
  limits.max_page_bytes = bytes.size() - 1;
  EXPECT_TRUE(IsError(GateCountPage::Decode(runs_test::Verified(bytes, StorageFormat::kGateCounts, "g.json"), limits).status(),
                      StatusCode::kLimitExceeded, "g.json"));
  std::string bad = Canon(With(PageJson(), "entries[0].gate_id", json::Value("")));
  EXPECT_TRUE(IsError(GateCountPage::Decode(runs_test::Verified(bad, StorageFormat::kGateCounts, "g.json")).status(),
                      StatusCode::kInvalidFormat, "g.json: $.entries[0].gate_id"));
}

TEST(GateCountDescriptorTest, FirstIsNullExactlyForZeroEntriesAndPages) {
  ObjectRef first = ObjectRef::ForBytes("mem", "g/000000.json", StorageFormat::kGateCounts, "x");
  auto decode = [](json::Value v) { return GateCountDescriptor::FromJson(v, "$.d").status(); };
  EXPECT_TRUE(decode(GateCountDescriptor{std::nullopt, 0, 0}.ToJson()).ok());
  EXPECT_TRUE(decode(GateCountDescriptor{first, 1, 1}.ToJson()).ok());
  EXPECT_TRUE(IsError(decode(GateCountDescriptor{std::nullopt, 0, 1}.ToJson()), StatusCode::kInvalidFormat, "$.d.entry_count"));
  EXPECT_TRUE(IsError(decode(GateCountDescriptor{std::nullopt, 1, 0}.ToJson()), StatusCode::kInvalidFormat, "$.d.page_count"));
  EXPECT_TRUE(IsError(decode(GateCountDescriptor{first, 0, 0}.ToJson()), StatusCode::kInvalidFormat, "$.d.first"));
  EXPECT_TRUE(IsError(decode(GateCountDescriptor{first, 0, 3}.ToJson()), StatusCode::kInvalidFormat, "$.d.page_count"));
  EXPECT_TRUE(IsError(decode(GateCountDescriptor{first, 4, 3}.ToJson()), StatusCode::kInvalidFormat, "$.d.page_count"));
  ObjectRef wrong = ObjectRef::ForBytes("mem", "g/c.json", StorageFormat::kRunChunks, "x");
  EXPECT_TRUE(IsError(decode(GateCountDescriptor{wrong, 1, 1}.ToJson()), StatusCode::kInvalidFormat, "$.d.first.schema"));
  json::Value v = GateCountDescriptor{first, 1, 1}.ToJson();
  for (std::string_view f : {"first", "page_count", "entry_count"}) {
    EXPECT_TRUE(IsError(decode(With(v, f, std::nullopt)), StatusCode::kInvalidFormat, "$.d." + std::string(f)));
  }
  EXPECT_TRUE(IsError(decode(With(v, "last", json::Value())), StatusCode::kInvalidFormat, "$.d.last"));
  EXPECT_TRUE(IsError(decode(With(v, "page_count", json::Value::Int(-1))), StatusCode::kOutOfRange, "$.d.page_count"));
  EXPECT_TRUE(IsError(decode(With(v, "entry_count", json::Value::Int(2147483648))), StatusCode::kOutOfRange,
                      "$.d.entry_count"));
  EXPECT_TRUE(IsError(GateCountDescriptor{std::nullopt, -1, 0}.Validate(), StatusCode::kOutOfRange, ".page_count"));
}

// Builds a chain for shard 3 (case_count 100) and returns its descriptor.
GateCountDescriptor Build(TestStore& store, const std::vector<GateCountEntry>& entries, RunPlanLimits limits = {}) {
  auto d = BuildGateCountChain(3, 100, entries, "runs/r/gates/003/", limits, store.Sink());
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : GateCountDescriptor{};
}

TEST(GateCountChainTest, BuildsPagesByEntryCountAndValidates) {
  TestStore store;
  RunPlanLimits limits;
  limits.max_page_entries = 3;
  std::vector<GateCountEntry> gates = Gates(10);
  GateCountDescriptor d = Build(store, gates, limits);
  EXPECT_EQ(d.page_count, 4);
  EXPECT_EQ(d.entry_count, 10);
  EXPECT_EQ(store.writes, 4);
  // Written last page first: 000000 is the chain's tail, the first page holds the remainder.
  EXPECT_EQ(d.first->key, "runs/r/gates/003/000003.json");
  auto tail = GateCountPage::Decode(*d.first->Verify(store.Object(d.first->key), 1 << 20));
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->entries.size(), 1u);
  std::vector<GateCountEntry> seen;
  GateCountChainValidator validator(limits, store.Fetch());
  Status s = validator.Validate(3, 100, d, [&](const GateCountEntry& e) {
    seen.push_back(e);
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, gates);
  EXPECT_EQ(store.fetches, 4);
}

TEST(GateCountChainTest, SplitsOnEncodedBytesToo) {
  TestStore store;
  RunPlanLimits limits;
  limits.max_page_bytes = 400;
  std::vector<GateCountEntry> gates = Gates(40);
  GateCountDescriptor d = Build(store, gates, limits);
  EXPECT_GT(d.page_count, 3);
  size_t full_pages = 0;
  for (const std::string& key : store.memory.Keys()) {
    std::string bytes = store.Object(key);
    EXPECT_LE(bytes.size(), 400u) << key;
    if (bytes.size() + 40 > 400) ++full_pages;  // one more ~37-byte entry would not fit
  }
  EXPECT_GE(full_pages, static_cast<size_t>(d.page_count - 1));
  EXPECT_TRUE(GateCountChainValidator(limits, store.Fetch()).Validate(3, 100, d).ok());
}

TEST(GateCountChainTest, EmptyChainWritesNothing) {
  TestStore store;
  GateCountDescriptor d = Build(store, {});
  EXPECT_EQ(d, (GateCountDescriptor{std::nullopt, 0, 0}));
  EXPECT_EQ(store.writes, 0);
  EXPECT_TRUE(GateCountChainValidator({}, store.Fetch()).Validate(3, 100, d).ok());
}

TEST(GateCountChainTest, BuilderRejectsBadInput) {
  TestStore store;
  auto start = [&](RunPlanLimits limits = {}) {
    return GateCountChainBuilder::Start(3, 10, "g/", limits, store.Sink());
  };
  auto b = start();
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(b->AddDescending({"m", 1}).ok());
  EXPECT_EQ(b->AddDescending({"z", 1}).code(), StatusCode::kInvalidArgument);  // ascending
  EXPECT_EQ(b->AddDescending({"m", 1}).code(), StatusCode::kInvalidArgument);  // duplicate
  EXPECT_TRUE(IsError(b->AddDescending({"a", 11}), StatusCode::kInvalidFormat, ".planned_count"));
  EXPECT_TRUE(IsError(b->AddDescending({"a", -1}), StatusCode::kOutOfRange, ".planned_count"));
  EXPECT_TRUE(IsError(b->AddDescending({"", 1}), StatusCode::kInvalidFormat, ".gate_id"));
  ASSERT_TRUE(b->Finish().ok());
  EXPECT_EQ(b->AddDescending({"a", 1}).code(), StatusCode::kInvalidArgument);
  RunPlanLimits tiny;
  tiny.max_page_bytes = 256;
  auto small = start(tiny);
  ASSERT_TRUE(small.ok());
  EXPECT_TRUE(IsError(small->AddDescending({std::string(300, 'g'), 1}), StatusCode::kLimitExceeded, ".gate_id"));
  RunPlanLimits zero;
  zero.max_page_entries = 0;
  EXPECT_EQ(start(zero).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GateCountChainBuilder::Start(128, 10, "g/", {}, store.Sink()).status().code(), StatusCode::kInvalidArgument);
}

TEST(GateCountChainTest, DescriptorTotalsMustMatchTheChain) {
  TestStore store;
  RunPlanLimits limits;
  limits.max_page_entries = 3;
  GateCountDescriptor d = Build(store, Gates(9), limits);  // 3 full pages
  GateCountChainValidator validator(limits, store.Fetch());
  GateCountDescriptor shorter = d;
  shorter.page_count = 2;
  Status s = validator.Validate(3, 100, shorter);
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError) << s.ToString();
  EXPECT_NE(s.message().find("continues past"), std::string_view::npos);
  store.fetches = 0;
  EXPECT_EQ(validator.Validate(3, 100, shorter).code(), StatusCode::kIntegrityError);
  EXPECT_EQ(store.fetches, 2);  // bounded by page_count: the third page is never fetched
  GateCountDescriptor longer = d;
  longer.page_count = 4;
  longer.entry_count = 10;
  EXPECT_EQ(validator.Validate(3, 100, longer).code(), StatusCode::kIntegrityError);
  GateCountDescriptor fewer_entries = d;
  fewer_entries.entry_count = 8;
  EXPECT_EQ(validator.Validate(3, 100, fewer_entries).code(), StatusCode::kIntegrityError);
  GateCountDescriptor more_entries = d;
  more_entries.entry_count = 10;
  EXPECT_EQ(validator.Validate(3, 100, more_entries).code(), StatusCode::kIntegrityError);
}

// Writes pages by hand, last first, and returns the descriptor of the chain.
GateCountDescriptor Chain(TestStore& store, int32_t shard, const std::vector<std::vector<GateCountEntry>>& pages) {
  std::optional<ObjectRef> next;
  int32_t entries = 0;
  for (size_t i = pages.size(); i-- > 0;) {
    GateCountPage p;
    p.run_shard = shard;
    p.entries = pages[i];
    p.next = next;
    next = store.Put("g/p" + std::to_string(i) + ".json", StorageFormat::kGateCounts, *p.Encode());
    entries += static_cast<int32_t>(pages[i].size());
  }
  return GateCountDescriptor{next, static_cast<int32_t>(pages.size()), entries};
}

TEST(GateCountChainTest, OrderIsStrictAcrossPages) {
  TestStore store;
  GateCountChainValidator validator({}, store.Fetch());
  EXPECT_TRUE(validator.Validate(3, 100, Chain(store, 3, {{{"a", 1}, {"b", 1}}, {{"c", 1}}})).ok());
  EXPECT_TRUE(IsError(validator.Validate(3, 100, Chain(store, 3, {{{"b", 1}, {"c", 1}}, {{"a", 1}}})),
                      StatusCode::kInvalidFormat, "g/p1.json: $.entries[0].gate_id"));
  EXPECT_TRUE(IsError(validator.Validate(3, 100, Chain(store, 3, {{{"a", 1}, {"b", 1}}, {{"b", 1}, {"c", 1}}})),
                      StatusCode::kInvalidFormat, "g/p1.json: $.entries[0].gate_id"));
}

TEST(GateCountChainTest, PagesBelongToTheShardAndRespectItsCaseCount) {
  TestStore store;
  GateCountChainValidator validator({}, store.Fetch());
  EXPECT_TRUE(IsError(validator.Validate(3, 100, Chain(store, 4, {{{"a", 1}}})), StatusCode::kInvalidFormat,
                      "g/p0.json: $.run_shard"));
  GateCountDescriptor d = Chain(store, 3, {{{"a", 1}}, {{"b", 50}}});
  EXPECT_TRUE(validator.Validate(3, 50, d).ok());
  EXPECT_TRUE(IsError(validator.Validate(3, 49, d), StatusCode::kInvalidFormat, "g/p1.json: $.entries[0].planned_count"));
  EXPECT_TRUE(IsError(validator.Validate(128, 49, d), StatusCode::kOutOfRange, ".run_shard"));
}

TEST(GateCountChainTest, FailsClosedOnFetchAndIntegrityProblems) {
  TestStore store;
  GateCountDescriptor d = Chain(store, 3, {{{"a", 1}}, {{"b", 2}}});
  // Tampered bytes: the fetch's verification refuses them.
  std::string original = store.Object("g/p1.json");
  std::string tampered = original;
  tampered[5] = tampered[5] == 'x' ? 'y' : 'x';
  store.memory.Overwrite("g/p1.json", tampered);
  EXPECT_EQ(GateCountChainValidator({}, store.Fetch()).Validate(3, 100, d).code(), StatusCode::kIntegrityError);
  // A missing page.
  ASSERT_TRUE(store.memory.Delete("g/p1.json").ok());
  EXPECT_EQ(GateCountChainValidator({}, store.Fetch()).Validate(3, 100, d).code(), StatusCode::kNotFound);
  store.memory.Overwrite("g/p1.json", original);
  // A fetch that returns some other verified object.
  ObjectRef other = store.Put("g/other.json", StorageFormat::kGateCounts, "{}");
  ObjectFetch liar = [&](const ObjectRef&) { return other.Verify(store.Object("g/other.json"), 1 << 20); };
  EXPECT_TRUE(IsError(GateCountChainValidator({}, liar).Validate(3, 100, d), StatusCode::kIntegrityError, d.first->key));
  // A reference larger than the page budget is refused before fetching.
  RunPlanLimits small;
  small.max_page_bytes = d.first->byte_count - 1;
  store.fetches = 0;
  EXPECT_TRUE(IsError(GateCountChainValidator(small, store.Fetch()).Validate(3, 100, d), StatusCode::kLimitExceeded,
                      d.first->key));
  EXPECT_EQ(store.fetches, 0);
  // A visitor's error stops the walk.
  Status stop = GateCountChainValidator({}, store.Fetch()).Validate(3, 100, d, [](const GateCountEntry&) {
    return Cancelled("enough");
  });
  EXPECT_EQ(stop.code(), StatusCode::kCancelled);
}

}  // namespace
}  // namespace vigilo::cases
