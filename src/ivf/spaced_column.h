// Private to src/ivf: one column's rows gathered spaced (one entry per row,
// nulls included) from decoded Parquet columns, and written back as one
// column chunk. The source table writer and the text build's scratch table
// both copy decoded columns this way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vigilo/common/status.h"
#include "vigilo/ivf/types.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/writer.h"

namespace vigilo::ivf {

struct SpacedColumn {
  ColumnType::Kind kind = ColumnType::Kind::kLong;
  std::vector<uint8_t> valid;  // per row
  bool any_null = false;
  std::vector<uint8_t> booleans;
  std::vector<int32_t> int32s;
  std::vector<int64_t> int64s;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<std::string> bytes;
  std::vector<int64_t> offsets{0};  // list<float>: rows + 1
  std::vector<float> elements;
  std::vector<uint8_t> element_valid;
  bool any_null_element = false;
  uint64_t estimated_bytes = 0;  // of the rows held, roughly (8 a row plus the payload)

  void Clear();
  // Row r of `col` (of this column's kind; list<float> from FLOAT or DOUBLE
  // elements), whose dense values are read at *cursor (advanced either
  // way); appended only when `keep`.
  void Take(const parquet::DecodedColumn& col, size_t r, size_t* cursor, bool keep = true);
  // The rows held as column `c` of the writer's current row group (no
  // definition levels when nothing is null).
  Status Write(parquet::FileWriter& w, size_t c) const;
};

}  // namespace vigilo::ivf
