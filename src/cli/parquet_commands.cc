// `vigilo parquet inspect FILE` and `vigilo parquet cat FILE [--columns a,b] [--row-group N]`.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "output.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/parquet/compression.h"
#include "vigilo/parquet/local_file.h"
#include "vigilo/parquet/value_json.h"

namespace vigilo::cli {
namespace {

using namespace vigilo::parquet;  // NOLINT
using json::Array;
using json::Object;
using json::Value;

// Known enum names, else the number (a newer writer's value).
Value EnumValue(const char* name, int32_t number) { return name ? Value(name) : Value::Int(number); }

Value PhysicalType(Type t) { return EnumValue(PhysicalTypeName(t), static_cast<int32_t>(t)); }

Value EncodingValue(Encoding e) {
  static const char* kNames[] = {"PLAIN", nullptr, "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED",
                                 "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY",
                                 "BYTE_STREAM_SPLIT"};
  auto i = static_cast<int32_t>(e);
  return EnumValue(i >= 0 && i < 10 ? kNames[i] : nullptr, i);
}

Value ConvertedTypeValue(ConvertedType c) {
  static const char* kNames[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
                                 "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16",
                                 "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON",
                                 "INTERVAL"};
  auto i = static_cast<int32_t>(c);
  return EnumValue(i >= 0 && i < 22 ? kNames[i] : nullptr, i);
}

Value RepetitionValue(FieldRepetitionType r) {
  static const char* kNames[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
  auto i = static_cast<int32_t>(r);
  return EnumValue(i >= 0 && i < 3 ? kNames[i] : nullptr, i);
}

const char* UnitName(TimeUnit u) {
  switch (u) {
    case TimeUnit::kMillis: return "MILLIS";
    case TimeUnit::kMicros: return "MICROS";
    case TimeUnit::kNanos: return "NANOS";
  }
  return "UNKNOWN";
}

Value LogicalTypeValue(const LogicalType& t) {
  using K = LogicalType::Kind;
  Object o;
  const char* name = nullptr;
  switch (t.kind) {
    case K::kString: name = "STRING"; break;
    case K::kMap: name = "MAP"; break;
    case K::kList: name = "LIST"; break;
    case K::kEnum: name = "ENUM"; break;
    case K::kDecimal:
      name = "DECIMAL";
      o.Set("precision", Value::Int(t.precision));
      o.Set("scale", Value::Int(t.scale));
      break;
    case K::kDate: name = "DATE"; break;
    case K::kTime:
    case K::kTimestamp:
      name = t.kind == K::kTime ? "TIME" : "TIMESTAMP";
      o.Set("is_adjusted_to_utc", Value(t.is_adjusted_to_utc));
      o.Set("unit", Value(UnitName(t.unit)));
      break;
    case K::kInteger:
      name = "INTEGER";
      o.Set("bit_width", Value::Int(t.bit_width));
      o.Set("is_signed", Value(t.is_signed));
      break;
    case K::kUnknown: name = "UNKNOWN"; break;
    case K::kJson: name = "JSON"; break;
    case K::kBson: name = "BSON"; break;
    case K::kUuid: name = "UUID"; break;
    case K::kFloat16: name = "FLOAT16"; break;
    case K::kOther: break;
  }
  if (name) {
    o.Set("type", Value(name));
  } else {
    o.Set("type", Value("OTHER"));
    o.Set("field_id", Value::Int(t.other_field_id));
  }
  return Value(std::move(o));
}

Value OptionalInt(const std::optional<int64_t>& v) { return v ? Value::Int(*v) : Value(); }

// A statistic's PLAIN bytes as a JSON value (null if they do not fit the type).
Value StatValue(const ColumnDescriptor& column, const std::string& plain) {
  std::string text;
  auto bytes = std::span(reinterpret_cast<const uint8_t*>(plain.data()), plain.size());
  if (!AppendPlainValueJson(column, bytes, &text).ok()) return Value();
  auto v = json::Parse(text);
  return v.ok() ? std::move(v).value() : Value();
}

Value StatisticsValue(const ColumnDescriptor& column, const Statistics& s) {
  Object o;
  Array fields;
  // Field names in parquet.thrift order.
  if (s.max) fields.emplace_back("max");
  if (s.min) fields.emplace_back("min");
  if (s.null_count) fields.emplace_back("null_count");
  if (s.distinct_count) fields.emplace_back("distinct_count");
  if (s.max_value) fields.emplace_back("max_value");
  if (s.min_value) fields.emplace_back("min_value");
  if (s.is_max_value_exact) fields.emplace_back("is_max_value_exact");
  if (s.is_min_value_exact) fields.emplace_back("is_min_value_exact");
  o.Set("fields", Value(std::move(fields)));
  o.Set("null_count", OptionalInt(s.null_count));
  o.Set("distinct_count", OptionalInt(s.distinct_count));
  // The new fields win; the legacy ones are reported when they are all there is.
  const std::optional<std::string>& min = s.min_value ? s.min_value : s.min;
  const std::optional<std::string>& max = s.max_value ? s.max_value : s.max;
  o.Set("min", min ? StatValue(column, *min) : Value());
  o.Set("max", max ? StatValue(column, *max) : Value());
  return Value(std::move(o));
}

Value KeyValues(const std::optional<std::vector<KeyValue>>& kvs) {
  if (!kvs) return Value();
  Array out;
  for (const KeyValue& kv : *kvs) {
    Object o;
    o.Set("key", Value(kv.key));
    o.Set("value", kv.value ? Value(*kv.value) : Value());
    out.emplace_back(std::move(o));
  }
  return Value(std::move(out));
}

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

// Text: the file's summary, then one row per leaf column with its bytes
// summed over the row groups. --json: the whole footer as one document.
Status PrintInspectText(const FileMetaData& md, const std::vector<ColumnDescriptor>& columns, const Array& leaves) {
  std::vector<uint64_t> compressed(columns.size()), uncompressed(columns.size());
  for (const RowGroup& rg : md.row_groups) {
    for (size_t c = 0; c < rg.columns.size() && c < columns.size(); ++c) {
      if (!rg.columns[c].meta_data) continue;
      compressed[c] += static_cast<uint64_t>(std::max<int64_t>(0, rg.columns[c].meta_data->total_compressed_size));
      uncompressed[c] += static_cast<uint64_t>(std::max<int64_t>(0, rg.columns[c].meta_data->total_uncompressed_size));
    }
  }
  Record summary;
  summary.Add("num_rows", Value::Int(md.num_rows));
  summary.Add("row_groups", Value::Uint(md.row_groups.size()));
  summary.Add("columns", Value::Uint(columns.size()));
  summary.Add("created_by", md.created_by ? Value(*md.created_by) : Value());
  VIGILO_RETURN_IF_ERROR(PrintRecord(summary, OutputFlags{}));
  std::vector<Record> rows;
  for (size_t c = 0; c < columns.size(); ++c) {
    const Object& leaf = leaves[c].as_object();
    Record r;
    for (const char* key : {"path", "physical_type", "shape"}) r.Add(key, *leaf.Find(key));
    r.Add("compressed_bytes", Value::Uint(compressed[c]));
    r.Add("uncompressed_bytes", Value::Uint(uncompressed[c]));
    rows.push_back(std::move(r));
  }
  VIGILO_RETURN_IF_ERROR(WriteStdout("\n"));
  return PrintTable({"path", "physical_type", "shape", "compressed_bytes", "uncompressed_bytes"}, rows, OutputFlags{});
}

Status Inspect(const std::string& path, const OutputFlags& output) {
  VIGILO_ASSIGN_OR_RETURN(LocalParquetFile file, LocalParquetFile::Open(path));
  const Footer& footer = file.footer();
  const FileMetaData& md = footer.metadata;
  std::vector<ColumnDescriptor> columns;
  for (size_t leaf = 0; leaf < footer.schema.leaves.size(); ++leaf) {
    auto d = DescribeColumn(md.schema, footer.schema, leaf);
    if (d.ok()) {
      columns.push_back(std::move(d).value());
    } else {  // still inspectable: levels and type without the list shape
      ColumnDescriptor c;
      const LeafColumn& lc = footer.schema.leaves[leaf];
      const SchemaElement& el = md.schema[lc.schema_index];
      c.leaf = leaf;
      for (std::string_view n : LeafPath(md.schema, footer.schema, lc)) c.path.emplace_back(n);
      c.type = el.type.value_or(Type::kBoolean);
      c.type_length = el.type_length.value_or(0);
      c.max_definition_level = lc.max_definition_level;
      c.max_repetition_level = lc.max_repetition_level;
      c.logical_type = el.logical_type;
      c.converted_type = el.converted_type;
      c.shape = ColumnShape::kOther;
      columns.push_back(std::move(c));
    }
  }

  Array schema;
  for (const SchemaElement& el : md.schema) {
    Object o;
    o.Set("name", Value(el.name));
    o.Set("physical_type", el.type ? PhysicalType(*el.type) : Value());
    o.Set("type_length", el.type_length ? Value::Int(*el.type_length) : Value());
    o.Set("repetition", el.repetition_type ? RepetitionValue(*el.repetition_type) : Value());
    o.Set("num_children", el.num_children ? Value::Int(*el.num_children) : Value());
    o.Set("converted_type", el.converted_type ? ConvertedTypeValue(*el.converted_type) : Value());
    o.Set("logical_type", el.logical_type ? LogicalTypeValue(*el.logical_type) : Value());
    o.Set("field_id", el.field_id ? Value::Int(*el.field_id) : Value());
    schema.emplace_back(std::move(o));
  }
  Array leaves;
  for (const ColumnDescriptor& c : columns) {
    Object o;
    o.Set("path", Value(JoinPath(c.path)));
    o.Set("physical_type", PhysicalType(c.type));
    o.Set("max_definition_level", Value::Int(c.max_definition_level));
    o.Set("max_repetition_level", Value::Int(c.max_repetition_level));
    const char* shape = c.shape == ColumnShape::kScalar ? "scalar" : c.shape == ColumnShape::kList ? "list" : "other";
    o.Set("shape", Value(shape));
    leaves.emplace_back(std::move(o));
  }
  Array row_groups;
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const RowGroup& rg = md.row_groups[g];
    VIGILO_ASSIGN_OR_RETURN(std::vector<ColumnChunkPlan> plan, PlanRowGroup(footer, g));
    Array chunks;
    for (const ColumnChunkPlan& p : plan) {
      const ColumnMetaData& cm = *p.meta;
      Object o;
      o.Set("path", Value(p.path));
      o.Set("physical_type", PhysicalType(cm.type));
      o.Set("codec", Value(CompressionCodecName(cm.codec)));
      Array encodings;
      for (Encoding e : cm.encodings) encodings.push_back(EncodingValue(e));
      o.Set("encodings", Value(std::move(encodings)));
      Object range;
      range.Set("offset", Value::Uint(p.range.offset));
      range.Set("length", Value::Uint(p.range.length));
      o.Set("range", Value(std::move(range)));
      o.Set("num_values", Value::Int(cm.num_values));
      o.Set("total_compressed_size", Value::Int(cm.total_compressed_size));
      o.Set("total_uncompressed_size", Value::Int(cm.total_uncompressed_size));
      o.Set("statistics", cm.statistics ? StatisticsValue(columns[p.leaf], *cm.statistics) : Value());
      chunks.emplace_back(std::move(o));
    }
    Object o;
    o.Set("num_rows", Value::Int(rg.num_rows));
    o.Set("total_byte_size", Value::Int(rg.total_byte_size));
    o.Set("columns", Value(std::move(chunks)));
    row_groups.emplace_back(std::move(o));
  }
  Object top;
  top.Set("version", Value::Int(md.version));
  top.Set("num_rows", Value::Int(md.num_rows));
  top.Set("created_by", md.created_by ? Value(*md.created_by) : Value());
  top.Set("key_value_metadata", KeyValues(md.key_value_metadata));
  top.Set("schema", Value(std::move(schema)));
  top.Set("leaves", Value(std::move(leaves)));
  top.Set("row_groups", Value(std::move(row_groups)));
  if (!output.json && !output.pretty) return PrintInspectText(md, columns, top.Find("leaves")->as_array());
  std::string out;
  if (output.pretty) {
    VIGILO_ASSIGN_OR_RETURN(out, PrettyJson(Value(std::move(top))));
  } else {
    VIGILO_ASSIGN_OR_RETURN(out, json::ToCanonical(Value(std::move(top))));
  }
  out.push_back('\n');
  return WriteStdout(out);
}

struct CatArgs {
  std::string file;
  std::string columns;  // comma-separated top-level names; empty: all
  std::optional<size_t> row_group;
};

Status Cat(const CatArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(LocalParquetFile file, LocalParquetFile::Open(args.file));
  const Footer& footer = file.footer();
  const FileMetaData& md = footer.metadata;
  // Top-level name -> its leaves.
  std::map<std::string, std::vector<size_t>> fields;
  std::vector<std::string> order;
  for (size_t leaf = 0; leaf < footer.schema.leaves.size(); ++leaf) {
    auto path = LeafPath(md.schema, footer.schema, footer.schema.leaves[leaf]);
    std::string top(path[0]);
    if (!fields.count(top)) order.push_back(top);
    fields[top].push_back(leaf);
  }
  // Duplicate top-level names would make two JSON keys equal.
  size_t top_level = static_cast<size_t>(md.schema[0].num_children.value_or(0));
  if (order.size() != top_level) {
    return InvalidFormat("the schema's top-level field names are not unique or a group has no leaves");
  }
  std::vector<std::string> selected;
  if (args.columns.empty()) {
    selected = order;
  } else {
    size_t start = 0;
    while (start <= args.columns.size()) {
      size_t comma = args.columns.find(',', start);
      if (comma == std::string::npos) comma = args.columns.size();
      std::string name = args.columns.substr(start, comma - start);
      if (!fields.count(name)) return NotFound("no top-level column \"" + name + "\"");
      if (std::find(selected.begin(), selected.end(), name) != selected.end()) {
        return InvalidArgument("column \"" + name + "\" is selected twice");
      }
      selected.push_back(name);
      start = comma + 1;
    }
  }
  std::vector<ColumnDescriptor> columns;
  for (const std::string& name : selected) {
    const std::vector<size_t>& leaves = fields[name];
    if (leaves.size() != 1) {
      return Unimplemented("column \"" + name + "\" is a group of " + std::to_string(leaves.size()) +
                           " leaves; only primitive and LIST columns can be printed");
    }
    VIGILO_ASSIGN_OR_RETURN(ColumnDescriptor d, DescribeColumn(md.schema, footer.schema, leaves[0]));
    if (d.shape == ColumnShape::kOther) {
      return Unimplemented("column \"" + name + "\" is neither a primitive nor a LIST column");
    }
    columns.push_back(std::move(d));
  }
  size_t first = 0;
  size_t last = md.row_groups.size();
  if (args.row_group) {
    if (*args.row_group >= md.row_groups.size()) {
      return NotFound("row group " + std::to_string(*args.row_group) + " does not exist (the file has " +
                      std::to_string(md.row_groups.size()) + ")");
    }
    first = *args.row_group;
    last = first + 1;
  }
  std::string out;
  for (size_t g = first; g < last; ++g) {
    std::vector<DecodedColumn> decoded;
    decoded.reserve(columns.size());
    for (const ColumnDescriptor& c : columns) {
      VIGILO_ASSIGN_OR_RETURN(DecodedColumn d, file.ReadColumnChunk(g, c.leaf));
      decoded.push_back(std::move(d));
    }
    VIGILO_ASSIGN_OR_RETURN(RowObjectWriter rows, RowObjectWriter::Make(columns, decoded));
    for (uint64_t r = 0; rows.rows_left() > 0; ++r) {
      Status st = rows.AppendNext(&out);
      if (!st.ok()) return std::move(st).WithPath("row_groups[" + std::to_string(g) + "] row " + std::to_string(r));
      if (out.size() >= (1u << 20)) {
        VIGILO_RETURN_IF_ERROR(WriteStdout(out));
        out.clear();
      }
    }
  }
  return WriteStdout(out);
}

}  // namespace

void RegisterParquetCommands(CLI::App& app, Action* action) {
  auto* parquet = app.add_subcommand("parquet", "Read Parquet files");
  parquet->require_subcommand(1);

  struct InspectArgs {
    std::string file;
    OutputFlags output;
  };
  auto inspect_args = std::make_shared<InspectArgs>();
  auto* inspect = parquet->add_subcommand(
      "inspect", "Summarize a file's columns; with --json its whole footer: schema, row groups, column chunks");
  inspect->add_option("file", inspect_args->file, "Parquet file")->required();
  AddJsonFlags(inspect, &inspect_args->output);
  inspect->callback([inspect_args, action] {
    *action = [inspect_args] { return Inspect(inspect_args->file, inspect_args->output); };
  });

  auto cat_args = std::make_shared<CatArgs>();
  auto* cat = parquet->add_subcommand("cat", "Print rows as canonical JSON objects, one per line");
  cat->add_option("file", cat_args->file, "Parquet file")->required();
  cat->add_option("--columns", cat_args->columns, "Comma-separated top-level columns (default: all)");
  cat->add_option("--row-group", cat_args->row_group, "Only this row group (0-based)");
  cat->callback([cat_args, action] { *action = [cat_args] { return Cat(*cat_args); }; });
}

}  // namespace vigilo::cli
