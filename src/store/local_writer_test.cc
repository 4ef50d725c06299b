#include "vigilo/store/local_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "vigilo/store/local_dir.h"

namespace vigilo::store {
namespace {

class LocalWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (std::filesystem::temp_directory_path() /
             ("vigilo_local_writer_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  size_t FilesUnder(const std::string& dir) const {
    size_t n = 0;
    for (auto& e : std::filesystem::recursive_directory_iterator(dir)) n += e.is_regular_file();
    return n;
  }
  std::string root_;
};

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST_F(LocalWriterTest, StreamsHashesAndLinksIntoPlace) {
  auto w = LocalObjectWriter::Create(root_, "ivf_postings/cid_bucket=000000/part-000000.parquet");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->Append(Bytes("ab")).ok());
  ASSERT_TRUE((*w)->Append(Bytes("c")).ok());
  EXPECT_EQ((*w)->size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(root_ + "/ivf_postings/cid_bucket=000000/part-000000.parquet"));
  auto done = (*w)->Commit();
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->size, 3u);
  EXPECT_EQ(done->sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");  // sha256("abc")
  EXPECT_EQ(*ReadObject(root_, "ivf_postings/cid_bucket=000000/part-000000.parquet", 10), "abc");
  EXPECT_EQ(FilesUnder(root_), 1u);  // no temporary file left
}

TEST_F(LocalWriterTest, NeverOverwrites) {
  ASSERT_EQ(*CreateIfAbsent(root_, "centroids.parquet", "old"), CreateOutcome::kCreated);
  auto early = LocalObjectWriter::Create(root_, "centroids.parquet");
  EXPECT_EQ(early.status().code(), StatusCode::kAlreadyExists);
  // A writer that loses the race at Commit leaves the existing object alone.
  auto w = LocalObjectWriter::Create(root_, "b.parquet");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(Bytes("new")).ok());
  ASSERT_EQ(*CreateIfAbsent(root_, "b.parquet", "winner"), CreateOutcome::kCreated);
  EXPECT_EQ((*w)->Commit().status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*ReadObject(root_, "b.parquet", 10), "winner");
  w->reset();
  EXPECT_EQ(FilesUnder(root_), 2u);
}

TEST_F(LocalWriterTest, AnAbandonedWriterLeavesNothing) {
  {
    auto w = LocalObjectWriter::Create(root_, "source/part-000000.parquet");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append(Bytes("partial")).ok());
  }
  EXPECT_EQ(FilesUnder(root_), 0u);
  EXPECT_EQ(LocalObjectWriter::Create(root_, "../escape").status().code(), StatusCode::kInvalidFormat);
}

}  // namespace
}  // namespace vigilo::store
