// The RLE/bit-packed hybrid decoder and bit unpacking, on hand-encoded bytes.
#include <gtest/gtest.h>

#include <random>

#include "levels_reader.h"

namespace vigilo::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

// LSB-first packing of `values` at `width` bits (the reference encoder).
Bytes Pack(const std::vector<uint64_t>& values, int width) {
  Bytes out((values.size() * static_cast<size_t>(width) + 7) / 8, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    for (int b = 0; b < width; ++b) {
      if ((values[i] >> b) & 1) {
        size_t bit = i * static_cast<size_t>(width) + static_cast<size_t>(b);
        out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
      }
    }
  }
  return out;
}

TEST(BitWidth, ForMaxValues) {
  EXPECT_EQ(BitWidthFor(0), 0);
  EXPECT_EQ(BitWidthFor(1), 1);
  EXPECT_EQ(BitWidthFor(2), 2);
  EXPECT_EQ(BitWidthFor(3), 2);
  EXPECT_EQ(BitWidthFor(4), 3);
  EXPECT_EQ(BitWidthFor(UINT64_MAX), 64);
}

TEST(UnpackBits, EveryWidthMatchesTheReferencePacking) {
  std::mt19937_64 rng(1);
  for (int width = 0; width <= 64; ++width) {
    std::vector<uint64_t> values(77);
    for (auto& v : values) v = width == 64 ? rng() : (width == 0 ? 0 : rng() & ((uint64_t{1} << width) - 1));
    Bytes packed = Pack(values, width);
    std::vector<uint64_t> got(values.size());
    UnpackBits(packed, width, values.size(), got.data());
    EXPECT_EQ(got, values) << width;
    if (width <= 32) {
      std::vector<uint32_t> got32(values.size());
      UnpackBits(packed, width, values.size(), got32.data());
      for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(got32[i], values[i]) << width << " " << i;
    }
  }
}

TEST(RleBitPacked, RleAndBitPackedRunsMix) {
  // RLE run of 5 x value 3 (width 2: 1 value byte), then one bit-packed group
  // of 8 values 0..3,0..3, then an RLE run of 2 x 1.
  Bytes stream = {5 << 1, 3, (1 << 1) | 1};
  Bytes packed = Pack({0, 1, 2, 3, 0, 1, 2, 3}, 2);
  stream.insert(stream.end(), packed.begin(), packed.end());
  stream.push_back(2 << 1);
  stream.push_back(1);
  std::vector<uint32_t> out(15);
  RleBitPackedDecoder d(stream, 2);
  ASSERT_TRUE(d.Decode(out).ok());
  EXPECT_EQ(out, (std::vector<uint32_t>{3, 3, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3, 1, 1}));
  EXPECT_EQ(d.offset(), stream.size());
}

TEST(RleBitPacked, DecodesAcrossCallsMidGroup) {
  std::vector<uint64_t> values;
  for (uint64_t i = 0; i < 24; ++i) values.push_back((i * 5) % 8);
  Bytes stream = {(3 << 1) | 1};
  Bytes packed = Pack(values, 3);
  stream.insert(stream.end(), packed.begin(), packed.end());
  RleBitPackedDecoder d(stream, 3);
  std::vector<uint16_t> a(5), b(11), c(8);
  ASSERT_TRUE(d.Decode(a).ok());
  ASSERT_TRUE(d.Decode(b).ok());
  ASSERT_TRUE(d.Decode(c).ok());
  std::vector<uint16_t> all(a);
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(all[i], values[i]) << i;
}

TEST(RleBitPacked, TruncatedFinalGroupIsAcceptedWhenTheValuesArePresent) {
  // One group declared (8 values x 4 bits = 4 bytes) but only the first 3
  // values needed, and only 2 bytes present.
  Bytes stream = {(1 << 1) | 1, 0x21, 0x03};
  std::vector<uint32_t> out(3);
  RleBitPackedDecoder d(stream, 4);
  ASSERT_TRUE(d.Decode(out).ok());
  EXPECT_EQ(out, (std::vector<uint32_t>{1, 2, 3}));
  std::vector<uint32_t> more(2);
  Status st = d.Decode(more);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "bit-packed run is truncated");
}

TEST(RleBitPacked, ErrorsNameTheProblem) {
  std::vector<uint32_t> out(4);
  {
    Bytes b = {4 << 1};  // run value missing
    RleBitPackedDecoder d(b, 8);
    Status st = d.Decode(out);
    EXPECT_EQ(st.code(), StatusCode::kParseError);
    EXPECT_EQ(st.message(), "RLE/bit-packed stream ends inside a run value");
    EXPECT_EQ(st.offset(), 1u);
  }
  {
    Bytes b = {2 << 1, 7};  // only 2 of 4 values
    RleBitPackedDecoder d(b, 8);
    Status st = d.Decode(out);
    EXPECT_EQ(st.message(), "RLE/bit-packed stream ends inside a run header");
    EXPECT_EQ(st.offset(), 2u);
  }
  {
    Bytes b = {4 << 1, 9};  // 9 needs 4 bits
    RleBitPackedDecoder d(b, 3);
    Status st = d.Decode(out);
    EXPECT_EQ(st.message(), "RLE run value 9 does not fit 3 bits");
  }
  {
    Bytes b = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    RleBitPackedDecoder d(b, 3);
    EXPECT_EQ(d.Decode(out).message(), "RLE/bit-packed run header is too long");
  }
}

TEST(RleBitPacked, ZeroWidthRunsNeedNoValueBytes) {
  std::vector<uint32_t> out(1000, 7);
  Bytes b = {0xd0, 0x0f};  // run of 1000 (varint 2000)
  RleBitPackedDecoder d(b, 0);
  ASSERT_TRUE(d.Decode(out).ok());
  EXPECT_EQ(out, std::vector<uint32_t>(1000, 0));
}

TEST(DecodeLevels, LengthPrefixedV1) {
  Bytes page = {3, 0, 0, 0, 3 << 1, 1, 0, 0xEE};  // 3 levels of 1, then the values
  std::vector<uint16_t> out(3);
  size_t consumed = 0;
  ASSERT_TRUE(DecodeLevels(page, true, 1, out, &consumed).ok());
  EXPECT_EQ(out, (std::vector<uint16_t>{1, 1, 1}));
  EXPECT_EQ(consumed, 7u);
}

TEST(DecodeLevels, LengthBeyondThePageIsAParseError) {
  Bytes page = {9, 0, 0, 0, 2, 1};
  std::vector<uint16_t> out(1);
  size_t consumed = 0;
  Status st = DecodeLevels(page, true, 1, out, &consumed);
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.message(), "levels length 9 exceeds the 2 bytes left in the page");
}

TEST(DecodeLevels, LevelAboveTheMaximumIsInvalidFormat) {
  Bytes stream = {2 << 1, 3};  // width 2 allows 3, max_level is 2
  std::vector<uint16_t> out(2);
  size_t consumed = 0;
  Status st = DecodeLevels(stream, false, 2, out, &consumed);
  EXPECT_EQ(st.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(st.message(), "level 3 exceeds the maximum 2 (value 0)");
}

TEST(DecodeLevels, OffsetsIncludeThePrefix) {
  Bytes page = {1, 0, 0, 0, 4 << 1};  // run header, value byte missing
  std::vector<uint16_t> out(4);
  size_t consumed = 0;
  Status st = DecodeLevels(page, true, 1, out, &consumed);
  EXPECT_EQ(st.offset(), 5u);
}

}  // namespace
}  // namespace vigilo::parquet
