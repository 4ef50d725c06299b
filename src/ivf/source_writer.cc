#include "vigilo/ivf/source_writer.h"

#include <cstdio>
#include <string_view>

#include "object_sink.h"
#include "spaced_column.h"
#include "vigilo/ivf/publication_writer.h"

namespace vigilo::ivf {
namespace {

using Kind = ColumnType::Kind;

}  // namespace

// One column's buffered rows (the public header names only this type).
struct SourceWriter::Buffer : SpacedColumn {};

struct SourceWriter::OpenFile {
  std::string path;
  uint64_t row_begin = 0;
  std::unique_ptr<ObjectSink> sink;
  std::unique_ptr<parquet::FileWriter> writer;
};

SourceWriter::SourceWriter(store::OwnedWrites& writes, std::vector<Field> columns, size_t key_index,
                           SourceLayout layout)
    : writes_(writes), columns_(std::move(columns)), key_index_(key_index), layout_(layout) {}

SourceWriter::~SourceWriter() = default;

Result<std::unique_ptr<SourceWriter>> SourceWriter::Open(store::OwnedWrites& writes, std::vector<Field> columns,
                                                         std::string key, SourceLayout layout) {
  if (layout.row_group_rows == 0) return InvalidArgument("source row-group-rows must be positive");
  size_t key_index = columns.size();
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == key) key_index = i;
  }
  if (key_index == columns.size() || columns[key_index].type.kind != Kind::kLong) {
    return InvalidArgument("the source key \"" + key + "\" must be one of the columns, of type long");
  }
  std::unique_ptr<SourceWriter> w(new SourceWriter(writes, std::move(columns), key_index, layout));
  for (size_t i = 0; i < w->columns_.size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(parquet::ColumnSpec spec, ParquetColumnFor(w->columns_[i], i != key_index));
    if (spec.kind == parquet::ColumnKind::kFloatList) spec.element_optional = true;
    w->specs_.push_back(std::move(spec));
    auto b = std::make_unique<Buffer>();
    b->kind = w->columns_[i].type.kind;
    w->buffers_.push_back(std::move(b));
  }
  return w;
}

Status SourceWriter::Append(const std::vector<const parquet::DecodedColumn*>& columns) {
  if (columns.size() != columns_.size()) return Internal("source append with the wrong number of columns");
  uint64_t n = columns[0]->num_rows;
  for (const auto* c : columns) {
    if (c->num_rows != n) return Internal("source columns with different row counts");
  }
  const parquet::DecodedColumn& key = *columns[key_index_];
  std::vector<size_t> cursors(columns.size(), 0);
  for (size_t r = 0; r < n; ++r) {
    bool has_key = key.row_valid.empty() || key.row_valid[r] != 0;
    auto position = static_cast<int64_t>(rows_);
    if (!has_key || key.values.int64s[cursors[key_index_]] != position) {
      return InvalidArgument("a source table needs keys 0, 1, 2, … in row order; the key \"" +
                             columns_[key_index_].name + "\" at row " + std::to_string(rows_) + " is " +
                             (has_key ? std::to_string(key.values.int64s[cursors[key_index_]]) : "null"));
    }
    for (size_t c = 0; c < columns.size(); ++c) buffers_[c]->Take(*columns[c], r, &cursors[c]);
    ++rows_;
    if (++buffered_rows_ == layout_.row_group_rows) VIGILO_RETURN_IF_ERROR(FlushRowGroup());
  }
  return Status::Ok();
}

Status SourceWriter::FlushRowGroup() {
  if (buffered_rows_ == 0) return Status::Ok();
  uint64_t estimate = 4096;
  for (const auto& b : buffers_) estimate += b->estimated_bytes;
  if (file_ && file_->sink->size() + estimate > layout_.max_file_bytes) VIGILO_RETURN_IF_ERROR(CloseFile());
  if (!file_) {
    auto f = std::make_unique<OpenFile>();
    char name[40];
    std::snprintf(name, sizeof name, "source/part-%06zu.parquet", files_.size());
    f->path = name;
    f->row_begin = rows_ - buffered_rows_;
    VIGILO_ASSIGN_OR_RETURN(f->sink, ObjectSink::Create(writes_, f->path));
    parquet::WriterOptions options;
    options.codec = layout_.codec;
    options.max_statistics_value_bytes = 64;  // keeps footers within the reader's speculative tail read
    VIGILO_ASSIGN_OR_RETURN(f->writer, parquet::FileWriter::Open(specs_, options, f->sink.get()));
    file_ = std::move(f);
  }
  parquet::FileWriter& w = *file_->writer;
  VIGILO_RETURN_IF_ERROR(w.BeginRowGroup());
  for (size_t c = 0; c < buffers_.size(); ++c) {
    Buffer& b = *buffers_[c];
    VIGILO_RETURN_IF_ERROR(b.Write(w, c));
    b.Clear();
  }
  VIGILO_RETURN_IF_ERROR(w.EndRowGroup());
  buffered_rows_ = 0;
  return Status::Ok();
}

Status SourceWriter::CloseFile() {
  if (!file_) return Status::Ok();
  VIGILO_RETURN_IF_ERROR(file_->writer->Finish());
  VIGILO_ASSIGN_OR_RETURN(ObjectDescriptor object, file_->sink->Commit());
  files_.push_back(SourceFile{std::move(object), file_->row_begin, rows_ - buffered_rows_});
  file_.reset();
  return Status::Ok();
}

Result<SourceSpec> SourceWriter::Finish() {
  VIGILO_RETURN_IF_ERROR(FlushRowGroup());
  VIGILO_RETURN_IF_ERROR(CloseFile());
  SourceSpec spec;
  spec.rows = rows_;
  spec.row_group_rows = layout_.row_group_rows;
  spec.columns = columns_;
  spec.key = columns_[key_index_].name;
  spec.files = std::move(files_);
  return spec;
}

}  // namespace vigilo::ivf
