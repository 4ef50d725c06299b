#include "vigilo/store/local_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace vigilo::store {
namespace {

class LocalDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (std::filesystem::temp_directory_path() /
             ("vigilo_local_dir_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string root_;
};

TEST_F(LocalDirTest, CreatesOnceAndVerifiesReplays) {
  EXPECT_EQ(*CreateIfAbsent(root_, "a/b/object.json", "{\"x\":1}"), CreateOutcome::kCreated);
  EXPECT_EQ(*ReadObject(root_, "a/b/object.json", 100), "{\"x\":1}");
  EXPECT_EQ(*CreateIfAbsent(root_, "a/b/object.json", "{\"x\":1}"), CreateOutcome::kAlreadyIdentical);
  auto clash = CreateIfAbsent(root_, "a/b/object.json", "{\"x\":2}");
  EXPECT_EQ(clash.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*ReadObject(root_, "a/b/object.json", 100), "{\"x\":1}");  // untouched
  // No temporary files are left behind.
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
}

TEST_F(LocalDirTest, RejectsBadKeysAndLimits) {
  EXPECT_EQ(CreateIfAbsent(root_, "../escape", "x").status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(CreateIfAbsent(root_, "/abs", "x").status().code(), StatusCode::kInvalidFormat);
  ASSERT_TRUE(CreateIfAbsent(root_, "k", "12345").ok());
  EXPECT_EQ(ReadObject(root_, "k", 4).status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(ReadObject(root_, "missing", 4).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vigilo::store
