// Sans-IO Parquet footer parsing. A Parquet file ends with
//
//   ... column chunks ... | FileMetaData (L bytes) | L as u32 little-endian | "PAR1"
//
// and starts with "PAR1". The caller fetches the last N bytes of the file
// (from disk or an HTTP range request) and calls ParseFooter; if N was too
// small the answer is the exact number of trailing bytes to fetch instead.
// Nothing here opens files or allocates more than the footer justifies.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "vigilo/common/byte_range.h"
#include "vigilo/common/result.h"
#include "vigilo/parquet/metadata.h"
#include "vigilo/parquet/schema.h"

namespace vigilo::parquet {

inline constexpr char kMagic[4] = {'P', 'A', 'R', '1'};
inline constexpr uint64_t kTrailerSize = 8;   // footer length + "PAR1"
inline constexpr uint64_t kMinFileSize = 12;  // "PAR1" + trailer (and an empty footer)

struct FooterOptions {
  // A larger declared footer is kLimitExceeded before anything is fetched.
  uint32_t max_footer_bytes = 64u << 20;
  DecodeOptions decode;
};

struct Footer {
  FileMetaData metadata;
  SchemaTree schema;
  uint64_t offset = 0;  // file offset of the encoded FileMetaData
  uint32_t length = 0;  // its length in bytes
};

// Not enough of the file's tail was given: fetch the last `tail_bytes`
// bytes (footer + trailer) and call ParseFooter again.
struct NeedMoreBytes {
  uint64_t tail_bytes = 0;
  bool operator==(const NeedMoreBytes&) const = default;
};

using FooterParse = std::variant<Footer, NeedMoreBytes>;

// `tail` is the last tail.size() bytes of a file of `file_size` bytes (the
// whole file if the sizes are equal; only then is the leading magic checked).
// Errors: a bad magic, length or encoding is kParseError (offsets are file
// offsets); metadata inconsistent with the file or itself is kInvalidFormat
// (see ValidateFileMetaData); an encrypted footer ("PARE") is kUnimplemented.
Result<FooterParse> ParseFooter(std::span<const uint8_t> tail, uint64_t file_size, const FooterOptions& options = {});

// Checks decoded metadata against the file layout, given the file offset
// where the footer starts: the schema tree (ResolveSchema); row counts that
// are non-negative and sum to num_rows; in every row group one chunk per
// leaf whose meta_data is present, whose type and path_in_schema match the
// leaf, whose num_values equals num_rows for non-repeated columns, and whose
// bytes [start, start + total_compressed_size) lie inside [4, footer_offset);
// column_orders, if present, has one entry per leaf. Chunks stored in other
// files (file_path) are kUnimplemented.
Result<SchemaTree> ValidateFileMetaData(const FileMetaData& metadata, uint64_t footer_offset);

// The file bytes that make up an encoded footer: FileMetaData, its length
// and the trailing magic (the writer appends this after the column chunks).
Result<std::vector<uint8_t>> EncodeFooter(const FileMetaData& metadata);

// A half-open byte range [offset, offset + length) of the file (the one
// range type the read core and the stores share).
using ByteRange = vigilo::ByteRange;

// A column chunk's bytes: from its dictionary page if it has one, else its
// first data page, for total_compressed_size bytes.
Result<ByteRange> ColumnChunkRange(const ColumnChunk& chunk);

// The ranges to fetch for `columns` of row group `row_group`, in the order
// asked. A column is named by its path_in_schema joined with '.', e.g. "cid"
// or "vector.list.element". Unknown names are kNotFound.
Result<std::vector<ByteRange>> ColumnChunkRanges(const FileMetaData& metadata, size_t row_group,
                                                 std::span<const std::string> columns);

}  // namespace vigilo::parquet
