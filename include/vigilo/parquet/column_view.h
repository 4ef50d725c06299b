// Fixed-width values read in place: the zero-copy fast path for a column a
// scan reads whole (a publication's LVQ codes and their offsets and scales),
// next to DecodeColumnChunkBytes, which copies every value out.
//
// It only ever says yes to a chunk the full decoder would decode without an
// error, to the same values; for anything else it says no, and the caller
// decodes the chunk, which then names what is wrong. So using it changes no
// result and no error message. (The one check it skips is
// options.max_decoded_bytes: a bound on copies, and it makes none.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet {

// `count` values, the first at `first`, each `stride` bytes after the last.
struct ValueRun {
  const uint8_t* first = nullptr;
  size_t count = 0;
  size_t stride = 0;
};

// The chunk's values as runs into `bytes`, one per data page, in row order,
// when the chunk is a required top-level column of FLOAT, INT32, DOUBLE,
// INT64, FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY with no dictionary page and every
// data page (v1 or v2) PLAIN and stored uncompressed, its CRC (when present,
// unless options.verify_crc is off) right, its value bytes exactly its values,
// and the pages' values meta.num_values in all. `width` is each value's size
// in bytes: the physical type's (4, 8, type_length), or for BYTE_ARRAY the
// length every value must have (each is stored behind its 4-byte length, so
// the stride is width + 4). Returns false (runs cleared) otherwise.
//
// BYTE_ARRAY lengths: with kDeferred the 4-byte lengths are not read here;
// the caller must check them with ByteArrayLengthsAre before it uses any
// value (the runs stay within `bytes` either way: each page's size is
// checked to be exactly count × stride). A scan defers the check to after its
// first pass over the values, when they are in cache: read first, a length
// walk strides through memory no computation overlaps.
enum class ByteArrayLengths { kChecked, kDeferred };
bool ViewFixedWidthChunk(const ColumnDescriptor& column, const ColumnMetaData& meta, std::span<const uint8_t> bytes,
                         size_t width, std::vector<ValueRun>& runs, const ColumnReadOptions& options = {},
                         ByteArrayLengths lengths = ByteArrayLengths::kChecked);

// Whether every value of BYTE_ARRAY runs (as ViewFixedWidthChunk gives them)
// is stored behind the length `width`.
bool ByteArrayLengthsAre(std::span<const ValueRun> runs, size_t width);

}  // namespace vigilo::parquet
