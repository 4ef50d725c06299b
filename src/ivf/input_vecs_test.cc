// .fvecs and .bvecs: the good files and every malformed one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "input_test_support.h"
#include "vigilo/ivf/input.h"

namespace vigilo::ivf {
namespace {

using testing::AppendInt32;
using testing::InputTest;

std::string FloatBytes(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), 4);
  return out;
}

void ExpectError(const Status& st, StatusCode code, std::string_view needle, std::optional<uint64_t> offset) {
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(needle), std::string_view::npos) << st.ToString();
  EXPECT_EQ(st.offset(), offset) << st.ToString();
  EXPECT_FALSE(st.path().empty()) << st.ToString();
}

class VecsTest : public InputTest {};

TEST_F(VecsTest, ReadsFvecs) {
  auto m = testing::MakeMatrix(10, 3, false);
  auto input = OpenVectorInput(Write("a.fvecs", testing::FvecsBytes(m)), {.vector_field = "emb", .block_rows = 4});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ((*input)->format(), InputFormat::kFvecs);
  EXPECT_EQ((*input)->vector_field(), "emb");
  EXPECT_EQ((*input)->dimension(), 3u);
  EXPECT_EQ((*input)->rows(), std::optional<uint64_t>(10));
  EXPECT_EQ(*testing::ReadVectors(**input), m.values);
}

TEST_F(VecsTest, ReadsBvecsAsFloats) {
  std::string bytes;
  AppendInt32(&bytes, 3);
  bytes += std::string("\x00\x7f\xff", 3);
  auto input = OpenVectorInput(Write("a.bvecs", bytes), {});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ(*testing::ReadVectors(**input), (std::vector<float>{0.0f, 127.0f, 255.0f}));
}

TEST_F(VecsTest, EmptyFile) {
  ExpectError(testing::PassError(Write("e.fvecs", ""), {}), StatusCode::kInvalidFormat, "no vectors", std::nullopt);
}

TEST_F(VecsTest, TruncatedDimension) {
  ExpectError(testing::PassError(Write("t.fvecs", std::string("\x02\x00", 2)), {}), StatusCode::kInvalidFormat,
              "row 0: truncated", 0);
}

TEST_F(VecsTest, TruncatedRecord) {
  std::string bytes;
  AppendInt32(&bytes, 2);
  bytes += FloatBytes({1, 2});
  AppendInt32(&bytes, 2);
  bytes += FloatBytes({3});
  ExpectError(testing::PassError(Write("t.fvecs", bytes), {}), StatusCode::kInvalidFormat, "row 1: truncated", 12);
  // The same for bvecs: 4 + 3 bytes per record, the second cut short.
  std::string b;
  AppendInt32(&b, 3);
  b += "abc";
  AppendInt32(&b, 3);
  b += "a";
  ExpectError(testing::PassError(Write("t.bvecs", b), {}), StatusCode::kInvalidFormat, "row 1: truncated", 7);
}

TEST_F(VecsTest, DimensionOutOfRange) {
  for (int32_t d : {0, -1, 65537}) {
    std::string bytes;
    AppendInt32(&bytes, d);
    bytes += FloatBytes({1});
    ExpectError(testing::PassError(Write("d.fvecs", bytes), {}), StatusCode::kInvalidFormat, "outside 1…65536", 0);
  }
}

TEST_F(VecsTest, LargestDimensionIsAccepted) {
  std::string bytes;
  AppendInt32(&bytes, 65536);
  bytes.append(65536, '\x01');
  auto input = OpenVectorInput(Write("big.bvecs", bytes), {});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ((*input)->dimension(), 65536u);
}

TEST_F(VecsTest, InconsistentDimension) {
  // 12 + 24 bytes: a multiple of the first record's size, but row 1 says d = 5.
  std::string bytes;
  AppendInt32(&bytes, 2);
  bytes += FloatBytes({1, 2});
  AppendInt32(&bytes, 5);
  bytes += FloatBytes({1, 2, 3, 4, 5});
  ExpectError(testing::PassError(Write("i.fvecs", bytes), {}), StatusCode::kInvalidFormat,
              "row 1: dimension 5 differs from the first row's 2", 12);
  // Not a multiple: reported at open with the size arithmetic.
  std::string odd;
  AppendInt32(&odd, 2);
  odd += FloatBytes({1, 2});
  AppendInt32(&odd, 3);
  odd += FloatBytes({1, 2, 3});
  auto st = OpenVectorInput(Write("o.fvecs", odd), {}).status();
  ExpectError(st, StatusCode::kInvalidFormat, "not a multiple of the record size 12", 24);
}

TEST_F(VecsTest, NonFiniteValuesNameTheRow) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    auto m = testing::MakeMatrix(9, 4, false);
    m.values[6 * 4 + 2] = bad;
    Status st = testing::PassError(Write("n.fvecs", testing::FvecsBytes(m)), {.block_rows = 4});
    ExpectError(st, StatusCode::kInvalidFormat, "row 6: element 2 is ", std::nullopt);
    EXPECT_NE(st.message().find(std::isnan(bad) ? "NaN" : "infinite"), std::string_view::npos);
  }
}

TEST_F(VecsTest, FailedInputStaysFailedUntilRewind) {
  auto m = testing::MakeMatrix(8, 2, false);
  m.values[5 * 2] = std::numeric_limits<float>::quiet_NaN();
  auto input = OpenVectorInput(Write("n.fvecs", testing::FvecsBytes(m)), {.block_rows = 4});
  ASSERT_TRUE(input.ok());
  InputBlock block;
  EXPECT_TRUE(*(*input)->Next(&block));
  EXPECT_FALSE((*input)->Next(&block).ok());
  EXPECT_EQ(block.rows, 0u);
  EXPECT_FALSE((*input)->Next(&block).ok());
  ASSERT_TRUE((*input)->Rewind().ok());
  EXPECT_TRUE(*(*input)->Next(&block));
  EXPECT_EQ(block.first_row, 0u);
}

}  // namespace
}  // namespace vigilo::ivf
