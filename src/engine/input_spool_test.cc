#include "input_spool.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace vigilo::engine {
namespace {

std::filesystem::path Scratch() {
  auto dir = std::filesystem::temp_directory_path() / ("vigilo-spool-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

size_t Entries(const std::filesystem::path& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.exists() ? 1 : 0;
  return n;
}

std::string ReadAll(ByteSource& source) {
  std::string out;
  char buf[7];
  while (true) {
    auto n = source.Read(std::span<char>(buf, sizeof buf));
    EXPECT_TRUE(n.ok());
    if (!n.ok() || *n == 0) return out;
    out.append(buf, *n);
  }
}

TEST(InputSpool, StandardInputIsCopiedAndReadTwiceThenRemoved) {
  auto dir = Scratch();
  std::string text(100000, 'a');
  text[12345] = 'b';
  StringByteSource stdin_source(text);
  {
    auto spool = InputSpool::Open("-", dir, 1 << 20, &stdin_source);
    ASSERT_TRUE(spool.ok()) << spool.status().ToString();
    EXPECT_EQ(spool->spooled_bytes(), text.size());
    EXPECT_EQ(spool->size_hint(), text.size());
    for (int pass = 0; pass < 2; ++pass) {
      auto reader = spool->OpenReader();
      ASSERT_TRUE(reader.ok());
      EXPECT_EQ(ReadAll(**reader), text);
    }
    EXPECT_EQ(Entries(dir), 1u);
  }
  EXPECT_EQ(Entries(dir), 0u);
  std::filesystem::remove_all(dir);
}

TEST(InputSpool, AnInputLargerThanTheQuotaIsRefusedAndLeavesNothing) {
  auto dir = Scratch();
  std::string text(300000, 'x');
  StringByteSource stdin_source(text);
  auto spool = InputSpool::Open("-", dir, 262144, &stdin_source);
  ASSERT_FALSE(spool.ok());
  EXPECT_EQ(spool.status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(spool.status().path(), "ingestion_validation_spool_bytes");
  EXPECT_NE(spool.status().message().find("standard input is larger than the validation spool (262144 bytes)"),
            std::string_view::npos);
  EXPECT_EQ(Entries(dir), 0u);
  std::filesystem::remove_all(dir);
}

TEST(InputSpool, ARegularFileIsNotCopied) {
  auto dir = Scratch();
  auto missing = InputSpool::Open((dir / "missing.json").string(), dir, 1 << 20);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vigilo::engine
