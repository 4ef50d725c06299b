#include "vigilo/cases/case_id_check.h"

#include <gtest/gtest.h>

#include <string>

#include "writer_test_support.h"

namespace vigilo::cases {
namespace {

Uuid Id(uint64_t n) {
  Uuid::Bytes b{};
  for (int i = 0; i < 8; ++i) b[15 - i] = static_cast<uint8_t>(n >> (8 * i));
  b[6] = 0x40;  // version 4
  b[8] = 0x80;  // RFC variant
  return Uuid(b);
}

TEST(CaseIdUniquenessCheckTest, DistinctIdsPass) {
  auto check = CaseIdUniquenessCheck::Start(BudgetConfig::Defaults(), TestScratchDir());
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(check->Add(Id(i * 7919 % 1000), i).ok());
  EXPECT_TRUE(check->Finish().ok());
  EXPECT_EQ(check->stats().runs_written, 0u);
}

TEST(CaseIdUniquenessCheckTest, NamesTheFirstRepeatInSubmittedOrder) {
  auto check = CaseIdUniquenessCheck::Start(BudgetConfig::Defaults(), TestScratchDir());
  ASSERT_TRUE(check.ok());
  // Ordinals 0..5 have ids A B C B A B: B repeats first, at ordinal 3.
  const uint64_t ids[] = {10, 20, 30, 20, 10, 20};
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(check->Add(Id(ids[i]), i).ok());
  Status s = check->Finish();
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(s.path(), "$.cases[3].id");
  EXPECT_EQ(s.message(), "case id " + Id(20).ToString() +
                             " at ordinal 3 repeats the id of ordinal 1 (3 cases repeat an earlier id)");
}

TEST(CaseIdUniquenessCheckTest, FindsARepeatAcrossSpilledRuns) {
  BudgetConfig budget = BudgetConfig::Defaults();
  budget.external_sort_buffer_bytes = budget_bounds::kMinExternalSortBufferBytes;  // ~43,690 ids per run
  auto check = CaseIdUniquenessCheck::Start(budget, TestScratchDir());
  ASSERT_TRUE(check.ok());
  const int n = 100'000;
  for (int i = 0; i < n; ++i) ASSERT_TRUE(check->Add(Id(1000 + (i == n - 1 ? 5 : i)), i).ok());
  Status s = check->Finish();
  EXPECT_EQ(s.path(), "$.cases[99999].id") << s.ToString();
  EXPECT_NE(s.message().find("repeats the id of ordinal 5 (1 case repeats"), std::string::npos) << s.message();
  EXPECT_EQ(check->stats().runs_written, 3u);
}

TEST(CaseIdUniquenessCheckTest, TheSpoolQuotaIsEnforced) {
  BudgetConfig budget = BudgetConfig::Defaults();
  budget.external_sort_buffer_bytes = budget_bounds::kMinExternalSortBufferBytes;
  budget.ingestion_validation_spool_bytes = budget_bounds::kMinValidationSpoolBytes;  // 1 MiB < 2,000,000 bytes
  auto check = CaseIdUniquenessCheck::Start(budget, TestScratchDir());
  ASSERT_TRUE(check.ok());
  Status s = Status::Ok();
  for (int i = 0; i < 100'000 && s.ok(); ++i) s = check->Add(Id(i), i);
  if (s.ok()) s = check->Finish();
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded) << s.ToString();
}

}  // namespace
}  // namespace vigilo::cases
