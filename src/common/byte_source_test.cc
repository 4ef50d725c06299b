#include "vigilo/common/byte_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace vigilo {
namespace {

std::string TempFile(const std::string& contents) {
  std::string path = (std::filesystem::temp_directory_path() / ("vigilo-bs-" + std::to_string(::getpid()) + "-" +
                                                                std::to_string(contents.size())))
                         .string();
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

TEST(WholeFileTest, MapsARegularFileExactly) {
  std::string contents(100'000, 'x');
  contents[12'345] = '\0';  // binary-safe
  std::string path = TempFile(contents);
  auto file = WholeFile::Open(path, contents.size());
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->bytes(), contents);
  WholeFile moved = std::move(*file);  // the mapping moves with it
  EXPECT_EQ(moved.bytes(), contents);
  std::filesystem::remove(path);
}

TEST(WholeFileTest, RefusesAFileOverTheLimitBeforeReadingIt) {
  std::string path = TempFile(std::string(1000, 'y'));
  auto file = WholeFile::Open(path, 999);
  EXPECT_EQ(file.status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(file.status().path(), path);
  std::filesystem::remove(path);
}

TEST(WholeFileTest, AnEmptyFileIsEmptyAndAMissingOneNotFound) {
  std::string path = TempFile("");
  auto file = WholeFile::Open(path, 10);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->bytes(), "");
  std::filesystem::remove(path);
  EXPECT_EQ(WholeFile::Open(path, 10).status().code(), StatusCode::kNotFound);
}

TEST(ReadAllTest, GrowsWithoutAHintAndStopsOneBytePastTheLimit) {
  std::string data(5000, 'z');
  StringByteSource source(data);
  auto all = ReadAll(source, 5000);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, data);
  StringByteSource again(data);
  EXPECT_EQ(ReadAll(again, 4999).status().code(), StatusCode::kLimitExceeded);
}

}  // namespace
}  // namespace vigilo
