// Consistency of decoded FileMetaData with itself and with the file layout.
// Decoding only proves the bytes are well-formed Thrift; these checks make
// every offset and count safe to use for range requests and page decoding.
#include "vigilo/parquet/footer.h"

#include "vigilo/common/checked.h"

namespace vigilo::parquet {
namespace {

std::string ChunkPath(size_t rg, size_t col) {
  return "row_groups[" + std::to_string(rg) + "].columns[" + std::to_string(col) + "]";
}

Status ValidateChunk(const ColumnChunk& chunk, const SchemaElement& leaf_element, const LeafColumn& leaf,
                     const std::vector<std::string_view>& leaf_path, int64_t num_rows, uint64_t footer_offset) {
  if (chunk.file_path) return Unimplemented("column chunk stored in another file");
  if (!chunk.meta_data) return InvalidFormat("column chunk has no meta_data");
  const ColumnMetaData& md = *chunk.meta_data;
  if (md.type != *leaf_element.type) return InvalidFormat("meta_data.type differs from the schema leaf type");
  bool same_path = md.path_in_schema.size() == leaf_path.size();
  for (size_t k = 0; same_path && k < leaf_path.size(); ++k) same_path = md.path_in_schema[k] == leaf_path[k];
  if (!same_path) return InvalidFormat("meta_data.path_in_schema differs from the schema leaf path");
  if (md.num_values < 0 || md.total_uncompressed_size < 0 || md.total_compressed_size < 0) {
    return InvalidFormat("negative num_values or size in meta_data");
  }
  // Without repetition every row holds exactly one value (or null).
  if (leaf.max_repetition_level == 0 && md.num_values != num_rows) {
    return InvalidFormat("meta_data.num_values " + std::to_string(md.num_values) + " differs from the row group's " +
                         std::to_string(num_rows) + " rows");
  }
  int64_t start = md.dictionary_page_offset.value_or(md.data_page_offset);
  if (md.dictionary_page_offset && *md.dictionary_page_offset >= md.data_page_offset) {
    return InvalidFormat("dictionary page does not precede the first data page");
  }
  auto end = CheckedAdd(start, md.total_compressed_size);
  if (start < 4 || !end.ok() || static_cast<uint64_t>(*end) > footer_offset) {
    return InvalidFormat("column chunk bytes [" + std::to_string(start) + ", +" +
                         std::to_string(md.total_compressed_size) + ") are outside the data area [4, " +
                         std::to_string(footer_offset) + ")");
  }
  if (md.total_compressed_size > 0 && md.data_page_offset >= *end) {
    return InvalidFormat("first data page lies outside the column chunk");
  }
  return Status::Ok();
}

}  // namespace

Result<SchemaTree> ValidateFileMetaData(const FileMetaData& metadata, uint64_t footer_offset) {
  VIGILO_ASSIGN_OR_RETURN(SchemaTree tree, ResolveSchema(metadata.schema));

  // Paths are computed once; chunks are compared against them.
  std::vector<std::vector<std::string_view>> paths;
  paths.reserve(tree.leaves.size());
  for (const LeafColumn& leaf : tree.leaves) paths.push_back(LeafPath(metadata.schema, tree, leaf));

  if (metadata.num_rows < 0) return InvalidFormat("negative num_rows").WithPath("num_rows");
  int64_t total_rows = 0;
  for (size_t g = 0; g < metadata.row_groups.size(); ++g) {
    const RowGroup& rg = metadata.row_groups[g];
    std::string where = "row_groups[" + std::to_string(g) + "]";
    if (rg.num_rows < 0) return InvalidFormat("negative num_rows").WithPath(where + ".num_rows");
    auto sum = CheckedAdd(total_rows, rg.num_rows);
    if (!sum.ok()) return InvalidFormat("row counts overflow").WithPath(where + ".num_rows");
    total_rows = *sum;
    if (rg.columns.size() != tree.leaves.size()) {
      return InvalidFormat("row group has " + std::to_string(rg.columns.size()) + " column chunks, the schema " +
                           std::to_string(tree.leaves.size()) + " leaf columns")
          .WithPath(where + ".columns");
    }
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const LeafColumn& leaf = tree.leaves[c];
      Status st =
          ValidateChunk(rg.columns[c], metadata.schema[leaf.schema_index], leaf, paths[c], rg.num_rows, footer_offset);
      if (!st.ok()) return std::move(st).WithPath(ChunkPath(g, c));
    }
  }
  if (total_rows != metadata.num_rows) {
    return InvalidFormat("num_rows " + std::to_string(metadata.num_rows) + " differs from the row groups' total " +
                         std::to_string(total_rows))
        .WithPath("num_rows");
  }
  if (metadata.column_orders && metadata.column_orders->size() != tree.leaves.size()) {
    return InvalidFormat("column_orders needs one entry per leaf column").WithPath("column_orders");
  }
  return tree;
}

}  // namespace vigilo::parquet
