#include "vigilo/common/external_sort.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace vigilo {
namespace {

// A fresh directory per test, removed afterwards.
class ExternalSortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vigilo-xsort-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ExternalSortOptions Options(size_t record_bytes, uint64_t memory, uint64_t quota) const {
    return ExternalSortOptions{record_bytes, memory, quota, dir_};
  }
  size_t EntriesInScratch() const {
    size_t n = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::recursive_directory_iterator(dir_)) ++n;
    return n;
  }

  std::filesystem::path dir_;
};

std::vector<std::string> RandomRecords(size_t count, size_t width, uint32_t seed, int alphabet) {
  std::mt19937 rng(seed);
  std::vector<std::string> out(count, std::string(width, '\0'));
  for (auto& r : out) {
    for (auto& c : r) c = static_cast<char>(rng() % alphabet);  // small alphabets force equal records
  }
  return out;
}

std::vector<std::string> SortAll(ExternalSorter& sorter, const std::vector<std::string>& records) {
  for (const auto& r : records) EXPECT_TRUE(sorter.Add(r).ok());
  std::vector<std::string> got;
  Status s = sorter.Drain([&](std::string_view rec) {
    got.emplace_back(rec);
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return got;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());  // std::string compares as unsigned bytes, as memcmp does
  return v;
}

TEST_F(ExternalSortTest, InMemorySortWritesNothing) {
  auto sorter = ExternalSorter::Create(Options(8, 1 << 20, 1 << 20));
  ASSERT_TRUE(sorter.ok()) << sorter.status().ToString();
  auto records = RandomRecords(1000, 8, 1, 256);
  EXPECT_EQ(SortAll(*sorter, records), Sorted(records));
  EXPECT_EQ(sorter->stats().runs_written, 0u);
  EXPECT_EQ(sorter->stats().merge_passes, 0u);
  EXPECT_EQ(sorter->stats().peak_disk_bytes, 0u);
  EXPECT_EQ(sorter->stats().records, 1000u);
}

TEST_F(ExternalSortTest, SpillsRunsAndMergesThemInOrder) {
  // 20-byte records, memory for 20 of them: 5000 records make 250 runs, and
  // a fan-in of 2 makes many intermediate passes.
  auto sorter = ExternalSorter::Create(Options(20, 20 * 24, 1 << 20));
  ASSERT_TRUE(sorter.ok());
  auto records = RandomRecords(5000, 20, 2, 3);
  EXPECT_EQ(SortAll(*sorter, records), Sorted(records));
  EXPECT_EQ(sorter->stats().records, 5000u);
  EXPECT_GT(sorter->stats().merge_passes, 100u);
  EXPECT_GE(sorter->stats().peak_disk_bytes, 5000u * 20);
  EXPECT_LE(sorter->stats().peak_disk_bytes, 2u * 5000 * 20);
}

TEST_F(ExternalSortTest, WideFanInMergesInOnePass) {
  // 1 MiB of memory: fan-in 16, one final merge of the 12 runs.
  auto sorter = ExternalSorter::Create(Options(64, 1 << 20, 64 << 20));
  ASSERT_TRUE(sorter.ok());
  size_t per_run = (1u << 20) / (64 + 4);
  auto records = RandomRecords(per_run * 12 - 7, 64, 3, 256);
  EXPECT_EQ(SortAll(*sorter, records), Sorted(records));
  EXPECT_EQ(sorter->stats().runs_written, 12u);
  EXPECT_EQ(sorter->stats().merge_passes, 1u);
}

TEST_F(ExternalSortTest, QuotaIsChargedBeforeWriting) {
  // 100 records of 10 bytes = 1000 bytes on disk; a 999-byte quota fails.
  auto sorter = ExternalSorter::Create(Options(10, 16 * 14, 999));
  ASSERT_TRUE(sorter.ok());
  Status failure = Status::Ok();
  for (const auto& r : RandomRecords(100, 10, 4, 256)) {
    failure = sorter->Add(r);
    if (!failure.ok()) break;
  }
  if (failure.ok()) failure = sorter->Drain([](std::string_view) { return Status::Ok(); });
  EXPECT_EQ(failure.code(), StatusCode::kLimitExceeded) << failure.ToString();
  EXPECT_NE(failure.message().find("the quota is 999"), std::string::npos) << failure.message();
  EXPECT_LE(sorter->stats().peak_disk_bytes, 999u);
}

TEST_F(ExternalSortTest, VisitorErrorStopsTheDrain) {
  auto sorter = ExternalSorter::Create(Options(4, 16 * 8, 1 << 20));
  ASSERT_TRUE(sorter.ok());
  for (const auto& r : RandomRecords(200, 4, 5, 256)) ASSERT_TRUE(sorter->Add(r).ok());
  int seen = 0;
  Status s = sorter->Drain([&](std::string_view) { return ++seen == 7 ? InvalidFormat("stop") : Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(seen, 7);
}

TEST_F(ExternalSortTest, ScratchFilesAreRemovedWithTheSorter) {
  {
    auto sorter = ExternalSorter::Create(Options(16, 16 * 20, 1 << 20));
    ASSERT_TRUE(sorter.ok());
    for (const auto& r : RandomRecords(300, 16, 6, 256)) ASSERT_TRUE(sorter->Add(r).ok());
    EXPECT_GT(EntriesInScratch(), 1u);  // the private directory and its runs
    ExternalSorter moved = std::move(*sorter);
    EXPECT_TRUE(moved.Drain([](std::string_view) { return Status::Ok(); }).ok());
  }
  EXPECT_EQ(EntriesInScratch(), 0u);
}

TEST_F(ExternalSortTest, RejectsBadOptionsAndRecords) {
  EXPECT_EQ(ExternalSorter::Create(Options(0, 1 << 20, 1 << 20)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ExternalSorter::Create(Options(4097, 1 << 20, 1 << 20)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ExternalSorter::Create(Options(16, 16 * 15, 1 << 20)).status().code(), StatusCode::kInvalidArgument);
  auto missing = ExternalSorter::Create(ExternalSortOptions{8, 1 << 20, 1 << 20, dir_ / "absent"});
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  auto sorter = ExternalSorter::Create(Options(8, 1 << 20, 1 << 20));
  ASSERT_TRUE(sorter.ok());
  EXPECT_EQ(sorter->Add("short").code(), StatusCode::kInternal);
  EXPECT_TRUE(sorter->Drain([](std::string_view) { return Status::Ok(); }).ok());
  EXPECT_EQ(sorter->Drain([](std::string_view) { return Status::Ok(); }).code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace vigilo
