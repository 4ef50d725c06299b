#include "vigilo/json/canonical.h"

#include <gtest/gtest.h>

namespace vigilo::json {
namespace {

TEST(CanonicalTest, Canonicalizes) {
  EXPECT_EQ(*Canonicalize(" {\"b\" : 1, \"a\":[1E2, -0]}\n"), R"({"a":[100.0,-0.0],"b":1})");
  EXPECT_EQ(*Canonicalize(R"("\u00e9\/")"), "\"\xc3\xa9/\"");
}

TEST(CanonicalTest, AcceptsExactlyCanonicalBytes) {
  EXPECT_TRUE(CheckCanonical(R"({"a":[100.0,-0.0],"b":1})").ok());
  EXPECT_TRUE(CheckCanonical("\"\\u001f\"").ok());
  EXPECT_TRUE(CheckCanonical("1e16").ok());
}

void ExpectNotCanonical(std::string_view text, uint64_t offset) {
  Status s = CheckCanonical(text);
  EXPECT_EQ(s.code(), StatusCode::kNotCanonical) << text << ": " << s.ToString();
  EXPECT_EQ(s.offset(), offset) << text << ": " << s.ToString();
}

TEST(CanonicalTest, ReportsFirstDifferingByte) {
  ExpectNotCanonical(R"({"b":1,"a":2})", 2);        // key order
  ExpectNotCanonical(R"({"a": 1})", 5);             // whitespace
  ExpectNotCanonical("{\"a\":1}\n", 7);              // trailing LF
  ExpectNotCanonical("1E2", 1);                     // number form
}

TEST(CanonicalTest, NumberForms) {
  EXPECT_TRUE(CheckCanonical("100").ok());
  ExpectNotCanonical("100.00", 5);
  ExpectNotCanonical("1.0e1", 1);
  ExpectNotCanonical("-0", 2);
  ExpectNotCanonical("\"\\u00e9\"", 1);  // escape where raw UTF-8 is canonical
  ExpectNotCanonical("\"\\u001F\"", 6);  // uppercase hex escape
  ExpectNotCanonical("\"\\/\"", 1);
}

TEST(CanonicalTest, ParseErrorsStayParseErrors) {
  EXPECT_EQ(CheckCanonical(R"({"a":1,"a":1})").code(), StatusCode::kParseError);
  EXPECT_EQ(CheckCanonical("").code(), StatusCode::kParseError);
}

}  // namespace
}  // namespace vigilo::json
