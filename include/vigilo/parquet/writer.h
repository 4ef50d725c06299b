// The Parquet writer: a flat schema of top-level columns (plus LIST<FLOAT>),
// written row group by row group to a byte sink. Normative rules (encodings,
// page cuts, statistics, dictionary fallback, determinism) are in
// docs/format/parquet-writer.md.
//
//   auto w = FileWriter::Open(columns, options, &sink);
//   w->BeginRowGroup();
//   w->WriteInt32(0, ids);                    // any number of batches per column
//   w->WriteByteArray(1, names, validity);
//   w->EndRowGroup();                         // the row group's chunks go to the sink
//   w->Finish();                              // the footer
//
// The caller chooses every row-group boundary; nothing is flushed early, so
// memory is bounded by one row group's encoded pages. Values are "spaced":
// one entry per row, nulls included (the value at a null row is ignored);
// validity has one byte per row (0 = null) or is empty (no nulls).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet {

// Where the file's bytes go. Append is called with the file's bytes in
// order; after an error the writer stops calling it.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Append(std::span<const uint8_t> bytes) = 0;
};

class MemorySink final : public ByteSink {
 public:
  Status Append(std::span<const uint8_t> bytes) override;
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Writes a file it creates (or truncates). Close() reports write errors;
// the destructor closes silently.
class FileSink final : public ByteSink {
 public:
  static Result<std::unique_ptr<FileSink>> Create(const std::string& path);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  Status Append(std::span<const uint8_t> bytes) override;
  Status Close();

 private:
  FileSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

enum class ColumnKind : uint8_t {
  kBoolean,
  kInt32,
  kDate,  // INT32 days since 1970-01-01 (DATE logical type)
  kInt64,
  kFloat,
  kDouble,
  kByteArray,          // BYTE_ARRAY without a logical type
  kString,             // BYTE_ARRAY, STRING logical type (values must be UTF-8)
  kFixedLenByteArray,  // type_length bytes per value
  kFloatList,          // <rep> group (LIST) { repeated group list { <elem> float element } }
};

struct ColumnSpec {
  std::string name;
  ColumnKind kind = ColumnKind::kInt32;
  bool optional = false;          // the column (for kFloatList: the list) may be null
  bool element_optional = false;  // kFloatList only: elements may be null
  int32_t type_length = 0;        // kFixedLenByteArray only, > 0
  bool dictionary = false;        // kByteArray and kString only
};

struct WriterOptions {
  CompressionCodec codec = CompressionCodec::kUncompressed;  // or kZstd, kSnappy
  int zstd_level = 3;
  // A page ends at the first row boundary where its values' PLAIN size
  // reaches this many bytes (or it holds kMaxPageLevels level entries).
  uint32_t page_size = 1u << 20;
  // Dictionary columns: when the dictionary's PLAIN size would exceed this,
  // the whole column chunk is written PLAIN instead (see the format doc).
  uint32_t dictionary_size_limit = 1u << 20;
  bool page_statistics = true;  // statistics in every data page header too
  // A byte-array chunk (or page) whose min or max is longer than this gets
  // no min/max statistics (null_count only): long values such as LVQ codes
  // would otherwise put two copies of each bound per row group in the footer.
  uint32_t max_statistics_value_bytes = UINT32_MAX;
  std::vector<KeyValue> key_value_metadata;
};

inline constexpr int64_t kMaxPageLevels = int64_t{1} << 20;

// "vigilo version X.Y.Z": the "<name> version <semver>" form that parquet-mr
// and Arrow parse to decide whether to trust a writer's statistics.
std::string WriterCreatedBy();

// The schema the writer produces for `columns` (depth-first, root first).
Result<std::vector<SchemaElement>> BuildSchema(std::span<const ColumnSpec> columns);

class ColumnChunkWriter;  // private to src/parquet

class FileWriter {
 public:
  // Checks the columns (unique non-empty UTF-8 names, kind-specific fields)
  // and writes the leading magic.
  static Result<std::unique_ptr<FileWriter>> Open(std::vector<ColumnSpec> columns, WriterOptions options,
                                                  ByteSink* sink);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  Status BeginRowGroup();
  // kBoolean: values are 0 or 1.
  Status WriteBoolean(size_t column, std::span<const uint8_t> values, std::span<const uint8_t> validity = {});
  // kInt32 and kDate.
  Status WriteInt32(size_t column, std::span<const int32_t> values, std::span<const uint8_t> validity = {});
  Status WriteInt64(size_t column, std::span<const int64_t> values, std::span<const uint8_t> validity = {});
  Status WriteFloat(size_t column, std::span<const float> values, std::span<const uint8_t> validity = {});
  Status WriteDouble(size_t column, std::span<const double> values, std::span<const uint8_t> validity = {});
  // kByteArray, kString and kFixedLenByteArray.
  Status WriteByteArray(size_t column, std::span<const std::string_view> values,
                        std::span<const uint8_t> validity = {});
  // kFloatList: row i is elements[offsets[i], offsets[i+1]); offsets has
  // rows + 1 non-decreasing entries within elements. A null row (validity
  // 0) must be empty. element_validity is one byte per element or empty.
  Status WriteFloatList(size_t column, std::span<const int64_t> offsets, std::span<const float> elements,
                        std::span<const uint8_t> validity = {}, std::span<const uint8_t> element_validity = {});
  // Every column must have the same, non-zero, number of rows.
  Status EndRowGroup();
  // Writes the footer. No row group may be open.
  Status Finish();

  // After Finish: the metadata that was written.
  const FileMetaData& metadata() const { return metadata_; }

 private:
  FileWriter(std::vector<ColumnSpec> columns, WriterOptions options, ByteSink* sink);
  Status Emit(std::span<const uint8_t> bytes);
  Result<ColumnChunkWriter*> Column(size_t column);

  std::vector<ColumnSpec> columns_;
  WriterOptions options_;
  ByteSink* sink_;
  Status failed_;  // the first sink or state error; sticky
  bool in_row_group_ = false;
  bool finished_ = false;
  uint64_t offset_ = 0;  // bytes emitted so far
  std::vector<std::unique_ptr<ColumnChunkWriter>> chunks_;
  FileMetaData metadata_;
};

}  // namespace vigilo::parquet
