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
    return InvalidArgument("--columns lists the key \"" + name + "\"; it is always the first source column");
  }
  for (const Field& f : fields) {
    if (f.name == name) return InvalidArgument("--columns lists \"" + name + "\" twice");
  }
  if (Status s = ValidateColumnName(name); !s.ok()) {
    return InvalidArgument("source column \"" + name + "\": " + std::string(s.message()));
  }
  return Status::Ok();
}

// The source key must be 0, 1, 2, … in row order. Where the footer's
// statistics already show otherwise (a row group's key range or nulls), it
// is refused now, before any pass; the assign pass checks every key.
Status CheckKeyStatistics(const std::string& path, const pq::Footer& f, const std::string& name, size_t leaf) {
  uint64_t first = 0;
  for (size_t rg = 0; rg < f.metadata.row_groups.size(); ++rg) {
    const pq::RowGroup& g = f.metadata.row_groups[rg];
    auto n = static_cast<uint64_t>(g.num_rows);
    const auto& meta = g.columns[leaf].meta_data;
    if (n > 0 && meta && meta->statistics) {
      const pq::Statistics& st = *meta->statistics;
      std::string where = "the key \"" + name + "\" in row group " + std::to_string(rg) + " (rows " +
                          std::to_string(first) + "…" + std::to_string(first + n - 1) + ")";
      if (st.null_count && *st.null_count > 0) {
        return InvalidArgument("--source needs a long key equal to the row position (0, 1, 2, …); " + where +
                               " has nulls (the file's statistics)")
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
          return InvalidArgument("--source needs a long key equal to the row position (0, 1, 2, …); " + where +
                                 " ranges over " + std::to_string(lo) + "…" + std::to_string(hi) +
                                 " (the file's statistics)")
              .WithPath(path);
        }
      }
    }
    first += n;
  }
  return Status::Ok();
}

Result<SourcePlan> PlanParquet(const VectorInput& input, const Field& key, std::vector<std::string> columns) {
  VIGILO_ASSIGN_OR_RETURN(auto file, pq::LocalParquetFile::Open(input.path()));
  const pq::Footer& f = file.footer();
  if (columns.empty()) {
    for (const std::string& name : TopLevelFields(f)) {
      if (name != key.name && name != input.vector_field()) columns.push_back(name);
    }
    if (columns.empty()) columns.push_back(input.vector_field());
  }
  SourcePlan plan;
  plan.fields.push_back(key);
  plan.leaves.push_back(SourcePlan::kFromBlocks);
  if (input.key_field()) {
    VIGILO_ASSIGN_OR_RETURN(pq::ColumnDescriptor d, input_internal::FindParquetField(input.path(), f, key.name, "key"));
    plan.leaves[0] = d.leaf;
    VIGILO_RETURN_IF_ERROR(CheckKeyStatistics(input.path(), f, key.name, d.leaf));
  }
  for (const std::string& name : columns) {
    VIGILO_RETURN_IF_ERROR(CheckPayloadName(plan.fields, name));
    auto d = input_internal::FindParquetField(input.path(), f, name, "source");
    if (!d.ok()) return AsArgumentError(d.status());
    VIGILO_ASSIGN_OR_RETURN(ColumnType type, SourceTypeOf(input.path(), *d));
    plan.fields.push_back(Field{name, type});
    plan.leaves.push_back(d->leaf);
  }
  return plan;
}

// Formats without column names, and JSONL (whose other members are not
// copied yet): the key and the vector itself.
Result<SourcePlan> PlanVectors(const VectorInput& input, const Field& key, const std::vector<std::string>& columns) {
  SourcePlan plan;
  plan.fields.push_back(key);
  for (const std::string& name : columns) {
    VIGILO_RETURN_IF_ERROR(CheckPayloadName(plan.fields, name));
    if (name != input.vector_field()) {
      if (input.format() == InputFormat::kJsonl) {
        return InvalidArgument("--columns: \"" + name + "\" cannot be copied: the source table of a jsonl input " +
                               "holds its key and its vector column \"" + input.vector_field() +
                               "\" only (JSONL payload columns are not supported yet)");
      }
      return InvalidArgument("--columns: a " + std::string(InputFormatName(input.format())) +
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

}  // namespace

Result<std::vector<std::string>> InputColumnNames(const VectorInput& input) {
  if (input.format() != InputFormat::kParquet) return std::vector<std::string>{input.vector_field()};
  VIGILO_ASSIGN_OR_RETURN(auto file, pq::LocalParquetFile::Open(input.path()));
  return TopLevelFields(file.footer());
}

Result<SourcePlan> PlanSource(const VectorInput& input, const Field& key, const std::vector<std::string>& columns) {
  if (key.type.kind != Kind::kLong) {
    return InvalidArgument("--source needs a long key dense from zero; the key \"" + key.name + "\" is " +
                           key.type.ToString());
  }
  if (input.format() == InputFormat::kParquet) return PlanParquet(input, key, columns);
  return PlanVectors(input, key, columns);
}

Result<SourceSpec> CopySource(VectorInput& input, const SourcePlan& plan, store::OwnedWrites& writes,
                              const SourceLayout& layout) {
  if (input.format() == InputFormat::kParquet) return CopyParquet(input, plan, writes, layout);
  return CopyVectors(input, plan, writes, layout);
}

}  // namespace vigilo::ivf
