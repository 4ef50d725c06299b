// The optional source table of a publication (publication-v1.md §2.6, §3.4):
// Parquet files under source/ with a REQUIRED long key equal to the row
// position, every other column OPTIONAL, row groups of exactly
// row-group-rows rows (the last one of the table may be shorter), and files
// that begin at multiples of row-group-rows. Files are created through the
// ObjectStore seam like the other objects (publication_writer.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/writer.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {

struct SourceLayout {
  uint64_t row_group_rows = 1024;       // small: a payload lookup reads one row group's chunks
  uint64_t max_file_bytes = 64u << 20;  // a file is closed at a row-group boundary before this
  parquet::CompressionCodec codec = parquet::CompressionCodec::kZstd;
};

class SourceWriter {
 public:
  // `columns` in table order; `key` names one of them, of type long.
  // `writes` must outlive the writer.
  static Result<std::unique_ptr<SourceWriter>> Open(store::OwnedWrites& writes, std::vector<Field> columns,
                                                    std::string key, SourceLayout layout);
  ~SourceWriter();

  // Appends the rows of decoded columns, one per table column in order, all
  // with the same num_rows (as vigilo's Parquet reader decodes them; scalar
  // columns of the field's physical type, list<float> columns as lists of
  // FLOAT or DOUBLE). InvalidArgument when a key is not its row position.
  Status Append(const std::vector<const parquet::DecodedColumn*>& columns);

  // Flushes the last row group and file; the source section of the manifest.
  Result<SourceSpec> Finish();

 private:
  struct Buffer;
  SourceWriter(store::OwnedWrites& writes, std::vector<Field> columns, size_t key_index, SourceLayout layout);
  Status FlushRowGroup();
  Status CloseFile();

  store::OwnedWrites& writes_;
  std::vector<Field> columns_;
  size_t key_index_;
  SourceLayout layout_;
  std::vector<parquet::ColumnSpec> specs_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  uint64_t buffered_rows_ = 0;
  uint64_t rows_ = 0;  // appended so far (the next row's position)
  struct OpenFile;
  std::unique_ptr<OpenFile> file_;
  std::vector<SourceFile> files_;
};

}  // namespace vigilo::ivf
