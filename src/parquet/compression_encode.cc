// Page compression (Compress), the writer's half of the page codecs: in
// vigilo_parquet, not the read side, so the WebAssembly read core links no
// encoder (no zstd compressor, no deflate). Which codecs a build has is
// CMake's choice, as for decoding (compression.cc).
#include "vigilo/parquet/compression.h"

#if !defined(VIGILO_PARQUET_SNAPPY) || !defined(VIGILO_PARQUET_GZIP) || !defined(VIGILO_PARQUET_ZSTD)
#error "src/parquet/CMakeLists.txt defines VIGILO_PARQUET_SNAPPY, _GZIP and _ZSTD (0 or 1)"
#endif

#if VIGILO_PARQUET_SNAPPY
#include <snappy.h>
#endif
#if VIGILO_PARQUET_GZIP
#include <zlib.h>
#endif
#if VIGILO_PARQUET_ZSTD
#include <zstd.h>
#endif

#include <cstring>
#include <string>

#include "compression_internal.h"

namespace vigilo::parquet {
namespace {

#if VIGILO_PARQUET_GZIP
Result<std::vector<uint8_t>> CompressGzip(std::span<const uint8_t> data) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  // 15 + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Internal("cannot initialise zlib");
  }
  struct Guard {
    z_stream* zs;
    ~Guard() { deflateEnd(zs); }
  } guard{&zs};
  std::vector<uint8_t> out(deflateBound(&zs, static_cast<uLong>(data.size())));
  zs.next_in = const_cast<Bytef*>(data.data());
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) return Internal("zlib deflate did not finish");
  out.resize(out.size() - zs.avail_out);
  return out;
}
#endif

}  // namespace

Result<std::vector<uint8_t>> Compress(CompressionCodec codec, std::span<const uint8_t> data,
                                      [[maybe_unused]] int zstd_level) {
  if (data.size() > kMaxPageBytes) {
    return LimitExceeded("a page of " + std::to_string(data.size()) + " bytes exceeds the 2^31-1 byte limit");
  }
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return std::vector<uint8_t>(data.begin(), data.end());
    case CompressionCodec::kSnappy: {
#if VIGILO_PARQUET_SNAPPY
      std::vector<uint8_t> out(snappy::MaxCompressedLength(data.size()));
      size_t n = 0;
      snappy::RawCompress(reinterpret_cast<const char*>(data.data()), data.size(),
                          reinterpret_cast<char*>(out.data()), &n);
      out.resize(n);
      return out;
#else
      return NotCompiledIn(codec);
#endif
    }
    case CompressionCodec::kGzip:
#if VIGILO_PARQUET_GZIP
      return CompressGzip(data);
#else
      return NotCompiledIn(codec);
#endif
    case CompressionCodec::kZstd: {
#if VIGILO_PARQUET_ZSTD
      std::vector<uint8_t> out(ZSTD_compressBound(data.size()));
      size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), zstd_level);
      if (ZSTD_isError(n)) return InvalidArgument(std::string("zstd: ") + ZSTD_getErrorName(n));
      out.resize(n);
      return out;
#else
      return NotCompiledIn(codec);
#endif
    }
    default:
      return Unimplemented("compression codec " + CompressionCodecName(codec) + " is not supported");
  }
}

}  // namespace vigilo::parquet
