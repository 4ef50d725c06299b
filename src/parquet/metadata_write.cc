// Encoding of parquet.thrift structs: fields in ascending id order, optional
// fields only when set, as the reference Thrift libraries write them.
#include "vigilo/parquet/metadata.h"

#include "wire_enum.h"

namespace vigilo::parquet {
namespace {

using W = CompactWriter;

void Put(W& w, int16_t id, bool v) { w.WriteBoolField(id, v); }
void Put(W& w, int16_t id, int8_t v) {
  w.WriteFieldHeader(CompactType::kI8, id);
  w.WriteI8(v);
}
void Put(W& w, int16_t id, int16_t v) {
  w.WriteFieldHeader(CompactType::kI16, id);
  w.WriteI16(v);
}
void Put(W& w, int16_t id, int32_t v) {
  w.WriteFieldHeader(CompactType::kI32, id);
  w.WriteI32(v);
}
void Put(W& w, int16_t id, int64_t v) {
  w.WriteFieldHeader(CompactType::kI64, id);
  w.WriteI64(v);
}
void Put(W& w, int16_t id, const std::string& v) {
  w.WriteFieldHeader(CompactType::kBinary, id);
  w.WriteString(v);
}
template <WireEnum E>
void Put(W& w, int16_t id, E v) {
  Put(w, id, static_cast<int32_t>(v));
}

// Struct bodies (everything between BeginStruct and EndStruct).
void Body(W& w, const KeyValue& v);
void Body(W& w, const Statistics& v);
void Body(W& w, const LogicalType& v);
void Body(W& w, const SchemaElement& v);
void Body(W& w, const PageEncodingStats& v);
void Body(W& w, const ColumnMetaData& v);
void Body(W& w, const ColumnChunk& v);
void Body(W& w, const RowGroup& v);
void Body(W& w, const FileMetaData& v);
void Body(W& w, const DataPageHeader& v);
void Body(W& w, const DictionaryPageHeader& v);
void Body(W& w, const DataPageHeaderV2& v);
void Body(W& w, const PageHeader& v);

template <typename T>
void Struct(W& w, const T& v) {
  w.BeginStruct();
  Body(w, v);
  w.EndStruct();
}

// A union member whose value is an empty struct.
void EmptyMember(W& w, int16_t id) {
  w.WriteFieldHeader(CompactType::kStruct, id);
  w.BeginStruct();
  w.EndStruct();
}

template <typename T>
requires requires(W& w, const T& v) { Body(w, v); }
void Put(W& w, int16_t id, const T& v) {
  w.WriteFieldHeader(CompactType::kStruct, id);
  Struct(w, v);
}

void Element(W& w, const std::string& v) { w.WriteString(v); }
void Element(W& w, Encoding v) { w.WriteI32(static_cast<int32_t>(v)); }
void Element(W& w, ColumnOrder v) {
  w.BeginStruct();
  EmptyMember(w, static_cast<int16_t>(v));
  w.EndStruct();
}
template <typename T>
requires requires(W& w, const T& v) { Body(w, v); }
void Element(W& w, const T& v) { Struct(w, v); }

template <typename T>
constexpr CompactType ElementType() {
  if constexpr (std::is_same_v<T, std::string>) return CompactType::kBinary;
  if constexpr (std::is_same_v<T, Encoding>) return CompactType::kI32;
  return CompactType::kStruct;
}

template <typename T>
void Put(W& w, int16_t id, const std::vector<T>& list) {
  w.WriteFieldHeader(CompactType::kList, id);
  w.WriteListHeader(ElementType<T>(), list.size());
  for (const T& v : list) Element(w, v);
}

template <typename T>
void Put(W& w, int16_t id, const std::optional<T>& v) {
  if (v) Put(w, id, *v);
}

void Body(W& w, const KeyValue& v) {
  Put(w, 1, v.key);
  Put(w, 2, v.value);
}

void Body(W& w, const Statistics& v) {
  Put(w, 1, v.max);
  Put(w, 2, v.min);
  Put(w, 3, v.null_count);
  Put(w, 4, v.distinct_count);
  Put(w, 5, v.max_value);
  Put(w, 6, v.min_value);
  Put(w, 7, v.is_max_value_exact);
  Put(w, 8, v.is_min_value_exact);
}

void TimeTypeBody(W& w, const LogicalType& v) {
  w.BeginStruct();
  Put(w, 1, v.is_adjusted_to_utc);
  w.WriteFieldHeader(CompactType::kStruct, 2);
  w.BeginStruct();
  EmptyMember(w, static_cast<int16_t>(v.unit));
  w.EndStruct();
  w.EndStruct();
}

void Body(W& w, const LogicalType& v) {
  using Kind = LogicalType::Kind;
  auto id = static_cast<int16_t>(v.kind);
  switch (v.kind) {
    case Kind::kOther: {
      w.WriteFieldHeader(v.other_type, v.other_field_id);
      const auto* p = reinterpret_cast<const uint8_t*>(v.other_value.data());
      w.WriteRaw({p, v.other_value.size()});
      return;
    }
    case Kind::kDecimal:
      w.WriteFieldHeader(CompactType::kStruct, id);
      w.BeginStruct();
      Put(w, 1, v.scale);
      Put(w, 2, v.precision);
      w.EndStruct();
      return;
    case Kind::kTime:
    case Kind::kTimestamp:
      w.WriteFieldHeader(CompactType::kStruct, id);
      TimeTypeBody(w, v);
      return;
    case Kind::kInteger:
      w.WriteFieldHeader(CompactType::kStruct, id);
      w.BeginStruct();
      Put(w, 1, v.bit_width);
      Put(w, 2, v.is_signed);
      w.EndStruct();
      return;
    default: EmptyMember(w, id); return;
  }
}

void Body(W& w, const SchemaElement& v) {
  Put(w, 1, v.type);
  Put(w, 2, v.type_length);
  Put(w, 3, v.repetition_type);
  Put(w, 4, v.name);
  Put(w, 5, v.num_children);
  Put(w, 6, v.converted_type);
  Put(w, 7, v.scale);
  Put(w, 8, v.precision);
  Put(w, 9, v.field_id);
  Put(w, 10, v.logical_type);
}

void Body(W& w, const PageEncodingStats& v) {
  Put(w, 1, v.page_type);
  Put(w, 2, v.encoding);
  Put(w, 3, v.count);
}

void Body(W& w, const ColumnMetaData& v) {
  Put(w, 1, v.type);
  Put(w, 2, v.encodings);
  Put(w, 3, v.path_in_schema);
  Put(w, 4, v.codec);
  Put(w, 5, v.num_values);
  Put(w, 6, v.total_uncompressed_size);
  Put(w, 7, v.total_compressed_size);
  Put(w, 8, v.key_value_metadata);
  Put(w, 9, v.data_page_offset);
  Put(w, 10, v.index_page_offset);
  Put(w, 11, v.dictionary_page_offset);
  Put(w, 12, v.statistics);
  Put(w, 13, v.encoding_stats);
}

void Body(W& w, const ColumnChunk& v) {
  Put(w, 1, v.file_path);
  Put(w, 2, v.file_offset);
  Put(w, 3, v.meta_data);
}

void Body(W& w, const RowGroup& v) {
  Put(w, 1, v.columns);
  Put(w, 2, v.total_byte_size);
  Put(w, 3, v.num_rows);
  Put(w, 5, v.file_offset);
  Put(w, 6, v.total_compressed_size);
  Put(w, 7, v.ordinal);
}

void Body(W& w, const FileMetaData& v) {
  Put(w, 1, v.version);
  Put(w, 2, v.schema);
  Put(w, 3, v.num_rows);
  Put(w, 4, v.row_groups);
  Put(w, 5, v.key_value_metadata);
  Put(w, 6, v.created_by);
  Put(w, 7, v.column_orders);
}

void Body(W& w, const DataPageHeader& v) {
  Put(w, 1, v.num_values);
  Put(w, 2, v.encoding);
  Put(w, 3, v.definition_level_encoding);
  Put(w, 4, v.repetition_level_encoding);
  Put(w, 5, v.statistics);
}

void Body(W& w, const DictionaryPageHeader& v) {
  Put(w, 1, v.num_values);
  Put(w, 2, v.encoding);
  Put(w, 3, v.is_sorted);
}

void Body(W& w, const DataPageHeaderV2& v) {
  Put(w, 1, v.num_values);
  Put(w, 2, v.num_nulls);
  Put(w, 3, v.num_rows);
  Put(w, 4, v.encoding);
  Put(w, 5, v.definition_levels_byte_length);
  Put(w, 6, v.repetition_levels_byte_length);
  Put(w, 7, v.is_compressed);
  Put(w, 8, v.statistics);
}

void Body(W& w, const PageHeader& v) {
  Put(w, 1, v.type);
  Put(w, 2, v.uncompressed_page_size);
  Put(w, 3, v.compressed_page_size);
  Put(w, 4, v.crc);
  Put(w, 5, v.data_page_header);
  Put(w, 7, v.dictionary_page_header);
  Put(w, 8, v.data_page_header_v2);
}

}  // namespace

Result<std::vector<uint8_t>> EncodeFileMetaData(const FileMetaData& metadata) {
  CompactWriter w;
  Struct(w, metadata);
  return std::move(w).Finish();
}

Result<std::vector<uint8_t>> EncodePageHeader(const PageHeader& header) {
  CompactWriter w;
  Struct(w, header);
  return std::move(w).Finish();
}

}  // namespace vigilo::parquet
