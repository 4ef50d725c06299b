// Page codecs, the decoding side (the encoder, Compress, is the writer's:
// compression_encode.cc). Which of SNAPPY, GZIP and ZSTD a build decodes is CMake's
// choice (VIGILO_PARQUET_CODECS, src/parquet/CMakeLists.txt): the native
// build links all three system libraries, the WebAssembly read core (src/web)
// the same three compiled from Debian's sources; a build without one declines
// its pages with Unimplemented naming the codec, never decoding them wrongly
// (docs/format/wasm.md).
#include "vigilo/parquet/compression.h"

#include "compression_internal.h"

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
#include <zstd_errors.h>
#endif

#include <cstring>
#include <memory>
#include <string>

namespace vigilo::parquet {

// A codec this build knows but was compiled without (compression_internal.h).
Status NotCompiledIn(CompressionCodec codec) {
#ifdef __EMSCRIPTEN__
  constexpr const char* kBuild = "the WebAssembly read core";
#else
  constexpr const char* kBuild = "this build";
#endif
  return Unimplemented("compression codec " + CompressionCodecName(codec) + " is not compiled into " + kBuild);
}

namespace {

Status WrongSize(CompressionCodec codec, uint64_t got, uint64_t want) {
  return InvalidFormat(CompressionCodecName(codec) + " data decompresses to " + std::to_string(got) +
                       " bytes, the page header says " + std::to_string(want));
}

[[maybe_unused]] Status CorruptInput(CompressionCodec codec, std::string detail) {
  return ParseError("corrupt " + CompressionCodecName(codec) + " data: " + detail);
}

#if VIGILO_PARQUET_ZSTD
struct ZstdDCtxFree {
  void operator()(ZSTD_DCtx* ctx) const { ZSTD_freeDCtx(ctx); }
};

// One decompression context per thread: creating one per page costs more
// than decoding a small page.
ZSTD_DCtx* ThreadZstdContext() {
  thread_local std::unique_ptr<ZSTD_DCtx, ZstdDCtxFree> ctx(ZSTD_createDCtx());
  return ctx.get();
}

#endif

#if VIGILO_PARQUET_SNAPPY
Status DecompressSnappy(std::span<const uint8_t> in, std::span<uint8_t> out) {
  auto* src = reinterpret_cast<const char*>(in.data());
  size_t declared = 0;
  if (!snappy::GetUncompressedLength(src, in.size(), &declared)) {
    return CorruptInput(CompressionCodec::kSnappy, "bad length preamble");
  }
  // The preamble is checked first so snappy never writes past `out`.
  if (declared != out.size()) return WrongSize(CompressionCodec::kSnappy, declared, out.size());
  if (!snappy::RawUncompress(src, in.size(), reinterpret_cast<char*>(out.data()))) {
    return CorruptInput(CompressionCodec::kSnappy, "invalid block");
  }
  return Status::Ok();
}

#endif

#if VIGILO_PARQUET_ZSTD
Status DecompressZstd(std::span<const uint8_t> in, std::span<uint8_t> out) {
  ZSTD_DCtx* ctx = ThreadZstdContext();
  if (ctx == nullptr) return Internal("cannot allocate a zstd context");
  // Single-shot decoding writes straight into `out`; it allocates no window,
  // whatever window size a hostile frame declares.
  size_t n = ZSTD_decompressDCtx(ctx, out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(n)) {
    if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
      return InvalidFormat("ZSTD data decompresses to more than the " + std::to_string(out.size()) +
                           " bytes the page header says");
    }
    return CorruptInput(CompressionCodec::kZstd, ZSTD_getErrorName(n));
  }
  if (n != out.size()) return WrongSize(CompressionCodec::kZstd, n, out.size());
  return Status::Ok();
}

#endif

#if VIGILO_PARQUET_GZIP
Status DecompressGzip(std::span<const uint8_t> in, std::span<uint8_t> out) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  // 15 + 32: a 32 KiB window with automatic gzip/zlib header detection.
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Internal("cannot initialise zlib");
  struct Guard {
    z_stream* zs;
    ~Guard() { inflateEnd(zs); }
  } guard{&zs};
  // Sizes fit uInt: both are bounded by kMaxPageBytes (checked by callers).
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  // zlib rejects a null next_out, which an empty span may have.
  uint8_t empty_out = 0;
  zs.next_out = out.empty() ? &empty_out : out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  while (true) {
    int rc = inflate(&zs, Z_FINISH);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      // Another gzip member follows (concatenated members are one stream).
      if (inflateReset(&zs) != Z_OK) return Internal("cannot reset zlib");
      continue;
    }
    // No progress: input ran out first (truncated), or output did.
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) return CorruptInput(CompressionCodec::kGzip, "truncated stream");
    if (rc == Z_BUF_ERROR) {
      return InvalidFormat("GZIP data decompresses to more than the " + std::to_string(out.size()) +
                           " bytes the page header says");
    }
    if (rc != Z_OK) return CorruptInput(CompressionCodec::kGzip, zs.msg ? zs.msg : "inflate failed");
  }
  uint64_t produced = out.size() - zs.avail_out;
  if (produced != out.size()) return WrongSize(CompressionCodec::kGzip, produced, out.size());
  return Status::Ok();
}

#endif

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

Status DecompressInto(CompressionCodec codec, std::span<const uint8_t> compressed, std::span<uint8_t> out) {
  if (out.size() > kMaxPageBytes || compressed.size() > kMaxPageBytes) {
    return LimitExceeded("a page of more than 2^31-1 bytes");
  }
  switch (codec) {
    case CompressionCodec::kUncompressed:
      if (compressed.size() != out.size()) return WrongSize(codec, compressed.size(), out.size());
      if (!out.empty()) std::memcpy(out.data(), compressed.data(), out.size());
      return Status::Ok();
    case CompressionCodec::kSnappy:
#if VIGILO_PARQUET_SNAPPY
      return DecompressSnappy(compressed, out);
#else
      return NotCompiledIn(codec);
#endif
    case CompressionCodec::kGzip:
#if VIGILO_PARQUET_GZIP
      return DecompressGzip(compressed, out);
#else
      return NotCompiledIn(codec);
#endif
    case CompressionCodec::kZstd:
#if VIGILO_PARQUET_ZSTD
      return DecompressZstd(compressed, out);
#else
      return NotCompiledIn(codec);
#endif
    default:
      return Unimplemented("compression codec " + CompressionCodecName(codec) + " is not supported");
  }
}

Result<std::vector<uint8_t>> Decompress(CompressionCodec codec, std::span<const uint8_t> compressed,
                                        uint64_t uncompressed_size) {
  if (uncompressed_size > kMaxPageBytes) {
    return LimitExceeded("a page of " + std::to_string(uncompressed_size) + " bytes exceeds the 2^31-1 byte limit");
  }
  // Refused before allocating: codecs no build supports and those this one was compiled without.
  switch (codec) {
    case CompressionCodec::kUncompressed:
      break;
    case CompressionCodec::kSnappy:
      if (!VIGILO_PARQUET_SNAPPY) return NotCompiledIn(codec);
      break;
    case CompressionCodec::kGzip:
      if (!VIGILO_PARQUET_GZIP) return NotCompiledIn(codec);
      break;
    case CompressionCodec::kZstd:
      if (!VIGILO_PARQUET_ZSTD) return NotCompiledIn(codec);
      break;
    default:
      return Unimplemented("compression codec " + CompressionCodecName(codec) + " is not supported");
  }
  std::vector<uint8_t> out(static_cast<size_t>(uncompressed_size));  // ≤ kMaxPageBytes: fits wasm32's size_t
  VIGILO_RETURN_IF_ERROR(DecompressInto(codec, compressed, out));
  return out;
}

}  // namespace vigilo::parquet
