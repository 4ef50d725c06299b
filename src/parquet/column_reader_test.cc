// Column-chunk decoding on hand-built pages: every encoding and codec, nulls,
// lists, multiple pages, dictionary fallback, and the exact errors.
#include "vigilo/parquet/column_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reader_test_pages.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::parquet {
namespace {

using namespace vigilo::parquet::testing;  // NOLINT
using R = FieldRepetitionType;

constexpr auto kReq = R::kRequired;
constexpr auto kOpt = R::kOptional;
constexpr auto kRep = R::kRepeated;

struct Column {
  std::vector<SchemaElement> schema;
  SchemaTree tree;
  ColumnDescriptor desc;
};

Column Describe(std::vector<SchemaElement> schema) {
  Column c;
  c.schema = std::move(schema);
  auto tree = ResolveSchema(c.schema);
  EXPECT_TRUE(tree.ok()) << tree.status().ToString();
  c.tree = *tree;
  auto d = DescribeColumn(c.schema, c.tree, 0);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  c.desc = *d;
  return c;
}

Column Scalar(Type type, R rep, int32_t type_length = 0) {
  SchemaElement leaf = Leaf("x", type, rep);
  if (type_length > 0) leaf.type_length = type_length;
  return Describe({Root(1), leaf});
}

// optional group v (LIST) { repeated group list { <element_rep> <type> element } }
Column List3(Type type, R list_rep, R element_rep) {
  SchemaElement g = Group("v", 1, list_rep);
  g.converted_type = ConvertedType::kList;
  return Describe({Root(1), g, Group("list", 1, kRep), Leaf("element", type, element_rep)});
}

Result<DecodedColumn> Decode(const Column& c, const Bytes& chunk, int64_t num_values,
                             CompressionCodec codec = CompressionCodec::kUncompressed,
                             const ColumnReadOptions& options = {}) {
  ColumnMetaData meta;
  meta.type = c.desc.type;
  meta.codec = codec;
  meta.num_values = num_values;
  return DecodeColumnChunkBytes(c.desc, meta, chunk, options);
}

TEST(DescribeColumn, LevelsAndShapes) {
  Column s = Scalar(Type::kInt32, kOpt);
  EXPECT_EQ(s.desc.shape, ColumnShape::kScalar);
  EXPECT_EQ(s.desc.max_definition_level, 1);
  EXPECT_EQ(s.desc.path, std::vector<std::string>{"x"});

  Column l = List3(Type::kFloat, kOpt, kOpt);
  EXPECT_EQ(l.desc.shape, ColumnShape::kList);
  EXPECT_EQ(l.desc.max_definition_level, 3);
  EXPECT_EQ(l.desc.max_repetition_level, 1);
  EXPECT_EQ(l.desc.repeated_definition_level, 2);
  EXPECT_EQ(l.desc.path, (std::vector<std::string>{"v", "list", "element"}));

  SchemaElement g = Group("v", 1, kOpt);
  g.converted_type = ConvertedType::kList;
  Column two = Describe({Root(1), g, Leaf("array", Type::kInt32, kRep)});
  EXPECT_EQ(two.desc.shape, ColumnShape::kList);
  EXPECT_EQ(two.desc.repeated_definition_level, 2);

  Column bare = Describe({Root(1), Leaf("r", Type::kInt32, kRep)});
  EXPECT_EQ(bare.desc.shape, ColumnShape::kList);
  EXPECT_EQ(bare.desc.repeated_definition_level, 1);

  Column nested = Describe({Root(1), Group("s", 1, kOpt), Leaf("a", Type::kInt32, kOpt)});
  EXPECT_EQ(nested.desc.shape, ColumnShape::kOther);

  std::vector<SchemaElement> deep = {Root(1), Group("a", 1, kRep), Leaf("b", Type::kInt32, kRep)};
  auto tree = ResolveSchema(deep);
  auto d = DescribeColumn(deep, *tree, 0);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(d.status().message(), "column a.b has 2 repeated ancestors; at most one is supported");
}

TEST(ColumnReader, RequiredInt32Plain) {
  Column c = Scalar(Type::kInt32, kReq);
  std::vector<int32_t> v = {1, -2, 3, std::numeric_limits<int32_t>::min()};
  auto r = Decode(c, DataPageV1(4, Encoding::kPlain, Plain(v)), 4);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_rows, 4u);
  EXPECT_EQ(r->values.int32s, v);
  EXPECT_TRUE(r->row_valid.empty());
}

class CodecColumnTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(CodecColumnTest, OptionalInt64WithNullsOverTwoPagesV1AndV2) {
  Column c = Scalar(Type::kInt64, kOpt);
  PageOptions o = WithCodec(GetParam());
  std::vector<int64_t> v1 = {10, 20};
  std::vector<int64_t> v2 = {-5};
  Bytes chunk = Concat({DataPageV1(3, Encoding::kPlain, Concat({LevelsV1({1, 0, 1}, 1), Plain(v1)}), o),
                        DataPageV2(2, 1, 2, Encoding::kPlain, {}, LevelsV2({0, 1}, 1), Plain(v2), o)});
  auto r = Decode(c, chunk, 5, GetParam());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_rows, 5u);
  EXPECT_EQ(r->row_valid, (std::vector<uint8_t>{1, 0, 1, 0, 1}));
  EXPECT_EQ(r->values.int64s, (std::vector<int64_t>{10, 20, -5}));
}

INSTANTIATE_TEST_SUITE_P(All, CodecColumnTest,
                         ::testing::Values(CompressionCodec::kUncompressed, CompressionCodec::kSnappy,
                                           CompressionCodec::kGzip, CompressionCodec::kZstd));

TEST(ColumnReader, V2UncompressedValuesFlagIsHonoured) {
  Column c = Scalar(Type::kInt32, kReq);
  std::vector<int32_t> v = {7, 8, 9};
  Bytes chunk = DataPageV2(3, 0, 3, Encoding::kPlain, {}, {}, Plain(v), WithCodec(CompressionCodec::kZstd), false);
  auto r = Decode(c, chunk, 3, CompressionCodec::kZstd);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->values.int32s, v);
}

TEST(ColumnReader, DictionaryStringsWithFallbackToPlainMidChunk) {
  Column c = Scalar(Type::kByteArray, kOpt);
  Bytes dict = DictionaryPage(3, PlainStrings({"apple", "", "cherry"}));
  Bytes p1 = DataPageV1(5, Encoding::kRleDictionary, Concat({LevelsV1({1, 1, 0, 1, 1}, 1), DictIndices({2, 0, 1, 2}, 2)}));
  Bytes p2 = DataPageV1(2, Encoding::kPlain, Concat({LevelsV1({1, 0}, 1), PlainStrings({"zebra"})}));
  auto r = Decode(c, Concat({dict, p1, p2}), 7);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->values.size(), 5u);
  std::vector<std::string> got;
  for (size_t i = 0; i < r->values.size(); ++i) {
    auto b = r->values.Binary(i);
    got.emplace_back(b.begin(), b.end());
  }
  EXPECT_EQ(got, (std::vector<std::string>{"cherry", "apple", "", "cherry", "zebra"}));
  EXPECT_EQ(r->row_valid, (std::vector<uint8_t>{1, 1, 0, 1, 1, 1, 0}));
}

TEST(ColumnReader, DictionaryIndexOutOfRange) {
  Column c = Scalar(Type::kInt32, kReq);
  Bytes dict = DictionaryPage(2, Plain(std::vector<int32_t>{5, 6}));
  Bytes page = DataPageV1(3, Encoding::kRleDictionary, DictIndices({0, 1, 2}, 2));
  auto r = Decode(c, Concat({dict, page}), 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(r.status().message(), "dictionary index 2 (value 2) is out of range for a dictionary of 2 values");
  EXPECT_EQ(r.status().path(), "pages[1]");
  EXPECT_EQ(r.status().offset(), dict.size() + (page.size() - DictIndices({0, 1, 2}, 2).size()));
}

TEST(ColumnReader, DictionaryEncodedPageWithoutDictionary) {
  Column c = Scalar(Type::kInt32, kReq);
  auto r = Decode(c, DataPageV1(1, Encoding::kPlainDictionary, DictIndices({0}, 1)), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "a dictionary-encoded page without a dictionary page");
}

TEST(ColumnReader, DictionaryAfterDataPageIsInvalid) {
  Column c = Scalar(Type::kInt32, kReq);
  Bytes chunk = Concat({DataPageV1(1, Encoding::kPlain, Plain(std::vector<int32_t>{1})),
                        DictionaryPage(1, Plain(std::vector<int32_t>{1}))});
  auto r = Decode(c, chunk, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "a dictionary page after a data page");
  EXPECT_EQ(r.status().path(), "pages[1]");
}

// Rows: [1, 2], [], null, [null, 3], [4]
const std::vector<uint32_t> kListRep = {0, 1, 0, 0, 0, 1, 0};
const std::vector<uint32_t> kListDef = {3, 3, 1, 0, 2, 3, 3};

void ExpectExampleList(const DecodedColumn& d) {
  EXPECT_EQ(d.num_rows, 5u);
  EXPECT_EQ(d.list_offsets, (std::vector<uint64_t>{0, 2, 2, 2, 4, 5}));
  EXPECT_EQ(d.row_valid, (std::vector<uint8_t>{1, 1, 0, 1, 1}));
  EXPECT_EQ(d.element_valid, (std::vector<uint8_t>{1, 1, 0, 1, 1}));
  EXPECT_EQ(d.values.floats, (std::vector<float>{1, 2, 3, 4}));
}

TEST(ColumnReader, ThreeLevelListV1) {
  Column c = List3(Type::kFloat, kOpt, kOpt);
  Bytes body = Concat({LevelsV1(kListRep, 1), LevelsV1(kListDef, 3), Plain(std::vector<float>{1, 2, 3, 4})});
  auto r = Decode(c, DataPageV1(7, Encoding::kPlain, body), 7);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectExampleList(*r);
}

TEST(ColumnReader, ThreeLevelListV2SplitAcrossPagesAtRowBoundaries) {
  Column c = List3(Type::kFloat, kOpt, kOpt);
  PageOptions o = WithCodec(CompressionCodec::kSnappy);
  Bytes p1 = DataPageV2(4, 2, 3, Encoding::kPlain, LevelsV2({0, 1, 0, 0}, 1), LevelsV2({3, 3, 1, 0}, 3),
                        Plain(std::vector<float>{1, 2}), o);
  Bytes p2 = DataPageV2(3, 1, 2, Encoding::kByteStreamSplit, LevelsV2({0, 1, 0}, 1), LevelsV2({2, 3, 3}, 3),
                        ByteStreamSplit(Plain(std::vector<float>{3, 4}), 4), o);
  auto r = Decode(c, Concat({p1, p2}), 7, CompressionCodec::kSnappy);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectExampleList(*r);
}

TEST(ColumnReader, V1ListRowMayContinueOnTheNextPage) {
  Column c = List3(Type::kDouble, kReq, kReq);  // max_def 1, d_rep 1
  Bytes p1 = DataPageV1(2, Encoding::kPlain, Concat({LevelsV1({0, 1}, 1), LevelsV1({1, 1}, 1), Plain(std::vector<double>{1, 2})}));
  Bytes p2 = DataPageV1(2, Encoding::kPlain, Concat({LevelsV1({1, 0}, 1), LevelsV1({1, 0}, 1), Plain(std::vector<double>{3})}));
  auto r = Decode(c, Concat({p1, p2}), 4);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->list_offsets, (std::vector<uint64_t>{0, 3, 3}));
  EXPECT_TRUE(r->row_valid.empty());
  EXPECT_TRUE(r->element_valid.empty());
  EXPECT_EQ(r->values.doubles, (std::vector<double>{1, 2, 3}));
}

TEST(ColumnReader, ListLevelErrors) {
  Column c = List3(Type::kFloat, kOpt, kOpt);
  auto bad = [&](std::vector<uint32_t> rep, std::vector<uint32_t> def, size_t values) {
    std::vector<float> v(values, 1.0f);
    Bytes body = Concat({LevelsV1(rep, 1), LevelsV1(def, 3), Plain(v)});
    return Decode(c, DataPageV1(static_cast<int32_t>(rep.size()), Encoding::kPlain, body),
                  static_cast<int64_t>(rep.size()));
  };
  auto r = bad({1, 0}, {3, 3}, 2);
  EXPECT_EQ(r.status().message(), "the column chunk starts with repetition level 1");
  r = bad({0, 1}, {1, 3}, 1);
  EXPECT_EQ(r.status().message(), "repetition level 1 continues an empty or null list (value 1)");
  r = bad({0, 1}, {3, 1}, 1);
  EXPECT_EQ(r.status().message(), "a continued list entry has definition level 1 (value 1)");
  Column req = List3(Type::kFloat, kOpt, kReq);  // max_def 2 (2 bits)
  Bytes body = Concat({LevelsV1({0}, 1), LevelsV1({3}, 2), Plain(std::vector<float>{1})});
  r = Decode(req, DataPageV1(1, Encoding::kPlain, body), 1);
  EXPECT_EQ(r.status().message(), "level 3 exceeds the maximum 2 (value 0)");
}

TEST(ColumnReader, NullFixedSizeArrayPaddingIsNull) {
  // DuckDB writes a NULL FLOAT[3] as three entries at the null's definition
  // level 0 (and an empty one at level 1 likewise); both read back as they began.
  Column c = List3(Type::kFloat, kOpt, kOpt);
  Bytes body = Concat({LevelsV1({0, 1, 1, 0, 1, 1, 0, 1, 1}, 1), LevelsV1({0, 0, 0, 3, 2, 3, 1, 1, 1}, 3),
                       Plain(std::vector<float>{1, 2})});
  auto r = Decode(c, DataPageV1(9, Encoding::kPlain, body), 9);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->list_offsets, (std::vector<uint64_t>{0, 0, 3, 3}));
  EXPECT_EQ(r->row_valid, (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(r->element_valid, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(r->values.floats, (std::vector<float>{1, 2}));
  EXPECT_EQ(r->num_rows, 3u);
  // Padding at another level than the row's own is still an error.
  body = Concat({LevelsV1({0, 1}, 1), LevelsV1({0, 1}, 3), Plain(std::vector<float>{})});
  EXPECT_EQ(Decode(c, DataPageV1(2, Encoding::kPlain, body), 2).status().message(),
            "repetition level 1 continues an empty or null list (value 1)");
}

TEST(ColumnReader, V2RowCountMustMatch) {
  Column c = List3(Type::kFloat, kOpt, kOpt);
  Bytes p = DataPageV2(2, 0, 2, Encoding::kPlain, LevelsV2({0, 1}, 1), LevelsV2({3, 3}, 3),
                       Plain(std::vector<float>{1, 2}));
  auto r = Decode(c, p, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "data page v2 starts 1 rows, its header says 2");
}

TEST(ColumnReader, Booleans) {
  Column c = Scalar(Type::kBoolean, kOpt);
  std::vector<bool> vals = {true, false, true, true, false, false, true, true, true, false};
  Bytes p1 = DataPageV1(11, Encoding::kPlain, Concat({LevelsV1({1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1}, 1), PlainBooleans(vals)}));
  std::vector<uint32_t> bits = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0};
  Bytes p2 = DataPageV2(10, 0, 10, Encoding::kRle, {}, LevelsV2(std::vector<uint32_t>(10, 1), 1),
                        LengthPrefixed(RleHybrid(bits, 1)));
  auto r = Decode(c, Concat({p1, p2}), 21);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<uint8_t> want;
  for (bool b : vals) want.push_back(b);
  for (uint32_t b : bits) want.push_back(static_cast<uint8_t>(b));
  EXPECT_EQ(r->values.booleans, want);
}

TEST(ColumnReader, DeltaBinaryPackedInt32AndInt64) {
  std::vector<int64_t> v32;
  for (int i = 0; i < 300; ++i) v32.push_back((i % 7 == 0 ? -1 : 1) * i * 1000 + (i % 3));
  v32.push_back(std::numeric_limits<int32_t>::max());
  v32.push_back(std::numeric_limits<int32_t>::min());  // wrapping delta
  Column c32 = Scalar(Type::kInt32, kReq);
  auto n32 = static_cast<int32_t>(v32.size());
  auto r = Decode(c32, DataPageV1(n32, Encoding::kDeltaBinaryPacked, DeltaBinaryPacked(v32, 32)), n32);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int32_t> want32(v32.begin(), v32.end());
  EXPECT_EQ(r->values.int32s, want32);

  std::vector<int64_t> v64 = {5, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 0, -7};
  for (int i = 0; i < 1000; ++i) v64.push_back(int64_t{i} * 123456789012);
  Column c64 = Scalar(Type::kInt64, kReq);
  auto n64 = static_cast<int32_t>(v64.size());
  auto r64 = Decode(c64, DataPageV1(n64, Encoding::kDeltaBinaryPacked, DeltaBinaryPacked(v64, 64, 256, 2)), n64);
  ASSERT_TRUE(r64.ok()) << r64.status().ToString();
  EXPECT_EQ(r64->values.int64s, v64);

  // One value (header only) and a count mismatch.
  auto one = Decode(c32, DataPageV1(1, Encoding::kDeltaBinaryPacked, DeltaBinaryPacked({42}, 32)), 1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->values.int32s, std::vector<int32_t>{42});
  auto bad = Decode(c32, DataPageV1(2, Encoding::kDeltaBinaryPacked, DeltaBinaryPacked({1, 2, 3}, 32)), 2);
  EXPECT_EQ(bad.status().message(), "DELTA_BINARY_PACKED holds 3 values, the page needs 2");
}

std::vector<std::string> Strings(const ColumnValues& v) {
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    auto b = v.Binary(i);
    out.emplace_back(b.begin(), b.end());
  }
  return out;
}

TEST(ColumnReader, DeltaLengthAndDeltaByteArray) {
  Column c = Scalar(Type::kByteArray, kOpt);
  std::vector<std::string> a = {"alpha", "alphabet", "", "alpine", "beta"};
  std::vector<std::string> b = {"prefix-1", "prefix-12", "prefix-2", "q"};
  Bytes p1 = DataPageV1(6, Encoding::kDeltaLengthByteArray, Concat({LevelsV1({1, 1, 1, 0, 1, 1}, 1), DeltaLengthByteArray(a)}));
  Bytes p2 = DataPageV1(4, Encoding::kDeltaByteArray, Concat({LevelsV1({1, 1, 1, 1}, 1), DeltaByteArray(b)}));
  auto r = Decode(c, Concat({p1, p2}), 10);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> want = a;
  want.insert(want.end(), b.begin(), b.end());
  EXPECT_EQ(Strings(r->values), want);
}

TEST(ColumnReader, DeltaByteArrayFixedLength) {
  Column c = Scalar(Type::kFixedLenByteArray, kReq, 3);
  std::vector<std::string> v = {"abc", "abd", "xyz"};
  auto r = Decode(c, DataPageV1(3, Encoding::kDeltaByteArray, DeltaByteArray(v)), 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Strings(r->values), v);
  auto bad = Decode(c, DataPageV1(1, Encoding::kDeltaByteArray, DeltaByteArray({"toolong"})), 1);
  EXPECT_EQ(bad.status().message(), "DELTA_BYTE_ARRAY value 0 has 7 bytes, the column's type_length is 3");
}

TEST(ColumnReader, DeltaByteArrayPrefixLongerThanPreviousValue) {
  Column c = Scalar(Type::kByteArray, kReq);
  Bytes body = Concat({DeltaBinaryPacked({0, 5}, 32), DeltaLengthByteArray({"ab", "c"})});
  auto r = Decode(c, DataPageV1(2, Encoding::kDeltaByteArray, body), 2);
  EXPECT_EQ(r.status().message(), "DELTA_BYTE_ARRAY prefix 5 is longer than the previous value (value 1)");
}

TEST(ColumnReader, ByteStreamSplitAllTypes) {
  {
    Column c = Scalar(Type::kDouble, kReq);
    std::vector<double> v = {1.5, -0.0, std::numeric_limits<double>::infinity(), 1e300};
    auto r = Decode(c, DataPageV1(4, Encoding::kByteStreamSplit, ByteStreamSplit(Plain(v), 8)), 4);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->values.doubles, v);
    EXPECT_TRUE(std::signbit(r->values.doubles[1]));
  }
  {
    Column c = Scalar(Type::kInt32, kReq);
    std::vector<int32_t> v = {1, -1, 65536};
    auto r = Decode(c, DataPageV1(3, Encoding::kByteStreamSplit, ByteStreamSplit(Plain(v), 4)), 3);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->values.int32s, v);
  }
  {
    Column c = Scalar(Type::kInt64, kReq);
    std::vector<int64_t> v = {1, -1, int64_t{1} << 40};
    auto r = Decode(c, DataPageV1(3, Encoding::kByteStreamSplit, ByteStreamSplit(Plain(v), 8)), 3);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->values.int64s, v);
  }
  {
    Column c = Scalar(Type::kFixedLenByteArray, kReq, 2);
    Bytes plain = {'a', 'b', 'c', 'd', 'e', 'f'};
    auto r = Decode(c, DataPageV1(3, Encoding::kByteStreamSplit, ByteStreamSplit(plain, 2)), 3);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Strings(r->values), (std::vector<std::string>{"ab", "cd", "ef"}));
  }
  {
    Column c = Scalar(Type::kByteArray, kReq);
    auto r = Decode(c, DataPageV1(1, Encoding::kByteStreamSplit, Bytes{1, 2, 3, 4}), 1);
    EXPECT_EQ(r.status().message(), "BYTE_STREAM_SPLIT is not valid for BYTE_ARRAY");
  }
}

TEST(ColumnReader, FixedLenByteArrayAndInt96Plain) {
  Column c = Scalar(Type::kFixedLenByteArray, kOpt, 4);
  Bytes body = Concat({LevelsV1({1, 0, 1}, 1), Bytes{1, 2, 3, 4, 5, 6, 7, 8}});
  auto r = Decode(c, DataPageV1(3, Encoding::kPlain, body), 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->values.binary, (Bytes{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(r->values.size(), 2u);

  Column i96 = Scalar(Type::kInt96, kReq);
  Bytes twelve(12, 9);
  auto r96 = Decode(i96, DataPageV1(1, Encoding::kPlain, twelve), 1);
  ASSERT_TRUE(r96.ok()) << r96.status().ToString();
  EXPECT_EQ(r96->values.binary, twelve);
}

TEST(ColumnReader, ConsistencyErrors) {
  Column c = Scalar(Type::kInt32, kReq);
  Bytes page = DataPageV1(2, Encoding::kPlain, Plain(std::vector<int32_t>{1, 2}));
  auto r = Decode(c, page, 3);
  EXPECT_EQ(r.status().message(), "column chunk pages hold 2 values, the column metadata says 3");
  EXPECT_EQ(r.status().offset(), page.size());

  r = Decode(c, page, 1);
  EXPECT_EQ(r.status().message(), "data pages hold more values than the column metadata's 1");

  Bytes extra = DataPageV1(1, Encoding::kPlain, Plain(std::vector<int32_t>{1, 2}));
  r = Decode(c, extra, 1);
  EXPECT_EQ(r.status().message(), "4 bytes follow the page's 1 PLAIN values");

  Bytes short_page = DataPageV1(3, Encoding::kPlain, Plain(std::vector<int32_t>{1, 2}));
  r = Decode(c, short_page, 3);
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_EQ(r.status().message(), "PLAIN values runs past the end of the page");

  Bytes cut(page.begin(), page.end() - 1);
  r = Decode(c, cut, 2);
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_EQ(r.status().message(), "a page of 8 bytes runs past the end of the column chunk (7 bytes left)");
  EXPECT_EQ(r.status().offset(), 0u);

  r = Decode(c, DataPageV1(1, static_cast<Encoding>(42), Plain(std::vector<int32_t>{1})), 1);
  EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(r.status().message(), "value encoding encoding 42 is not supported");

  r = Decode(c, DataPageV1(1, Encoding::kRle, Plain(std::vector<int32_t>{1})), 1);
  EXPECT_EQ(r.status().message(), "RLE values are only valid for BOOLEAN, not INT32");
}

TEST(ColumnReader, CompressedPageErrorsPointAtTheHeader) {
  Column c = Scalar(Type::kInt32, kReq);
  Bytes lead = DataPageV1(1, Encoding::kPlain, Plain(std::vector<int32_t>{1}));
  Bytes page = DataPageV1(2, Encoding::kPlain, Plain(std::vector<int32_t>{1}), WithCodec(CompressionCodec::kZstd));
  // The first page is uncompressed bytes under a ZSTD codec: a codec error.
  auto r = Decode(c, Concat({page}), 2, CompressionCodec::kZstd);
  EXPECT_EQ(r.status().message(), "PLAIN values runs past the end of the page (byte 4 of the decompressed page)");
  EXPECT_EQ(r.status().offset(), 0u);
  EXPECT_EQ(r.status().path(), "pages[0]");
  auto bad = Decode(c, Concat({lead}), 1, CompressionCodec::kZstd);
  EXPECT_EQ(bad.status().code(), StatusCode::kParseError);
}

TEST(ColumnReader, BudgetIsEnforced) {
  Column c = Scalar(Type::kInt32, kReq);
  // 10 million RLE-encoded dictionary indices in a few bytes.
  Bytes dict = DictionaryPage(1, Plain(std::vector<int32_t>{7}));
  Bytes idx = {0};  // bit width 0
  Bytes run = RleHybrid(std::vector<uint32_t>(100, 0), 0);
  Bytes body = {0, 0x80, 0xDA, 0xC4, 0x09};  // width 0; RLE run of 10,000,000
  Bytes page = DataPageV1(10'000'000, Encoding::kRleDictionary, body);
  ColumnReadOptions small;
  small.max_decoded_bytes = 1 << 20;
  auto r = Decode(c, Concat({dict, page}), 10'000'000, CompressionCodec::kUncompressed, small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kLimitExceeded);
  auto ok = Decode(c, Concat({dict, page}), 10'000'000);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->values.int32s.size(), 10'000'000u);
  EXPECT_EQ(ok->values.int32s.back(), 7);
}

TEST(ColumnReader, CrcIsVerifiedWhenPresent) {
  Column c = Scalar(Type::kInt32, kReq);
  Bytes good = DataPageV1(1, Encoding::kPlain, Plain(std::vector<int32_t>{1}), WithCodec(CompressionCodec::kUncompressed, true));
  ASSERT_TRUE(Decode(c, good, 1).ok());
  PageOptions wrong;
  wrong.crc_override = 12345;
  Bytes bad = DataPageV1(1, Encoding::kPlain, Plain(std::vector<int32_t>{1}), wrong);
  auto r = Decode(c, bad, 1);
  EXPECT_EQ(r.status().code(), StatusCode::kIntegrityError);
  ColumnReadOptions no_crc;
  no_crc.verify_crc = false;
  EXPECT_TRUE(Decode(c, bad, 1, CompressionCodec::kUncompressed, no_crc).ok());
}

TEST(ColumnReader, WholeFileThroughTheFooter) {
  OneColumnFile spec;
  spec.schema = {Root(1), Leaf("id", Type::kInt64, kOpt)};
  spec.type = Type::kInt64;
  spec.path = {"id"};
  spec.num_values = 3;
  spec.num_rows = 3;
  Bytes dict = DictionaryPage(2, Plain(std::vector<int64_t>{100, 200}));
  spec.dictionary_page_bytes = dict.size();
  spec.chunk = Concat({dict, DataPageV1(3, Encoding::kRleDictionary, Concat({LevelsV1({1, 0, 1}, 1), DictIndices({1, 0}, 1)}))});
  Bytes file = BuildOneColumnFile(spec);
  auto parsed = ParseFooter(file, file.size());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Footer& footer = std::get<Footer>(*parsed);
  auto plan = PlanRowGroup(footer, 0);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_EQ((*plan)[0].path, "id");
  EXPECT_EQ((*plan)[0].range, (ByteRange{4, spec.chunk.size()}));
  auto bytes = std::span<const uint8_t>(file).subspan(4, spec.chunk.size());
  auto r = DecodeColumnChunk(footer, 0, 0, bytes);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->values.int64s, (std::vector<int64_t>{200, 100}));
  EXPECT_EQ(r->row_valid, (std::vector<uint8_t>{1, 0, 1}));

  EXPECT_EQ(DecodeColumnChunk(footer, 0, 0, bytes.first(3)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeColumnChunk(footer, 1, 0, bytes).status().code(), StatusCode::kNotFound);

  // An error inside the chunk carries the file offset and the column path.
  Bytes broken = file;
  broken[4 + dict.size() - 1] = 0xff;  // corrupt the dictionary... values stay decodable
  size_t idx_at = 4 + spec.chunk.size() - 1;
  broken[idx_at] = 0x07;  // bit-packed indices now name index 1..7 values; width 1 keeps 0/1
  auto bad_header = DecodeColumnChunk(footer, 0, 0, std::span<const uint8_t>(broken).subspan(4, 3));
  EXPECT_EQ(bad_header.status().code(), StatusCode::kInvalidArgument);
  Bytes trunc = file;
  trunc[4] = 0x00;  // the dictionary page header's first field header
  auto r2 = DecodeColumnChunk(footer, 0, 0, std::span<const uint8_t>(trunc).subspan(4, spec.chunk.size()));
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().path().substr(0, 27), "row_groups[0].columns[0].pa");
  ASSERT_TRUE(r2.status().offset().has_value());
  EXPECT_GE(*r2.status().offset(), 4u);
}

}  // namespace
}  // namespace vigilo::parquet
