#include "rle_encoder.h"

#include <gtest/gtest.h>

#include <random>

#include "levels_reader.h"

namespace vigilo::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

std::vector<uint32_t> Decode(const Bytes& bytes, int width, size_t n) {
  std::vector<uint32_t> out(n);
  RleBitPackedDecoder d(bytes, width);
  Status st = d.Decode(std::span<uint32_t>(out));
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(d.offset(), bytes.size());
  return out;
}

TEST(BitWidth, Values) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(3), 2);
  EXPECT_EQ(BitWidth(4), 3);
  EXPECT_EQ(BitWidth(255), 8);
  EXPECT_EQ(BitWidth(0xffffffffu), 32);
}

TEST(RleEncode, LongRunIsOneRleRun) {
  std::vector<uint32_t> v(100, 5);
  Bytes out;
  RleEncode(v, 3, &out);
  // Header varint(100 << 1) = 0xc8 0x01, then the value in one byte.
  EXPECT_EQ(out, (Bytes{0xc8, 0x01, 0x05}));
  EXPECT_EQ(Decode(out, 3, v.size()), v);
}

TEST(RleEncode, ShortValuesAreBitPackedAndPadded) {
  std::vector<uint32_t> v = {0, 1, 2, 3, 4, 5, 6, 7, 1, 0};
  Bytes out;
  RleEncode(v, 3, &out);
  // Encodings.md's example values 0..7 at width 3: 0x88 0xc6 0xfa; then a padded group.
  ASSERT_GE(out.size(), 4u);
  EXPECT_EQ(out[0], (2 << 1) | 1);
  EXPECT_EQ(out[1], 0x88);
  EXPECT_EQ(out[2], 0xc6);
  EXPECT_EQ(out[3], 0xfa);
  EXPECT_EQ(out.size(), 1u + 2 * 3);
  EXPECT_EQ(Decode(out, 3, v.size()), v);
}

TEST(RleEncode, MixedRunsRoundTrip) {
  std::mt19937 rng(7);
  for (int width : {1, 2, 5, 8, 13, 20, 32}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<uint32_t> v;
      size_t n = rng() % 300;
      uint64_t limit = width == 32 ? 0x100000000ull : (1ull << width);
      while (v.size() < n) {
        auto value = static_cast<uint32_t>(rng() % limit);
        size_t run = rng() % 3 == 0 ? rng() % 40 : 1;
        for (size_t k = 0; k < run && v.size() < n; ++k) v.push_back(value);
      }
      Bytes out;
      RleEncode(v, width, &out);
      EXPECT_EQ(Decode(out, width, v.size()), v) << width;
    }
  }
}

TEST(RleEncode, EmptyInputWritesNothing) {
  Bytes out;
  RleEncode(std::span<const uint32_t>(), 4, &out);
  EXPECT_TRUE(out.empty());
}

TEST(RleEncodeWithLength, PrefixIsTheByteLength) {
  std::vector<uint8_t> levels = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1};
  Bytes out = {0xaa};
  RleEncodeWithLength(levels, 1, &out);
  ASSERT_GE(out.size(), 5u);
  uint32_t len = out[1] | out[2] << 8 | out[3] << 16 | static_cast<uint32_t>(out[4]) << 24;
  EXPECT_EQ(len, out.size() - 5);
  std::vector<uint16_t> decoded(levels.size());
  size_t consumed = 0;
  ASSERT_TRUE(DecodeLevels(std::span<const uint8_t>(out).subspan(1), true, 1, decoded, &consumed).ok());
  EXPECT_EQ(consumed, out.size() - 1);
  for (size_t i = 0; i < levels.size(); ++i) EXPECT_EQ(decoded[i], levels[i]);
}

}  // namespace
}  // namespace vigilo::parquet
