#include "source_copy.h"

#include <algorithm>

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
    VIGILO_RETURN_IF_ERROR(input_internal::CheckParquetVectorColumn(path, d));
    return ColumnType{Kind::kFloatList, 0};
  }
  if (d.shape == pq::ColumnShape::kScalar && !d.logical_type && !d.converted_type) {
    if (d.type == pq::Type::kFloat) return ColumnType{Kind::kFloat, 0};
    if (d.type == pq::Type::kDouble) return ColumnType{Kind::kDouble, 0};
  }
  auto t = input_internal::ParquetKeyType(path, d);
  if (!t.ok()) {
    return InvalidArgument("column \"" + d.path[0] + "\" cannot be copied into a source table: " +
                           std::string(t.status().message()));
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

Result<SourceSpec> CopyParquet(VectorInput& input, const Field& key, std::vector<std::string> columns,
                               store::OwnedWrites& writes, const SourceLayout& layout) {
  VIGILO_ASSIGN_OR_RETURN(auto file, pq::LocalParquetFile::Open(input.path()));
  const pq::Footer& f = file.footer();
  bool generated_key = !input.key_field();
  if (columns.empty()) {
    for (const std::string& name : TopLevelFields(f)) {
      if (name != key.name) columns.push_back(name);
    }
  }
  std::vector<Field> fields{key};
  std::vector<size_t> leaves;  // input leaf per table column; SIZE_MAX for the generated key
  leaves.push_back(SIZE_MAX);
  if (!generated_key) {
    VIGILO_ASSIGN_OR_RETURN(pq::ColumnDescriptor d, input_internal::FindParquetField(input.path(), f, key.name, "key"));
    leaves[0] = d.leaf;
  }
  for (const std::string& name : columns) {
    if (name == key.name) {
      return InvalidArgument("--columns lists the key \"" + name + "\"; it is always the first source column");
    }
    VIGILO_ASSIGN_OR_RETURN(pq::ColumnDescriptor d, input_internal::FindParquetField(input.path(), f, name, "source"));
    VIGILO_ASSIGN_OR_RETURN(ColumnType type, SourceTypeOf(input.path(), d));
    fields.push_back(Field{name, type});
    leaves.push_back(d.leaf);
  }
  VIGILO_ASSIGN_OR_RETURN(auto writer, SourceWriter::Open(writes, fields, key.name, layout));
  uint64_t row = 0;
  for (size_t rg = 0; rg < f.metadata.row_groups.size(); ++rg) {
    auto n = static_cast<uint64_t>(f.metadata.row_groups[rg].num_rows);
    if (n == 0) continue;
    std::vector<pq::DecodedColumn> decoded(fields.size());
    for (size_t c = 0; c < fields.size(); ++c) {
      if (leaves[c] == SIZE_MAX) {
        decoded[c] = Positions(row, n);
      } else {
        VIGILO_ASSIGN_OR_RETURN(decoded[c], file.ReadColumnChunk(rg, leaves[c]));
      }
    }
    std::vector<const pq::DecodedColumn*> ptrs;
    for (const auto& d : decoded) ptrs.push_back(&d);
    VIGILO_RETURN_IF_ERROR(writer->Append(ptrs));
    row += n;
  }
  return writer->Finish();
}

// Formats without column names: the key and the vector itself.
Result<SourceSpec> CopyVectors(VectorInput& input, const Field& key, const std::vector<std::string>& columns,
                               store::OwnedWrites& writes, const SourceLayout& layout) {
  for (const std::string& name : columns) {
    if (name != input.vector_field()) {
      return InvalidArgument("--columns: a " + std::string(InputFormatName(input.format())) +
                             " input has only its vector column \"" + input.vector_field() + "\" to copy, not \"" +
                             name + "\"");
    }
  }
  if (input.key_field() && input.key_field()->type.kind != Kind::kLong) {
    return InvalidArgument("a source table needs a long key; \"" + key.name + "\" is " + key.type.ToString());
  }
  std::vector<Field> fields{key, Field{input.vector_field(), ColumnType{Kind::kFloatList, 0}}};
  VIGILO_ASSIGN_OR_RETURN(auto writer, SourceWriter::Open(writes, fields, key.name, layout));
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

Result<SourceSpec> CopySource(VectorInput& input, const Field& key, const std::vector<std::string>& columns,
                              store::OwnedWrites& writes, const SourceLayout& layout) {
  if (key.type.kind != Kind::kLong) {
    return InvalidArgument("--source needs a long key dense from zero; the key \"" + key.name + "\" is " +
                           key.type.ToString());
  }
  if (input.format() == InputFormat::kParquet) return CopyParquet(input, key, columns, writes, layout);
  return CopyVectors(input, key, columns, writes, layout);
}

}  // namespace vigilo::ivf
