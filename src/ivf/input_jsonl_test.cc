// JSON Lines: keys, line endings, rows known at the end, and bad rows.
#include <gtest/gtest.h>

#include "input_test_support.h"
#include "vigilo/ivf/input.h"

namespace vigilo::ivf {
namespace {

using testing::InputTest;

class JsonlTest : public InputTest {
 protected:
  Status Error(const std::string& text, InputOptions options = {}) {
    return testing::PassError(Write("x.jsonl", text), options);
  }
};

void ExpectError(const Status& st, StatusCode code, std::string_view needle, std::optional<uint64_t> offset) {
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(needle), std::string_view::npos) << st.ToString();
  EXPECT_EQ(st.offset(), offset) << st.ToString();
}

TEST_F(JsonlTest, IntegerKeysAreLongs) {
  auto m = testing::MakeMatrix(10, 4, false);
  auto input = OpenVectorInput(Write("a.jsonl", testing::JsonlBytes(m)), {.key_field = "id", .block_rows = 3});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  ASSERT_TRUE((*input)->key_field().has_value());
  EXPECT_EQ((*input)->key_field()->name, "id");
  EXPECT_EQ((*input)->key_field()->type.ToString(), "long");
  EXPECT_EQ((*input)->rows(), std::nullopt);  // unknown until the end of a pass
  auto blocks = testing::ReadBlocks(**input);
  ASSERT_TRUE(blocks.ok()) << blocks.status().ToString();
  EXPECT_EQ((*input)->rows(), std::optional<uint64_t>(10));
  ASSERT_EQ(blocks->size(), 4u);
  EXPECT_EQ((*blocks)[1].keys.integers, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ((*blocks)[3].keys.integers, (std::vector<int64_t>{9}));
  EXPECT_EQ((*blocks)[3].keys.type.kind, ColumnType::Kind::kLong);
}

TEST_F(JsonlTest, StringKeysCrlfNoFinalNewline) {
  std::string text = "{\"k\":\"é\",\"vector\":[1,2.5]}\r\n{\"vector\":[-3e2,0],\"k\":\"\",\"other\":{\"x\":[null]}}";
  auto input = OpenVectorInput(Write("s.jsonl", text), {.key_field = "k"});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ((*input)->key_field()->type.ToString(), "string");
  InputBlock block;
  ASSERT_TRUE(*(*input)->Next(&block));
  EXPECT_EQ(block.vectors, (std::vector<float>{1, 2.5, -300, 0}));
  ASSERT_EQ(block.keys.size(), 2u);
  EXPECT_EQ(block.keys.Bytes(0), "é");
  EXPECT_EQ(block.keys.Bytes(1), "");
  EXPECT_FALSE(*(*input)->Next(&block));
}

TEST_F(JsonlTest, LongLinesAcrossReads) {
  // Lines longer than one read (1 MiB) are reassembled.
  auto m = testing::MakeMatrix(3, 60000, false);
  auto input = OpenVectorInput(Write("l.jsonl", testing::JsonlBytes(m)), {.block_rows = 2});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ(*testing::ReadVectors(**input), m.values);
}

TEST_F(JsonlTest, RowErrors) {
  const std::string good = "{\"vector\":[1,2]}\n";  // 17 bytes
  ExpectError(Error(""), StatusCode::kInvalidFormat, "no vectors", std::nullopt);
  ExpectError(Error(good + "\n" + good), StatusCode::kInvalidFormat, "row 1 (line 2): empty line", 17);
  ExpectError(Error(good + "{\"vector\":[1,2]\n"), StatusCode::kParseError, "row 1 (line 2): ", 32);
  ExpectError(Error(good + "[1,2,3]\n"), StatusCode::kInvalidFormat,
              "row 1 (line 2): the vector has 3 elements, the first row 2", 17);
  ExpectError(Error(good + "\"1,2\"\n"), StatusCode::kInvalidFormat,
              "row 1 (line 2): not a JSON object (or an array of numbers)", 17);
  ExpectError(Error(good + "[1e20,1]\n"), StatusCode::kInvalidFormat,
              "row 1: its squared norm 1e+40 is above 2^120 (about 1.3e36)", std::nullopt);
  ExpectError(Error(good + "{\"vec\":[1,2]}\n"), StatusCode::kInvalidFormat, "no member \"vector\"", 17);
  ExpectError(Error(good + "{\"vector\":null}\n"), StatusCode::kInvalidFormat, "is null", 17);
  ExpectError(Error(good + "{\"vector\":\"1,2\"}\n"), StatusCode::kInvalidFormat, "is a string, not an array", 17);
  ExpectError(Error(good + "{\"vector\":[1,\"2\"]}\n"), StatusCode::kInvalidFormat,
              "element 1 of \"vector\" is a string", 17);
  ExpectError(Error(good + "{\"vector\":[1,2,3]}\n"), StatusCode::kInvalidFormat,
              "row 1 (line 2): the vector has 3 elements, the first row 2", 17);
  ExpectError(Error(good + "{\"vector\":[1,1e39]}\n"), StatusCode::kInvalidFormat,
              "row 1: element 1 is infinite (or outside the float range)", 17);
  ExpectError(Error("{\"vector\":[]}\n"), StatusCode::kInvalidFormat, "dimension 0", 0);
  ExpectError(Error(good + "{\"vector\":[1,2],\"vector\":[1,2]}\n"), StatusCode::kParseError, "duplicate", 33);
}

// A line may be a bare array (the vector alone), mixed with objects.
TEST_F(JsonlTest, BareArrayLines) {
  auto input = OpenVectorInput(Write("a.jsonl", "[1,2]\n{\"vector\":[3,4]}\n[5,6]"), {});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ(*testing::ReadVectors(**input), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ExpectError(Error("[1,2]\n", {.key_field = "id"}), StatusCode::kInvalidFormat,
              "row 0 (line 1): a bare array has no key member \"id\"", 0);
}

// detect_vector_field: the one member of the first row that is an array of numbers.
TEST_F(JsonlTest, DetectsTheVectorMember) {
  InputOptions detect{.detect_vector_field = true};
  auto input = OpenVectorInput(Write("d.jsonl", "{\"id\":1,\"emb\":[1,2],\"tags\":[\"a\"]}\n"), detect);
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ((*input)->vector_field(), "emb");
  ExpectError(Error("{\"a\":[1],\"b\":[2]}\n", detect), StatusCode::kInvalidFormat,
              "row 0 (line 1): several members are arrays of numbers (\"a\", \"b\"); name the vector field", 0);
  ExpectError(Error("{\"a\":1}\n", detect), StatusCode::kInvalidFormat,
              "row 0 (line 1): no member is an array of numbers (members: \"a\"); name the vector field", 0);
}

TEST_F(JsonlTest, KeyErrors) {
  InputOptions keyed{.key_field = "id"};
  ExpectError(Error("{\"id\":1,\"vector\":[1]}\n{\"vector\":[1]}\n", keyed), StatusCode::kInvalidFormat,
              "row 1 (line 2): no key member \"id\"", 22);
  ExpectError(Error("{\"id\":null,\"vector\":[1]}\n", keyed), StatusCode::kInvalidFormat, "is a null", 0);
  ExpectError(Error("{\"id\":1.5,\"vector\":[1]}\n", keyed), StatusCode::kInvalidFormat, "non-integer number", 0);
  ExpectError(Error("{\"id\":true,\"vector\":[1]}\n", keyed), StatusCode::kInvalidFormat, "is a boolean", 0);
  ExpectError(Error("{\"id\":18446744073709551615,\"vector\":[1]}\n", keyed), StatusCode::kInvalidFormat,
              "does not fit a long", 0);
  ExpectError(Error("{\"id\":1,\"vector\":[1]}\n{\"id\":\"2\",\"vector\":[1]}\n", keyed),
              StatusCode::kInvalidFormat, "row 1 (line 2): the key \"id\" is not a long", 22);
}

}  // namespace
}  // namespace vigilo::ivf
