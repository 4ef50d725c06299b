#include "budget_flags.h"

#include <gtest/gtest.h>

namespace vigilo::cli {
namespace {

TEST(ParseByteSize, AcceptsBinaryUnits) {
  EXPECT_EQ(*ParseByteSize("4096"), 4096u);
  EXPECT_EQ(*ParseByteSize("64KiB"), 64u << 10);
  EXPECT_EQ(*ParseByteSize("16MiB"), 16u << 20);
  EXPECT_EQ(*ParseByteSize("16 MiB"), 16u << 20);
  EXPECT_EQ(*ParseByteSize("2g"), uint64_t{2} << 30);
  EXPECT_EQ(*ParseByteSize("1TiB"), uint64_t{1} << 40);
}

TEST(ParseByteSize, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "MiB", "-1", "1.5MiB", "12 parsecs", "99999999999999999999999"}) {
    Result<uint64_t> r = ParseByteSize(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  Result<uint64_t> overflow = ParseByteSize("17179869184GiB");  // 2^34 GiB = 2^64 bytes
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.status().message().find("too large"), std::string_view::npos);
}

TEST(BudgetFromFlags, DefaultsWithoutFlags) {
  Result<cases::BudgetConfig> b = BudgetFromFlags({});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->case_batch_max_bytes, 8u << 20);
  EXPECT_EQ(b->resident_case_batches, 4u);
}

TEST(BudgetFromFlags, AnOutOfRangeValueNamesTheFlag) {
  BudgetFlags f;
  f.max_bytes = "128MiB";
  Result<cases::BudgetConfig> b = BudgetFromFlags(f);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(b.status().message().substr(0, 12), "--max-bytes:");

  BudgetFlags g;
  g.resident_batches = "17";
  b = BudgetFromFlags(g);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message().substr(0, 19), "--resident-batches:");

  BudgetFlags h;
  h.max_cases = "lots";
  b = BudgetFromFlags(h);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message().substr(0, 12), "--max-cases:");
}

TEST(BudgetFromFlags, ARelationshipNamesTheFlagToChange) {
  BudgetFlags f;
  f.max_bytes = "64MiB";  // 4 resident × 64 MiB fits 1 GiB, but the spool must hold one batch
  f.staging_spool = "32MiB";
  Result<cases::BudgetConfig> b = BudgetFromFlags(f);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message().substr(0, 16), "--staging-spool:") << b.status().ToString();
}

}  // namespace
}  // namespace vigilo::cli
