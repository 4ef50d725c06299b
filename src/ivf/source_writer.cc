#include "vigilo/ivf/source_writer.h"

#include <cstdio>
#include <string_view>

#include "object_sink.h"
#include "vigilo/ivf/publication_writer.h"

namespace vigilo::ivf {
namespace {

using Kind = ColumnType::Kind;
using parquet::Type;

}  // namespace

// One column's buffered rows, spaced (one entry per row, nulls included).
struct SourceWriter::Buffer {
  Kind kind;
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
  uint64_t estimated_bytes = 0;

  void Clear() {
    valid.clear();
    any_null = any_null_element = false;
    booleans.clear();
    int32s.clear();
    int64s.clear();
    floats.clear();
    doubles.clear();
    bytes.clear();
    offsets.assign(1, 0);
    elements.clear();
    element_valid.clear();
    estimated_bytes = 0;
  }

  // Row r of `col`, whose dense values are read at *cursor (advanced).
  Status Take(const parquet::DecodedColumn& col, size_t r, size_t* cursor) {
    bool ok = col.row_valid.empty() || col.row_valid[r] != 0;
    valid.push_back(ok ? 1 : 0);
    any_null |= !ok;
    const parquet::ColumnValues& v = col.values;
    auto next = [&]() { return (*cursor)++; };
    switch (kind) {
      case Kind::kBoolean: booleans.push_back(ok ? v.booleans[next()] : 0); break;
      case Kind::kInt:
      case Kind::kDate: int32s.push_back(ok ? v.int32s[next()] : 0); break;
      case Kind::kLong: int64s.push_back(ok ? v.int64s[next()] : 0); break;
      case Kind::kFloat: floats.push_back(ok ? v.floats[next()] : 0); break;
      case Kind::kDouble: doubles.push_back(ok ? v.doubles[next()] : 0); break;
      case Kind::kBinary:
      case Kind::kString:
      case Kind::kFixed: {
        std::string value;
        if (ok) {
          auto b = v.Binary(next());
          value.assign(reinterpret_cast<const char*>(b.data()), b.size());
        }
        estimated_bytes += value.size();
        bytes.push_back(std::move(value));
        break;
      }
      case Kind::kFloatList: {
        uint64_t lo = col.list_offsets[r], hi = col.list_offsets[r + 1];
        for (uint64_t s = lo; s < hi; ++s) {
          bool e = col.element_valid.empty() || col.element_valid[s] != 0;
          element_valid.push_back(e ? 1 : 0);
          any_null_element |= !e;
          float x = 0;
          if (e) x = v.type == Type::kDouble ? static_cast<float>(v.doubles[next()]) : v.floats[next()];
          elements.push_back(x);
        }
        offsets.push_back(static_cast<int64_t>(elements.size()));
        estimated_bytes += (hi - lo) * 4;
        break;
      }
    }
    estimated_bytes += 8;
    return Status::Ok();
  }
};

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
    for (size_t c = 0; c < columns.size(); ++c) VIGILO_RETURN_IF_ERROR(buffers_[c]->Take(*columns[c], r, &cursors[c]));
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
    std::span<const uint8_t> valid = b.any_null ? std::span<const uint8_t>(b.valid) : std::span<const uint8_t>();
    switch (b.kind) {
      case Kind::kBoolean: VIGILO_RETURN_IF_ERROR(w.WriteBoolean(c, b.booleans, valid)); break;
      case Kind::kInt:
      case Kind::kDate: VIGILO_RETURN_IF_ERROR(w.WriteInt32(c, b.int32s, valid)); break;
      case Kind::kLong: VIGILO_RETURN_IF_ERROR(w.WriteInt64(c, b.int64s, valid)); break;
      case Kind::kFloat: VIGILO_RETURN_IF_ERROR(w.WriteFloat(c, b.floats, valid)); break;
      case Kind::kDouble: VIGILO_RETURN_IF_ERROR(w.WriteDouble(c, b.doubles, valid)); break;
      case Kind::kBinary:
      case Kind::kString:
      case Kind::kFixed: {
        std::vector<std::string_view> views(b.bytes.begin(), b.bytes.end());
        VIGILO_RETURN_IF_ERROR(w.WriteByteArray(c, views, valid));
        break;
      }
      case Kind::kFloatList: {
        std::span<const uint8_t> element_valid =
            b.any_null_element ? std::span<const uint8_t>(b.element_valid) : std::span<const uint8_t>();
        VIGILO_RETURN_IF_ERROR(w.WriteFloatList(c, b.offsets, b.elements, valid, element_valid));
        break;
      }
    }
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
