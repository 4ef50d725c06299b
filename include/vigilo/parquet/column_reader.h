// Sans-IO column-chunk decoding. The caller plans byte ranges from the footer
// (PlanRowGroup), fetches them however it likes, and hands each chunk's bytes
// to DecodeColumnChunk, which returns a typed columnar result.
//
// Supported: data pages v1 and v2, one dictionary page; encodings PLAIN,
// PLAIN_DICTIONARY/RLE_DICTIONARY, RLE (levels and BOOLEAN values),
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT; codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD; columns with at
// most one repeated ancestor (top-level values and lists, 2- or 3-level).
//
// Nothing from the bytes is trusted: every length, count and offset is checked
// against the bytes present, level/value counts must agree with the page and
// chunk metadata, dictionary indices with the dictionary, and every buffer
// (decompressed pages, levels, dictionary, output) is charged to a budget
// before it is allocated. Errors: malformed bytes are kParseError, consistent
// bytes that break a format rule kInvalidFormat, a budget kLimitExceeded, a
// CRC mismatch kIntegrityError, a valid but unsupported feature
// kUnimplemented; offsets are relative to the chunk's first byte here and
// file offsets from DecodeColumnChunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/parquet/footer.h"
#include "vigilo/parquet/metadata.h"
#include "vigilo/parquet/schema.h"

namespace vigilo::parquet {

struct ColumnReadOptions {
  // Every buffer the decoder allocates for one chunk is charged here
  // (exactly, by vector capacity); exceeding it is kLimitExceeded.
  uint64_t max_decoded_bytes = uint64_t{512} << 20;
  // Page CRCs (CRC-32 of the page bytes after the header) are verified when a
  // page carries one; a mismatch is kIntegrityError.
  bool verify_crc = true;
  DecodeOptions page_header;  // budget for each decoded PageHeader
  // Pages whose definition levels are all the maximum (no nulls) skip
  // per-value level handling. The result is identical either way; false
  // forces the per-value path (tests compare the two).
  bool level_fast_paths = true;
};

// The options a chunk's page headers are decoded with: options.page_header,
// with page statistics skipped (a reader of values never needs them).
inline DecodeOptions PageHeaderOptions(const ColumnReadOptions& options) {
  DecodeOptions o = options.page_header;
  o.page_statistics = false;
  return o;
}

// How a leaf's values form rows.
enum class ColumnShape : uint8_t {
  kScalar,  // a top-level primitive column, required or optional
  kList,    // a LIST (3-level, or the legacy 2-level / bare repeated forms)
  kOther,   // anything else decodable (a struct member, a map's key/value):
            // decoded like kScalar/kList by its levels, but not a JSON row value
};

struct ColumnDescriptor {
  size_t leaf = 0;                 // index into SchemaTree::leaves
  std::vector<std::string> path;   // from the top-level field down to the leaf
  Type type = Type::kBoolean;
  int32_t type_length = 0;         // FIXED_LEN_BYTE_ARRAY width (12 for INT96), else 0
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  // With a repeated ancestor: the definition level at which it holds an
  // element (lower levels are an empty list, or a null list below
  // repeated_definition_level - 1).
  int16_t repeated_definition_level = 0;
  ColumnShape shape = ColumnShape::kScalar;
  std::optional<LogicalType> logical_type;  // of the leaf
  std::optional<ConvertedType> converted_type;
};

// The descriptor of leaf `leaf` of a resolved schema. More than one repeated
// ancestor is kUnimplemented.
Result<ColumnDescriptor> DescribeColumn(const std::vector<SchemaElement>& schema, const SchemaTree& tree,
                                        size_t leaf);

// Dense non-null values of one physical type; only the member for `type` is
// used. BOOLEAN is one byte (0/1) per value; INT96 and FIXED_LEN_BYTE_ARRAY
// are `type_length`-byte values back to back in `binary`; BYTE_ARRAY value i
// is binary[binary_offsets[i], binary_offsets[i + 1]).
struct ColumnValues {
  Type type = Type::kBoolean;
  int32_t type_length = 0;
  std::vector<uint8_t> booleans;
  std::vector<int32_t> int32s;
  std::vector<int64_t> int64s;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<uint8_t> binary;
  std::vector<uint64_t> binary_offsets;  // BYTE_ARRAY: size() + 1 entries, starting at 0

  size_t size() const;
  // Value i of a BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96 column.
  std::span<const uint8_t> Binary(size_t i) const;
};

// A decoded column chunk.
//
// Scalars: row r is null iff row_valid is non-empty and row_valid[r] == 0;
// the non-null rows' values are `values`, in order.
// Lists: row r is null iff row_valid is non-empty and row_valid[r] == 0,
// else its elements are slots [list_offsets[r], list_offsets[r + 1]) (a null
// row has an empty slot range); slot s is a null element iff element_valid is
// non-empty and element_valid[s] == 0; the non-null slots' values are
// `values`, in order.
// row_valid (element_valid) is present exactly when the schema lets rows
// (elements) be null.
struct DecodedColumn {
  ColumnValues values;
  uint64_t num_rows = 0;
  std::vector<uint8_t> row_valid;
  std::vector<uint64_t> list_offsets;  // lists only: num_rows + 1 entries
  std::vector<uint8_t> element_valid;  // lists only
};

// Decodes a chunk from exactly the bytes of its ColumnChunkRange, checking
// that its pages hold meta.num_values levels.
Result<DecodedColumn> DecodeColumnChunkBytes(const ColumnDescriptor& column, const ColumnMetaData& meta,
                                             std::span<const uint8_t> bytes, const ColumnReadOptions& options = {});

// One leaf's chunk in a row group: what to fetch and what the footer says.
struct ColumnChunkPlan {
  size_t leaf = 0;
  std::string path;  // path_in_schema joined with '.'
  ByteRange range;
  const ColumnMetaData* meta = nullptr;  // points into the Footer
};

// Every leaf's chunk of row group `row_group`, in leaf order (kNotFound for
// a row group that does not exist).
Result<std::vector<ColumnChunkPlan>> PlanRowGroup(const Footer& footer, size_t row_group);

// Decodes leaf `leaf` of row group `row_group` from exactly its range's bytes
// (a different length is kInvalidArgument), checking the row count against
// the row group. Errors carry file offsets and the path
// "row_groups[i].columns[j]".
Result<DecodedColumn> DecodeColumnChunk(const Footer& footer, size_t row_group, size_t leaf,
                                        std::span<const uint8_t> bytes, const ColumnReadOptions& options = {});

}  // namespace vigilo::parquet
