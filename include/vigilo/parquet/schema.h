// The Parquet schema tree: FileMetaData.schema is a depth-first list in which
// each group says how many children follow it. ResolveSchema checks that the
// list is one well-formed tree and finds its leaf columns.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet {

// Deeper schemas are rejected (kLimitExceeded): it bounds the work per leaf.
inline constexpr int kMaxSchemaDepth = 64;

struct LeafColumn {
  uint32_t schema_index = 0;  // into FileMetaData.schema
  int depth = 0;              // number of names in its path (1 for a top-level column)
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  bool operator==(const LeafColumn&) const = default;
};

struct SchemaTree {
  // parent[i] is the index of schema[i]'s group; parent[0] == 0 (the root).
  std::vector<uint32_t> parent;
  // Leaves in schema order, which is the column order of every row group.
  std::vector<LeafColumn> leaves;
};

// Checks the tree (kInvalidFormat, path "schema[i]"): a root group; each
// other element either a group (num_children >= 0, no type) or a leaf (type,
// no children) with a repetition_type and a UTF-8 name; FIXED_LEN_BYTE_ARRAY
// leaves with type_length > 0; children counts that use up the list exactly.
Result<SchemaTree> ResolveSchema(const std::vector<SchemaElement>& schema);

// The names from the root's child down to the leaf (views into `schema`).
std::vector<std::string_view> LeafPath(const std::vector<SchemaElement>& schema, const SchemaTree& tree,
                                       const LeafColumn& leaf);

}  // namespace vigilo::parquet
