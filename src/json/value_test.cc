#include "vigilo/json/value.h"

#include <gtest/gtest.h>

namespace vigilo::json {
namespace {

TEST(NumberTest, NonNegativeIntegersAreAlwaysU64) {
  EXPECT_EQ(Number::I64(5).kind(), Number::Kind::kU64);
  EXPECT_EQ(Number::I64(-5).kind(), Number::Kind::kI64);
  EXPECT_EQ(*Number::I64(-5).AsInt64(), -5);
  EXPECT_FALSE(Number::U64(UINT64_MAX).AsInt64().ok());
  EXPECT_FALSE(Number::F64(1.0).AsInt64().ok());
  EXPECT_FALSE(Number::I64(-1).AsUint64().ok());
}

TEST(NumberTest, EqualityIsByKindAndBits) {
  EXPECT_EQ(Number::U64(1), Number::U64(1));
  EXPECT_NE(Number::U64(1), Number::F64(1.0));
  EXPECT_NE(Number::F64(0.0), Number::F64(-0.0));
}

TEST(ObjectTest, KeepsMembersSortedAndUnique) {
  Object o;
  ASSERT_TRUE(o.Insert("b", Value::Int(1)).ok());
  ASSERT_TRUE(o.Insert("a", Value::Int(2)).ok());
  ASSERT_TRUE(o.Insert("\xc3\xa9", Value::Int(3)).ok());
  ASSERT_TRUE(o.Insert("Z", Value::Int(4)).ok());
  std::vector<std::string> keys;
  for (const auto& [k, v] : o) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"Z", "a", "b", "\xc3\xa9"}));  // UTF-8 byte order
  Status dup = o.Insert("a", Value());
  EXPECT_EQ(dup.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(o.Find("a")->as_number(), Number::U64(2));
  o.Set("a", Value(true));
  EXPECT_TRUE(o.Find("a")->as_bool());
  EXPECT_TRUE(o.Erase("a"));
  EXPECT_FALSE(o.Erase("a"));
  EXPECT_EQ(o.Find("a"), nullptr);
  EXPECT_EQ(o.size(), 3u);
}

TEST(ValueTest, KindsAndAccessors) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_EQ(Value("s").as_string(), "s");
  EXPECT_EQ(Value(Array{Value::Int(1)}).as_array().size(), 1u);
  EXPECT_EQ(KindName(Value(Object()).kind()), "object");
}

}  // namespace
}  // namespace vigilo::json
