#include "statistics_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace vigilo::parquet {
namespace {

template <typename T>
T Load(const std::string& s) {
  T v;
  EXPECT_EQ(s.size(), sizeof(T));
  std::memcpy(&v, s.data(), sizeof(T));
  return v;
}

TEST(StatisticsBuilder, IntegersAndNulls) {
  StatisticsBuilder b(Type::kInt32);
  b.AddNulls(2);
  for (int32_t v : {5, -3, 9, 0}) b.AddInteger(v);
  Statistics s = b.Build();
  EXPECT_EQ(s.null_count, 2);
  EXPECT_EQ(Load<int32_t>(*s.min_value), -3);
  EXPECT_EQ(Load<int32_t>(*s.max_value), 9);
  EXPECT_EQ(s.min, s.min_value);
  EXPECT_EQ(s.max, s.max_value);
  EXPECT_EQ(s.is_min_value_exact, true);
}

TEST(StatisticsBuilder, OnlyNullsHasNoMinMax) {
  StatisticsBuilder b(Type::kInt64);
  b.AddNulls(3);
  Statistics s = b.Build();
  EXPECT_EQ(s.null_count, 3);
  EXPECT_FALSE(s.min_value);
  EXPECT_FALSE(s.min);
  EXPECT_FALSE(s.is_min_value_exact);
}

TEST(StatisticsBuilder, FloatsIgnoreNaNAndWidenZeros) {
  StatisticsBuilder b(Type::kFloat);
  b.AddFloating(std::nan(""));
  b.AddFloating(0.0);
  b.AddFloating(2.5);
  Statistics s = b.Build();
  EXPECT_TRUE(std::signbit(Load<float>(*s.min_value)));
  EXPECT_EQ(Load<float>(*s.min_value), 0.0f);
  EXPECT_EQ(Load<float>(*s.max_value), 2.5f);

  StatisticsBuilder neg(Type::kDouble);
  neg.AddFloating(-1.0);
  neg.AddFloating(-0.0);
  Statistics t = neg.Build();
  EXPECT_EQ(Load<double>(*t.min_value), -1.0);
  EXPECT_FALSE(std::signbit(Load<double>(*t.max_value)));  // +0.0

  StatisticsBuilder nan(Type::kDouble);
  nan.AddFloating(std::nan(""));
  EXPECT_FALSE(nan.Build().min_value);

  StatisticsBuilder inf(Type::kDouble);
  inf.AddFloating(-std::numeric_limits<double>::infinity());
  inf.AddFloating(1.0);
  EXPECT_EQ(Load<double>(*inf.Build().min_value), -std::numeric_limits<double>::infinity());
}

TEST(StatisticsBuilder, BytesUnsignedWithSignedLegacy) {
  StatisticsBuilder b(Type::kByteArray);
  b.AddBytes("abc");
  b.AddBytes("\xc3\xa9");  // é: above ASCII unsigned, below it signed
  b.AddBytes("ab");
  Statistics s = b.Build();
  EXPECT_EQ(*s.min_value, "ab");
  EXPECT_EQ(*s.max_value, "\xc3\xa9");
  EXPECT_EQ(*s.min, "\xc3\xa9");
  EXPECT_EQ(*s.max, "abc");
}

TEST(StatisticsBuilder, EmptyStringIsAValue) {
  StatisticsBuilder b(Type::kByteArray);
  b.AddBytes("");
  b.AddBytes("z");
  Statistics s = b.Build();
  EXPECT_EQ(*s.min_value, "");
  EXPECT_EQ(*s.max_value, "z");
}

TEST(StatisticsBuilder, LongByteBoundsAreOmittedNotTruncated) {
  StatisticsBuilder b(Type::kByteArray);
  b.AddBytes("abcd");
  b.AddBytes("abcde");
  b.AddNulls(2);
  Statistics fits = b.Build(5);
  EXPECT_EQ(*fits.min_value, "abcd");
  EXPECT_EQ(*fits.max_value, "abcde");
  Statistics over = b.Build(4);  // the max is 5 bytes: no bounds at all, only the null count
  EXPECT_FALSE(over.min_value);
  EXPECT_FALSE(over.max_value);
  EXPECT_FALSE(over.min);
  EXPECT_FALSE(over.max);
  EXPECT_FALSE(over.is_min_value_exact);
  EXPECT_EQ(over.null_count, 2);
  StatisticsBuilder ints(Type::kInt64);  // fixed-width types are never dropped
  ints.AddInteger(7);
  EXPECT_TRUE(ints.Build(0).min_value);
}

TEST(StatisticsBuilder, MergeEqualsAddingEverything) {
  StatisticsBuilder a(Type::kByteArray), b(Type::kByteArray), all(Type::kByteArray);
  for (const char* v : {"m", "b"}) {
    a.AddBytes(v);
    all.AddBytes(v);
  }
  b.AddNulls(1);
  all.AddNulls(1);
  for (const char* v : {"z", "c"}) {
    b.AddBytes(v);
    all.AddBytes(v);
  }
  StatisticsBuilder merged(Type::kByteArray);
  merged.Merge(a);
  merged.Merge(b);
  EXPECT_EQ(merged.Build(), all.Build());

  StatisticsBuilder fa(Type::kFloat), fb(Type::kFloat);
  fa.AddFloating(1.0);
  fb.AddFloating(-2.0);
  fa.Merge(fb);
  EXPECT_EQ(Load<float>(*fa.Build().min_value), -2.0f);
  fa.Reset();
  EXPECT_FALSE(fa.has_min_max());
  EXPECT_EQ(fa.null_count(), 0);
}

TEST(StatisticsBuilder, Booleans) {
  StatisticsBuilder b(Type::kBoolean);
  b.AddBoolean(true);
  b.AddBoolean(true);
  Statistics s = b.Build();
  EXPECT_EQ(*s.min_value, std::string(1, '\1'));
  b.AddBoolean(false);
  EXPECT_EQ(*b.Build().min_value, std::string(1, '\0'));
}

}  // namespace
}  // namespace vigilo::parquet
