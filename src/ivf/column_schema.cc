#include "column_schema.h"

#include "vigilo/parquet/schema.h"

namespace vigilo::ivf {

using parquet::Footer;
using parquet::Type;
using Kind = ColumnType::Kind;

namespace {

Status CheckColumn(const Footer& f, size_t leaf, const ExpectedColumn& want, const std::string& where) {
  const auto& schema = f.metadata.schema;
  const parquet::LeafColumn& lc = f.schema.leaves[leaf];
  const parquet::SchemaElement& e = schema[lc.schema_index];
  std::vector<std::string_view> path = parquet::LeafPath(schema, f.schema, lc);
  auto fail = [&](const std::string& why) {
    return InvalidFormat("column " + std::to_string(leaf) + " must be " + want.name + " (" + want.type.ToString() +
                         (want.required ? ", required" : "") + "): " + why)
        .WithPath(where);
  };
  bool is_list = want.type.kind == Kind::kFloatList;
  if (path.empty() || path[0] != want.name) return fail("it is named \"" + std::string(path.empty() ? "" : path[0]) + "\"");
  if (is_list ? (path.size() != 3 || lc.max_repetition_level != 1) : path.size() != 1) {
    return fail("wrong nesting");
  }
  // A list's nullability is its top-level group's.
  const parquet::SchemaElement& field = is_list ? schema[f.schema.parent[f.schema.parent[lc.schema_index]]] : e;
  bool required = field.repetition_type == parquet::FieldRepetitionType::kRequired;
  if (want.required && !required) return fail("it is not REQUIRED");
  Type physical = Type::kBoolean;
  switch (want.type.kind) {
    case Kind::kBoolean: physical = Type::kBoolean; break;
    case Kind::kInt:
    case Kind::kDate: physical = Type::kInt32; break;
    case Kind::kLong: physical = Type::kInt64; break;
    case Kind::kBinary:
    case Kind::kString: physical = Type::kByteArray; break;
    case Kind::kFixed: physical = Type::kFixedLenByteArray; break;
    case Kind::kFloat:
    case Kind::kFloatList: physical = Type::kFloat; break;
    case Kind::kDouble: physical = Type::kDouble; break;
  }
  if (e.type != physical) return fail("wrong physical type");
  if (want.type.kind == Kind::kFixed && e.type_length != static_cast<int32_t>(want.type.fixed_length)) {
    return fail("wrong type_length");
  }
  bool is_string = (e.logical_type && e.logical_type->kind == parquet::LogicalType::Kind::kString) ||
                   e.converted_type == parquet::ConvertedType::kUtf8;
  bool is_date = (e.logical_type && e.logical_type->kind == parquet::LogicalType::Kind::kDate) ||
                 e.converted_type == parquet::ConvertedType::kDate;
  if ((want.type.kind == Kind::kString) != is_string) return fail(is_string ? "it is a string" : "it is not a string");
  if ((want.type.kind == Kind::kDate) != is_date) return fail(is_date ? "it is a date" : "it is not a date");
  return Status::Ok();
}

}  // namespace

Status CheckSchema(const Footer& f, const std::vector<ExpectedColumn>& columns, const std::string& where) {
  if (f.schema.leaves.size() != columns.size()) {
    return InvalidFormat("expected " + std::to_string(columns.size()) + " columns, found " +
                         std::to_string(f.schema.leaves.size()))
        .WithPath(where);
  }
  for (size_t i = 0; i < columns.size(); ++i) VIGILO_RETURN_IF_ERROR(CheckColumn(f, i, columns[i], where));
  return Status::Ok();
}

std::vector<ExpectedColumn> LvqColumns() {
  return {{"offset", {Kind::kFloat}, true}, {"scale", {Kind::kFloat}, true}, {"code", {Kind::kBinary}, true}};
}

std::vector<ExpectedColumn> PostingsColumns(const Manifest& manifest) {
  std::vector<ExpectedColumn> columns = {{"cid", {Kind::kInt}, true}};
  for (const Field& k : manifest.index.source_key) columns.push_back({k.name, k.type, true});
  for (ExpectedColumn& e : LvqColumns()) columns.push_back(std::move(e));
  return columns;
}

}  // namespace vigilo::ivf
