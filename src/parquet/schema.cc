#include "vigilo/parquet/schema.h"

#include <string>

#include "vigilo/common/utf8.h"

namespace vigilo::parquet {
namespace {

Status BadElement(size_t i, std::string message) {
  return InvalidFormat(std::move(message)).WithPath("schema[" + std::to_string(i) + "]");
}

// An open group while walking the list: children still to come and the
// levels its children inherit.
struct Frame {
  uint32_t index;
  int64_t children_left;
  int16_t definition_level;
  int16_t repetition_level;
};

}  // namespace

Result<SchemaTree> ResolveSchema(const std::vector<SchemaElement>& schema) {
  if (schema.empty()) return InvalidFormat("schema is empty").WithPath("schema");
  if (schema.size() > UINT32_MAX) return LimitExceeded("schema has too many elements").WithPath("schema");
  const SchemaElement& root = schema[0];
  if (root.type || !root.num_children) return BadElement(0, "the schema root must be a group");
  if (*root.num_children < 0) return BadElement(0, "negative num_children");

  SchemaTree tree;
  tree.parent.assign(schema.size(), 0);
  std::vector<Frame> open = {{0, *root.num_children, 0, 0}};
  size_t i = 1;
  while (!open.empty()) {
    if (open.back().children_left == 0) {
      open.pop_back();
      continue;
    }
    if (i >= schema.size()) {
      return BadElement(open.back().index, "group declares more children than the schema holds");
    }
    Frame& up = open.back();
    --up.children_left;
    const SchemaElement& el = schema[i];
    tree.parent[i] = up.index;
    if (!el.repetition_type) return BadElement(i, "missing repetition_type");
    if (!IsValidUtf8(el.name)) return BadElement(i, "name is not valid UTF-8");
    auto rep = *el.repetition_type;
    if (rep != FieldRepetitionType::kRequired && rep != FieldRepetitionType::kOptional &&
        rep != FieldRepetitionType::kRepeated) {
      return BadElement(i, "unsupported repetition_type " + std::to_string(static_cast<int32_t>(rep)));
    }
    // Depth <= kMaxSchemaDepth keeps these well inside int16_t.
    auto def = static_cast<int16_t>(up.definition_level + (rep != FieldRepetitionType::kRequired ? 1 : 0));
    auto repl = static_cast<int16_t>(up.repetition_level + (rep == FieldRepetitionType::kRepeated ? 1 : 0));
    int children = el.num_children.value_or(0);
    if (children < 0) return BadElement(i, "negative num_children");
    if (el.type && children > 0) return BadElement(i, "element has both a type and children");
    if (el.type) {
      if (*el.type == Type::kFixedLenByteArray && el.type_length.value_or(0) <= 0) {
        return BadElement(i, "FIXED_LEN_BYTE_ARRAY needs a positive type_length");
      }
      tree.leaves.push_back({static_cast<uint32_t>(i), static_cast<int>(open.size()), def, repl});
    } else if (el.num_children) {
      if (open.size() >= static_cast<size_t>(kMaxSchemaDepth)) {
        return LimitExceeded("schema nests deeper than " + std::to_string(kMaxSchemaDepth))
            .WithPath("schema[" + std::to_string(i) + "]");
      }
      open.push_back({static_cast<uint32_t>(i), children, def, repl});  // invalidates `up`
    } else {
      return BadElement(i, "element has neither a type nor num_children");
    }
    ++i;
  }
  if (i != schema.size()) {
    return InvalidFormat("schema has " + std::to_string(schema.size()) + " elements but its tree covers " +
                         std::to_string(i))
        .WithPath("schema");
  }
  return tree;
}

std::vector<std::string_view> LeafPath(const std::vector<SchemaElement>& schema, const SchemaTree& tree,
                                       const LeafColumn& leaf) {
  std::vector<std::string_view> path(static_cast<size_t>(leaf.depth));
  uint32_t at = leaf.schema_index;
  for (size_t k = path.size(); k > 0; --k) {
    path[k - 1] = schema[at].name;
    at = tree.parent[at];
  }
  return path;
}

}  // namespace vigilo::parquet
