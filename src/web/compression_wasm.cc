// The WebAssembly read core's page codecs (docs/format/wasm.md), in place of
// src/parquet/compression.cc: UNCOMPRESSED only, which is what publications
// are written with by default (centroids and postings). Every other codec is
// declined with Unimplemented naming it, never decoded wrongly; SNAPPY, GZIP
// and ZSTD need their decoders compiled for WebAssembly (not done yet).
#include <cstring>
#include <string>

#include "vigilo/parquet/compression.h"

namespace vigilo::parquet {
namespace {

Status NotCompiledIn(CompressionCodec codec) {
  return Unimplemented("compression codec " + CompressionCodecName(codec) +
                       " is not compiled into the WebAssembly read core");
}

}  // namespace

std::string CompressionCodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed: return "UNCOMPRESSED";
    case CompressionCodec::kSnappy: return "SNAPPY";
    case CompressionCodec::kGzip: return "GZIP";
    case CompressionCodec::kLzo: return "LZO";
    case CompressionCodec::kBrotli: return "BROTLI";
    case CompressionCodec::kLz4: return "LZ4";
    case CompressionCodec::kZstd: return "ZSTD";
    case CompressionCodec::kLz4Raw: return "LZ4_RAW";
  }
  return "codec " + std::to_string(static_cast<int32_t>(codec));
}

Result<std::vector<uint8_t>> Compress(CompressionCodec codec, std::span<const uint8_t> data, int /*zstd_level*/) {
  if (data.size() > kMaxPageBytes) {
    return LimitExceeded("a page of " + std::to_string(data.size()) + " bytes exceeds the 2^31-1 byte limit");
  }
  if (codec != CompressionCodec::kUncompressed) return NotCompiledIn(codec);
  return std::vector<uint8_t>(data.begin(), data.end());
}

Status DecompressInto(CompressionCodec codec, std::span<const uint8_t> compressed, std::span<uint8_t> out) {
  if (out.size() > kMaxPageBytes || compressed.size() > kMaxPageBytes) {
    return LimitExceeded("a page of more than 2^31-1 bytes");
  }
  if (codec != CompressionCodec::kUncompressed) return NotCompiledIn(codec);
  if (compressed.size() != out.size()) {
    return InvalidFormat("UNCOMPRESSED data decompresses to " + std::to_string(compressed.size()) +
                         " bytes, the page header says " + std::to_string(out.size()));
  }
  if (!out.empty()) std::memcpy(out.data(), compressed.data(), out.size());
  return Status::Ok();
}

Result<std::vector<uint8_t>> Decompress(CompressionCodec codec, std::span<const uint8_t> compressed,
                                        uint64_t uncompressed_size) {
  if (uncompressed_size > kMaxPageBytes) {
    return LimitExceeded("a page of " + std::to_string(uncompressed_size) + " bytes exceeds the 2^31-1 byte limit");
  }
  if (codec != CompressionCodec::kUncompressed) return NotCompiledIn(codec);  // before allocating
  std::vector<uint8_t> out(static_cast<size_t>(uncompressed_size));  // ≤ kMaxPageBytes: fits wasm32
  VIGILO_RETURN_IF_ERROR(DecompressInto(codec, compressed, out));
  return out;
}

}  // namespace vigilo::parquet
