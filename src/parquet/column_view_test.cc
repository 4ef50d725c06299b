// ViewFixedWidthChunk: the runs it gives are exactly the values the full
// decoder gives, and it declines every chunk it cannot vouch for, including
// each one the decoder rejects.
#include "vigilo/parquet/column_view.h"

#include <gtest/gtest.h>

#include "reader_test_pages.h"

namespace vigilo::parquet {
namespace {

using namespace vigilo::parquet::testing;  // NOLINT

ColumnDescriptor Required(Type type, int32_t type_length = 0) {
  ColumnDescriptor c;
  c.path = {"x"};
  c.type = type;
  c.type_length = type_length;
  return c;
}

ColumnMetaData Meta(Type type, int64_t num_values, CompressionCodec codec = CompressionCodec::kUncompressed) {
  ColumnMetaData m;
  m.type = type;
  m.path_in_schema = {"x"};
  m.codec = codec;
  m.num_values = num_values;
  return m;
}

// The runs' values back to back (each `width` bytes).
Bytes Flatten(const std::vector<ValueRun>& runs, size_t width) {
  Bytes out;
  for (const ValueRun& run : runs) {
    for (size_t i = 0; i < run.count; ++i) out.insert(out.end(), run.first + i * run.stride, run.first + i * run.stride + width);
  }
  return out;
}

// The decoder's values as the same bytes.
Bytes Decoded(const ColumnDescriptor& c, const ColumnMetaData& m, const Bytes& chunk) {
  auto d = DecodeColumnChunkBytes(c, m, chunk);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (!d.ok()) return {};
  const ColumnValues& v = d->values;
  auto raw = [](const auto& vec) {
    const auto* p = reinterpret_cast<const uint8_t*>(vec.data());
    return Bytes(p, p + vec.size() * sizeof(vec[0]));
  };
  switch (c.type) {
    case Type::kFloat: return raw(v.floats);
    case Type::kInt32: return raw(v.int32s);
    case Type::kDouble: return raw(v.doubles);
    case Type::kInt64: return raw(v.int64s);
    default: return v.binary;
  }
}

void ExpectSameAsDecoder(const ColumnDescriptor& c, const ColumnMetaData& m, const Bytes& chunk, size_t width,
                         size_t want_runs) {
  std::vector<ValueRun> runs;
  ASSERT_TRUE(ViewFixedWidthChunk(c, m, chunk, width, runs));
  EXPECT_EQ(runs.size(), want_runs);
  for (const ValueRun& run : runs) {
    EXPECT_GE(run.first, chunk.data());
    EXPECT_LE(run.first + (run.count - 1) * run.stride + width, chunk.data() + chunk.size());
  }
  EXPECT_EQ(Flatten(runs, width), Decoded(c, m, chunk));
}

TEST(ViewFixedWidthChunk, FloatsOverV1AndV2PagesAreTheDecodersValues) {
  const ColumnDescriptor c = Required(Type::kFloat);
  Bytes chunk = Concat({
      DataPageV1(3, Encoding::kPlain, Plain(std::vector<float>{1.5f, -2.0f, 3.25f}), WithCodec(CompressionCodec::kUncompressed, true)),
      DataPageV1(0, Encoding::kPlain, {}),
      DataPageV2(2, 0, 2, Encoding::kPlain, {}, {}, Plain(std::vector<float>{7.0f, 1e-30f})),
  });
  ExpectSameAsDecoder(c, Meta(Type::kFloat, 5), chunk, 4, 2);  // the empty page gives no run
}

TEST(ViewFixedWidthChunk, EveryFixedWidthType) {
  ExpectSameAsDecoder(Required(Type::kInt32), Meta(Type::kInt32, 3),
                      DataPageV1(3, Encoding::kPlain, Plain(std::vector<int32_t>{-1, 0, INT32_MAX})), 4, 1);
  ExpectSameAsDecoder(Required(Type::kInt64), Meta(Type::kInt64, 2),
                      DataPageV1(2, Encoding::kPlain, Plain(std::vector<int64_t>{INT64_MIN, 42})), 8, 1);
  ExpectSameAsDecoder(Required(Type::kDouble), Meta(Type::kDouble, 2),
                      DataPageV1(2, Encoding::kPlain, Plain(std::vector<double>{0.1, -1e300})), 8, 1);
  ExpectSameAsDecoder(Required(Type::kFixedLenByteArray, 3), Meta(Type::kFixedLenByteArray, 2),
                      DataPageV1(2, Encoding::kPlain, Bytes{1, 2, 3, 4, 5, 6}), 3, 1);
}

TEST(ViewFixedWidthChunk, ByteArraysOfOneLengthAreReadBehindTheirLengths) {
  const ColumnDescriptor c = Required(Type::kByteArray);
  Bytes chunk = Concat({
      DataPageV1(2, Encoding::kPlain, PlainStrings({"abc", "def"}), WithCodec(CompressionCodec::kUncompressed, true)),
      DataPageV1(1, Encoding::kPlain, PlainStrings({"ghi"})),
  });
  std::vector<ValueRun> runs;
  ASSERT_TRUE(ViewFixedWidthChunk(c, Meta(Type::kByteArray, 3), chunk, 3, runs));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].stride, 7u);
  EXPECT_EQ(runs[0].count, 2u);
  ExpectSameAsDecoder(c, Meta(Type::kByteArray, 3), chunk, 3, 2);
  // Zero-length values are fixed width too.
  ExpectSameAsDecoder(c, Meta(Type::kByteArray, 2), DataPageV1(2, Encoding::kPlain, PlainStrings({"", ""})), 0, 1);
}

TEST(ViewFixedWidthChunk, DeferredLengthsAreTheCallersToCheck) {
  const ColumnDescriptor c = Required(Type::kByteArray);
  std::vector<ValueRun> runs;
  // 4 + 2 bytes fill the page exactly as two 3-byte values would.
  const Bytes uneven = DataPageV1(2, Encoding::kPlain, PlainStrings({"abcd", "de"}));
  EXPECT_FALSE(ViewFixedWidthChunk(c, Meta(Type::kByteArray, 2), uneven, 3, runs));
  ASSERT_TRUE(ViewFixedWidthChunk(c, Meta(Type::kByteArray, 2), uneven, 3, runs, {}, ByteArrayLengths::kDeferred));
  EXPECT_FALSE(ByteArrayLengthsAre(runs, 3));
  const Bytes even = Concat({DataPageV1(2, Encoding::kPlain, PlainStrings({"abc", "def"})),
                             DataPageV1(1, Encoding::kPlain, PlainStrings({"ghi"}))});
  ASSERT_TRUE(ViewFixedWidthChunk(c, Meta(Type::kByteArray, 3), even, 3, runs, {}, ByteArrayLengths::kDeferred));
  EXPECT_TRUE(ByteArrayLengthsAre(runs, 3));
  EXPECT_FALSE(ByteArrayLengthsAre(runs, 2));
  EXPECT_EQ(Flatten(runs, 3), Decoded(c, Meta(Type::kByteArray, 3), even));
  // A page whose size is not count × stride is still declined.
  EXPECT_FALSE(ViewFixedWidthChunk(c, Meta(Type::kByteArray, 2), DataPageV1(2, Encoding::kPlain, PlainStrings({"abc", "de"})),
                                   3, runs, {}, ByteArrayLengths::kDeferred));
}

TEST(ViewFixedWidthChunk, UncompressedV2ValuesInACompressedChunkAreRead) {
  const ColumnDescriptor c = Required(Type::kFloat);
  Bytes chunk = DataPageV2(2, 0, 2, Encoding::kPlain, {}, {}, Plain(std::vector<float>{4.0f, 5.0f}),
                           WithCodec(CompressionCodec::kSnappy), false);
  ExpectSameAsDecoder(c, Meta(Type::kFloat, 2, CompressionCodec::kSnappy), chunk, 4, 1);
}

// Declines where the decoder still succeeds: the caller's fallback decodes.
TEST(ViewFixedWidthChunk, DeclinesWhatItDoesNotReadInPlace) {
  std::vector<ValueRun> runs;
  const Bytes floats = Plain(std::vector<float>{1.0f, 2.0f});
  auto declines = [&](const ColumnDescriptor& c, const ColumnMetaData& m, const Bytes& chunk, size_t width) {
    runs.assign(1, ValueRun{});
    EXPECT_FALSE(ViewFixedWidthChunk(c, m, chunk, width, runs));
    EXPECT_TRUE(runs.empty());
    EXPECT_TRUE(DecodeColumnChunkBytes(c, m, chunk).ok());
  };
  const ColumnDescriptor f = Required(Type::kFloat);
  declines(f, Meta(Type::kFloat, 2, CompressionCodec::kSnappy),
           DataPageV1(2, Encoding::kPlain, floats, WithCodec(CompressionCodec::kSnappy)), 4);
  declines(f, Meta(Type::kFloat, 2, CompressionCodec::kZstd),
           DataPageV1(2, Encoding::kPlain, floats, WithCodec(CompressionCodec::kZstd)), 4);
  declines(f, Meta(Type::kFloat, 2),
           DataPageV1(2, Encoding::kByteStreamSplit, ByteStreamSplit(floats, 4)), 4);
  declines(f, Meta(Type::kFloat, 2), DataPageV1(2, Encoding::kPlain, floats), 8);  // the wrong width
  declines(f, Meta(Type::kFloat, 2),
           Concat({DictionaryPage(2, floats), DataPageV1(2, Encoding::kRleDictionary, DictIndices({1, 0}, 1))}), 4);
  ColumnDescriptor optional = f;
  optional.max_definition_level = 1;
  declines(optional, Meta(Type::kFloat, 2), DataPageV1(2, Encoding::kPlain, Concat({LevelsV1({1, 1}, 1), floats})), 4);
  const ColumnDescriptor s = Required(Type::kByteArray);
  declines(s, Meta(Type::kByteArray, 2), DataPageV1(2, Encoding::kPlain, PlainStrings({"abc", "de"})), 3);
  declines(s, Meta(Type::kByteArray, 2), DataPageV1(2, Encoding::kPlain, PlainStrings({"abc", "def"})), 2);
  declines(s, Meta(Type::kByteArray, 2),
           DataPageV1(2, Encoding::kDeltaLengthByteArray, DeltaLengthByteArray({"abc", "def"})), 3);
  declines(Required(Type::kBoolean), Meta(Type::kBoolean, 2), DataPageV1(2, Encoding::kPlain, PlainBooleans({true, false})),
           1);
  // A v2 header claiming a null in a required column: the decoder ignores the
  // count (a required column has no levels to say which), this path declines.
  declines(f, Meta(Type::kFloat, 2), DataPageV2(2, 1, 2, Encoding::kPlain, {}, {}, floats), 4);
  // CRC unchecked by request: a wrong one no longer matters to either.
  ColumnReadOptions no_crc;
  no_crc.verify_crc = false;
  PageOptions bad_crc;
  bad_crc.crc_override = 12345;
  const Bytes chunk = DataPageV1(2, Encoding::kPlain, floats, bad_crc);
  EXPECT_TRUE(ViewFixedWidthChunk(f, Meta(Type::kFloat, 2), chunk, 4, runs, no_crc));
  EXPECT_TRUE(DecodeColumnChunkBytes(f, Meta(Type::kFloat, 2), chunk, no_crc).ok());
}

// Declines everything the decoder rejects, so the decoder names the error.
TEST(ViewFixedWidthChunk, DeclinesEveryChunkTheDecoderRejects) {
  std::vector<ValueRun> runs;
  const ColumnDescriptor f = Required(Type::kFloat);
  const Bytes floats = Plain(std::vector<float>{1.0f, 2.0f});
  auto rejected = [&](const ColumnDescriptor& c, const ColumnMetaData& m, const Bytes& chunk, size_t width,
                      const char* what) {
    runs.assign(1, ValueRun{});
    EXPECT_FALSE(ViewFixedWidthChunk(c, m, chunk, width, runs)) << what;
    EXPECT_TRUE(runs.empty()) << what;
    EXPECT_FALSE(DecodeColumnChunkBytes(c, m, chunk).ok()) << what;
  };
  PageOptions bad_crc;
  bad_crc.crc_override = 12345;
  rejected(f, Meta(Type::kFloat, 2), DataPageV1(2, Encoding::kPlain, floats, bad_crc), 4, "a wrong CRC");
  const Bytes good = DataPageV1(2, Encoding::kPlain, floats, WithCodec(CompressionCodec::kUncompressed, true));
  for (size_t cut = 0; cut < good.size(); ++cut) {
    if (cut == 0) continue;  // no bytes at all is a chunk of no pages: a count mismatch, checked below
    rejected(f, Meta(Type::kFloat, 2), Bytes(good.begin(), good.begin() + static_cast<long>(cut)), 4, "truncated");
  }
  rejected(f, Meta(Type::kFloat, 2), {}, 4, "no pages");
  rejected(f, Meta(Type::kFloat, 3), good, 4, "fewer values than the chunk says");
  rejected(f, Meta(Type::kFloat, 1), good, 4, "more values than the chunk says");
  rejected(f, Meta(Type::kInt32, 2), good, 4, "the chunk's type is not the schema's");
  rejected(f, Meta(Type::kFloat, 3), DataPageV1(3, Encoding::kPlain, floats), 4, "a page shorter than its values");
  rejected(f, Meta(Type::kFloat, 1), DataPageV1(1, Encoding::kPlain, floats), 4, "a page longer than its values");
  rejected(f, Meta(Type::kFloat, 2), Concat({good, Bytes{0x15}}), 4, "trailing garbage");
  Bytes flipped = good;
  flipped.back() ^= 0x40;
  rejected(f, Meta(Type::kFloat, 2), flipped, 4, "a flipped value byte under a CRC");
}

}  // namespace
}  // namespace vigilo::parquet
