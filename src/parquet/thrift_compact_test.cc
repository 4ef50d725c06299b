#include "vigilo/parquet/thrift_compact.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace vigilo::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Finish(CompactWriter& w) {
  auto r = std::move(w).Finish();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Bytes{};
}

TEST(CompactVarint, EdgeValuesRoundTripWithMinimalLength) {
  const std::pair<uint64_t, size_t> cases[] = {
      {0, 1},
      {1, 1},
      {127, 1},
      {128, 2},
      {16383, 2},
      {16384, 3},
      {(1ull << 32) - 1, 5},
      {1ull << 35, 6},
      {1ull << 63, 10},
      {std::numeric_limits<uint64_t>::max(), 10},
  };
  for (auto [value, length] : cases) {
    CompactWriter w;
    w.WriteVarint(value);
    Bytes b = Finish(w);
    EXPECT_EQ(b.size(), length) << value;
    CompactReader r(b);
    auto got = r.ReadVarint64();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, value);
    EXPECT_EQ(r.remaining(), 0u);
  }
}

TEST(CompactVarint, SpecExample) {
  CompactWriter w;
  w.WriteVarint(50399);
  EXPECT_EQ(Finish(w), (Bytes{0xdf, 0x89, 0x03}));
}

TEST(CompactVarint, RejectsOverflowAndTruncation) {
  // Ten bytes whose last carries more than bit 63.
  Bytes over(9, 0xff);
  over.push_back(0x02);
  EXPECT_EQ(CompactReader(over).ReadVarint64().status().code(), StatusCode::kParseError);
  // Eleven bytes: the cap is ten.
  Bytes longer(10, 0x80);
  longer.push_back(0x00);
  EXPECT_EQ(CompactReader(longer).ReadVarint64().status().code(), StatusCode::kParseError);
  // Truncated in the middle; the offset says where input ran out.
  Bytes cut = {0x80, 0x80};
  auto st = CompactReader(cut).ReadVarint64().status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.offset(), 2u);
  // 32-bit: the fifth byte may carry only 4 bits.
  Bytes over32 = {0xff, 0xff, 0xff, 0xff, 0x10};
  EXPECT_FALSE(CompactReader(over32).ReadVarint32().ok());
  Bytes max32 = {0xff, 0xff, 0xff, 0xff, 0x0f};
  auto m = CompactReader(max32).ReadVarint32();
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, UINT32_MAX);
  Bytes long32 = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  EXPECT_FALSE(CompactReader(long32).ReadVarint32().ok());
}

TEST(CompactZigzag, I32EdgeValues) {
  const std::pair<int32_t, uint64_t> cases[] = {
      {0, 0}, {-1, 1}, {1, 2}, {-2, 3}, {2, 4}, {INT32_MAX, 0xfffffffe}, {INT32_MIN, 0xffffffff},
  };
  for (auto [value, zigzag] : cases) {
    CompactWriter w;
    w.WriteI32(value);
    Bytes b = Finish(w);
    EXPECT_EQ(*CompactReader(b).ReadVarint64(), zigzag) << value;
    auto got = CompactReader(b).ReadI32();
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, value);
  }
}

TEST(CompactZigzag, I64AndI16EdgeValues) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1} << 40, -(int64_t{1} << 40), INT64_MAX, INT64_MIN}) {
    CompactWriter w;
    w.WriteI64(v);
    Bytes b = Finish(w);
    auto got = CompactReader(b).ReadI64();
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, v);
  }
  for (int16_t v : {int16_t{0}, int16_t{-1}, int16_t{INT16_MAX}, int16_t{INT16_MIN}}) {
    CompactWriter w;
    w.WriteI16(v);
    Bytes b = Finish(w);
    auto got = CompactReader(b).ReadI16();
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, v);
  }
  CompactWriter w;
  w.WriteI32(INT16_MAX + 1);
  Bytes b = Finish(w);
  EXPECT_EQ(CompactReader(b).ReadI16().status().code(), StatusCode::kParseError);
}

TEST(CompactScalars, DoubleIsLittleEndianAndBitExact) {
  CompactWriter w;
  w.WriteDouble(1.0);
  w.WriteDouble(-0.0);
  w.WriteDouble(std::bit_cast<double>(uint64_t{0x7ff8000000000123}));
  Bytes b = Finish(w);
  ASSERT_EQ(b.size(), 24u);
  EXPECT_EQ(Bytes(b.begin(), b.begin() + 8), (Bytes{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  CompactReader r(b);
  EXPECT_EQ(*r.ReadDouble(), 1.0);
  EXPECT_TRUE(std::signbit(*r.ReadDouble()));
  EXPECT_EQ(std::bit_cast<uint64_t>(*r.ReadDouble()), 0x7ff8000000000123u);
  EXPECT_FALSE(r.ReadDouble().ok());
}

TEST(CompactScalars, BinaryLengthIsCheckedBeforeReading) {
  CompactWriter w;
  w.WriteString("hello");
  Bytes b = Finish(w);
  EXPECT_EQ(*CompactReader(b).ReadString(), "hello");
  b.pop_back();
  auto st = CompactReader(b).ReadString().status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_NE(st.message().find("truncated"), std::string_view::npos) << st.ToString();
  // A length of 2^32-1 (above i32) in five bytes.
  Bytes huge = {0xff, 0xff, 0xff, 0xff, 0x0f, 'x'};
  EXPECT_EQ(CompactReader(huge).ReadBinary().status().code(), StatusCode::kParseError);
  // A length of 2^31-1 with one byte behind it.
  Bytes big = {0xff, 0xff, 0xff, 0xff, 0x07, 'x'};
  EXPECT_EQ(CompactReader(big).ReadBinary().status().code(), StatusCode::kParseError);
}

TEST(CompactScalars, BoolElements) {
  Bytes b = {0, 1, 2, 3};
  CompactReader r(b);
  EXPECT_FALSE(*r.ReadBoolElement());
  EXPECT_TRUE(*r.ReadBoolElement());
  EXPECT_FALSE(*r.ReadBoolElement());  // what the Java/C++ libraries write for false
  EXPECT_FALSE(r.ReadBoolElement().ok());
}

TEST(CompactFieldHeader, ShortAndLongForms) {
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);  // delta 1: short
  w.WriteI32(5);
  w.WriteFieldHeader(CompactType::kI32, 16);  // delta 15: short
  w.WriteI32(6);
  w.WriteFieldHeader(CompactType::kI64, 32);  // delta 16: long
  w.WriteI64(7);
  w.WriteFieldHeader(CompactType::kI32, 3);  // backwards: long
  w.WriteI32(8);
  w.WriteBoolField(4, true);    // value in the header
  w.WriteBoolField(-7, false);  // negative id: long
  w.EndStruct();
  Bytes b = Finish(w);
  EXPECT_EQ(b, (Bytes{0x15, 0x0a, 0xf5, 0x0c, 0x06, 0x40, 0x0e, 0x05, 0x06, 0x10, 0x11, 0x02, 0x0d, 0x00}));

  CompactReader r(b);
  ASSERT_TRUE(r.BeginStruct().ok());
  const std::pair<CompactType, int16_t> want[] = {
      {CompactType::kI32, 1}, {CompactType::kI32, 16},     {CompactType::kI64, 32},
      {CompactType::kI32, 3}, {CompactType::kBoolTrue, 4}, {CompactType::kBoolFalse, -7},
  };
  for (auto [type, id] : want) {
    auto h = r.ReadFieldHeader();
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    EXPECT_EQ(h->type, type);
    EXPECT_EQ(h->id, id);
    ASSERT_TRUE(r.SkipField(h->type).ok());
  }
  auto stop = r.ReadFieldHeader();
  ASSERT_TRUE(stop.ok());
  EXPECT_TRUE(stop->is_stop());
  r.EndStruct();
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactFieldHeader, RejectsBadTypesAndIdOverflow) {
  for (uint8_t b : {uint8_t{0x1e}, uint8_t{0x1f}, uint8_t{0x10}}) {
    Bytes bytes = {b, 0};
    CompactReader r(bytes);
    ASSERT_TRUE(r.BeginStruct().ok());
    auto st = r.ReadFieldHeader().status();
    EXPECT_EQ(st.code(), StatusCode::kParseError) << int{b};
    EXPECT_EQ(st.offset(), 0u);
  }
  // Long-form id 32767, then a delta of 1 would be 32768.
  CompactWriter w;
  w.BeginStruct();
  w.WriteBoolField(INT16_MAX, true);
  Bytes bytes = w.bytes();
  bytes.push_back(0x11);
  CompactReader r(bytes);
  ASSERT_TRUE(r.BeginStruct().ok());
  ASSERT_TRUE(r.ReadFieldHeader().ok());
  EXPECT_EQ(r.ReadFieldHeader().status().code(), StatusCode::kParseError);
}

TEST(CompactFieldHeader, IdsArePerNestingLevel) {
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kStruct, 5);
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI8, 1);  // delta from 0 inside, not from 5
  w.WriteI8(-3);
  w.EndStruct();
  w.WriteFieldHeader(CompactType::kI8, 6);  // delta 1 from the outer 5
  w.WriteI8(4);
  w.EndStruct();
  Bytes b = Finish(w);
  EXPECT_EQ(b, (Bytes{0x5c, 0x13, 0xfd, 0x00, 0x13, 0x04, 0x00}));
  CompactReader r(b);
  ASSERT_TRUE(r.BeginStruct().ok());
  EXPECT_EQ(r.ReadFieldHeader()->id, 5);
  ASSERT_TRUE(r.BeginStruct().ok());
  EXPECT_EQ(r.ReadFieldHeader()->id, 1);
  EXPECT_EQ(*r.ReadI8(), -3);
  EXPECT_TRUE(r.ReadFieldHeader()->is_stop());
  r.EndStruct();
  EXPECT_EQ(r.ReadFieldHeader()->id, 6);
}

TEST(CompactContainers, ListHeaderForms) {
  CompactWriter w;
  w.WriteListHeader(CompactType::kI32, 14);
  w.WriteListHeader(CompactType::kBinary, 15);
  w.WriteListHeader(CompactType::kStruct, 300);
  Bytes b = Finish(w);
  EXPECT_EQ(b, (Bytes{0xe5, 0xf8, 0x0f, 0xfc, 0xac, 0x02}));
  b.resize(b.size() + 300, 0);  // room for the elements the sizes promise
  CompactReader r(b);
  auto h1 = r.ReadListHeader();
  auto h2 = r.ReadListHeader();
  auto h3 = r.ReadListHeader();
  ASSERT_TRUE(h1.ok() && h2.ok() && h3.ok());
  EXPECT_EQ(h1->size, 14u);
  EXPECT_EQ(h2->element_type, CompactType::kBinary);
  EXPECT_EQ(h2->size, 15u);
  EXPECT_EQ(h3->size, 300u);
}

TEST(CompactContainers, SizeBombsFailBeforeAnyElement) {
  // list<i32> claiming 2^31-1 elements, in 6 bytes.
  Bytes list = {0xf5, 0xff, 0xff, 0xff, 0xff, 0x07};
  auto st = CompactReader(list).ReadListHeader().status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.offset(), 0u);
  // list<double> of 2 needs 16 bytes, 15 given.
  Bytes doubles = {0x27};
  doubles.resize(16, 0);
  EXPECT_FALSE(CompactReader(doubles).ReadListHeader().ok());
  doubles.push_back(0);
  EXPECT_TRUE(CompactReader(doubles).ReadListHeader().ok());
  // map<binary,binary> of 2^31-1 entries.
  Bytes map = {0xff, 0xff, 0xff, 0xff, 0x07, 0x88, 0, 0};
  EXPECT_FALSE(CompactReader(map).ReadMapHeader().ok());
  // Sizes above 2^31-1 are negative i32s.
  Bytes neg = {0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f};
  EXPECT_FALSE(CompactReader(neg).ReadListHeader().ok());
  // Element type 0 is not a type.
  Bytes zero = {0x10, 0};
  EXPECT_FALSE(CompactReader(zero).ReadListHeader().ok());
}

TEST(CompactContainers, EmptyListOfNoTypeIsEmpty) {
  // hyparquet-writer's 0-row files hold row_groups as 0x00: size 0, type 0.
  Bytes empty = {0x00};
  auto h = CompactReader(empty).ReadListHeader();
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->size, 0u);
  // Type 0 with one element, or with a size in the varint form, stays refused.
  auto one = CompactReader(Bytes{0x10, 0}).ReadListHeader();
  EXPECT_EQ(one.status().ToString(), "parse_error: thrift: invalid list element type 0 (at byte 0)");
  EXPECT_FALSE(CompactReader(Bytes{0xf0, 0x00}).ReadListHeader().ok());
}

TEST(CompactContainers, WriterRefusesOversizedLengthsWithoutAllocating) {
  CompactWriter w;
  w.WriteListHeader(CompactType::kI32, size_t{1} << 31);
  EXPECT_EQ(w.status().code(), StatusCode::kLimitExceeded);
  w.WriteI32(1);  // ignored after the first error
  EXPECT_TRUE(w.bytes().empty());
  EXPECT_FALSE(std::move(w).Finish().ok());
}

TEST(CompactWriter, UnbalancedStructsAreAnError) {
  CompactWriter open;
  open.BeginStruct();
  EXPECT_EQ(std::move(open).Finish().status().code(), StatusCode::kInternal);
  CompactWriter extra;
  extra.EndStruct();
  EXPECT_EQ(std::move(extra).Finish().status().code(), StatusCode::kInternal);
}

// One struct holding a field of every type, then a sentinel field 100.
Bytes EveryTypeStruct() {
  CompactWriter w;
  w.BeginStruct();
  w.WriteBoolField(1, true);
  w.WriteBoolField(2, false);
  w.WriteFieldHeader(CompactType::kI8, 3);
  w.WriteI8(-1);
  w.WriteFieldHeader(CompactType::kI16, 4);
  w.WriteI16(-300);
  w.WriteFieldHeader(CompactType::kI32, 5);
  w.WriteI32(1 << 30);
  w.WriteFieldHeader(CompactType::kI64, 6);
  w.WriteI64(INT64_MIN);
  w.WriteFieldHeader(CompactType::kDouble, 7);
  w.WriteDouble(3.5);
  w.WriteFieldHeader(CompactType::kBinary, 8);
  w.WriteString("bytes");
  w.WriteFieldHeader(CompactType::kList, 9);
  w.WriteListHeader(CompactType::kI32, 20);
  for (int i = 0; i < 20; ++i) w.WriteI32(-i);
  w.WriteFieldHeader(CompactType::kSet, 10);
  w.WriteListHeader(CompactType::kBinary, 2);
  w.WriteString("a");
  w.WriteString("bc");
  w.WriteFieldHeader(CompactType::kMap, 11);
  w.WriteMapHeader(CompactType::kBinary, CompactType::kStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.WriteString("k");
    w.BeginStruct();
    w.WriteFieldHeader(CompactType::kList, 1);
    w.WriteListHeader(CompactType::kStruct, 1);
    w.BeginStruct();
    w.WriteBoolField(1, true);
    w.EndStruct();
    w.EndStruct();
  }
  w.WriteFieldHeader(CompactType::kMap, 12);
  w.WriteMapHeader(CompactType::kI32, CompactType::kI32, 0);
  w.WriteFieldHeader(CompactType::kUuid, 13);
  for (int i = 0; i < 16; ++i) w.WriteI8(static_cast<int8_t>(i));
  w.WriteFieldHeader(CompactType::kList, 14);
  w.WriteListHeader(CompactType::kBoolTrue, 3);
  w.WriteBoolElement(true);
  w.WriteBoolElement(false);
  w.WriteBoolElement(true);
  w.WriteFieldHeader(CompactType::kStruct, 15);
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kDouble, 1);
  w.WriteDouble(1.0);
  w.EndStruct();
  w.WriteFieldHeader(CompactType::kList, 16);
  w.WriteListHeader(CompactType::kList, 2);
  w.WriteListHeader(CompactType::kDouble, 1);
  w.WriteDouble(2.0);
  w.WriteListHeader(CompactType::kUuid, 0);
  w.WriteFieldHeader(CompactType::kI32, 100);
  w.WriteI32(424242);
  w.EndStruct();
  return Finish(w);
}

TEST(CompactSkip, SkipsEveryType) {
  Bytes b = EveryTypeStruct();
  CompactReader r(b);
  ASSERT_TRUE(r.BeginStruct().ok());
  int skipped = 0;
  while (true) {
    auto h = r.ReadFieldHeader();
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    if (h->is_stop()) break;
    if (h->id == 100) {
      EXPECT_EQ(*r.ReadI32(), 424242);
      continue;
    }
    ASSERT_TRUE(r.SkipField(h->type).ok()) << "field " << h->id;
    ++skipped;
  }
  r.EndStruct();
  EXPECT_EQ(skipped, 16);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(r.depth(), 0);
}

TEST(CompactSkip, SkippingAWholeStructAndEveryTruncation) {
  Bytes b = EveryTypeStruct();
  CompactReader whole(b);
  ASSERT_TRUE(whole.SkipField(CompactType::kStruct).ok());
  EXPECT_EQ(whole.remaining(), 0u);
  for (size_t n = 0; n < b.size(); ++n) {
    CompactReader r(std::span<const uint8_t>(b.data(), n));
    auto st = r.SkipField(CompactType::kStruct);
    EXPECT_EQ(st.code(), StatusCode::kParseError) << n;
    ASSERT_TRUE(st.offset().has_value());
    EXPECT_LE(*st.offset(), n);
  }
}

TEST(CompactSkip, DepthBombs) {
  // 1000 nested structs, each field 1 of the one outside.
  Bytes structs(1000, 0x1c);
  auto st = CompactReader(structs).SkipField(CompactType::kStruct);
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_NE(st.message().find("nesting"), std::string_view::npos) << st.ToString();
  // 1000 nested one-element lists of lists.
  Bytes lists(1000, 0x19);
  EXPECT_NE(CompactReader(lists).SkipField(CompactType::kList).message().find("nesting"), std::string_view::npos);
  // Maps of maps: size 1, key i8, value map.
  Bytes maps;
  for (int i = 0; i < 1000; ++i) maps.insert(maps.end(), {0x01, 0x3b, 0x00});
  EXPECT_NE(CompactReader(maps).SkipField(CompactType::kMap).message().find("nesting"), std::string_view::npos);
  // Exactly at the limit is fine.
  Bytes ok(kMaxNestingDepth - 1, 0x1c);
  ok.insert(ok.end(), kMaxNestingDepth, 0x00);
  CompactReader r(ok);
  EXPECT_TRUE(r.SkipField(CompactType::kStruct).ok());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactSkip, StopIsNotAValue) {
  Bytes b = {0};
  EXPECT_FALSE(CompactReader(b).SkipField(CompactType::kStop).ok());
}

}  // namespace
}  // namespace vigilo::parquet
