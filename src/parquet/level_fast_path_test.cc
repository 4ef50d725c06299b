// The decoder's fast paths against its per-value reference path on the same
// bytes: pages without nulls (run-at-a-time levels), bit-packed and RLE level
// streams, rows split across pages, dictionary pages, v1 and v2 pages, lists
// with empty and null lists, unaligned PLAIN values, and malformed streams
// (the error must be the same, word for word, offset for offset).
#include <gtest/gtest.h>

#include <random>

#include "level_scan.h"
#include "reader_test_pages.h"
#include "vigilo/parquet/column_reader.h"
#include "levels_reader.h"

namespace vigilo::parquet {
namespace {

using namespace vigilo::parquet::testing;  // NOLINT
using R = FieldRepetitionType;

constexpr auto kReq = R::kRequired;
constexpr auto kOpt = R::kOptional;
constexpr auto kRep = R::kRepeated;

ColumnDescriptor Describe(const std::vector<SchemaElement>& schema) {
  auto tree = ResolveSchema(schema);
  EXPECT_TRUE(tree.ok()) << tree.status().ToString();
  auto d = DescribeColumn(schema, *tree, 0);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return *d;
}

ColumnDescriptor Scalar(Type type, R rep) { return Describe({Root(1), Leaf("x", type, rep)}); }

ColumnDescriptor List3(Type type, R list_rep, R element_rep) {
  SchemaElement g = Group("v", 1, list_rep);
  g.converted_type = ConvertedType::kList;
  return Describe({Root(1), g, Group("list", 1, kRep), Leaf("element", type, element_rep)});
}

// One bit-packed run holding every level (as DuckDB writes long stretches),
// padded to whole groups of 8.
Bytes BitPackedOnly(const std::vector<uint32_t>& levels, int width) {
  size_t groups = (levels.size() + 7) / 8;
  Bytes out;
  uint64_t header = groups << 1 | 1;
  while (header >= 0x80) {
    out.push_back(static_cast<uint8_t>(header | 0x80));
    header >>= 7;
  }
  out.push_back(static_cast<uint8_t>(header));
  size_t base = out.size();
  out.resize(base + groups * static_cast<size_t>(width), 0);
  for (size_t i = 0; i < levels.size(); ++i) {
    for (int b = 0; b < width; ++b) {
      if ((levels[i] >> b) & 1) {
        size_t bit = i * static_cast<size_t>(width) + static_cast<size_t>(b);
        out[base + bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
      }
    }
  }
  return out;
}

enum class LevelStyle { kHybrid, kBitPacked };

Bytes Stream(const std::vector<uint32_t>& levels, int max_level, LevelStyle style) {
  int width = BitWidthFor(static_cast<uint64_t>(max_level));
  return style == LevelStyle::kHybrid ? RleHybrid(levels, width) : BitPackedOnly(levels, width);
}

Result<DecodedColumn> DecodeWith(const ColumnDescriptor& d, const Bytes& chunk, int64_t num_values,
                                 CompressionCodec codec, bool fast) {
  ColumnMetaData meta;
  meta.type = d.type;
  meta.codec = codec;
  meta.num_values = num_values;
  ColumnReadOptions options;
  options.level_fast_paths = fast;
  options.max_decoded_bytes = 64 << 20;
  return DecodeColumnChunkBytes(d, meta, chunk, options);
}

void ExpectSameColumns(const DecodedColumn& a, const DecodedColumn& b) {
  EXPECT_EQ(a.num_rows, b.num_rows);
  EXPECT_EQ(a.row_valid, b.row_valid);
  EXPECT_EQ(a.list_offsets, b.list_offsets);
  EXPECT_EQ(a.element_valid, b.element_valid);
  EXPECT_EQ(a.values.type, b.values.type);
  EXPECT_EQ(a.values.booleans, b.values.booleans);
  EXPECT_EQ(a.values.int32s, b.values.int32s);
  EXPECT_EQ(a.values.int64s, b.values.int64s);
  EXPECT_EQ(a.values.floats, b.values.floats);
  EXPECT_EQ(a.values.doubles, b.values.doubles);
  EXPECT_EQ(a.values.binary, b.values.binary);
  EXPECT_EQ(a.values.binary_offsets, b.values.binary_offsets);
}

// Decodes both ways and checks they agree: the same columns, or the same
// error (code, message, offset, path). Returns the fast path's result.
Result<DecodedColumn> DecodeBothWays(const ColumnDescriptor& d, const Bytes& chunk, int64_t num_values,
                                     CompressionCodec codec = CompressionCodec::kUncompressed) {
  auto fast = DecodeWith(d, chunk, num_values, codec, true);
  auto slow = DecodeWith(d, chunk, num_values, codec, false);
  EXPECT_EQ(fast.ok(), slow.ok()) << (fast.ok() ? slow.status() : fast.status()).ToString();
  if (fast.ok() && slow.ok()) {
    ExpectSameColumns(*fast, *slow);
  } else if (!fast.ok() && !slow.ok()) {
    EXPECT_EQ(fast.status().code(), slow.status().code());
    EXPECT_EQ(fast.status().message(), slow.status().message());
    EXPECT_EQ(fast.status().offset(), slow.status().offset());
    EXPECT_EQ(fast.status().path(), slow.status().path());
  }
  return fast;
}

// Rows of a LIST<FLOAT> as levels and values: each row is -2 (null list),
// -1 (empty list) or a length; element k of a row is null when null_every
// divides k + 1 (0: never).
struct ListRows {
  std::vector<uint32_t> rep;
  std::vector<uint32_t> def;
  std::vector<float> values;
  std::vector<size_t> row_start;  // level index where each row starts
};

ListRows MakeListRows(const std::vector<int>& rows, const ColumnDescriptor& d, int null_every = 0) {
  ListRows out;
  auto d_rep = static_cast<uint32_t>(d.repeated_definition_level);
  auto max_def = static_cast<uint32_t>(d.max_definition_level);
  float next = 0.5f;
  for (int len : rows) {
    out.row_start.push_back(out.rep.size());
    if (len < 0) {
      out.rep.push_back(0);
      out.def.push_back(len == -2 ? d_rep - 2 : d_rep - 1);
      continue;
    }
    for (int k = 0; k < len; ++k) {
      out.rep.push_back(k == 0 ? 0 : 1);
      bool null = null_every > 0 && (k + 1) % null_every == 0;
      out.def.push_back(null ? max_def - 1 : max_def);
      if (!null) out.values.push_back(next += 1.25f);
    }
  }
  return out;
}

template <typename T>
std::vector<T> Slice(const std::vector<T>& v, size_t from, size_t to) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(to));
}

// Cuts levels [from, to) into a v1 page (its values are the slots with
// def == max in that range, `value_from` on).
Bytes ListPageV1(const ListRows& rows, const ColumnDescriptor& d, size_t from, size_t to, size_t* value_at,
                 LevelStyle style, const PageOptions& o) {
  std::vector<uint32_t> rep = Slice(rows.rep, from, to);
  std::vector<uint32_t> def = Slice(rows.def, from, to);
  size_t present = 0;
  for (uint32_t v : def) present += v == static_cast<uint32_t>(d.max_definition_level);
  std::vector<float> values = Slice(rows.values, *value_at, *value_at + present);
  *value_at += present;
  Bytes body = Concat({LengthPrefixed(Stream(rep, 1, style)), LengthPrefixed(Stream(def, d.max_definition_level, style)),
                       Plain(values)});
  return DataPageV1(static_cast<int32_t>(rep.size()), Encoding::kPlain, body, o);
}

Bytes ListPageV2(const ListRows& rows, const ColumnDescriptor& d, size_t from, size_t to, size_t* value_at,
                 LevelStyle style, const PageOptions& o) {
  std::vector<uint32_t> rep = Slice(rows.rep, from, to);
  std::vector<uint32_t> def = Slice(rows.def, from, to);
  size_t present = 0;
  int32_t started = 0;
  for (uint32_t v : def) present += v == static_cast<uint32_t>(d.max_definition_level);
  for (uint32_t v : rep) started += v == 0;
  std::vector<float> values = Slice(rows.values, *value_at, *value_at + present);
  *value_at += present;
  return DataPageV2(static_cast<int32_t>(rep.size()), static_cast<int32_t>(rep.size() - present), started,
                    Encoding::kPlain, Stream(rep, 1, style), Stream(def, d.max_definition_level, style),
                    Plain(values), o);
}

std::vector<int> RandomRowLengths(std::mt19937_64& rng, size_t n, int max_len, bool empties_and_nulls) {
  std::vector<int> rows;
  for (size_t i = 0; i < n; ++i) {
    int len = 1 + static_cast<int>(rng() % static_cast<uint64_t>(max_len));
    if (empties_and_nulls && rng() % 7 == 0) len = rng() % 2 == 0 ? -1 : -2;
    rows.push_back(len);
  }
  return rows;
}

class FastPathCodecTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(FastPathCodecTest, OptionalScalarPagesWithAndWithoutNulls) {
  ColumnDescriptor d = Scalar(Type::kInt32, kOpt);
  PageOptions o = WithCodec(GetParam());
  std::vector<int32_t> a(1000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int32_t>(i * 7 - 300);
  std::vector<uint32_t> all(1000, 1);
  std::vector<uint32_t> some = all;
  for (size_t i = 0; i < some.size(); i += 9) some[i] = 0;
  std::vector<int32_t> some_values;
  for (size_t i = 0; i < some.size(); ++i) {
    if (some[i]) some_values.push_back(a[i]);
  }
  Bytes chunk = Concat({
      DataPageV1(1000, Encoding::kPlain, Concat({LevelsV1(all, 1), Plain(a)}), o),
      DataPageV2(1000, 0, 1000, Encoding::kPlain, {}, LevelsV2(all, 1), Plain(a), o),
      DataPageV1(1000, Encoding::kPlain, Concat({LevelsV1(some, 1), Plain(some_values)}), o),
      DataPageV1(1000, Encoding::kPlain, Concat({LengthPrefixed(BitPackedOnly(all, 1)), Plain(a)}), o),
      DataPageV2(1000, 0, 1000, Encoding::kPlain, {}, BitPackedOnly(all, 1), Plain(a), o),
  });
  auto r = DecodeBothWays(d, chunk, 5000, GetParam());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_rows, 5000u);
  ASSERT_EQ(r->row_valid.size(), 5000u);
  EXPECT_EQ(r->row_valid[0], 1);
  EXPECT_EQ(r->row_valid[2000], 0);
  EXPECT_EQ(r->values.int32s.size(), 4000u + some_values.size());
}

TEST_P(FastPathCodecTest, DictionaryPagesWithoutNulls) {
  ColumnDescriptor d = Scalar(Type::kByteArray, kOpt);
  PageOptions o = WithCodec(GetParam());
  std::vector<uint32_t> idx;
  for (uint32_t i = 0; i < 600; ++i) idx.push_back(i % 3);
  Bytes chunk = Concat({
      DictionaryPage(3, PlainStrings({"alpha", "", "gamma"}), o),
      DataPageV1(600, Encoding::kRleDictionary, Concat({LevelsV1(std::vector<uint32_t>(600, 1), 1), DictIndices(idx, 2)}),
                 o),
      DataPageV2(3, 1, 3, Encoding::kPlain, {}, LevelsV2({1, 0, 1}, 1), PlainStrings({"x", "yz"}), o),
      DataPageV2(2, 0, 2, Encoding::kRleDictionary, {}, LevelsV2({1, 1}, 1), DictIndices({2, 1}, 2), o),
  });
  auto r = DecodeBothWays(d, chunk, 605, GetParam());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->values.size(), 604u);
}

TEST_P(FastPathCodecTest, ListsWithoutNullsAcrossPagesBothLevelStyles) {
  std::mt19937_64 rng(7);
  for (auto [list_rep, element_rep] : {std::pair{kOpt, kOpt}, {kOpt, kReq}, {kReq, kOpt}, {kReq, kReq}}) {
    ColumnDescriptor d = List3(Type::kFloat, list_rep, element_rep);
    ListRows rows = MakeListRows(RandomRowLengths(rng, 300, 150, false), d);
    for (LevelStyle style : {LevelStyle::kHybrid, LevelStyle::kBitPacked}) {
      PageOptions o = WithCodec(GetParam());
      // v1 pages cut anywhere, rows continuing on the next page.
      std::vector<Bytes> pages;
      size_t value_at = 0;
      size_t from = 0;
      while (from < rows.rep.size()) {
        size_t to = std::min(rows.rep.size(), from + 1 + static_cast<size_t>(rng() % 5000));
        pages.push_back(ListPageV1(rows, d, from, to, &value_at, style, o));
        from = to;
      }
      // Then v2 pages, cut at row boundaries, for the same rows again.
      size_t v2_value_at = 0;
      size_t row = 0;
      while (row < rows.row_start.size()) {
        size_t next = std::min(rows.row_start.size(), row + 1 + static_cast<size_t>(rng() % 60));
        size_t a = rows.row_start[row];
        size_t b = next < rows.row_start.size() ? rows.row_start[next] : rows.rep.size();
        pages.push_back(ListPageV2(rows, d, a, b, &v2_value_at, style, o));
        row = next;
      }
      Bytes chunk;
      for (const Bytes& p : pages) chunk.insert(chunk.end(), p.begin(), p.end());
      auto r = DecodeBothWays(d, chunk, static_cast<int64_t>(2 * rows.rep.size()), GetParam());
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->num_rows, 600u);
      EXPECT_EQ(r->values.floats.size(), 2 * rows.values.size());
      EXPECT_EQ(r->list_offsets.back(), 2 * rows.rep.size());
      EXPECT_EQ(r->row_valid.empty(), list_rep == kReq);
      EXPECT_EQ(r->element_valid.empty(), element_rep == kReq);
    }
  }
}

TEST_P(FastPathCodecTest, ListsWithEmptyAndNullListsAndNullElements) {
  std::mt19937_64 rng(11);
  ColumnDescriptor d = List3(Type::kFloat, kOpt, kOpt);
  for (int null_every : {0, 5}) {
    for (LevelStyle style : {LevelStyle::kHybrid, LevelStyle::kBitPacked}) {
      ListRows rows = MakeListRows(RandomRowLengths(rng, 400, 40, true), d, null_every);
      PageOptions o = WithCodec(GetParam());
      Bytes chunk;
      size_t value_at = 0;
      size_t from = 0;
      while (from < rows.rep.size()) {
        // Short pages: some hold only present elements, some an empty or null list.
        size_t to = std::min(rows.rep.size(), from + 1 + static_cast<size_t>(rng() % 30));
        Bytes p = ListPageV1(rows, d, from, to, &value_at, style, o);
        chunk.insert(chunk.end(), p.begin(), p.end());
        from = to;
      }
      auto r = DecodeBothWays(d, chunk, static_cast<int64_t>(rows.rep.size()), GetParam());
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->num_rows, 400u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, FastPathCodecTest,
                         ::testing::Values(CompressionCodec::kUncompressed, CompressionCodec::kSnappy,
                                           CompressionCodec::kZstd));

TEST(FastPath, BareRepeatedAndTwoLevelLists) {
  std::mt19937_64 rng(3);
  SchemaElement g = Group("v", 1, kOpt);
  g.converted_type = ConvertedType::kList;
  for (const ColumnDescriptor& d : {Describe({Root(1), Leaf("r", Type::kFloat, kRep)}),
                                    Describe({Root(1), g, Leaf("array", Type::kFloat, kRep)})}) {
    ListRows rows = MakeListRows(RandomRowLengths(rng, 200, 20, false), d);
    size_t value_at = 0;
    Bytes chunk = Concat({ListPageV1(rows, d, 0, rows.rep.size() / 2, &value_at, LevelStyle::kHybrid, {}),
                          ListPageV1(rows, d, rows.rep.size() / 2, rows.rep.size(), &value_at,
                                     LevelStyle::kBitPacked, {})});
    auto r = DecodeBothWays(d, chunk, static_cast<int64_t>(rows.rep.size()));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->num_rows, 200u);
  }
}

TEST(FastPath, ListErrorsAreTheSame) {
  ColumnDescriptor d = List3(Type::kFloat, kOpt, kOpt);
  auto page = [&](std::vector<uint32_t> rep, std::vector<uint32_t> def, size_t values) {
    return DataPageV1(static_cast<int32_t>(rep.size()), Encoding::kPlain,
                      Concat({LevelsV1(rep, 1), LevelsV1(def, 3), Plain(std::vector<float>(values, 1.0f))}));
  };
  // The chunk starts mid-row, though every element is present.
  auto r = DecodeBothWays(d, page({1, 1, 0}, {3, 3, 3}, 3), 3);
  EXPECT_EQ(r.status().message(), "the column chunk starts with repetition level 1");
  // A page of present elements continues the empty list the last page ended with.
  r = DecodeBothWays(d, Concat({page({0, 0}, {3, 1}, 1), page({1, 0}, {3, 3}, 2)}), 4);
  EXPECT_EQ(r.status().message(), "repetition level 1 continues an empty or null list (value 0)");
  EXPECT_EQ(r.status().path(), "pages[1]");
  // ... or the null list.
  r = DecodeBothWays(d, Concat({page({0, 0}, {3, 0}, 1), page({1}, {3}, 1)}), 3);
  EXPECT_EQ(r.status().message(), "repetition level 1 continues an empty or null list (value 0)");
  // Definition levels all equal but above the maximum 2 of a 2-bit stream.
  ColumnDescriptor req = List3(Type::kFloat, kOpt, kReq);
  r = DecodeBothWays(req, DataPageV1(2, Encoding::kPlain,
                                     Concat({LevelsV1({0, 1}, 1), LevelsV1({3, 3}, 3), Plain(std::vector<float>{1, 2})})),
                     2);
  EXPECT_EQ(r.status().message(), "level 3 exceeds the maximum 2 (value 0)");
  // Too few levels in each stream.
  r = DecodeBothWays(d, DataPageV1(9, Encoding::kPlain,
                                   Concat({LevelsV1({0, 1, 1}, 1), LevelsV1({3, 3, 3}, 3), Plain(std::vector<float>(3))})),
                     9);
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  Bytes short_def = Concat({LevelsV1(std::vector<uint32_t>(16, 0), 1), LevelsV1({3, 3}, 3), Plain(std::vector<float>(16))});
  r = DecodeBothWays(d, DataPageV1(16, Encoding::kPlain, short_def), 16);
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  // A v2 page whose row count disagrees with its repetition levels.
  r = DecodeBothWays(d, DataPageV2(3, 0, 1, Encoding::kPlain, LevelsV2({0, 0, 1}, 1), LevelsV2({3, 3, 3}, 3),
                                   Plain(std::vector<float>{1, 2, 3})),
                     3);
  EXPECT_EQ(r.status().message(), "data page v2 starts 2 rows, its header says 1");
}

TEST(FastPath, RandomBitFlipsGiveTheSameResultBothWays) {
  std::mt19937_64 rng(99);
  ColumnDescriptor list = List3(Type::kFloat, kOpt, kOpt);
  ListRows rows = MakeListRows(RandomRowLengths(rng, 40, 20, false), list);
  size_t half = rows.row_start[20];
  size_t value_at = 0;
  Bytes lists = Concat({ListPageV1(rows, list, 0, half, &value_at, LevelStyle::kHybrid, {}),
                        ListPageV2(rows, list, half, rows.rep.size(), &value_at, LevelStyle::kBitPacked, {})});
  auto list_values = static_cast<int64_t>(rows.rep.size());
  ColumnDescriptor scalar = Scalar(Type::kDouble, kOpt);
  std::vector<double> dv(100, 2.5);
  Bytes scalars = Concat({DataPageV1(100, Encoding::kPlain, Concat({LevelsV1(std::vector<uint32_t>(100, 1), 1), Plain(dv)})),
                          DataPageV2(100, 0, 100, Encoding::kPlain, {}, BitPackedOnly(std::vector<uint32_t>(100, 1), 1),
                                     Plain(dv))});
  struct Case {
    const ColumnDescriptor* d;
    const Bytes* chunk;
    int64_t num_values;
  };
  for (const Case& c : {Case{&list, &lists, list_values}, Case{&scalar, &scalars, 200}}) {
    ASSERT_TRUE(DecodeBothWays(*c.d, *c.chunk, c.num_values).ok());
    for (int iter = 0; iter < 1500; ++iter) {
      Bytes m = *c.chunk;
      int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) m[rng() % m.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      auto r = DecodeBothWays(*c.d, m, c.num_values);
      (void)r;  // the two ways agreeing is the check
      if (::testing::Test::HasFailure()) {
        ADD_FAILURE() << "iteration " << iter;
        return;
      }
    }
  }
}

TEST(FastPath, UnalignedPlainValuesAcrossTheBounceBuffer) {
  // Definition level streams of different lengths shift where the values
  // start, so some pages' values are not aligned to their type.
  for (size_t levels_pad : {0u, 1u, 2u, 3u, 5u, 7u}) {
    ColumnDescriptor d = Scalar(Type::kDouble, kOpt);
    size_t n = 3000;
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i) * 0.5 - 7;
    // A run of n ones, preceded by `levels_pad` extra RLE runs of one value.
    Bytes def;
    for (size_t k = 0; k < levels_pad; ++k) {
      def.push_back(1 << 1);
      def.push_back(1);
    }
    Bytes rest = RleHybrid(std::vector<uint32_t>(n - levels_pad, 1), 1);
    def.insert(def.end(), rest.begin(), rest.end());
    for (auto codec : {CompressionCodec::kUncompressed, CompressionCodec::kZstd}) {
      Bytes chunk = DataPageV1(static_cast<int32_t>(n), Encoding::kPlain, Concat({LengthPrefixed(def), Plain(v)}),
                               WithCodec(codec));
      auto r = DecodeBothWays(d, chunk, static_cast<int64_t>(n), codec);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->values.doubles, v) << levels_pad;
    }
  }
}

TEST(FastPath, PageBufferIsReusedAcrossShrinkingAndGrowingPages) {
  ColumnDescriptor d = Scalar(Type::kInt64, kReq);
  std::vector<int64_t> all;
  Bytes chunk;
  for (size_t n : {5000u, 10u, 2000u, 7000u, 1u}) {
    std::vector<int64_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(all.size() + i) * 3;
    all.insert(all.end(), v.begin(), v.end());
    Bytes p = DataPageV1(static_cast<int32_t>(n), Encoding::kPlain, Plain(v), WithCodec(CompressionCodec::kZstd));
    chunk.insert(chunk.end(), p.begin(), p.end());
  }
  auto r = DecodeBothWays(d, chunk, static_cast<int64_t>(all.size()), CompressionCodec::kZstd);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->values.int64s, all);
}

// The level scans themselves, against levels decoded one by one.
TEST(LevelScan, MatchesPerValueDecodingOnRandomStreams) {
  std::mt19937_64 rng(5);
  for (int iter = 0; iter < 300; ++iter) {
    size_t n = 1 + rng() % 3000;
    std::vector<uint32_t> rep(n);
    for (size_t i = 0; i < n; ++i) {
      // Long runs of 1 with a 0 now and then, or noise.
      rep[i] = iter % 3 == 0 ? static_cast<uint32_t>(rng() % 2) : (rng() % 40 == 0 ? 0 : 1);
    }
    Bytes stream = iter % 2 == 0 ? RleHybrid(rep, 1) : BitPackedOnly(rep, 1);
    // Scan a prefix of the stream's levels too (pages stop mid-run).
    size_t take = iter % 4 == 0 ? n - rng() % n : n;
    size_t rows = 0;
    bool first = false;
    ASSERT_TRUE(levels::CountRowStarts(stream, take, &rows, &first));
    std::vector<uint64_t> want;
    for (size_t i = 0; i < take; ++i) {
      if (rep[i] == 0) want.push_back(1000 + i);
    }
    EXPECT_EQ(rows, want.size());
    EXPECT_EQ(first, rep[0] == 0);
    std::vector<uint64_t> got(rows);
    levels::WriteRowStarts(stream, take, 1000, got.data());
    EXPECT_EQ(got, want);
    // Asking for more levels than the stream holds fails.
    EXPECT_FALSE(levels::CountRowStarts(stream, n + 4096, &rows, &first));
  }
}

TEST(LevelScan, AllEqualNeedsEveryLevelPresentAndEqual) {
  for (int width : {1, 2, 3, 8, 16}) {
    auto top = static_cast<uint32_t>((1u << width) - 1);
    std::vector<uint32_t> same(777, top);
    EXPECT_TRUE(levels::AllEqual(RleHybrid(same, width), width, same.size(), static_cast<uint16_t>(top)));
    EXPECT_TRUE(levels::AllEqual(BitPackedOnly(same, width), width, same.size(), static_cast<uint16_t>(top)));
    EXPECT_FALSE(levels::AllEqual(RleHybrid(same, width), width, same.size() + 1, static_cast<uint16_t>(top)));
    std::vector<uint32_t> one_off = same;
    one_off[500] = top - 1;
    EXPECT_FALSE(levels::AllEqual(RleHybrid(one_off, width), width, one_off.size(), static_cast<uint16_t>(top)));
    EXPECT_FALSE(levels::AllEqual(BitPackedOnly(one_off, width), width, one_off.size(), static_cast<uint16_t>(top)));
    // Only the first n levels count.
    EXPECT_TRUE(levels::AllEqual(BitPackedOnly(one_off, width), width, 500, static_cast<uint16_t>(top)));
  }
  EXPECT_FALSE(levels::AllEqual(Bytes{}, 1, 1, 1));
}

TEST(LevelScan, NextSpanMatchesDecode) {
  std::mt19937_64 rng(8);
  for (int width : {1, 3, 7, 12}) {
    std::vector<uint32_t> v(2000);
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = i % 300 < 150 ? 1 : static_cast<uint32_t>(rng() % (1u << width));
    }
    Bytes stream = RleHybrid(v, width);
    std::vector<uint16_t> want(v.size());
    RleBitPackedDecoder ref(stream, width);
    ASSERT_TRUE(ref.Decode(want).ok());
    RleBitPackedDecoder dec(stream, width);
    std::vector<uint16_t> got;
    std::vector<uint16_t> piece(64);
    while (got.size() < v.size()) {
      size_t max = std::min<size_t>(1 + rng() % 64, v.size() - got.size());
      RleBitPackedDecoder::Span span;
      ASSERT_TRUE(dec.NextSpan(max, &span).ok());
      ASSERT_GT(span.count, 0u);
      ASSERT_LE(span.count, max);
      if (!span.rle) UnpackBits(span.packed, span.first_bit, width, span.count, piece.data());
      for (size_t i = 0; i < span.count; ++i) got.push_back(span.rle ? static_cast<uint16_t>(span.value) : piece[i]);
    }
    EXPECT_EQ(got, want) << width;
    // Past the end of the stream (its last group's padding), NextSpan fails.
    RleBitPackedDecoder::Span span;
    int spans = 0;
    while (spans < 100 && dec.NextSpan(1 << 20, &span).ok()) ++spans;
    EXPECT_LT(spans, 100);
  }
}

}  // namespace
}  // namespace vigilo::parquet
