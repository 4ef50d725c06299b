// Hostile column chunks: every truncation and thousands of random bit flips
// of valid chunks end in an error or a consistent result, never a crash, an
// overrun or a large allocation (run under ASan/UBSan too).
#include <gtest/gtest.h>

#include <random>

#include "reader_test_pages.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/value_json.h"

namespace vigilo::parquet {
namespace {

using namespace vigilo::parquet::testing;  // NOLINT
using R = FieldRepetitionType;

struct Case {
  std::vector<SchemaElement> schema;
  CompressionCodec codec;
  Bytes chunk;
  int64_t num_values;
};

// A nullable string column: dictionary, a dictionary v1 page, a PLAIN
// fallback v2 page and a DELTA_BYTE_ARRAY page.
Case Strings(CompressionCodec codec) {
  SchemaElement leaf = Leaf("s", Type::kByteArray, R::kOptional);
  leaf.converted_type = ConvertedType::kUtf8;
  PageOptions o = WithCodec(codec);
  Bytes chunk = Concat({
      DictionaryPage(3, PlainStrings({"a", "bb", "ccc"}), o),
      DataPageV1(6, Encoding::kRleDictionary, Concat({LevelsV1({1, 1, 0, 1, 1, 1}, 1), DictIndices({2, 0, 1, 1, 0}, 2)}), o),
      DataPageV2(3, 1, 3, Encoding::kPlain, {}, LevelsV2({1, 0, 1}, 1), PlainStrings({"x", "yz"}), o),
      DataPageV1(3, Encoding::kDeltaByteArray, Concat({LevelsV1({1, 1, 1}, 1), DeltaByteArray({"pre1", "pre22", "q"})}), o),
  });
  return {{Root(1), leaf}, codec, chunk, 12};
}

// A LIST<FLOAT> column with nulls and empty lists, over v1 and v2 pages.
Case Lists(CompressionCodec codec) {
  SchemaElement g = Group("v", 1, R::kOptional);
  g.converted_type = ConvertedType::kList;
  PageOptions o = WithCodec(codec);
  Bytes chunk = Concat({
      DataPageV1(7, Encoding::kPlain,
                 Concat({LevelsV1({0, 1, 0, 0, 0, 1, 0}, 1), LevelsV1({3, 3, 1, 0, 2, 3, 3}, 3),
                         Plain(std::vector<float>{1, 2, 3, 4})}),
                 o),
      DataPageV2(3, 1, 2, Encoding::kByteStreamSplit, LevelsV2({0, 1, 0}, 1), LevelsV2({2, 3, 3}, 3),
                 ByteStreamSplit(Plain(std::vector<float>{5, 6}), 4), o),
  });
  return {{Root(1), g, Group("list", 1, R::kRepeated), Leaf("element", Type::kFloat, R::kOptional)}, codec, chunk, 10};
}

// A required INT64 column: DELTA_BINARY_PACKED then PLAIN.
Case Ints(CompressionCodec codec) {
  std::vector<int64_t> v;
  for (int i = 0; i < 200; ++i) v.push_back(i * i - 5000);
  PageOptions o = WithCodec(codec);
  Bytes chunk = Concat({DataPageV1(200, Encoding::kDeltaBinaryPacked, DeltaBinaryPacked(v, 64), o),
                        DataPageV1(2, Encoding::kPlain, Plain(std::vector<int64_t>{1, 2}), o)});
  return {{Root(1), Leaf("i", Type::kInt64, R::kRequired)}, codec, chunk, 202};
}

Result<DecodedColumn> DecodeCase(const Case& c, std::span<const uint8_t> bytes, std::string* json) {
  auto tree = ResolveSchema(c.schema);
  auto d = DescribeColumn(c.schema, *tree, 0);
  ColumnMetaData meta;
  meta.type = d->type;
  meta.codec = c.codec;
  meta.num_values = c.num_values;
  ColumnReadOptions options;
  options.max_decoded_bytes = 8 << 20;
  auto r = DecodeColumnChunkBytes(*d, meta, bytes, options);
  if (r.ok()) {
    // A decoded result must be self-consistent enough to print every row.
    auto cursor = RowJsonCursor::Make(*d, *r);
    EXPECT_TRUE(cursor.ok());
    while (cursor->rows_left() > 0) {
      Status st = cursor->AppendNext(json);
      if (!st.ok()) {
        EXPECT_EQ(st.code(), StatusCode::kInvalidFormat) << st.ToString();  // e.g. UTF-8
        break;
      }
    }
  }
  return r;
}

std::vector<Case> AllCases() {
  std::vector<Case> out;
  for (auto codec : {CompressionCodec::kUncompressed, CompressionCodec::kSnappy, CompressionCodec::kGzip,
                     CompressionCodec::kZstd}) {
    out.push_back(Strings(codec));
    out.push_back(Lists(codec));
    out.push_back(Ints(codec));
  }
  return out;
}

TEST(ColumnReaderRobustness, TheValidChunksDecode) {
  for (const Case& c : AllCases()) {
    std::string json;
    auto r = DecodeCase(c, c.chunk, &json);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::string json;
  Case strings = Strings(CompressionCodec::kUncompressed);
  ASSERT_TRUE(DecodeCase(strings, strings.chunk, &json).ok());
  EXPECT_EQ(json, "\"ccc\"\"a\"null\"bb\"\"bb\"\"a\"\"x\"null\"yz\"\"pre1\"\"pre22\"\"q\"");
  json.clear();
  Case lists = Lists(CompressionCodec::kZstd);
  ASSERT_TRUE(DecodeCase(lists, lists.chunk, &json).ok());
  EXPECT_EQ(json, "[1.0,2.0][]null[null,3.0][4.0][null,5.0][6.0]");
}

TEST(ColumnReaderRobustness, EveryTruncationIsAnError) {
  for (const Case& c : AllCases()) {
    for (size_t k = 0; k < c.chunk.size(); ++k) {
      std::string json;
      auto r = DecodeCase(c, std::span(c.chunk).first(k), &json);
      ASSERT_FALSE(r.ok()) << k;
      ASSERT_TRUE(r.status().offset().has_value()) << r.status().ToString();
      EXPECT_LE(*r.status().offset(), k) << r.status().ToString();
    }
  }
}

TEST(ColumnReaderRobustness, RandomBitFlipsDecodeOrFailCleanly) {
  std::mt19937_64 rng(20240602);
  int ok = 0;
  int failed = 0;
  for (const Case& c : AllCases()) {
    for (int iter = 0; iter < 1500; ++iter) {
      Bytes m = c.chunk;
      int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) m[rng() % m.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      std::string json;
      auto r = DecodeCase(c, m, &json);
      if (r.ok()) {
        ++ok;
      } else {
        ++failed;
        EXPECT_NE(r.status().code(), StatusCode::kInternal) << r.status().ToString();
      }
    }
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(ok, 0);  // some flips land in values and still decode
}

}  // namespace
}  // namespace vigilo::parquet
