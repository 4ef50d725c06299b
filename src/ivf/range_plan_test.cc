#include "vigilo/ivf/range_plan.h"

#include <gtest/gtest.h>

#include "vigilo/parquet/writer.h"

namespace vigilo::ivf {
namespace {

TEST(RangePlanner, MergesAdjacentSpansOfOneObjectOnly) {
  RangePlanner p;
  EXPECT_EQ(p.Add("a", 0, 10), 0u);
  EXPECT_EQ(p.Add("a", 10, 5), 0u);   // continues it
  EXPECT_EQ(p.Add("a", 16, 4), 1u);   // a 1-byte gap: max_gap is 0
  EXPECT_EQ(p.Add("b", 20, 4), 2u);   // another object
  EXPECT_EQ(p.requests(), (std::vector<ObjectRange>{{"a", 0, 15}, {"a", 16, 4}, {"b", 20, 4}}));
}

TEST(RangePlanner, GapAndRequestSizeLimits) {
  RangePlanner p(RangeLimits{.max_gap = 100, .max_request_bytes = 1000});
  EXPECT_EQ(p.Add("a", 0, 100), 0u);
  EXPECT_EQ(p.Add("a", 200, 100), 0u);  // gap 100: merged, the gap fetched too
  EXPECT_EQ(p.Add("a", 401, 10), 1u);   // gap 101: a new request
  EXPECT_EQ(p.Add("a", 411, 990), 1u);  // [401, 1401): exactly 1000 bytes
  EXPECT_EQ(p.Add("a", 1401, 1), 2u);   // would make 1001
  EXPECT_EQ(p.Add("a", 1402, 5000), 3u);  // larger than the limit: a request of its own
  EXPECT_EQ(p.requests()[0], (ObjectRange{"a", 0, 300}));
  EXPECT_EQ(p.requests()[1], (ObjectRange{"a", 401, 1000}));
  EXPECT_EQ(p.requests()[3], (ObjectRange{"a", 1402, 5000}));
}

// Four requests of one object: [0,100) gap 10 [110,210) gap 5 [215,315)
// gap 20 [335,435); 400 bytes needed.
std::vector<ObjectRange> FourRequests() { return {{"a", 0, 100}, {"a", 110, 100}, {"a", 215, 100}, {"a", 335, 100}}; }

TEST(CoalesceRound, TakesSmallestGapsToTheCheapestWaveCount) {
  std::vector<ObjectRange> r = FourRequests();
  // Two at a time: 2 waves. One merge (the 5-byte gap) leaves 3 requests,
  // still 2 waves; two (+ the 10-byte gap) make 1 wave for 15 bytes; a
  // third would add 20 bytes and save nothing.
  const RangeLimits limits{.round_width = 2, .latency_bytes = 1000, .max_gap_per_mille = 125, .gap_bytes_per_object = 0};
  EXPECT_EQ(CoalesceRound(r, limits), (std::vector<size_t>{0, 0, 0, 1}));
  EXPECT_EQ(r, (std::vector<ObjectRange>{{"a", 0, 315}, {"a", 335, 100}}));
}

TEST(CoalesceRound, LeavesARoundAloneWhenNoWaveIsWorthItsGaps) {
  std::vector<ObjectRange> r = FourRequests();
  const std::vector<size_t> identity = {0, 1, 2, 3};
  // Fits one wave already.
  EXPECT_EQ(CoalesceRound(r, RangeLimits{.round_width = 4}), identity);
  // Off.
  EXPECT_EQ(CoalesceRound(r, RangeLimits{.round_width = 0}), identity);
  // A latency worth less than the 15 gap bytes a wave costs here.
  EXPECT_EQ(CoalesceRound(r, RangeLimits{.round_width = 2, .latency_bytes = 14}), identity);
  // A budget of 10 bytes (25 per mille of 400, none per object): the
  // 5-byte gap alone fits, which saves no wave.
  EXPECT_EQ(CoalesceRound(r, RangeLimits{.round_width = 2, .latency_bytes = 1000, .max_gap_per_mille = 25,
                                         .gap_bytes_per_object = 0}),
            identity);
  EXPECT_EQ(r, FourRequests());
}

TEST(CoalesceRound, TheBudgetGrowsWithTheObjectsRead) {
  // The same 10 bytes plus 5 per object: 15 bytes, enough for one wave.
  std::vector<ObjectRange> r = FourRequests();
  EXPECT_EQ(CoalesceRound(r, RangeLimits{.round_width = 2, .latency_bytes = 1000, .max_gap_per_mille = 25,
                                         .gap_bytes_per_object = 5}),
            (std::vector<size_t>{0, 0, 0, 1}));
}

TEST(CoalesceRound, NeverJoinsObjectsOrGrowsPastTheRequestLimit) {
  std::vector<ObjectRange> r = {{"a", 0, 100}, {"b", 100, 100}, {"b", 201, 100}, {"b", 302, 50}, {"c", 0, 10}};
  // One at a time: every merge saves a wave. a|b and b|c are other objects;
  // b's gaps are 1 byte each (ties: the earlier first), but its first two
  // would make 201 bytes, over the limit of 200: only its last two merge.
  const RangeLimits limits{.max_request_bytes = 200, .round_width = 1, .latency_bytes = 1000};
  EXPECT_EQ(CoalesceRound(r, limits), (std::vector<size_t>{0, 1, 2, 2, 3}));
  EXPECT_EQ(r, (std::vector<ObjectRange>{{"a", 0, 100}, {"b", 100, 100}, {"b", 201, 151}, {"c", 0, 10}}));
}

TEST(RangePlanner, CoalesceMapsEachAddedSpanToItsRequest) {
  RangePlanner p(RangeLimits{.round_width = 1, .latency_bytes = 1000});
  EXPECT_EQ(p.Add("a", 0, 100), 0u);
  EXPECT_EQ(p.Add("a", 101, 100), 1u);
  EXPECT_EQ(p.Coalesce(), (std::vector<size_t>{0, 0}));
  EXPECT_EQ(p.Take(), (std::vector<ObjectRange>{{"a", 0, 201}}));
}

std::string SmallParquet() {
  parquet::MemorySink sink;
  auto w = parquet::FileWriter::Open({parquet::ColumnSpec{.name = "x", .kind = parquet::ColumnKind::kInt32}}, {}, &sink);
  EXPECT_TRUE(w.ok());
  EXPECT_TRUE((*w)->BeginRowGroup().ok());
  std::vector<int32_t> values = {1, 2, 3};
  EXPECT_TRUE((*w)->WriteInt32(0, values).ok());
  EXPECT_TRUE((*w)->EndRowGroup().ok());
  EXPECT_TRUE((*w)->Finish().ok());
  return std::string(sink.bytes().begin(), sink.bytes().end());
}

std::span<const uint8_t> Tail(const std::string& file, size_t n) {
  return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(file.data()) + file.size() - n, n);
}

TEST(FooterTail, ShortTailAsksForTheExactFooterThenParses) {
  const std::string file = SmallParquet();
  const ObjectDescriptor object{"p/f.parquet", file.size(), std::string(64, '0')};
  EXPECT_EQ(FooterTailRequest(object, 16), (ObjectRange{"p/f.parquet", file.size() - 16, 16}));
  EXPECT_EQ(FooterTailRequest(object, 1 << 20), (ObjectRange{"p/f.parquet", 0, file.size()}));
  auto step = ReadFooterTail(object, Tail(file, 16));
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  ASSERT_TRUE(step->more);
  EXPECT_FALSE(step->footer);
  const uint64_t footer_length = static_cast<uint8_t>(file[file.size() - 8]) |
                                 static_cast<uint64_t>(static_cast<uint8_t>(file[file.size() - 7])) << 8;
  EXPECT_EQ(*step->more, (ObjectRange{"p/f.parquet", file.size() - footer_length - 8, footer_length + 8}));
  auto done = ReadFooterTail(object, Tail(file, step->more->length));
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE(done->footer);
  EXPECT_EQ(done->footer->metadata.num_rows, 3);
}

TEST(FooterTail, BrokenTailNamesTheObject) {
  std::string file = SmallParquet();
  file[file.size() - 1] = 'X';  // the trailing magic
  const ObjectDescriptor object{"p/f.parquet", file.size(), std::string(64, '0')};
  auto step = ReadFooterTail(object, Tail(file, file.size()));
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.status().path(), "p/f.parquet");
  EXPECT_EQ(step.status().ToString(), "parse_error: p/f.parquet: file does not end with PAR1 (at byte " +
                                          std::to_string(file.size() - 4) + ")");
}

}  // namespace
}  // namespace vigilo::ivf
