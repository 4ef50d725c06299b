// Decoding of parquet.thrift structs. Each struct has one Read overload that
// dispatches on field id; the generic Read overloads check the wire type of
// every value, so a field of the wrong type is an error rather than a
// misread (integers of another width are accepted when the value fits).
// Field ids follow parquet.thrift.
#include "vigilo/parquet/metadata.h"

#include <concepts>
#include <initializer_list>
#include <limits>

#include "wire_enum.h"

namespace vigilo::parquet {
namespace {

class Decoder {
 public:
  Decoder(std::span<const uint8_t> bytes, const DecodeOptions& options)
      : reader(bytes), page_statistics(options.page_statistics), budget_(options.max_decoded_bytes) {}

  // Accounts for memory about to be allocated for decoded objects.
  Status Charge(uint64_t bytes) {
    if (bytes > budget_) {
      return LimitExceeded("decoded metadata exceeds the memory budget").WithOffset(reader.offset());
    }
    budget_ -= bytes;
    return Status::Ok();
  }

  CompactReader reader;
  const bool page_statistics;

 private:
  uint64_t budget_;
};

template <typename T>
constexpr CompactType WireTypeOf() {
  if constexpr (std::same_as<T, int32_t> || WireEnum<T>) return CompactType::kI32;
  if constexpr (std::same_as<T, int64_t>) return CompactType::kI64;
  if constexpr (std::same_as<T, std::string>) return CompactType::kBinary;
  return CompactType::kStruct;
}

// Path composition for errors: "row_groups" + "[2]" + "." + "columns".
Status InField(Status st, std::string_view name) {
  std::string_view inner = st.path();
  if (inner.empty()) return std::move(st).WithPath(std::string(name));
  if (inner.front() == '[') return std::move(st).PrependPath(name);
  return std::move(st).PrependPath(std::string(name) + ".");
}

Status InElement(Status st, uint32_t index) {
  std::string prefix = "[" + std::to_string(index) + "]";
  std::string_view inner = st.path();
  if (!inner.empty() && inner.front() != '[') prefix += ".";
  return std::move(st).PrependPath(prefix);
}

Status Expect(const Decoder& d, CompactType got, CompactType want) {
  if (got == want) return Status::Ok();
  return d.reader.Error("expected " + std::string(CompactTypeName(want)) + ", found " +
                        std::string(CompactTypeName(got)));
}

struct Required {
  int16_t id;
  const char* name;
};

// Reads the fields of one struct. `on_field` decodes a field it knows and
// returns true, or returns false for an unknown id, which is skipped. A known
// field seen twice is an error (readers disagree on which copy wins), and so
// is a missing required field.
template <typename OnField>
Status ReadStruct(Decoder& d, CompactType type, const char* struct_name, std::initializer_list<Required> required,
                  OnField&& on_field) {
  VIGILO_RETURN_IF_ERROR(Expect(d, type, CompactType::kStruct));
  size_t start = d.reader.offset();
  VIGILO_RETURN_IF_ERROR(d.reader.BeginStruct());
  uint64_t seen = 0;  // bit i: known field i (ids 1..63) was read
  while (true) {
    size_t at = d.reader.offset();
    VIGILO_ASSIGN_OR_RETURN(FieldHeader h, d.reader.ReadFieldHeader());
    if (h.is_stop()) break;
    VIGILO_ASSIGN_OR_RETURN(bool known, on_field(h));
    if (!known) {
      VIGILO_RETURN_IF_ERROR(d.reader.SkipField(h.type));
      continue;
    }
    if (h.id < 1 || h.id > 63) continue;
    uint64_t bit = uint64_t{1} << h.id;
    if (seen & bit) {
      return ParseError(std::string(struct_name) + " field " + std::to_string(h.id) + " appears twice").WithOffset(at);
    }
    seen |= bit;
  }
  d.reader.EndStruct();
  for (const Required& r : required) {
    if ((seen & (uint64_t{1} << r.id)) == 0) {
      return ParseError("required field " + std::string(struct_name) + "." + r.name + " (" + std::to_string(r.id) +
                        ") is missing")
          .WithOffset(start)
          .WithPath(r.name);
    }
  }
  return Status::Ok();
}

// An empty struct, or a struct whose contents we ignore.
Status SkipStruct(Decoder& d, CompactType type) {
  VIGILO_RETURN_IF_ERROR(Expect(d, type, CompactType::kStruct));
  return d.reader.SkipField(type);
}

// A data page header's statistics, skipped (DecodeOptions::page_statistics):
// a known field all the same, so a second one is still an error.
Result<bool> SkipStatistics(Decoder& d, const FieldHeader& h) {
  Status st = SkipStruct(d, h.type);
  if (!st.ok()) return InField(std::move(st), "statistics");
  return true;
}

// ---- Scalars. Bools only occur as fields here: the value is in the header.

Status Read(Decoder& d, CompactType t, bool* out) {
  if (t != CompactType::kBoolTrue && t != CompactType::kBoolFalse) {
    return d.reader.Error("expected bool, found " + std::string(CompactTypeName(t)));
  }
  *out = t == CompactType::kBoolTrue;
  return Status::Ok();
}

// Integer fields accept any integer wire type whose value fits the field:
// some writers (hyparquet-writer) pick the wire type from the value and write
// i32 for i8, i16 and small i64 fields.
template <typename T>
Status ReadInteger(Decoder& d, CompactType t, T* out) {
  size_t start = d.reader.offset();
  int64_t v = 0;
  switch (t) {
    case CompactType::kI8: {
      VIGILO_ASSIGN_OR_RETURN(v, d.reader.ReadI8());
      break;
    }
    case CompactType::kI16:
    case CompactType::kI32: {
      VIGILO_ASSIGN_OR_RETURN(v, d.reader.ReadI32());
      break;
    }
    case CompactType::kI64: {
      VIGILO_ASSIGN_OR_RETURN(v, d.reader.ReadI64());
      break;
    }
    default: return d.reader.Error("expected an integer, found " + std::string(CompactTypeName(t)));
  }
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
    return ParseError("thrift: integer " + std::to_string(v) + " does not fit the field").WithOffset(start);
  }
  *out = static_cast<T>(v);
  return Status::Ok();
}

Status Read(Decoder& d, CompactType t, int8_t* out) { return ReadInteger(d, t, out); }
Status Read(Decoder& d, CompactType t, int16_t* out) { return ReadInteger(d, t, out); }
Status Read(Decoder& d, CompactType t, int32_t* out) { return ReadInteger(d, t, out); }
Status Read(Decoder& d, CompactType t, int64_t* out) { return ReadInteger(d, t, out); }

Status Read(Decoder& d, CompactType t, std::string* out) {
  VIGILO_RETURN_IF_ERROR(Expect(d, t, CompactType::kBinary));
  VIGILO_ASSIGN_OR_RETURN(auto bytes, d.reader.ReadBinary());
  VIGILO_RETURN_IF_ERROR(d.Charge(bytes.size()));
  out->assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return Status::Ok();
}

template <WireEnum E>
Status Read(Decoder& d, CompactType t, E* out) {
  int32_t v = 0;
  VIGILO_RETURN_IF_ERROR(Read(d, t, &v));
  *out = static_cast<E>(v);
  return Status::Ok();
}

// ---- Structs (declared first: the containers below instantiate them).

Status Read(Decoder& d, CompactType t, KeyValue* out);
Status Read(Decoder& d, CompactType t, Statistics* out);
Status Read(Decoder& d, CompactType t, LogicalType* out);
Status Read(Decoder& d, CompactType t, ColumnOrder* out);
Status Read(Decoder& d, CompactType t, SchemaElement* out);
Status Read(Decoder& d, CompactType t, PageEncodingStats* out);
Status Read(Decoder& d, CompactType t, ColumnMetaData* out);
Status Read(Decoder& d, CompactType t, ColumnChunk* out);
Status Read(Decoder& d, CompactType t, RowGroup* out);
Status Read(Decoder& d, CompactType t, FileMetaData* out);
Status Read(Decoder& d, CompactType t, DataPageHeader* out);
Status Read(Decoder& d, CompactType t, DictionaryPageHeader* out);
Status Read(Decoder& d, CompactType t, DataPageHeaderV2* out);
Status Read(Decoder& d, CompactType t, PageHeader* out);

// ---- Containers.

template <typename T>
Status Read(Decoder& d, CompactType t, std::optional<T>* out) {
  T value{};
  VIGILO_RETURN_IF_ERROR(Read(d, t, &value));
  *out = std::move(value);
  return Status::Ok();
}

template <typename T>
Status Read(Decoder& d, CompactType t, std::vector<T>* out) {
  VIGILO_RETURN_IF_ERROR(Expect(d, t, CompactType::kList));
  VIGILO_ASSIGN_OR_RETURN(ListHeader h, d.reader.ReadListHeader());
  // An empty list's element type means nothing (hyparquet-writer puts i8).
  if (h.size > 0) VIGILO_RETURN_IF_ERROR(Expect(d, h.element_type, WireTypeOf<T>()));
  // No reserve(h.size): the size is only bounded by the input length, while
  // one element can be much larger in memory than on the wire.
  out->clear();
  for (uint32_t i = 0; i < h.size; ++i) {
    VIGILO_RETURN_IF_ERROR(d.Charge(sizeof(T)));
    T value{};
    Status st = Read(d, h.element_type, &value);
    if (!st.ok()) return InElement(std::move(st), i);
    out->push_back(std::move(value));
  }
  return Status::Ok();
}

template <typename T>
Result<bool> Field(Decoder& d, const FieldHeader& h, std::string_view name, T* out) {
  Status st = Read(d, h.type, out);
  if (!st.ok()) return InField(std::move(st), name);
  return true;
}

// ---- Struct definitions.

Status Read(Decoder& d, CompactType t, KeyValue* out) {
  return ReadStruct(d, t, "KeyValue", {{1, "key"}}, [&](const FieldHeader& h) -> Result<bool> {
    switch (h.id) {
      case 1: return Field(d, h, "key", &out->key);
      case 2: return Field(d, h, "value", &out->value);
    }
    return false;
  });
}

Status Read(Decoder& d, CompactType t, Statistics* out) {
  return ReadStruct(d, t, "Statistics", {}, [&](const FieldHeader& h) -> Result<bool> {
    switch (h.id) {
      case 1: return Field(d, h, "max", &out->max);
      case 2: return Field(d, h, "min", &out->min);
      case 3: return Field(d, h, "null_count", &out->null_count);
      case 4: return Field(d, h, "distinct_count", &out->distinct_count);
      case 5: return Field(d, h, "max_value", &out->max_value);
      case 6: return Field(d, h, "min_value", &out->min_value);
      case 7: return Field(d, h, "is_max_value_exact", &out->is_max_value_exact);
      case 8: return Field(d, h, "is_min_value_exact", &out->is_min_value_exact);
    }
    return false;
  });
}

// TimeUnit union: sets *known to false for a member added after this reader.
Status ReadTimeUnit(Decoder& d, CompactType t, TimeUnit* out, bool* known) {
  int members = 0;
  Status read = ReadStruct(d, t, "TimeUnit", {}, [&](const FieldHeader& h) -> Result<bool> {
    if (++members > 1) return d.reader.Error("TimeUnit union has more than one member");
    if (h.id < 1 || h.id > 3) *known = false;
    *out = static_cast<TimeUnit>(h.id);
    Status st = SkipStruct(d, h.type);
    if (!st.ok()) return st;
    return true;
  });
  if (!read.ok()) return read;
  if (members == 0) return d.reader.Error("TimeUnit union has no member");
  return Status::Ok();
}

// TimeType and TimestampType share their fields.
Status ReadTimeType(Decoder& d, CompactType t, const char* name, LogicalType* out, bool* known) {
  return ReadStruct(d, t, name, {{1, "isAdjustedToUTC"}, {2, "unit"}}, [&](const FieldHeader& h) -> Result<bool> {
    switch (h.id) {
      case 1: return Field(d, h, "isAdjustedToUTC", &out->is_adjusted_to_utc);
      case 2: {
        Status st = ReadTimeUnit(d, h.type, &out->unit, known);
        if (!st.ok()) return InField(std::move(st), "unit");
        return true;
      }
    }
    return false;
  });
}

// Decodes one LogicalType member value into `out`; *known is false when the
// member (or something inside it) is not modelled.
Status ReadLogicalMember(Decoder& d, const FieldHeader& h, LogicalType* out, bool* known) {
  using Kind = LogicalType::Kind;
  switch (h.id) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 6:
    case 11:
    case 12:
    case 13:
    case 14:
    case 15: out->kind = static_cast<Kind>(h.id); return SkipStruct(d, h.type);
    case 5:
      out->kind = Kind::kDecimal;
      return ReadStruct(d, h.type, "DecimalType", {{1, "scale"}, {2, "precision"}},
                        [&](const FieldHeader& f) -> Result<bool> {
                          switch (f.id) {
                            case 1: return Field(d, f, "scale", &out->scale);
                            case 2: return Field(d, f, "precision", &out->precision);
                          }
                          return false;
                        });
    case 7: out->kind = Kind::kTime; return ReadTimeType(d, h.type, "TimeType", out, known);
    case 8: out->kind = Kind::kTimestamp; return ReadTimeType(d, h.type, "TimestampType", out, known);
    case 10:
      out->kind = Kind::kInteger;
      return ReadStruct(d, h.type, "IntType", {{1, "bitWidth"}, {2, "isSigned"}},
                        [&](const FieldHeader& f) -> Result<bool> {
                          switch (f.id) {
                            case 1: return Field(d, f, "bitWidth", &out->bit_width);
                            case 2: return Field(d, f, "isSigned", &out->is_signed);
                          }
                          return false;
                        });
  }
  *known = false;
  return d.reader.SkipField(h.type);
}

Status Read(Decoder& d, CompactType t, LogicalType* out) {
  int members = 0;
  Status read = ReadStruct(d, t, "LogicalType", {}, [&](const FieldHeader& h) -> Result<bool> {
    if (++members > 1) return d.reader.Error("LogicalType union has more than one member");
    size_t value_start = d.reader.offset();
    bool known = true;
    Status st = ReadLogicalMember(d, h, out, &known);
    if (!st.ok()) return st;
    if (!known) {
      auto raw = d.reader.ConsumedSince(value_start);
      VIGILO_RETURN_IF_ERROR(d.Charge(raw.size()));
      *out = LogicalType{};
      out->kind = LogicalType::Kind::kOther;
      out->other_field_id = h.id;
      out->other_type = h.type;
      out->other_value.assign(reinterpret_cast<const char*>(raw.data()), raw.size());
    }
    return true;
  });
  if (!read.ok()) return read;
  if (members == 0) return d.reader.Error("LogicalType union has no member");
  return Status::Ok();
}

Status Read(Decoder& d, CompactType t, ColumnOrder* out) {
  int members = 0;
  Status read = ReadStruct(d, t, "ColumnOrder", {}, [&](const FieldHeader& h) -> Result<bool> {
    if (++members > 1) return d.reader.Error("ColumnOrder union has more than one member");
    *out = static_cast<ColumnOrder>(h.id);
    Status st = SkipStruct(d, h.type);
    if (!st.ok()) return st;
    return true;
  });
  if (!read.ok()) return read;
  if (members == 0) return d.reader.Error("ColumnOrder union has no member");
  return Status::Ok();
}

Status Read(Decoder& d, CompactType t, SchemaElement* out) {
  return ReadStruct(d, t, "SchemaElement", {{4, "name"}}, [&](const FieldHeader& h) -> Result<bool> {
    switch (h.id) {
      case 1: return Field(d, h, "type", &out->type);
      case 2: return Field(d, h, "type_length", &out->type_length);
      case 3: return Field(d, h, "repetition_type", &out->repetition_type);
      case 4: return Field(d, h, "name", &out->name);
      case 5: return Field(d, h, "num_children", &out->num_children);
      case 6: return Field(d, h, "converted_type", &out->converted_type);
      case 7: return Field(d, h, "scale", &out->scale);
      case 8: return Field(d, h, "precision", &out->precision);
      case 9: return Field(d, h, "field_id", &out->field_id);
      case 10: return Field(d, h, "logicalType", &out->logical_type);
    }
    return false;
  });
}

Status Read(Decoder& d, CompactType t, PageEncodingStats* out) {
  return ReadStruct(d, t, "PageEncodingStats", {{1, "page_type"}, {2, "encoding"}, {3, "count"}},
                    [&](const FieldHeader& h) -> Result<bool> {
                      switch (h.id) {
                        case 1: return Field(d, h, "page_type", &out->page_type);
                        case 2: return Field(d, h, "encoding", &out->encoding);
                        case 3: return Field(d, h, "count", &out->count);
                      }
                      return false;
                    });
}

Status Read(Decoder& d, CompactType t, ColumnMetaData* out) {
  return ReadStruct(d, t, "ColumnMetaData",
                    {{1, "type"},
                     {2, "encodings"},
                     {3, "path_in_schema"},
                     {4, "codec"},
                     {5, "num_values"},
                     {6, "total_uncompressed_size"},
                     {7, "total_compressed_size"},
                     {9, "data_page_offset"}},
                    [&](const FieldHeader& h) -> Result<bool> {
                      switch (h.id) {
                        case 1: return Field(d, h, "type", &out->type);
                        case 2: return Field(d, h, "encodings", &out->encodings);
                        case 3: return Field(d, h, "path_in_schema", &out->path_in_schema);
                        case 4: return Field(d, h, "codec", &out->codec);
                        case 5: return Field(d, h, "num_values", &out->num_values);
                        case 6: return Field(d, h, "total_uncompressed_size", &out->total_uncompressed_size);
                        case 7: return Field(d, h, "total_compressed_size", &out->total_compressed_size);
                        case 8: return Field(d, h, "key_value_metadata", &out->key_value_metadata);
                        case 9: return Field(d, h, "data_page_offset", &out->data_page_offset);
                        case 10: return Field(d, h, "index_page_offset", &out->index_page_offset);
                        case 11: return Field(d, h, "dictionary_page_offset", &out->dictionary_page_offset);
                        case 12: return Field(d, h, "statistics", &out->statistics);
                        case 13: return Field(d, h, "encoding_stats", &out->encoding_stats);
                      }
                      return false;
                    });
}

Status Read(Decoder& d, CompactType t, ColumnChunk* out) {
  return ReadStruct(d, t, "ColumnChunk", {{2, "file_offset"}}, [&](const FieldHeader& h) -> Result<bool> {
    switch (h.id) {
      case 1: return Field(d, h, "file_path", &out->file_path);
      case 2: return Field(d, h, "file_offset", &out->file_offset);
      case 3: return Field(d, h, "meta_data", &out->meta_data);
    }
    return false;
  });
}

Status Read(Decoder& d, CompactType t, RowGroup* out) {
  return ReadStruct(d, t, "RowGroup", {{1, "columns"}, {2, "total_byte_size"}, {3, "num_rows"}},
                    [&](const FieldHeader& h) -> Result<bool> {
                      switch (h.id) {
                        case 1: return Field(d, h, "columns", &out->columns);
                        case 2: return Field(d, h, "total_byte_size", &out->total_byte_size);
                        case 3: return Field(d, h, "num_rows", &out->num_rows);
                        case 5: return Field(d, h, "file_offset", &out->file_offset);
                        case 6: return Field(d, h, "total_compressed_size", &out->total_compressed_size);
                        case 7: return Field(d, h, "ordinal", &out->ordinal);
                      }
                      return false;
                    });
}

Status Read(Decoder& d, CompactType t, FileMetaData* out) {
  return ReadStruct(d, t, "FileMetaData", {{1, "version"}, {2, "schema"}, {3, "num_rows"}, {4, "row_groups"}},
                    [&](const FieldHeader& h) -> Result<bool> {
                      switch (h.id) {
                        case 1: return Field(d, h, "version", &out->version);
                        case 2: return Field(d, h, "schema", &out->schema);
                        case 3: return Field(d, h, "num_rows", &out->num_rows);
                        case 4: return Field(d, h, "row_groups", &out->row_groups);
                        case 5: return Field(d, h, "key_value_metadata", &out->key_value_metadata);
                        case 6: return Field(d, h, "created_by", &out->created_by);
                        case 7: return Field(d, h, "column_orders", &out->column_orders);
                      }
                      return false;
                    });
}

Status Read(Decoder& d, CompactType t, DataPageHeader* out) {
  return ReadStruct(
      d, t, "DataPageHeader",
      {{1, "num_values"}, {2, "encoding"}, {3, "definition_level_encoding"}, {4, "repetition_level_encoding"}},
      [&](const FieldHeader& h) -> Result<bool> {
        switch (h.id) {
          case 1: return Field(d, h, "num_values", &out->num_values);
          case 2: return Field(d, h, "encoding", &out->encoding);
          case 3: return Field(d, h, "definition_level_encoding", &out->definition_level_encoding);
          case 4: return Field(d, h, "repetition_level_encoding", &out->repetition_level_encoding);
          case 5:
            if (!d.page_statistics) return SkipStatistics(d, h);
            return Field(d, h, "statistics", &out->statistics);
        }
        return false;
      });
}

Status Read(Decoder& d, CompactType t, DictionaryPageHeader* out) {
  return ReadStruct(d, t, "DictionaryPageHeader", {{1, "num_values"}, {2, "encoding"}},
                    [&](const FieldHeader& h) -> Result<bool> {
                      switch (h.id) {
                        case 1: return Field(d, h, "num_values", &out->num_values);
                        case 2: return Field(d, h, "encoding", &out->encoding);
                        case 3: return Field(d, h, "is_sorted", &out->is_sorted);
                      }
                      return false;
                    });
}

Status Read(Decoder& d, CompactType t, DataPageHeaderV2* out) {
  return ReadStruct(d, t, "DataPageHeaderV2",
                    {{1, "num_values"},
                     {2, "num_nulls"},
                     {3, "num_rows"},
                     {4, "encoding"},
                     {5, "definition_levels_byte_length"},
                     {6, "repetition_levels_byte_length"}},
                    [&](const FieldHeader& h) -> Result<bool> {
                      switch (h.id) {
                        case 1: return Field(d, h, "num_values", &out->num_values);
                        case 2: return Field(d, h, "num_nulls", &out->num_nulls);
                        case 3: return Field(d, h, "num_rows", &out->num_rows);
                        case 4: return Field(d, h, "encoding", &out->encoding);
                        case 5:
                          return Field(d, h, "definition_levels_byte_length", &out->definition_levels_byte_length);
                        case 6:
                          return Field(d, h, "repetition_levels_byte_length", &out->repetition_levels_byte_length);
                        case 7: return Field(d, h, "is_compressed", &out->is_compressed);
                        case 8:
                          if (!d.page_statistics) return SkipStatistics(d, h);
                          return Field(d, h, "statistics", &out->statistics);
                      }
                      return false;
                    });
}

Status Read(Decoder& d, CompactType t, PageHeader* out) {
  return ReadStruct(d, t, "PageHeader", {{1, "type"}, {2, "uncompressed_page_size"}, {3, "compressed_page_size"}},
                    [&](const FieldHeader& h) -> Result<bool> {
                      switch (h.id) {
                        case 1: return Field(d, h, "type", &out->type);
                        case 2: return Field(d, h, "uncompressed_page_size", &out->uncompressed_page_size);
                        case 3: return Field(d, h, "compressed_page_size", &out->compressed_page_size);
                        case 4: return Field(d, h, "crc", &out->crc);
                        case 5: return Field(d, h, "data_page_header", &out->data_page_header);
                        // 6: index_page_header is skipped as unknown.
                        case 7: return Field(d, h, "dictionary_page_header", &out->dictionary_page_header);
                        case 8: return Field(d, h, "data_page_header_v2", &out->data_page_header_v2);
                      }
                      return false;
                    });
}

}  // namespace

Result<FileMetaData> DecodeFileMetaData(std::span<const uint8_t> bytes, const DecodeOptions& options) {
  Decoder d(bytes, options);
  FileMetaData out;
  VIGILO_RETURN_IF_ERROR(Read(d, CompactType::kStruct, &out));
  if (d.reader.remaining() != 0) {
    return ParseError("trailing bytes after FileMetaData").WithOffset(d.reader.offset());
  }
  return out;
}

Result<PageHeader> DecodePageHeader(std::span<const uint8_t> bytes, size_t* header_size, const DecodeOptions& options) {
  Decoder d(bytes, options);
  PageHeader out;
  VIGILO_RETURN_IF_ERROR(Read(d, CompactType::kStruct, &out));
  *header_size = d.reader.offset();
  return out;
}

}  // namespace vigilo::parquet
