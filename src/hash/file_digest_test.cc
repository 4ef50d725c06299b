#include "vigilo/hash/file_digest.h"

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "vigilo/common/hex.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/hash/sha256.h"

namespace vigilo {
namespace {

namespace fs = std::filesystem;

// A fresh directory under $TMPDIR, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "vigilo-hash-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Deterministic, non-repeating bytes (xorshift64), so chunk-boundary bugs show.
std::vector<uint8_t> Bytes(size_t n) {
  std::vector<uint8_t> out(n);
  uint64_t x = 0x9e3779b97f4a7c15u ^ n;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<uint8_t>(x >> 56);
  }
  return out;
}

void WriteFile(const fs::path& path, const std::vector<uint8_t>& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  ASSERT_TRUE(out.good()) << path;
}

// First whitespace-separated word printed by `command`, e.g. the digest from
// `sha256sum FILE`; empty if the command failed.
std::string FirstWordOf(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string output;
  char buf[256];
  while (std::fgets(buf, sizeof(buf), pipe) != nullptr) output += buf;
  if (::pclose(pipe) != 0) return "";
  return output.substr(0, output.find_first_of(" \t\n"));
}

bool HaveCommand(const std::string& name) {
  return !FirstWordOf("command -v " + name + " 2>/dev/null").empty();
}

// File paths here come from mkdtemp and contain no single quotes.
std::string Quoted(const fs::path& path) { return "'" + path.string() + "'"; }

fs::path FileOfSize(const TempDir& dir, size_t size) { return dir.path() / ("f" + std::to_string(size)); }

constexpr size_t kSizes[] = {0, 1, 64, kDigestFileChunkSize + 7};

TEST(DigestFileTest, MatchesInMemoryDigestsAndSize) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  for (size_t size : kSizes) {
    SCOPED_TRACE("size=" + std::to_string(size));
    const std::vector<uint8_t> data = Bytes(size);
    const fs::path file = FileOfSize(dir, size);
    WriteFile(file, data);

    auto d = DigestFile(file.string(), /*blake3=*/true, /*sha256=*/true);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->size, size);
    ASSERT_TRUE(d->blake3.has_value());
    ASSERT_TRUE(d->sha256.has_value());
    EXPECT_EQ(*d->blake3, Blake3(data));
    auto want_sha = Sha256(data);
    ASSERT_TRUE(want_sha.ok());
    EXPECT_EQ(*d->sha256, *want_sha);
  }
}

TEST(DigestFileTest, ComputesOnlyWhatIsAsked) {
  TempDir dir;
  const fs::path file = dir.path() / "f";
  WriteFile(file, Bytes(100));
  auto size_only = DigestFile(file.string(), false, false);
  ASSERT_TRUE(size_only.ok());
  EXPECT_EQ(size_only->size, 100u);
  EXPECT_FALSE(size_only->blake3.has_value());
  EXPECT_FALSE(size_only->sha256.has_value());

  auto b3_only = DigestFile(file.string(), true, false);
  ASSERT_TRUE(b3_only.ok());
  EXPECT_TRUE(b3_only->blake3.has_value());
  EXPECT_FALSE(b3_only->sha256.has_value());
}

TEST(DigestFileTest, Sha256MatchesSha256sum) {
  if (!HaveCommand("sha256sum")) GTEST_SKIP() << "sha256sum not installed";
  TempDir dir;
  for (size_t size : kSizes) {
    SCOPED_TRACE("size=" + std::to_string(size));
    const fs::path file = FileOfSize(dir, size);
    WriteFile(file, Bytes(size));
    auto d = DigestFile(file.string(), false, true);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(HexEncode(*d->sha256), FirstWordOf("sha256sum " + Quoted(file)));
  }
}

TEST(DigestFileTest, Blake3MatchesB3sum) {
  if (!HaveCommand("b3sum")) GTEST_SKIP() << "b3sum not installed";
  TempDir dir;
  for (size_t size : kSizes) {
    SCOPED_TRACE("size=" + std::to_string(size));
    const fs::path file = FileOfSize(dir, size);
    WriteFile(file, Bytes(size));
    auto d = DigestFile(file.string(), true, false);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(HexEncode(*d->blake3), FirstWordOf("b3sum " + Quoted(file)));
  }
}

TEST(DigestFileTest, MissingFileIsNotFound) {
  TempDir dir;
  const std::string missing = (dir.path() / "no-such-file").string();
  auto d = DigestFile(missing, true, true);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(d.status().path(), missing);
}

TEST(DigestFileTest, DirectoryIsRefused) {
  TempDir dir;
  auto d = DigestFile(dir.path().string(), true, true);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().path(), dir.path().string());
  EXPECT_EQ(d.status().message(), "not a regular file: it is a directory");
}

// A FIFO with no writer would block a plain open forever; it is refused at once.
TEST(DigestFileTest, FifoIsRefusedWithoutBlocking) {
  TempDir dir;
  const std::string fifo = (dir.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto d = DigestFile(fifo, true, true);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message(), "not a regular file: it is a FIFO");
}

}  // namespace
}  // namespace vigilo
