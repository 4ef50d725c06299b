#include "vigilo/json/write.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "vigilo/json/parse.h"

namespace vigilo::json {
namespace {

std::string Fmt(double v) {
  char buf[32];
  return std::string(buf, FormatDouble(v, buf));
}

TEST(FormatDoubleTest, RyuLayout) {
  EXPECT_EQ(Fmt(1.0), "1.0");
  EXPECT_EQ(Fmt(0.0), "0.0");
  EXPECT_EQ(Fmt(-0.0), "-0.0");
  EXPECT_EQ(Fmt(1e15), "1000000000000000.0");
  EXPECT_EQ(Fmt(1e16), "1e16");
  EXPECT_EQ(Fmt(1.1e16), "1.1e16");
  EXPECT_EQ(Fmt(1e21), "1e21");
  EXPECT_EQ(Fmt(1e-5), "0.00001");
  EXPECT_EQ(Fmt(1.5e-5), "0.000015");
  EXPECT_EQ(Fmt(1e-6), "1e-6");
  EXPECT_EQ(Fmt(1e-7), "1e-7");
  EXPECT_EQ(Fmt(0.1), "0.1");
  EXPECT_EQ(Fmt(0.30000000000000004), "0.30000000000000004");
  EXPECT_EQ(Fmt(123456789.0), "123456789.0");
  EXPECT_EQ(Fmt(12.34), "12.34");
  EXPECT_EQ(Fmt(-3.089900467300506e65), "-3.089900467300506e65");
  EXPECT_EQ(Fmt(std::numeric_limits<double>::max()), "1.7976931348623157e308");
  EXPECT_EQ(Fmt(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(Fmt(1.8446744073709552e19), "1.8446744073709552e19");
  EXPECT_EQ(Fmt(9007199254740993.0), "9007199254740992.0");
}

TEST(WriteTest, EscapesOnlyQuoteBackslashAndC0) {
  std::string out;
  std::string all_c0;
  for (int c = 0; c < 0x20; ++c) all_c0.push_back(static_cast<char>(c));
  WriteString(all_c0, &out);
  EXPECT_EQ(out,
            "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
            "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d"
            "\\u001e\\u001f\"");
  out.clear();
  WriteString("\"\\/\x7f\xe2\x80\xa8\xc3\xa9", &out);
  EXPECT_EQ(out, "\"\\\"\\\\/\x7f\xe2\x80\xa8\xc3\xa9\"");
}

TEST(WriteTest, CanonicalDocument) {
  Object inner;
  ASSERT_TRUE(inner.Insert("d", Value::Int(1)).ok());
  ASSERT_TRUE(inner.Insert("c", Value::Int(2)).ok());
  Object root;
  ASSERT_TRUE(root.Insert("z", Value(Array{Value(std::move(inner)), Value(), Value(false)})).ok());
  ASSERT_TRUE(root.Insert("a", Value::Double(-0.0)).ok());
  ASSERT_TRUE(root.Insert("m", Value::Int(-7)).ok());
  EXPECT_EQ(*ToCanonical(Value(std::move(root))), R"({"a":-0.0,"m":-7,"z":[{"c":2,"d":1},null,false]})");
}

TEST(WriteTest, RefusesNonFinite) {
  EXPECT_EQ(ToCanonical(Value::Double(std::nan(""))).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(ToCanonical(Value(Array{Value::Double(INFINITY)})).ok());
}

// Every double we format parses back to the same bits.
TEST(WriteTest, FormatRoundTripsThroughParse) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 200000; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    double d;
    std::memcpy(&d, &state, sizeof d);
    if (!std::isfinite(d)) continue;
    std::string text = Fmt(d);
    auto back = Parse(text);
    ASSERT_TRUE(back.ok()) << text;
    ASSERT_EQ(back->as_number(), Number::F64(d)) << text;
  }
}

}  // namespace
}  // namespace vigilo::json
