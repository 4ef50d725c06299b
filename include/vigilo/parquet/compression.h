// Page compression codecs, sans-IO: bytes in, bytes out.
//
// Decompress is strict: the output must be exactly the size the page header
// declares (a page that inflates to more or fewer bytes is an error), at most
// that many bytes are ever allocated, and the whole input must be consumed.
// The caller bounds uncompressed_size (a page header's int32 field, further
// bounded by the reader's max_decoded_bytes) before calling.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet {

// Pages are sized by int32 fields, so no decompressed page is larger.
inline constexpr uint64_t kMaxPageBytes = INT32_MAX;

// "UNCOMPRESSED", "SNAPPY", ... (or "codec 42" for an unknown value).
std::string CompressionCodecName(CompressionCodec codec);

// Compresses with UNCOMPRESSED (a copy), SNAPPY, GZIP (RFC 1952 gzip member)
// or ZSTD (one frame, with content size, at zstd_level). Other codecs are
// kUnimplemented; inputs larger than kMaxPageBytes are kLimitExceeded.
Result<std::vector<uint8_t>> Compress(CompressionCodec codec, std::span<const uint8_t> data, int zstd_level = 3);

// Decompresses UNCOMPRESSED, SNAPPY (raw block), GZIP (gzip members; a zlib
// stream is also accepted, as some writers emit it) or ZSTD (one or more
// frames). Corrupt input is kParseError; output of the wrong size is
// kInvalidFormat; other codecs are kUnimplemented; uncompressed_size above
// kMaxPageBytes is kLimitExceeded.
Result<std::vector<uint8_t>> Decompress(CompressionCodec codec, std::span<const uint8_t> compressed,
                                        uint64_t uncompressed_size);

// As Decompress, into a caller buffer of exactly the expected size (lets the
// column reader reuse one buffer across pages).
Status DecompressInto(CompressionCodec codec, std::span<const uint8_t> compressed, std::span<uint8_t> out);

}  // namespace vigilo::parquet
