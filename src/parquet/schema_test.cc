#include "vigilo/parquet/schema.h"

#include <gtest/gtest.h>

#include "test_metadata.h"

namespace vigilo::parquet {
namespace {

using R = FieldRepetitionType;

SchemaElement Group(int32_t children, std::optional<R> rep = R::kRequired, std::string name = "g") {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition_type = rep;
  return e;
}

SchemaElement Leaf(std::string name = "x", R rep = R::kRequired, Type type = Type::kInt32) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  return e;
}

TEST(ResolveSchema, RichSchemaLeavesPathsAndLevels) {
  FileMetaData md = testing::RichMetaData();
  auto tree = ResolveSchema(md.schema);
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  ASSERT_EQ(tree->leaves.size(), 9u);
  const LeafColumn& cid = tree->leaves[0];
  EXPECT_EQ(cid, (LeafColumn{1, 1, 0, 0}));
  const LeafColumn& element = tree->leaves[1];
  EXPECT_EQ(element, (LeafColumn{4, 3, 2, 1}));  // optional vector, repeated list, required element
  EXPECT_EQ(LeafPath(md.schema, *tree, element), (std::vector<std::string_view>{"vector", "list", "element"}));
  EXPECT_EQ(tree->leaves[2], (LeafColumn{5, 1, 1, 0}));
  EXPECT_EQ(tree->parent[4], 3u);
  EXPECT_EQ(tree->parent[3], 2u);
  EXPECT_EQ(tree->parent[2], 0u);
}

TEST(ResolveSchema, EmptyRootAndLeafWithZeroChildren) {
  auto empty = ResolveSchema({Group(0, std::nullopt)});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->leaves.empty());
  SchemaElement leaf = Leaf();
  leaf.num_children = 0;  // some writers set it on leaves
  EXPECT_TRUE(ResolveSchema({Group(1, std::nullopt), leaf}).ok());
}

void ExpectInvalid(const std::vector<SchemaElement>& schema, std::string_view path, StatusCode code) {
  auto st = ResolveSchema(schema).status();
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_EQ(st.path(), path) << st.ToString();
}

TEST(ResolveSchema, RejectsMalformedTrees) {
  const StatusCode bad = StatusCode::kInvalidFormat;
  ExpectInvalid({}, "schema", bad);
  ExpectInvalid({Leaf()}, "schema[0]", bad);                               // root is a leaf
  ExpectInvalid({Group(2, std::nullopt), Leaf()}, "schema[0]", bad);       // too few elements
  ExpectInvalid({Group(1, std::nullopt), Leaf(), Leaf()}, "schema", bad);  // too many elements
  ExpectInvalid({Group(-1, std::nullopt)}, "schema[0]", bad);
  ExpectInvalid({Group(1, std::nullopt), Group(-1)}, "schema[1]", bad);
  SchemaElement both = Leaf();
  both.num_children = 1;
  ExpectInvalid({Group(1, std::nullopt), both, Leaf()}, "schema[1]", bad);
  SchemaElement neither;
  neither.name = "n";
  neither.repetition_type = R::kRequired;
  ExpectInvalid({Group(1, std::nullopt), neither}, "schema[1]", bad);
  SchemaElement norep = Leaf();
  norep.repetition_type.reset();
  ExpectInvalid({Group(1, std::nullopt), norep}, "schema[1]", bad);
  ExpectInvalid({Group(1, std::nullopt), Leaf("x", static_cast<R>(3))}, "schema[1]", bad);
  ExpectInvalid({Group(1, std::nullopt), Leaf("\xff")}, "schema[1]", bad);
  ExpectInvalid({Group(1, std::nullopt), Leaf("f", R::kRequired, Type::kFixedLenByteArray)}, "schema[1]", bad);
  // A nested group that claims more children than follow.
  ExpectInvalid({Group(2, std::nullopt), Group(3), Leaf(), Leaf()}, "schema[1]", bad);
}

TEST(ResolveSchema, DepthLimit) {
  std::vector<SchemaElement> ok = {Group(1, std::nullopt)};
  for (int i = 1; i < kMaxSchemaDepth; ++i) ok.push_back(Group(1));
  ok.push_back(Leaf());
  auto tree = ResolveSchema(ok);
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  EXPECT_EQ(tree->leaves[0].depth, kMaxSchemaDepth);

  std::vector<SchemaElement> deep = {Group(1, std::nullopt)};
  for (int i = 0; i < 10000; ++i) deep.push_back(Group(1));
  deep.push_back(Leaf());
  EXPECT_EQ(ResolveSchema(deep).status().code(), StatusCode::kLimitExceeded);
}

}  // namespace
}  // namespace vigilo::parquet
