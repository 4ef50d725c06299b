// Codec round trips and hostile compressed input: wrong sizes, corruption and
// truncation must be errors, never overruns (run under ASan too).
#include <gtest/gtest.h>

#include <random>

#include "vigilo/parquet/compression.h"

namespace vigilo::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Sample(size_t n) {
  Bytes out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>((i * 7) % 13 + (i / 100));
  return out;
}

class CodecTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(CodecTest, RoundTripsExactly) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{70000}}) {
    Bytes data = Sample(n);
    auto packed = Compress(GetParam(), data);
    ASSERT_TRUE(packed.ok()) << packed.status().ToString();
    auto unpacked = Decompress(GetParam(), *packed, n);
    ASSERT_TRUE(unpacked.ok()) << n << ": " << unpacked.status().ToString();
    EXPECT_EQ(*unpacked, data) << n;
  }
}

TEST_P(CodecTest, WrongDeclaredSizeIsInvalidFormat) {
  Bytes data = Sample(1000);
  Bytes packed = *Compress(GetParam(), data);
  for (uint64_t declared : {uint64_t{999}, uint64_t{1001}, uint64_t{0}}) {
    auto r = Decompress(GetParam(), packed, declared);
    ASSERT_FALSE(r.ok()) << declared;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat) << declared << ": " << r.status().ToString();
  }
}

TEST_P(CodecTest, EveryTruncationFails) {
  Bytes data = Sample(3000);
  Bytes packed = *Compress(GetParam(), data);
  for (size_t k = 0; k < packed.size(); ++k) {
    auto r = Decompress(GetParam(), std::span(packed).first(k), data.size());
    EXPECT_FALSE(r.ok()) << k;
  }
}

TEST_P(CodecTest, BitFlipsNeverOverrun) {
  Bytes data = Sample(2000);
  Bytes packed = *Compress(GetParam(), data);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    Bytes m = packed;
    m[rng() % m.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    auto r = Decompress(GetParam(), m, data.size());
    if (r.ok()) {
      EXPECT_EQ(r->size(), data.size());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, CodecTest,
                         ::testing::Values(CompressionCodec::kUncompressed, CompressionCodec::kSnappy,
                                           CompressionCodec::kGzip, CompressionCodec::kZstd),
                         [](const ::testing::TestParamInfo<CompressionCodec>& p) { return CompressionCodecName(p.param); });

TEST(Compression, SnappyPreambleIsCheckedBeforeDecoding) {
  Bytes packed = *Compress(CompressionCodec::kSnappy, Sample(100));
  auto r = Decompress(CompressionCodec::kSnappy, packed, 50);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "SNAPPY data decompresses to 100 bytes, the page header says 50");
}

TEST(Compression, ZstdTooLargeOutput) {
  Bytes packed = *Compress(CompressionCodec::kZstd, Sample(100));
  auto r = Decompress(CompressionCodec::kZstd, packed, 99);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat);
}

TEST(Compression, ConcatenatedGzipMembersAndZlibStreamsDecode) {
  Bytes a = Sample(300);
  Bytes b = Sample(200);
  Bytes packed = *Compress(CompressionCodec::kGzip, a);
  Bytes second = *Compress(CompressionCodec::kGzip, b);
  packed.insert(packed.end(), second.begin(), second.end());
  auto r = Decompress(CompressionCodec::kGzip, packed, 500);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Bytes want = a;
  want.insert(want.end(), b.begin(), b.end());
  EXPECT_EQ(*r, want);
}

TEST(Compression, GzipTrailingGarbageIsAParseError) {
  Bytes packed = *Compress(CompressionCodec::kGzip, Sample(300));
  packed.push_back(0x42);
  auto r = Decompress(CompressionCodec::kGzip, packed, 300);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kParseError) << r.status().ToString();
}

TEST(Compression, UnsupportedCodecsAreUnimplemented) {
  for (auto codec : {CompressionCodec::kLzo, CompressionCodec::kBrotli, CompressionCodec::kLz4,
                     CompressionCodec::kLz4Raw, static_cast<CompressionCodec>(99)}) {
    auto d = Decompress(codec, Bytes{1, 2, 3}, 3);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.status().code(), StatusCode::kUnimplemented);
    auto c = Compress(codec, Bytes{1, 2, 3});
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kUnimplemented);
  }
  EXPECT_EQ(CompressionCodecName(static_cast<CompressionCodec>(99)), "codec 99");
}

TEST(Compression, HugeDeclaredSizeIsRefusedBeforeAllocating) {
  auto r = Decompress(CompressionCodec::kZstd, Bytes{1}, uint64_t{1} << 40);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kLimitExceeded);
}

}  // namespace
}  // namespace vigilo::parquet
