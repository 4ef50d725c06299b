// Test-only reference encoders for the reader tests and the fuzz seeds: they
// build pages, column chunks and whole files byte by byte, independently of
// the decoders under test.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet::testing {

using Bytes = std::vector<uint8_t>;

// RLE/bit-packed hybrid (no length prefix): RLE runs for 8+ equal values at a
// group boundary, bit-packed groups otherwise (the last one zero-padded).
Bytes RleHybrid(const std::vector<uint32_t>& values, int bit_width);
// u32 little-endian length, then the bytes (v1 levels, RLE booleans).
Bytes LengthPrefixed(const Bytes& stream);
// v1 levels: LengthPrefixed(RleHybrid(levels, width of max_level)).
Bytes LevelsV1(const std::vector<uint32_t>& levels, int max_level);
Bytes LevelsV2(const std::vector<uint32_t>& levels, int max_level);

template <typename T>
Bytes Plain(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}
Bytes PlainStrings(const std::vector<std::string>& values);
Bytes PlainBooleans(const std::vector<bool>& values);
// A bit-width byte and the hybrid indices.
Bytes DictIndices(const std::vector<uint32_t>& indices, int bit_width);
// DELTA_BINARY_PACKED with 128-value blocks of 4 miniblocks (or as given).
Bytes DeltaBinaryPacked(const std::vector<int64_t>& values, int bits, uint32_t block = 128, uint32_t miniblocks = 4);
Bytes DeltaLengthByteArray(const std::vector<std::string>& values);
Bytes DeltaByteArray(const std::vector<std::string>& values);
// BYTE_STREAM_SPLIT of PLAIN bytes of `width`-byte values.
Bytes ByteStreamSplit(const Bytes& plain, size_t width);

struct PageOptions {
  CompressionCodec codec = CompressionCodec::kUncompressed;
  bool crc = false;
  std::optional<int32_t> crc_override;
};
inline PageOptions WithCodec(CompressionCodec codec, bool crc = false) {
  PageOptions o;
  o.codec = codec;
  o.crc = crc;
  return o;
}

// A PageHeader and its (compressed) body. `body` is the uncompressed page
// content: for v1 the levels then the values.
Bytes DataPageV1(int32_t num_values, Encoding encoding, const Bytes& body, const PageOptions& options = {});
// v2: levels uncompressed, values compressed (unless is_compressed false).
Bytes DataPageV2(int32_t num_values, int32_t num_nulls, int32_t num_rows, Encoding encoding, const Bytes& rep,
                 const Bytes& def, const Bytes& values, const PageOptions& options = {},
                 std::optional<bool> is_compressed = std::nullopt);
Bytes DictionaryPage(int32_t num_values, const Bytes& plain_values, const PageOptions& options = {});

Bytes Concat(std::initializer_list<Bytes> parts);

// A one-column file: "PAR1", the chunk, the footer. `schema` is the whole
// schema list (root first); the chunk is for leaf 0 with `num_values` levels
// and `num_rows` rows.
struct OneColumnFile {
  std::vector<SchemaElement> schema;
  Type type = Type::kInt32;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  std::vector<std::string> path;
  int64_t num_values = 0;
  int64_t num_rows = 0;
  Bytes chunk;
  size_t dictionary_page_bytes = 0;  // > 0: the chunk starts with a dictionary page this long
  std::optional<Statistics> statistics;
};
Bytes BuildOneColumnFile(const OneColumnFile& spec);

// Schema helpers.
SchemaElement Root(int32_t children);
SchemaElement Leaf(const std::string& name, Type type, FieldRepetitionType rep);
SchemaElement Group(const std::string& name, int32_t children, FieldRepetitionType rep);

}  // namespace vigilo::parquet::testing
