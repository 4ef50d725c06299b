#include "source_copy.h"

#include <algorithm>
#include <cstdint>

#include "input_internal.h"
#include "vigilo/parquet/local_file.h"
#include "vigilo/parquet/schema.h"

namespace vigilo::ivf {
namespace {

namespace pq = vigilo::parquet;
using Kind = ColumnType::Kind;

// The source type of a Parquet column: the key types, float, double, or
// list<float> for a list of FLOAT or DOUBLE.
Result<ColumnType> SourceTypeOf(const std::string& path, const pq::ColumnDescriptor& d) {
  if (d.shape == pq::ColumnShape::kList) {
    if (d.type == pq::Type::kFloat || d.type == pq::Type::kDouble) return ColumnType{Kind::kFloatList, 0};
    return InvalidArgument("column \"" + d.path[0] + "\" cannot be copied into a source table: it is a list of " +
                           std::string(pq::PhysicalTypeName(d.type)) +
                           "; lists must hold FLOAT or DOUBLE (list<float>)")
        .WithPath(path);
  }
  if (d.shape == pq::ColumnShape::kScalar && !d.logical_type && !d.converted_type) {
    if (d.type == pq::Type::kFloat) return ColumnType{Kind::kFloat, 0};
    if (d.type == pq::Type::kDouble) return ColumnType{Kind::kDouble, 0};
  }
  auto t = input_internal::ParquetKeyType(path, d);
  if (!t.ok()) {
    // Said in the words of a payload column (the key-type check speaks of a key column).
    std::string physical = pq::PhysicalTypeName(d.type);
    if (d.shape != pq::ColumnShape::kScalar) physical = "nested " + physical;
    if (d.logical_type || d.converted_type) physical += " with an annotation";
    return InvalidArgument("column \"" + d.path[0] + "\" (" + physical + ") cannot be copied into a source " +
                           "table: source columns are boolean, int, long, float, double, string, binary, date, " +
                           "fixed(L) or list<float>")
        .WithPath(path);
  }
  return *t;
}

std::vector<std::string> TopLevelFields(const pq::Footer& f) {
  std::vector<std::string> names;
  for (const auto& leaf : f.schema.leaves) {
    auto path = pq::LeafPath(f.metadata.schema, f.schema, leaf);
    std::string top(path.empty() ? std::string_view() : path[0]);
    if (std::find(names.begin(), names.end(), top) == names.end()) names.push_back(top);
  }
  return names;
}

pq::DecodedColumn Positions(uint64_t first, uint64_t n) {
  pq::DecodedColumn c;
  c.num_rows = n;
  c.values.type = pq::Type::kInt64;
  for (uint64_t i = 0; i < n; ++i) c.values.int64s.push_back(static_cast<int64_t>(first + i));
  return c;
}

// A column the user named that the input cannot supply is an argument
// problem, whatever the lookup called it.
Status AsArgumentError(Status s) {
  return InvalidArgument(std::string(s.message())).WithPath(std::string(s.path()));
}

Status CheckPayloadName(const std::vector<Field>& fields, const std::string& name) {
  if (name == fields[0].name) {
    return InvalidArgument("`columns` lists the key \"" + name + "\"; it is always the first source column");
  }
  for (const Field& f : fields) {
    if (f.name == name) return InvalidArgument("`columns` lists \"" + name + "\" twice");
  }
  if (Status s = ValidateColumnName(name); !s.ok()) {
    return InvalidArgument("source column \"" + name + "\": " + std::string(s.message()));
  }
  return Status::Ok();
}

const std::string kDenseKeyRule = "`source` needs a long key equal to the row position (0, 1, 2, …); ";

// The source key must be 0, 1, 2, … in row order. Where the footer's
// statistics already show otherwise (a row group's key range or nulls), it
// is refused now, before any pass; a row group without exact statistics has
// its key chunk read (8 bytes a row, a small fraction of the vectors) and
// checked. The assign pass checks every key again.
Status CheckKeyStatistics(const std::string& path, pq::LocalParquetFile& file, const std::string& name, size_t leaf) {
  const pq::Footer& f = file.footer();
  uint64_t first = 0;
  for (size_t rg = 0; rg < f.metadata.row_groups.size(); ++rg) {
    const pq::RowGroup& g = f.metadata.row_groups[rg];
    auto n = static_cast<uint64_t>(g.num_rows);
    const auto& meta = g.columns[leaf].meta_data;
    std::string where = "the key \"" + name + "\" in row group " + std::to_string(rg) + " (rows " +
                        std::to_string(first) + "…" + std::to_string(first + n - 1) + ")";
    bool checked = false;
    if (n > 0 && meta && meta->statistics) {
      const pq::Statistics& st = *meta->statistics;
      if (st.null_count && *st.null_count > 0) {
        return InvalidArgument(kDenseKeyRule + where + " has nulls (the file's statistics)" + KeepIdsHint(name))
            .WithPath(path);
      }
      auto exact = [](const std::optional<bool>& e) { return !e || *e; };
      if (st.min_value && st.max_value && st.min_value->size() == 8 && st.max_value->size() == 8 &&
          exact(st.is_min_value_exact) && exact(st.is_max_value_exact)) {
        auto plain_int64 = [](const std::string& b) {  // PLAIN INT64: 8 bytes, little-endian
          uint64_t v = 0;
          for (size_t i = 8; i-- > 0;) v = (v << 8) | static_cast<uint8_t>(b[i]);
          return static_cast<int64_t>(v);
        };
        int64_t lo = plain_int64(*st.min_value), hi = plain_int64(*st.max_value);
        if (lo != static_cast<int64_t>(first) || hi != static_cast<int64_t>(first + n - 1)) {
          return InvalidArgument(kDenseKeyRule + where + " ranges over " + std::to_string(lo) + "…" +
                                 std::to_string(hi) + " (the file's statistics)" + KeepIdsHint(name))
              .WithPath(path);
        }
        // min and max agree; keys in between may still be out of order (the assign pass checks each).
        checked = true;
      }
    }
    if (n > 0 && !checked) {
      auto chunk = file.ReadColumnChunk(rg, leaf);
      if (!chunk.ok()) return input_internal::InFile(path, chunk.status());
      for (uint64_t i = 0; i < n; ++i) {
        if (!chunk->row_valid.empty() && chunk->row_valid[i] == 0) {
          return InvalidArgument(kDenseKeyRule + "row " + std::to_string(first + i) + " has a null key" +
                                 KeepIdsHint(name))
              .WithPath(path);
        }
        if (i >= chunk->values.int64s.size() || chunk->values.int64s[i] != static_cast<int64_t>(first + i)) {
          return InvalidArgument(kDenseKeyRule + "row " + std::to_string(first + i) + " has another key" +
                                 KeepIdsHint(name))
              .WithPath(path);
        }
      }
    }
    first += n;
  }
  return Status::Ok();
}

// The payload columns in order: the choice's, or the default ones, with the
// id column first.
std::vector<std::string> ChosenColumns(const SourceChoice& choice, std::vector<std::string> defaults) {
  std::vector<std::string> columns;
  if (!choice.id_column.empty()) columns.push_back(choice.id_column);
  if (choice.id_only) return columns;
  for (std::string& name : choice.columns.empty() ? defaults : std::vector<std::string>(choice.columns)) {
    if (name != choice.id_column) columns.push_back(std::move(name));
  }
  return columns;
}

// An id is something a user names a row by: no float, double, boolean or list.
Status CheckIdType(const SourceChoice& choice, const Field& field) {
  if (choice.id_column.empty() || field.name != choice.id_column) return Status::Ok();
  switch (field.type.kind) {
    case Kind::kInt:
    case Kind::kLong:
    case Kind::kString:
    case Kind::kBinary:
    case Kind::kFixed:
    case Kind::kDate: return Status::Ok();
    default:
      return InvalidArgument("`id_column` \"" + field.name + "\" is " + field.type.ToString() +
                             "; an id column holds strings, integers, dates or bytes");
  }
}

Result<SourcePlan> PlanParquet(const VectorInput& input, const Field& key, const SourceChoice& choice) {
  VIGILO_ASSIGN_OR_RETURN(auto file, pq::LocalParquetFile::Open(input.path()));
  const pq::Footer& f = file.footer();
  std::vector<std::string> defaults;
  for (const std::string& name : TopLevelFields(f)) {
    if (name != key.name && name != input.vector_field()) defaults.push_back(name);
  }
  if (defaults.empty()) defaults.push_back(input.vector_field());
  const std::vector<std::string> columns = ChosenColumns(choice, std::move(defaults));
  SourcePlan plan;
  plan.fields.push_back(key);
  plan.leaves.push_back(SourcePlan::kFromBlocks);
  if (input.key_field()) {
    VIGILO_ASSIGN_OR_RETURN(pq::ColumnDescriptor d, input_internal::FindParquetField(input.path(), f, key.name, "key"));
    plan.leaves[0] = d.leaf;
    VIGILO_RETURN_IF_ERROR(CheckKeyStatistics(input.path(), file, key.name, d.leaf));
  }
  for (const std::string& name : columns) {
    VIGILO_RETURN_IF_ERROR(CheckPayloadName(plan.fields, name));
    auto d = input_internal::FindParquetField(input.path(), f, name, name == choice.id_column ? "id" : "source");
    if (!d.ok()) return AsArgumentError(d.status());
    VIGILO_ASSIGN_OR_RETURN(ColumnType type, SourceTypeOf(input.path(), *d));
    plan.fields.push_back(Field{name, type});
    plan.leaves.push_back(d->leaf);
    VIGILO_RETURN_IF_ERROR(CheckIdType(choice, plan.fields.back()));
  }
  return plan;
}

// What one member has held so far (ScanJsonlMembers).
struct MemberScan {
  std::string name;
  // First row holding each kind (strings, integers within int64, other
  // numbers, booleans); a kind not seen has none.
  std::optional<uint64_t> string_row, integer_row, number_row, boolean_row;
  std::string bad;  // the first value no source column holds
};

const char* ValueKindName(const json::Value& v) {
  switch (v.kind()) {
    case json::Kind::kArray: return "an array";
    case json::Kind::kObject: return "an object";
    case json::Kind::kString: return "a string";
    case json::Kind::kBool: return "a boolean";
    case json::Kind::kNumber: return "a number";
    case json::Kind::kNull: return "null";
  }
  return "a value";
}

void ScanValue(MemberScan& m, const json::Value& v, uint64_t row) {
  auto first = [row](std::optional<uint64_t>& at) {
    if (!at) at = row;
  };
  switch (v.kind()) {
    case json::Kind::kNull: break;
    case json::Kind::kString: first(m.string_row); break;
    case json::Kind::kBool: first(m.boolean_row); break;
    case json::Kind::kNumber:
      if (v.as_number().is_integer() && v.as_number().AsInt64().ok()) {
        first(m.integer_row);
      } else {
        first(m.number_row);
      }
      break;
    case json::Kind::kArray:
    case json::Kind::kObject:
      if (m.bad.empty()) m.bad = "row " + std::to_string(row) + " holds " + ValueKindName(v);
      break;
  }
}

JsonlMember Conclude(const MemberScan& m) {
  JsonlMember out{m.name, std::nullopt, m.bad};
  if (!m.bad.empty()) return out;
  // Numbers are one kind (long, or double when any is not an integer within int64).
  std::optional<uint64_t> number_row = m.integer_row;
  if (m.number_row && (!number_row || *m.number_row < *number_row)) number_row = m.number_row;
  std::vector<std::pair<uint64_t, const char*>> kinds;
  if (m.string_row) kinds.emplace_back(*m.string_row, "a string");
  if (number_row) kinds.emplace_back(*number_row, "a number");
  if (m.boolean_row) kinds.emplace_back(*m.boolean_row, "a boolean");
  std::sort(kinds.begin(), kinds.end());
  if (kinds.size() > 1) {
    out.why = "row " + std::to_string(kinds[0].first) + " holds " + kinds[0].second + " and row " +
              std::to_string(kinds[1].first) + " " + kinds[1].second;
    return out;
  }
  if (m.boolean_row) {
    out.type = ColumnType{Kind::kBoolean, 0};
  } else if (m.number_row) {
    out.type = ColumnType{Kind::kDouble, 0};
  } else if (m.integer_row) {
    out.type = ColumnType{Kind::kLong, 0};
  } else {
    out.type = ColumnType{Kind::kString, 0};  // strings, or null on every row
  }
  return out;
}

// JSONL: the key, then members typed over the whole input (ScanJsonlMembers,
// which also checks that a key member is the row position); the vector
// member is copied from the blocks, as list<float>.
Result<SourcePlan> PlanJsonl(const VectorInput& input, const Field& key, const SourceChoice& choice) {
  std::optional<uint64_t> not_dense;
  const std::string* dense_key = input.key_field() ? &key.name : nullptr;
  VIGILO_ASSIGN_OR_RETURN(std::vector<JsonlMember> members, ScanJsonlMembers(input.path(), dense_key, &not_dense));
  if (not_dense) {
    return InvalidArgument(kDenseKeyRule + "row " + std::to_string(*not_dense) + " has another key" +
                           KeepIdsHint(key.name))
        .WithPath(input.path());
  }
  std::vector<std::string> defaults;
  for (const JsonlMember& m : members) {
    if (m.name != key.name && m.name != input.vector_field()) defaults.push_back(m.name);
  }
  if (defaults.empty()) defaults.push_back(input.vector_field());
  const std::vector<std::string> columns = ChosenColumns(choice, std::move(defaults));
  SourcePlan plan;
  plan.fields.push_back(key);
  plan.leaves.push_back(SourcePlan::kFromBlocks);
  for (const std::string& name : columns) {
    VIGILO_RETURN_IF_ERROR(CheckPayloadName(plan.fields, name));
    if (name == input.vector_field()) {
      plan.fields.push_back(Field{name, ColumnType{Kind::kFloatList, 0}});
      plan.leaves.push_back(SourcePlan::kFromBlocks);
      VIGILO_RETURN_IF_ERROR(CheckIdType(choice, plan.fields.back()));
      continue;
    }
    auto m = std::find_if(members.begin(), members.end(), [&](const JsonlMember& x) { return x.name == name; });
    if (m == members.end()) {
      std::string names;
      for (const JsonlMember& x : members) names += (names.empty() ? "\"" : ", \"") + x.name + "\"";
      return InvalidArgument(std::string(name == choice.id_column ? "`id_column`" : "`columns`") +
                             ": no line of the input has a member \"" + name + "\" (members: " + names + ")")
          .WithPath(input.path());
    }
    if (!m->type) return CannotCopyJsonlMember(*m).WithPath(input.path());
    plan.fields.push_back(Field{name, *m->type});
    plan.leaves.push_back(SourcePlan::kFromJson);
    VIGILO_RETURN_IF_ERROR(CheckIdType(choice, plan.fields.back()).WithPath(input.path()));
  }
  return plan;
}

// Formats without column names: the key and the vector itself.
Result<SourcePlan> PlanVectors(const VectorInput& input, const Field& key, const SourceChoice& choice) {
  if (!choice.id_column.empty()) {
    return InvalidArgument("`id_column` \"" + choice.id_column + "\": a " +
                           std::string(InputFormatName(input.format())) +
                           " input has no columns but its vectors; its rows are known by position (_row)")
        .WithPath(input.path());
  }
  SourcePlan plan;
  plan.fields.push_back(key);
  for (const std::string& name : choice.columns) {
    VIGILO_RETURN_IF_ERROR(CheckPayloadName(plan.fields, name));
    if (name != input.vector_field()) {
      return InvalidArgument("`columns`: a " + std::string(InputFormatName(input.format())) +
                             " input has only its vector column \"" + input.vector_field() + "\" to copy, not \"" +
                             name + "\"");
    }
    plan.fields.push_back(Field{name, ColumnType{Kind::kFloatList, 0}});
  }
  if (plan.fields.size() == 1) plan.fields.push_back(Field{input.vector_field(), ColumnType{Kind::kFloatList, 0}});
  plan.leaves.assign(plan.fields.size(), SourcePlan::kFromBlocks);
  return plan;
}

Result<SourceSpec> CopyParquet(VectorInput& input, const SourcePlan& plan, store::OwnedWrites& writes,
                               const SourceLayout& layout) {
  VIGILO_ASSIGN_OR_RETURN(auto file, pq::LocalParquetFile::Open(input.path()));
  const pq::Footer& f = file.footer();
  VIGILO_ASSIGN_OR_RETURN(auto writer, SourceWriter::Open(writes, plan.fields, plan.fields[0].name, layout));
  uint64_t row = 0;
  for (size_t rg = 0; rg < f.metadata.row_groups.size(); ++rg) {
    auto n = static_cast<uint64_t>(f.metadata.row_groups[rg].num_rows);
    if (n == 0) continue;
    std::vector<pq::DecodedColumn> decoded(plan.fields.size());
    for (size_t c = 0; c < plan.fields.size(); ++c) {
      if (plan.leaves[c] == SourcePlan::kFromBlocks) {
        decoded[c] = Positions(row, n);
      } else {
        auto chunk = file.ReadColumnChunk(rg, plan.leaves[c]);
        if (!chunk.ok()) return input_internal::InFile(input.path(), chunk.status());
        decoded[c] = std::move(*chunk);
      }
    }
    std::vector<const pq::DecodedColumn*> ptrs;
    for (const auto& d : decoded) ptrs.push_back(&d);
    VIGILO_RETURN_IF_ERROR(writer->Append(ptrs));
    row += n;
  }
  return writer->Finish();
}

Result<SourceSpec> CopyVectors(VectorInput& input, const SourcePlan& plan, store::OwnedWrites& writes,
                               const SourceLayout& layout) {
  VIGILO_ASSIGN_OR_RETURN(auto writer, SourceWriter::Open(writes, plan.fields, plan.fields[0].name, layout));
  VIGILO_RETURN_IF_ERROR(input.Rewind());
  InputBlock block;
  const size_t d = input.dimension();
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, input.Next(&block));
    if (!more) break;
    pq::DecodedColumn keys = Positions(block.first_row, block.rows);
    if (input.key_field()) keys.values.int64s = block.keys.integers;
    pq::DecodedColumn vectors;
    vectors.num_rows = block.rows;
    vectors.values.type = pq::Type::kFloat;
    vectors.values.floats = block.vectors;
    for (size_t i = 0; i <= block.rows; ++i) vectors.list_offsets.push_back(i * d);
    VIGILO_RETURN_IF_ERROR(writer->Append({&keys, &vectors}));
  }
  return writer->Finish();
}

pq::DecodedColumn VectorColumn(const InputBlock& block, size_t d) {
  pq::DecodedColumn vectors;
  vectors.num_rows = block.rows;
  vectors.values.type = pq::Type::kFloat;
  vectors.values.floats = block.vectors;
  for (size_t i = 0; i <= block.rows; ++i) vectors.list_offsets.push_back(i * d);
  return vectors;
}

// JSONL: the blocks give the keys and vectors; the same rows' lines, read
// alongside, give the members.
Result<SourceSpec> CopyJsonl(VectorInput& input, const SourcePlan& plan, store::OwnedWrites& writes,
                             const SourceLayout& layout) {
  VIGILO_ASSIGN_OR_RETURN(auto writer, SourceWriter::Open(writes, plan.fields, plan.fields[0].name, layout));
  VIGILO_ASSIGN_OR_RETURN(auto lines, input_internal::JsonlLines::Open(input.path()));
  VIGILO_RETURN_IF_ERROR(input.Rewind());
  InputBlock block;
  const size_t d = input.dimension();
  std::vector<pq::DecodedColumn> columns(plan.fields.size());
  json::Value line;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, input.Next(&block));
    if (!more) break;
    for (size_t c = 1; c < plan.fields.size(); ++c) {
      if (plan.leaves[c] == SourcePlan::kFromJson) {
        columns[c] = EmptyJsonColumn(plan.fields[c].type);
      } else {
        columns[c] = VectorColumn(block, d);
      }
    }
    columns[0] = Positions(block.first_row, block.rows);
    for (size_t i = 0; i < block.rows; ++i) {
      uint64_t row = 0, offset = 0;
      VIGILO_ASSIGN_OR_RETURN(bool got, lines->Next(&line, &row, &offset));
      if (!got) return Internal("the JSONL file ended before its vectors did").WithPath(input.path());
      const json::Object* object = line.is_object() ? &line.as_object() : nullptr;
      for (size_t c = 1; c < plan.fields.size(); ++c) {
        if (plan.leaves[c] != SourcePlan::kFromJson) continue;
        AppendJsonValue(object ? object->Find(plan.fields[c].name) : nullptr, columns[c]);
      }
    }
    std::vector<const pq::DecodedColumn*> ptrs;
    for (const auto& col : columns) ptrs.push_back(&col);
    VIGILO_RETURN_IF_ERROR(writer->Append(ptrs));
  }
  return writer->Finish();
}

}  // namespace

std::vector<std::string> ParquetTopLevelFields(const pq::Footer& footer) { return TopLevelFields(footer); }

Result<ColumnType> ParquetSourceType(const std::string& path, const pq::ColumnDescriptor& column) {
  return SourceTypeOf(path, column);
}

Result<std::vector<JsonlMember>> ScanJsonlMembers(const std::string& path, const std::string* dense_key,
                                                  std::optional<uint64_t>* not_dense) {
  VIGILO_ASSIGN_OR_RETURN(auto lines, input_internal::JsonlLines::Open(path));
  std::vector<MemberScan> scans;
  json::Value line;
  uint64_t row = 0, offset = 0;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, lines->Next(&line, &row, &offset));
    if (!more) break;
    if (dense_key != nullptr && not_dense != nullptr && !*not_dense) {
      const json::Value* key = line.is_object() ? line.as_object().Find(*dense_key) : nullptr;
      bool dense = false;
      if (key != nullptr && key->is_number()) {
        auto value = key->as_number().AsInt64();
        dense = value.ok() && *value == static_cast<int64_t>(row);
      }
      if (!dense) *not_dense = row;
    }
    if (!line.is_object()) continue;  // a bare vector: every member is missing (null)
    for (const auto& [name, value] : line.as_object()) {
      const std::string& member = name;  // a lambda cannot capture a structured binding (C++20, clang 14)
      auto it = std::find_if(scans.begin(), scans.end(), [&](const MemberScan& m) { return m.name == member; });
      if (it == scans.end()) {
        scans.push_back(MemberScan{name, {}, {}, {}, {}, {}});
        it = scans.end() - 1;
      }
      ScanValue(*it, value, row);
    }
  }
  std::vector<JsonlMember> members;
  for (const MemberScan& m : scans) members.push_back(Conclude(m));
  return members;
}

Status CannotCopyJsonlMember(const JsonlMember& member) {
  return InvalidArgument("member \"" + member.name + "\" cannot be copied into a source table: " + member.why +
                         "; source columns from JSONL hold strings, integers, numbers or booleans (and null); " +
                         "leave it out with `columns`");
}

pq::DecodedColumn EmptyJsonColumn(const ColumnType& type) {
  pq::DecodedColumn c;
  switch (type.kind) {
    case Kind::kBoolean: c.values.type = pq::Type::kBoolean; break;
    case Kind::kLong: c.values.type = pq::Type::kInt64; break;
    case Kind::kDouble: c.values.type = pq::Type::kDouble; break;
    default:
      c.values.type = pq::Type::kByteArray;
      c.values.binary_offsets.push_back(0);
      break;
  }
  return c;
}

void AppendJsonValue(const json::Value* value, pq::DecodedColumn& column) {
  ++column.num_rows;
  bool present = value != nullptr && !value->is_null();
  column.row_valid.push_back(present ? 1 : 0);
  if (!present) return;
  pq::ColumnValues& v = column.values;
  switch (v.type) {
    case pq::Type::kBoolean: v.booleans.push_back(value->as_bool() ? 1 : 0); break;
    case pq::Type::kInt64: v.int64s.push_back(*value->as_number().AsInt64()); break;
    case pq::Type::kDouble: v.doubles.push_back(value->as_number().AsDouble()); break;
    default: {
      const std::string& s = value->as_string();
      v.binary.insert(v.binary.end(), s.begin(), s.end());
      v.binary_offsets.push_back(v.binary.size());
      break;
    }
  }
}

Result<std::vector<std::string>> InputColumnNames(const VectorInput& input) {
  if (input.format() == InputFormat::kJsonl) {
    VIGILO_ASSIGN_OR_RETURN(auto lines, input_internal::JsonlLines::Open(input.path()));
    json::Value line;
    uint64_t row = 0, offset = 0;
    VIGILO_ASSIGN_OR_RETURN(bool any, lines->Next(&line, &row, &offset));
    std::vector<std::string> names;
    if (any && line.is_object()) {
      for (const auto& [name, value] : line.as_object()) names.push_back(name);
    }
    if (names.empty()) names.push_back(input.vector_field());
    return names;
  }
  if (input.format() != InputFormat::kParquet) return std::vector<std::string>{input.vector_field()};
  VIGILO_ASSIGN_OR_RETURN(auto file, pq::LocalParquetFile::Open(input.path()));
  return TopLevelFields(file.footer());
}

std::string KeepIdsHint(const std::string& key) {
  if (key == "_row") {  // builder.h's kGeneratedKeyName: the id column needs another name
    return "; to keep these ids, rename the column \"_row\" and pass `id_column` with its new name instead of "
           "`key`: the publication is then keyed by row position (_row), and every hit returns your ids";
  }
  return "; to keep these ids, pass `id_column` " + key + " instead of `key` " + key +
         ": the publication is then keyed by row position (_row), and every hit returns \"" + key + "\"";
}

Result<SourcePlan> PlanSource(const VectorInput& input, const Field& key, const SourceChoice& choice) {
  if (key.type.kind != Kind::kLong) {
    return InvalidArgument("`source` needs a long key dense from zero; the key \"" + key.name + "\" is " +
                           key.type.ToString() + KeepIdsHint(key.name));
  }
  if (input.format() == InputFormat::kParquet) return PlanParquet(input, key, choice);
  if (input.format() == InputFormat::kJsonl) return PlanJsonl(input, key, choice);
  return PlanVectors(input, key, choice);
}

Result<SourceSpec> CopySource(VectorInput& input, const SourcePlan& plan, store::OwnedWrites& writes,
                              const SourceLayout& layout) {
  if (input.format() == InputFormat::kParquet) return CopyParquet(input, plan, writes, layout);
  if (input.format() == InputFormat::kJsonl) return CopyJsonl(input, plan, writes, layout);
  return CopyVectors(input, plan, writes, layout);
}

}  // namespace vigilo::ivf
