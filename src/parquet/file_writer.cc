// FileWriter: the schema, the row-group state machine and the footer.
#include <set>

#include "column_writer.h"
#include "vigilo/common/checked.h"
#include "vigilo/common/utf8.h"
#include "vigilo/parquet/footer.h"

#ifndef VIGILO_VERSION
#error "VIGILO_VERSION must be defined by the build"
#endif

namespace vigilo::parquet {
namespace {

SchemaElement Leaf(std::string name, Type type, FieldRepetitionType rep) {
  SchemaElement el;
  el.type = type;
  el.repetition_type = rep;
  el.name = std::move(name);
  return el;
}

FieldRepetitionType Repetition(bool optional) {
  return optional ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired;
}

Status CheckSpec(const ColumnSpec& spec) {
  if (spec.name.empty()) return InvalidArgument("column name is empty");
  if (!IsValidUtf8(spec.name)) return InvalidArgument("column name is not valid UTF-8");
  if (spec.kind == ColumnKind::kFixedLenByteArray ? spec.type_length <= 0 : spec.type_length != 0) {
    return InvalidArgument("type_length must be positive for FIXED_LEN_BYTE_ARRAY and 0 otherwise");
  }
  if (spec.element_optional && spec.kind != ColumnKind::kFloatList) {
    return InvalidArgument("element_optional applies to list columns only");
  }
  if (spec.dictionary && spec.kind != ColumnKind::kByteArray && spec.kind != ColumnKind::kString) {
    return InvalidArgument("dictionary encoding applies to BYTE_ARRAY and STRING columns only");
  }
  return Status::Ok();
}

std::string_view KindName(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kBoolean: return "BOOLEAN";
    case ColumnKind::kInt32: return "INT32";
    case ColumnKind::kDate: return "DATE";
    case ColumnKind::kInt64: return "INT64";
    case ColumnKind::kFloat: return "FLOAT";
    case ColumnKind::kDouble: return "DOUBLE";
    case ColumnKind::kByteArray: return "BYTE_ARRAY";
    case ColumnKind::kString: return "STRING";
    case ColumnKind::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
    case ColumnKind::kFloatList: return "LIST<FLOAT>";
  }
  return "?";
}

}  // namespace

std::string WriterCreatedBy() { return std::string("vigilo version ") + VIGILO_VERSION; }

Result<std::vector<SchemaElement>> BuildSchema(std::span<const ColumnSpec> columns) {
  if (columns.size() > static_cast<size_t>(INT32_MAX)) return LimitExceeded("too many columns");
  std::vector<SchemaElement> schema;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(columns.size());
  schema.push_back(std::move(root));
  std::set<std::string_view> names;
  for (size_t i = 0; i < columns.size(); ++i) {
    const ColumnSpec& c = columns[i];
    Status st = CheckSpec(c);
    if (!st.ok()) return std::move(st).WithPath("columns[" + std::to_string(i) + "]");
    if (!names.insert(c.name).second) {
      return InvalidArgument("duplicate column name \"" + c.name + "\"").WithPath("columns[" + std::to_string(i) + "]");
    }
    FieldRepetitionType rep = Repetition(c.optional);
    switch (c.kind) {
      case ColumnKind::kBoolean: schema.push_back(Leaf(c.name, Type::kBoolean, rep)); break;
      case ColumnKind::kInt32: schema.push_back(Leaf(c.name, Type::kInt32, rep)); break;
      case ColumnKind::kDate: {
        SchemaElement el = Leaf(c.name, Type::kInt32, rep);
        el.converted_type = ConvertedType::kDate;
        el.logical_type = LogicalType::Simple(LogicalType::Kind::kDate);
        schema.push_back(std::move(el));
        break;
      }
      case ColumnKind::kInt64: schema.push_back(Leaf(c.name, Type::kInt64, rep)); break;
      case ColumnKind::kFloat: schema.push_back(Leaf(c.name, Type::kFloat, rep)); break;
      case ColumnKind::kDouble: schema.push_back(Leaf(c.name, Type::kDouble, rep)); break;
      case ColumnKind::kByteArray: schema.push_back(Leaf(c.name, Type::kByteArray, rep)); break;
      case ColumnKind::kString: {
        SchemaElement el = Leaf(c.name, Type::kByteArray, rep);
        el.converted_type = ConvertedType::kUtf8;
        el.logical_type = LogicalType::Simple(LogicalType::Kind::kString);
        schema.push_back(std::move(el));
        break;
      }
      case ColumnKind::kFixedLenByteArray: {
        SchemaElement el = Leaf(c.name, Type::kFixedLenByteArray, rep);
        el.type_length = c.type_length;
        schema.push_back(std::move(el));
        break;
      }
      case ColumnKind::kFloatList: {
        // The standard 3-level list (LogicalTypes.md, "Lists").
        SchemaElement outer;
        outer.repetition_type = rep;
        outer.name = c.name;
        outer.num_children = 1;
        outer.converted_type = ConvertedType::kList;
        outer.logical_type = LogicalType::Simple(LogicalType::Kind::kList);
        SchemaElement middle;
        middle.repetition_type = FieldRepetitionType::kRepeated;
        middle.name = "list";
        middle.num_children = 1;
        schema.push_back(std::move(outer));
        schema.push_back(std::move(middle));
        schema.push_back(Leaf("element", Type::kFloat, Repetition(c.element_optional)));
        break;
      }
    }
  }
  return schema;
}

FileWriter::FileWriter(std::vector<ColumnSpec> columns, WriterOptions options, ByteSink* sink)
    : columns_(std::move(columns)), options_(std::move(options)), sink_(sink) {}

FileWriter::~FileWriter() = default;

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::vector<ColumnSpec> columns, WriterOptions options,
                                                     ByteSink* sink) {
  if (sink == nullptr) return InvalidArgument("no byte sink");
  if (options.codec != CompressionCodec::kUncompressed && options.codec != CompressionCodec::kZstd &&
      options.codec != CompressionCodec::kSnappy) {
    return InvalidArgument("the writer supports UNCOMPRESSED, ZSTD and SNAPPY only");
  }
  if (options.page_size == 0) return InvalidArgument("page_size must be positive");
  VIGILO_ASSIGN_OR_RETURN(std::vector<SchemaElement> schema, BuildSchema(columns));
  std::unique_ptr<FileWriter> w(new FileWriter(std::move(columns), std::move(options), sink));
  w->metadata_.schema = std::move(schema);
  w->metadata_.created_by = WriterCreatedBy();
  w->metadata_.column_orders = std::vector<ColumnOrder>(w->columns_.size(), ColumnOrder::kTypeDefinedOrder);
  if (!w->options_.key_value_metadata.empty()) w->metadata_.key_value_metadata = w->options_.key_value_metadata;
  for (const ColumnSpec& spec : w->columns_) w->chunks_.push_back(std::make_unique<ColumnChunkWriter>(spec, w->options_));
  const auto* magic = reinterpret_cast<const uint8_t*>(kMagic);
  VIGILO_RETURN_IF_ERROR(w->Emit({magic, sizeof(kMagic)}));
  return w;
}

Status FileWriter::Emit(std::span<const uint8_t> bytes) {
  VIGILO_RETURN_IF_ERROR(failed_);
  Status st = sink_->Append(bytes);
  if (!st.ok()) {
    failed_ = st;
    return st;
  }
  offset_ += bytes.size();
  return Status::Ok();
}

Status FileWriter::BeginRowGroup() {
  VIGILO_RETURN_IF_ERROR(failed_);
  if (finished_) return InvalidArgument("BeginRowGroup after Finish");
  if (in_row_group_) return InvalidArgument("BeginRowGroup while a row group is open");
  in_row_group_ = true;
  return Status::Ok();
}

Result<ColumnChunkWriter*> FileWriter::Column(size_t column) {
  VIGILO_RETURN_IF_ERROR(failed_);
  if (!in_row_group_) return InvalidArgument("column values written outside a row group");
  if (column >= chunks_.size()) {
    return InvalidArgument("column " + std::to_string(column) + " does not exist (the schema has " +
                           std::to_string(chunks_.size()) + ")");
  }
  return chunks_[column].get();
}

// Runs one typed append: the column must be of an accepted kind; input
// errors leave the writer usable, encoding errors stop it.
#define VIGILO_WRITE_COLUMN_(column, kinds_ok, call)                                              \
  do {                                                                                            \
    VIGILO_ASSIGN_OR_RETURN(ColumnChunkWriter * c, Column(column));                               \
    ColumnKind kind = c->spec().kind;                                                             \
    if (!(kinds_ok)) {                                                                            \
      return InvalidArgument(std::string(__func__) + " does not apply to a " +                    \
                             std::string(KindName(kind)) + " column")                             \
          .WithPath(c->spec().name);                                                              \
    }                                                                                             \
    Status st = c->call;                                                                          \
    if (!c->error().ok()) failed_ = c->error();                                                   \
    if (!st.ok()) return std::move(st).WithPath(c->spec().name);                                  \
    return Status::Ok();                                                                          \
  } while (0)

Status FileWriter::WriteBoolean(size_t column, std::span<const uint8_t> values, std::span<const uint8_t> validity) {
  VIGILO_WRITE_COLUMN_(column, kind == ColumnKind::kBoolean, WriteBoolean(values, validity));
}

Status FileWriter::WriteInt32(size_t column, std::span<const int32_t> values, std::span<const uint8_t> validity) {
  VIGILO_WRITE_COLUMN_(column, kind == ColumnKind::kInt32 || kind == ColumnKind::kDate, WriteInt32(values, validity));
}

Status FileWriter::WriteInt64(size_t column, std::span<const int64_t> values, std::span<const uint8_t> validity) {
  VIGILO_WRITE_COLUMN_(column, kind == ColumnKind::kInt64, WriteInt64(values, validity));
}

Status FileWriter::WriteFloat(size_t column, std::span<const float> values, std::span<const uint8_t> validity) {
  VIGILO_WRITE_COLUMN_(column, kind == ColumnKind::kFloat, WriteFloat(values, validity));
}

Status FileWriter::WriteDouble(size_t column, std::span<const double> values, std::span<const uint8_t> validity) {
  VIGILO_WRITE_COLUMN_(column, kind == ColumnKind::kDouble, WriteDouble(values, validity));
}

Status FileWriter::WriteByteArray(size_t column, std::span<const std::string_view> values,
                                  std::span<const uint8_t> validity) {
  VIGILO_WRITE_COLUMN_(column,
                       kind == ColumnKind::kByteArray || kind == ColumnKind::kString ||
                           kind == ColumnKind::kFixedLenByteArray,
                       WriteByteArray(values, validity));
}

Status FileWriter::WriteFloatList(size_t column, std::span<const int64_t> offsets, std::span<const float> elements,
                                  std::span<const uint8_t> validity, std::span<const uint8_t> element_validity) {
  VIGILO_WRITE_COLUMN_(column, kind == ColumnKind::kFloatList,
                       WriteFloatList(offsets, elements, validity, element_validity));
}

#undef VIGILO_WRITE_COLUMN_

Status FileWriter::EndRowGroup() {
  VIGILO_RETURN_IF_ERROR(failed_);
  if (!in_row_group_) return InvalidArgument("EndRowGroup without BeginRowGroup");
  int64_t rows = chunks_.empty() ? 0 : chunks_[0]->rows();
  for (const auto& c : chunks_) {
    if (c->rows() != rows) {
      return InvalidArgument("column \"" + c->spec().name + "\" has " + std::to_string(c->rows()) +
                             " rows in this row group, column \"" + chunks_[0]->spec().name + "\" has " +
                             std::to_string(rows));
    }
  }
  if (rows == 0) return InvalidArgument("a row group needs at least one row");
  if (metadata_.row_groups.size() >= static_cast<size_t>(INT16_MAX)) {
    return LimitExceeded("a file holds at most 32767 row groups (RowGroup.ordinal is i16)");
  }
  // From here on a failure leaves a partial row group in the sink: sticky.
  auto fail = [this](Status st) {
    failed_ = st;
    return st;
  };
  RowGroup rg;
  rg.num_rows = rows;
  rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
  VIGILO_ASSIGN_OR_RETURN(int64_t start, CheckedCast<int64_t>(offset_));
  rg.file_offset = start;
  int64_t compressed = 0;
  for (const auto& c : chunks_) {
    ColumnChunk chunk;
    chunk.meta_data.emplace();
    auto at = CheckedCast<int64_t>(offset_);
    if (!at.ok()) return fail(at.status());
    auto bytes = c->FinishChunk(*at, &*chunk.meta_data);
    if (!bytes.ok()) return fail(std::move(bytes).take_status().WithPath(c->spec().name));
    VIGILO_RETURN_IF_ERROR(Emit(*bytes));
    auto total = CheckedAdd(rg.total_byte_size, chunk.meta_data->total_uncompressed_size);
    auto comp = CheckedAdd(compressed, chunk.meta_data->total_compressed_size);
    if (!total.ok() || !comp.ok()) return fail(OutOfRange("row group size overflows int64"));
    rg.total_byte_size = *total;
    compressed = *comp;
    rg.columns.push_back(std::move(chunk));
  }
  rg.total_compressed_size = compressed;
  auto num_rows = CheckedAdd(metadata_.num_rows, rows);
  if (!num_rows.ok()) return fail(num_rows.status());
  metadata_.num_rows = *num_rows;
  metadata_.row_groups.push_back(std::move(rg));
  in_row_group_ = false;
  return Status::Ok();
}

Status FileWriter::Finish() {
  VIGILO_RETURN_IF_ERROR(failed_);
  if (finished_) return InvalidArgument("Finish called twice");
  if (in_row_group_) return InvalidArgument("Finish while a row group is open");
  VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> footer, EncodeFooter(metadata_));
  VIGILO_RETURN_IF_ERROR(Emit(footer));
  finished_ = true;
  return Status::Ok();
}

}  // namespace vigilo::parquet
