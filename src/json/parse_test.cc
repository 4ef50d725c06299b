#include "vigilo/json/parse.h"

#include <gtest/gtest.h>

#include <string>

namespace vigilo::json {
namespace {

Status ErrorOf(std::string_view text) { return Parse(text).status(); }

void ExpectError(std::string_view text, StatusCode code, std::string_view fragment, uint64_t offset) {
  Status s = ErrorOf(text);
  ASSERT_FALSE(s.ok()) << "accepted: " << text;
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_NE(s.message().find(fragment), std::string_view::npos) << s.ToString();
  EXPECT_EQ(s.offset(), offset) << s.ToString();
}

TEST(ParseTest, NumbersKeepSerdeKinds) {
  EXPECT_EQ(Parse("1")->as_number(), Number::U64(1));
  EXPECT_EQ(Parse("18446744073709551615")->as_number(), Number::U64(UINT64_MAX));
  EXPECT_EQ(Parse("-9223372036854775808")->as_number(), Number::I64(INT64_MIN));
  EXPECT_EQ(Parse("-1")->as_number(), Number::I64(-1));
  EXPECT_EQ(Parse("-0")->as_number(), Number::F64(-0.0));
  EXPECT_EQ(Parse("1.0")->as_number(), Number::F64(1.0));
  EXPECT_EQ(Parse("18446744073709551616")->as_number(), Number::F64(18446744073709551616.0));
  EXPECT_EQ(Parse("-9223372036854775809")->as_number(), Number::F64(-9223372036854775809.0));
  EXPECT_EQ(Parse("1e-400")->as_number(), Number::F64(0.0));
  EXPECT_EQ(Parse("-1e-400")->as_number(), Number::F64(-0.0));
  EXPECT_EQ(Parse("0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                  "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                  "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                  "000000000000000000000000000000000000000000000000000000000000000000000000000000000001")
                ->as_number(),
            Number::F64(0.0));
}

TEST(ParseTest, FloatsAreCorrectlyRounded) {
  EXPECT_EQ(Parse("2.5e-129")->as_number().f64(), 2.5e-129);
  EXPECT_EQ(Parse("3575e26")->as_number().f64(), 3.575e29);
  EXPECT_EQ(Parse("5193e-25")->as_number().f64(), 5.193e-22);
  EXPECT_EQ(Parse("1.0000000000000001")->as_number().f64(), 1.0);
  EXPECT_EQ(Parse("5e-324")->as_number().f64(), 5e-324);
}

TEST(ParseTest, NumberErrors) {
  ExpectError("1e400", StatusCode::kParseError, "out of range", 0);
  ExpectError("[1" + std::string(400, '0') + "]", StatusCode::kParseError, "out of range", 1);
  ExpectError("01", StatusCode::kParseError, "leading zero", 0);
  ExpectError(".5", StatusCode::kParseError, "expected a value", 0);
  ExpectError("1.", StatusCode::kParseError, "end of input", 0);
  ExpectError("1.e5", StatusCode::kParseError, "digit after '.'", 2);
  ExpectError("1e", StatusCode::kParseError, "end of input", 0);
  ExpectError("1e+x", StatusCode::kParseError, "exponent", 3);
  ExpectError("+1", StatusCode::kParseError, "expected a value", 0);
  ExpectError("-", StatusCode::kParseError, "end of input", 0);
  ExpectError("-a", StatusCode::kParseError, "after '-'", 1);
  ExpectError("NaN", StatusCode::kParseError, "expected a value", 0);
  ExpectError("Infinity", StatusCode::kParseError, "expected a value", 0);
}

TEST(ParseTest, StringsDecodeEscapes) {
  EXPECT_EQ(Parse(R"("\b\f\n\r\t\/\"\\")")->as_string(), "\b\f\n\r\t/\"\\");
  EXPECT_EQ(Parse(R"("\u00e9\u00C9")")->as_string(), "\xc3\xa9\xc3\x89");
  EXPECT_EQ(Parse(R"("\ud83d\ude00")")->as_string(), "\xf0\x9f\x98\x80");
  EXPECT_EQ(Parse(R"("\u0000")")->as_string(), std::string(1, '\0'));
  EXPECT_EQ(Parse("\"\x7f\"")->as_string(), "\x7f");
}

TEST(ParseTest, StringErrors) {
  ExpectError(R"("\ud800")", StatusCode::kParseError, "lone high surrogate", 1);
  ExpectError(R"("\ud800\u0041")", StatusCode::kParseError, "lone high surrogate", 1);
  ExpectError(R"("\udc00")", StatusCode::kParseError, "lone low surrogate", 1);
  ExpectError(R"("\ude00\ud83d")", StatusCode::kParseError, "lone low surrogate", 1);
  ExpectError(R"("\x")", StatusCode::kParseError, "invalid escape", 1);
  ExpectError(R"("\u12")", StatusCode::kParseError, "end of input", 1);
  ExpectError(R"("\u12g4")", StatusCode::kParseError, "4 hex digits", 1);
  ExpectError("\"a\tb\"", StatusCode::kParseError, "control character", 2);
  ExpectError("\"a\x01\"", StatusCode::kParseError, "control character", 2);
  ExpectError("\"abc", StatusCode::kParseError, "end of input inside a string", 0);
  ExpectError("\"\xff\"", StatusCode::kParseError, "invalid UTF-8", 1);
  ExpectError("\"\xed\xa0\x80\"", StatusCode::kParseError, "invalid UTF-8", 1);
  ExpectError("\"\xc0\x80\"", StatusCode::kParseError, "invalid UTF-8", 1);
  ExpectError("'x'", StatusCode::kParseError, "expected a value", 0);
}

TEST(ParseTest, StructureErrors) {
  ExpectError("", StatusCode::kParseError, "end of input", 0);
  ExpectError(" \n", StatusCode::kParseError, "end of input", 2);
  ExpectError("{} x", StatusCode::kParseError, "trailing characters", 3);
  ExpectError("{}{}", StatusCode::kParseError, "trailing characters", 2);
  ExpectError("[1,2,]", StatusCode::kParseError, "trailing comma", 5);
  ExpectError("{\"a\":1,}", StatusCode::kParseError, "trailing comma", 7);
  ExpectError("[1 2]", StatusCode::kParseError, "expected ',' or ']'", 3);
  ExpectError("{\"a\" 1}", StatusCode::kParseError, "expected ':'", 5);
  ExpectError("{a:1}", StatusCode::kParseError, "string key", 1);
  ExpectError("{\"a\":1", StatusCode::kParseError, "end of input inside an object", 6);
  ExpectError("[1", StatusCode::kParseError, "end of input inside an array", 2);
  ExpectError("/*c*/1", StatusCode::kParseError, "expected a value", 0);
  ExpectError("\x0c{}", StatusCode::kParseError, "expected a value", 0);
  ExpectError("\xef\xbb\xbf{}", StatusCode::kParseError, "byte order mark", 0);
  ExpectError("tru", StatusCode::kParseError, "end of input", 0);
  ExpectError("nul1", StatusCode::kParseError, "'null'", 3);
}

TEST(ParseTest, DuplicateKeysAreRejectedAfterUnescaping) {
  ExpectError(R"({"a":1,"a":2})", StatusCode::kParseError, "duplicate object key \"a\"", 7);
  ExpectError(R"({"a":1,"\u0061":2})", StatusCode::kParseError, "duplicate object key \"a\"", 7);
  ExpectError(R"({"x":[{"k":1,"k":1}]})", StatusCode::kParseError, "duplicate object key \"k\"", 13);
  // The earliest second occurrence in the document is reported.
  ExpectError(R"({"b":1,"a":1,"b":2,"a":2})", StatusCode::kParseError, "duplicate object key \"b\"", 13);
  EXPECT_TRUE(Parse(R"({"b":{"a":1},"a":{"a":1}})").ok());
}

TEST(ParseTest, ObjectsComeOutSorted) {
  auto v = Parse(R"({"z":1,"a":2,"m":3})");
  ASSERT_TRUE(v.ok());
  std::string order;
  for (const auto& [k, _] : v->as_object()) order += k;
  EXPECT_EQ(order, "amz");
}

TEST(ParseTest, DepthLimitIs127) {
  std::string ok = std::string(127, '[') + std::string(127, ']');
  EXPECT_TRUE(Parse(ok).ok());
  std::string deep = std::string(128, '[') + std::string(128, ']');
  ExpectError(deep, StatusCode::kLimitExceeded, "nesting deeper than 127", 127);
  std::string deep_obj;
  for (int i = 0; i < 128; ++i) deep_obj += "{\"a\":";
  deep_obj += "1" + std::string(128, '}');
  EXPECT_EQ(ErrorOf(deep_obj).code(), StatusCode::kLimitExceeded);
}

TEST(ParseTest, SizeLimitIsCheckedFirst) {
  ParseOptions options;
  options.max_bytes = 4;
  EXPECT_TRUE(Parse("[12]", options).ok());
  Status s = Parse("[123]", options).status();
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded);
  EXPECT_NE(s.message().find("limit is 4"), std::string_view::npos);
}

TEST(ParseTest, AllWhitespaceKinds) {
  auto v = Parse(" \t\r\n{ \"a\" :\r\n [ 1 , 2 ] }\n ");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->as_object().Find("a")->as_array().size(), 2u);
}

}  // namespace
}  // namespace vigilo::json
