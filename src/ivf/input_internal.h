// Private to the build inputs: one opener per format and the checks they
// share, so every format reports the same error for the same problem.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "vigilo/common/byte_source.h"
#include "vigilo/ivf/input.h"
#include "vigilo/json/value.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::ivf::input_internal {

Result<std::unique_ptr<VectorInput>> OpenVecsInput(const std::string& path, const InputOptions& options,
                                                   InputFormat format);
Result<std::unique_ptr<VectorInput>> OpenNpyInput(const std::string& path, const InputOptions& options);
Result<std::unique_ptr<VectorInput>> OpenJsonlInput(const std::string& path, const InputOptions& options);
Result<std::unique_ptr<VectorInput>> OpenParquetInput(const std::string& path, const InputOptions& options);

// Errors located in `path`, optionally at a byte offset.
Status FormatError(const std::string& path, std::string message);
Status FormatErrorAt(const std::string& path, uint64_t offset, std::string message);

// Locates an error from a lower layer in `path` ("f.parquet: row_groups[0]…").
Status InFile(const std::string& path, Status status);

// InvalidFormat unless 1 ≤ dimension ≤ kMaxInputDimension.
Status CheckDimension(const std::string& path, uint64_t dimension, const std::string& where);

// InvalidFormat naming the row and element of the first NaN or infinity.
Status CheckFinite(const std::string& path, std::span<const float> row, uint64_t row_index);

// Converts one row of doubles to floats; InvalidFormat naming the row and
// element of the first NaN, infinity or value beyond the float range.
Status ConvertDoubleRow(const std::string& path, std::span<const double> row, float* out, uint64_t row_index);

// "row 12" (the 0-based row position), the start of row error messages.
std::string RowName(uint64_t row_index);

// Parquet column lookup shared with the source-table copy: the single leaf
// of top-level field `name` (InvalidFormat listing the columns otherwise),
// the manifest key type of a column, and the vector-column shape check.
Result<parquet::ColumnDescriptor> FindParquetField(const std::string& path, const parquet::Footer& footer,
                                                   const std::string& name, const char* role);
Result<ColumnType> ParquetKeyType(const std::string& path, const parquet::ColumnDescriptor& column);
Status CheckParquetVectorColumn(const std::string& path, const parquet::ColumnDescriptor& column);

// A file read front to back in pieces; Reopen starts again (a new pass).
class SequentialFile {
 public:
  static Result<SequentialFile> Open(const std::string& path);

  // Reads until `buf` is full or the file ends; returns the bytes read.
  Result<size_t> ReadUpTo(std::span<char> buf);
  Status Reopen();
  uint64_t offset() const { return offset_; }  // bytes consumed so far
  uint64_t size() const { return size_; }      // at open (0 for a non-regular file)

 private:
  explicit SequentialFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::unique_ptr<ByteSource> source_;        // a FileByteSource, or stdin_bytes_ ("-")
  std::shared_ptr<const std::string> stdin_bytes_;
  uint64_t offset_ = 0;
  uint64_t size_ = 0;
};

// A JSON Lines file read as parsed lines, one pass after another, in
// O(line) memory: the payload-column scan and copy (source_copy.cc) and the
// text build (text_build.cc) read members the vector input does not keep.
// Errors are the vector input's: a blank line, broken JSON, or a line that is
// neither an object nor an array, named by row, line and byte offset.
class JsonlLines {
 public:
  static Result<std::unique_ptr<JsonlLines>> Open(const std::string& path);
  ~JsonlLines();
  // The next line's value (an object, or an array: a bare vector) and its
  // row; false at the end of the file.
  Result<bool> Next(json::Value* value, uint64_t* row, uint64_t* offset);
  Status Rewind();
  const std::string& path() const { return path_; }

 private:
  struct Impl;
  JsonlLines(std::string path, std::unique_ptr<Impl> impl);
  std::string path_;
  std::unique_ptr<Impl> impl_;
  uint64_t next_row_ = 0;
};

// "row 3 (line 4): …" located at `offset` of `path`.
Status JsonlRowError(const std::string& path, uint64_t row, uint64_t offset, const std::string& what);

// An .npy file's header (format 1.0/2.0/3.0): a 2-D C-order array of
// `descr` values (e.g. "<f4", "<i8"), data from data_offset. ParseError or
// InvalidFormat for anything else; the dtype is the caller's to check.
struct NpyArrayHeader {
  std::string descr;
  uint64_t rows = 0, columns = 0, data_offset = 0;
};
Result<NpyArrayHeader> ReadNpyArrayHeader(const std::string& path, SequentialFile& file);

}  // namespace vigilo::ivf::input_internal
