// The Parquet value -> canonical JSON mapping shared by `vigilo parquet cat`,
// `inspect` (statistics) and the interop tests. It is a contract; see
// docs/format/parquet.md:
//
//   null -> null; BOOLEAN -> true/false; INT32/INT64 (DATE as days since the
//   epoch, any integer/decimal annotation; unsigned annotations read the bits
//   as unsigned) -> integer; FLOAT -> widened exactly to double; DOUBLE ->
//   canonical double; NaN -> "NaN", +inf -> "Infinity", -inf -> "-Infinity";
//   BYTE_ARRAY annotated STRING/UTF8/ENUM/JSON -> string (invalid UTF-8 is
//   kInvalidFormat); other BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96 ->
//   {"hex":"<lowercase hex>"}; LIST -> array (null elements -> null).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/parquet/column_reader.h"

namespace vigilo::parquet {

// True if BYTE_ARRAY values of this column map to JSON strings.
bool IsStringColumn(const ColumnDescriptor& column);

// Appends the JSON of one value given as PLAIN bytes (a statistics min/max:
// no length prefix for BYTE_ARRAY). A size that does not fit the type is
// kInvalidFormat.
Status AppendPlainValueJson(const ColumnDescriptor& column, std::span<const uint8_t> plain, std::string* out);

// Appends the JSON of non-null value `i` of `values`.
Status AppendValueJson(const ColumnDescriptor& column, const ColumnValues& values, size_t i, std::string* out);

// Walks a decoded column row by row, appending each row's JSON value. Only
// kScalar and kList columns map to row values (kOther is kUnimplemented).
class RowJsonCursor {
 public:
  static Result<RowJsonCursor> Make(const ColumnDescriptor& column, const DecodedColumn& decoded);

  uint64_t rows_left() const { return decoded_->num_rows - row_; }
  // Appends the next row's value; kOutOfRange after the last row.
  Status AppendNext(std::string* out);
  // Moves past the next `rows` rows without formatting them; kOutOfRange
  // (and no move) if fewer are left.
  Status Skip(uint64_t rows);

 private:
  RowJsonCursor(const ColumnDescriptor& column, const DecodedColumn& decoded) : column_(&column), decoded_(&decoded) {}
  Status NextValue(std::string* out);

  const ColumnDescriptor* column_;
  const DecodedColumn* decoded_;
  uint64_t row_ = 0;
  size_t value_ = 0;  // next non-null value
};

// One canonical JSON object per row of a decoded row group: keys are the
// columns' top-level names (sorted by UTF-8 bytes, as canonical JSON wants),
// each object followed by LF. Duplicate names are kInvalidArgument. The
// descriptors and decoded columns must outlive the writer.
class RowObjectWriter {
 public:
  static Result<RowObjectWriter> Make(std::span<const ColumnDescriptor> columns,
                                      std::span<const DecodedColumn> decoded);
  uint64_t rows_left() const { return rows_left_; }
  Status AppendNext(std::string* out);

 private:
  RowObjectWriter() = default;
  std::vector<std::string> keys_;  // "\"name\":" in output order
  std::vector<RowJsonCursor> cursors_;
  uint64_t rows_left_ = 0;
};

}  // namespace vigilo::parquet
