#include "vigilo/common/checked.h"

#include <gtest/gtest.h>

namespace vigilo {
namespace {

TEST(CheckedTest, AddDetectsOverflow) {
  EXPECT_EQ(*CheckedAdd<int64_t>(kMaxSafeInteger, 0), kMaxSafeInteger);
  EXPECT_FALSE(CheckedAdd<int64_t>(INT64_MAX, 1).ok());
  EXPECT_FALSE(CheckedAdd<int32_t>(INT32_MAX, 1).ok());
  EXPECT_EQ(CheckedAdd<int32_t>(INT32_MAX, 1).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(*CheckedAdd<int32_t>(INT32_MAX - 1, 1), INT32_MAX);
}

TEST(CheckedTest, SubAndMulDetectOverflow) {
  EXPECT_FALSE(CheckedSub<uint64_t>(0, 1).ok());
  EXPECT_EQ(*CheckedSub<int64_t>(0, 1), -1);
  EXPECT_FALSE(CheckedMul<uint64_t>(1ull << 32, 1ull << 32).ok());
  EXPECT_EQ(*CheckedMul<uint64_t>(1ull << 31, 1ull << 32), 1ull << 63);
  EXPECT_EQ(*CheckedMul<int64_t>(16, 1 << 30), int64_t{1} << 34);  // resident batches x 1 GiB
}

TEST(CheckedTest, CastChecksRange) {
  EXPECT_EQ(*CheckedCast<int32_t>(int64_t{kMaxInt32}), INT32_MAX);
  EXPECT_FALSE(CheckedCast<int32_t>(int64_t{kMaxInt32} + 1).ok());
  EXPECT_FALSE(CheckedCast<uint32_t>(-1).ok());
  EXPECT_FALSE(CheckedCast<int64_t>(UINT64_MAX).ok());
  EXPECT_EQ(*CheckedCast<uint8_t>(255), 255);
}

TEST(CheckedTest, SafeIntegerBounds) {
  EXPECT_EQ(kMaxSafeInteger, (int64_t{1} << 53) - 1);
  EXPECT_TRUE(IsSafeNonNegative(int64_t{0}));
  EXPECT_TRUE(IsSafeNonNegative(kMaxSafeInteger));
  EXPECT_FALSE(IsSafeNonNegative(kMaxSafeInteger + 1));
  EXPECT_FALSE(IsSafeNonNegative(int64_t{-1}));
  EXPECT_FALSE(IsSafeNonNegative(uint64_t{1} << 53));
}

}  // namespace
}  // namespace vigilo
