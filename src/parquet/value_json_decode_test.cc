// The value -> JSON mapping contract (docs/format/parquet.md).
#include "vigilo/parquet/value_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace vigilo::parquet {
namespace {

ColumnDescriptor Col(Type type) {
  ColumnDescriptor c;
  c.path = {"x"};
  c.type = type;
  return c;
}

template <typename T>
std::string Plain(const ColumnDescriptor& c, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::string out;
  Status st = AppendPlainValueJson(c, b, &out);
  return st.ok() ? out : "error: " + std::string(st.message());
}

std::string Bin(const ColumnDescriptor& c, std::string_view s) {
  std::string out;
  Status st = AppendPlainValueJson(c, std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()), &out);
  return st.ok() ? out : "error: " + std::string(st.message());
}

TEST(ValueJson, Numbers) {
  EXPECT_EQ(Plain(Col(Type::kInt32), int32_t{-7}), "-7");
  EXPECT_EQ(Plain(Col(Type::kInt64), std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(Plain(Col(Type::kDouble), 1.5), "1.5");
  EXPECT_EQ(Plain(Col(Type::kDouble), 1.0), "1.0");
  EXPECT_EQ(Plain(Col(Type::kDouble), -0.0), "-0.0");
  EXPECT_EQ(Plain(Col(Type::kDouble), 1e300), "1e300");
  EXPECT_EQ(Plain(Col(Type::kFloat), 0.1f), "0.10000000149011612");  // widened exactly
  EXPECT_EQ(Plain(Col(Type::kFloat), std::numeric_limits<float>::quiet_NaN()), "\"NaN\"");
  EXPECT_EQ(Plain(Col(Type::kDouble), std::numeric_limits<double>::infinity()), "\"Infinity\"");
  EXPECT_EQ(Plain(Col(Type::kDouble), -std::numeric_limits<double>::infinity()), "\"-Infinity\"");
}

TEST(ValueJson, UnsignedAnnotationsReadTheBitsAsUnsigned) {
  ColumnDescriptor u32 = Col(Type::kInt32);
  u32.converted_type = ConvertedType::kUint32;
  EXPECT_EQ(Plain(u32, int32_t{-1}), "4294967295");
  ColumnDescriptor u64 = Col(Type::kInt64);
  u64.logical_type = LogicalType::Integer(64, false);
  EXPECT_EQ(Plain(u64, int64_t{-1}), "18446744073709551615");
  ColumnDescriptor date = Col(Type::kInt32);
  date.logical_type = LogicalType::Simple(LogicalType::Kind::kDate);
  EXPECT_EQ(Plain(date, int32_t{-1}), "-1");
}

TEST(ValueJson, BooleansAndBinary) {
  EXPECT_EQ(Bin(Col(Type::kBoolean), std::string_view("\x01", 1)), "true");
  EXPECT_EQ(Bin(Col(Type::kBoolean), std::string_view("\x00", 1)), "false");
  EXPECT_EQ(Bin(Col(Type::kBoolean), std::string_view("\x02", 1)), "error: a BOOLEAN statistic is neither 0 nor 1");
  EXPECT_EQ(Bin(Col(Type::kByteArray), "\x01\xAB"), "{\"hex\":\"01ab\"}");
  ColumnDescriptor s = Col(Type::kByteArray);
  s.logical_type = LogicalType::Simple(LogicalType::Kind::kString);
  EXPECT_EQ(Bin(s, "a\"\n\xC3\xA9"), "\"a\\\"\\n\xC3\xA9\"");
  EXPECT_EQ(Bin(s, "ok\xFF"), "error: string value is not valid UTF-8 (byte 2 of the value)");
  ColumnDescriptor e = Col(Type::kByteArray);
  e.converted_type = ConvertedType::kEnum;
  EXPECT_EQ(Bin(e, "RED"), "\"RED\"");
  ColumnDescriptor f = Col(Type::kFixedLenByteArray);
  f.type_length = 2;
  f.logical_type = LogicalType::Simple(LogicalType::Kind::kString);  // only BYTE_ARRAY maps to strings
  EXPECT_EQ(Bin(f, "ab"), "{\"hex\":\"6162\"}");
  EXPECT_EQ(Bin(f, "abc"), "error: a 3-byte value does not fit the column's physical type");
  EXPECT_EQ(Plain(Col(Type::kInt32), int64_t{1}), "error: a 8-byte value does not fit the column's physical type");
}

TEST(ValueJson, RowObjectsSortKeysAndNestLists) {
  ColumnDescriptor b = Col(Type::kInt32);
  b.path = {"b"};
  b.max_definition_level = 1;
  ColumnDescriptor a = Col(Type::kDouble);
  a.path = {"a", "list", "element"};
  a.shape = ColumnShape::kList;
  DecodedColumn db;
  db.num_rows = 2;
  db.values.type = Type::kInt32;
  db.values.int32s = {5};
  db.row_valid = {0, 1};
  DecodedColumn da;
  da.num_rows = 2;
  da.values.type = Type::kDouble;
  da.values.doubles = {1.0, 2.5};
  da.list_offsets = {0, 3, 3};
  da.element_valid = {1, 0, 1};
  std::vector<ColumnDescriptor> cols = {b, a};
  std::vector<DecodedColumn> dec = {db, da};
  auto w = RowObjectWriter::Make(cols, dec);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::string out;
  while (w->rows_left() > 0) ASSERT_TRUE(w->AppendNext(&out).ok());
  EXPECT_EQ(out, "{\"a\":[1.0,null,2.5],\"b\":null}\n{\"a\":[],\"b\":5}\n");
  EXPECT_EQ(w->AppendNext(&out).code(), StatusCode::kOutOfRange);

  std::vector<ColumnDescriptor> dup = {b, b};
  std::vector<DecodedColumn> dupd = {db, db};
  EXPECT_EQ(RowObjectWriter::Make(dup, dupd).status().code(), StatusCode::kInvalidArgument);
  ColumnDescriptor other = b;
  other.shape = ColumnShape::kOther;
  EXPECT_EQ(RowJsonCursor::Make(other, db).status().code(), StatusCode::kUnimplemented);
}

// Skipping rows lands on the same value as formatting them: nulls, null
// elements and empty lists consume no values.
TEST(ValueJson, SkipMatchesAppendingEveryRow) {
  ColumnDescriptor a = Col(Type::kInt32);
  a.path = {"a", "list", "element"};
  a.shape = ColumnShape::kList;
  DecodedColumn da;
  da.num_rows = 5;
  da.values.type = Type::kInt32;
  da.values.int32s = {1, 2, 3, 4};
  da.row_valid = {1, 0, 1, 1, 1};
  da.list_offsets = {0, 2, 2, 4, 4, 6};
  da.element_valid = {1, 1, 0, 1, 1, 0};
  ColumnDescriptor b = Col(Type::kInt32);
  b.path = {"b"};
  b.max_definition_level = 1;
  DecodedColumn db;
  db.num_rows = 5;
  db.values.type = Type::kInt32;
  db.values.int32s = {7, 8, 9};
  db.row_valid = {0, 1, 0, 1, 1};
  for (auto [column, decoded] : {std::pair{&a, &da}, std::pair{&b, &db}}) {
    std::vector<std::string> rows;
    auto all = RowJsonCursor::Make(*column, *decoded);
    ASSERT_TRUE(all.ok());
    for (int r = 0; r < 5; ++r) {
      std::string v;
      ASSERT_TRUE(all->AppendNext(&v).ok());
      rows.push_back(v);
    }
    for (uint64_t skip = 0; skip < 5; ++skip) {
      auto c = RowJsonCursor::Make(*column, *decoded);
      ASSERT_TRUE(c->Skip(skip).ok());
      std::string v;
      ASSERT_TRUE(c->AppendNext(&v).ok());
      EXPECT_EQ(v, rows[skip]) << column->path[0] << " skip " << skip;
      EXPECT_EQ(c->Skip(5 - skip).code(), StatusCode::kOutOfRange);
      EXPECT_TRUE(c->Skip(4 - skip).ok());
    }
  }
}

}  // namespace
}  // namespace vigilo::parquet
