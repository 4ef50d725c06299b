#include "vigilo/ivf/types.h"

#include <gtest/gtest.h>

namespace vigilo::ivf {
namespace {

TEST(IvfTypesTest, MetricAndEncodingSpellings) {
  EXPECT_EQ(*ParseMetric("l2_squared"), Metric::kL2Squared);
  EXPECT_EQ(*ParseMetric("cosine"), Metric::kCosine);
  EXPECT_EQ(MetricName(Metric::kCosine), "cosine");
  EXPECT_EQ(ParseMetric("L2").status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(ParseMetric("inner_product").status().message(),
            "metric must be \"l2_squared\" or \"cosine\", got \"inner_product\"");
  EXPECT_EQ(*ParseEncoding("lvq4"), Encoding::kLvq4);
  EXPECT_EQ(EncodingName(Encoding::kLvq8), "lvq8");
  EXPECT_EQ(ParseEncoding("sq8").status().code(), StatusCode::kInvalidFormat);
}

TEST(IvfTypesTest, CodeBytes) {
  EXPECT_EQ(CodeBytes(Encoding::kLvq8, 784), 784u);
  EXPECT_EQ(CodeBytes(Encoding::kLvq4, 784), 392u);
  EXPECT_EQ(CodeBytes(Encoding::kLvq4, 101), 51u);  // the odd last element has its own byte
  EXPECT_EQ(EncodingBits(Encoding::kLvq4), 4);
}

TEST(IvfTypesTest, ColumnTypesRoundTrip) {
  for (const char* t : {"boolean", "int", "long", "binary", "string", "date", "fixed(16)", "fixed(1)",
                        "fixed(2147483647)", "float", "double", "list<float>"}) {
    auto parsed = ParseColumnType(t);
    ASSERT_TRUE(parsed.ok()) << t;
    EXPECT_EQ(parsed->ToString(), t);
  }
  EXPECT_TRUE(ParseColumnType("fixed(16)")->is_key_type());
  EXPECT_FALSE(ParseColumnType("float")->is_key_type());
  EXPECT_FALSE(ParseColumnType("list<float>")->is_key_type());
}

TEST(IvfTypesTest, FixedLengthMustBeCanonical) {
  for (const char* t : {"fixed(016)", "fixed(0)", "fixed()", "fixed(+1)", "fixed(-1)", "fixed(1.0)", "fixed( 1)",
                        "fixed(2147483648)", "fixed(99999999999)", "fixed(16", "FIXED(16)"}) {
    auto parsed = ParseColumnType(t);
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidFormat) << t;
  }
  EXPECT_EQ(ParseColumnType("fixed(016)").status().message(),
            "fixed(L) needs L as a positive decimal without leading zeros, at most 2147483647; got \"fixed(016)\"");
  EXPECT_EQ(ParseColumnType("varchar").status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(ParseColumnType("Long").status().code(), StatusCode::kInvalidFormat);
}

}  // namespace
}  // namespace vigilo::ivf
