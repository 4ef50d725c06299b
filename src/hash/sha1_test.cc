#include "vigilo/hash/sha1.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vigilo/common/hex.h"

namespace vigilo {
namespace {

// RFC 3174 section 7.3 test vectors (TEST1-TEST4), plus the empty input
// (FIPS 180 / common knowledge; also `printf '' | sha1sum`).
constexpr char kAbc[] = "a9993e364706816aba3e25717850c26c9cd0d89d";
constexpr char k448Bits[] = "84983e441c3bd26ebaae4aa1f95129e5e54670f1";
constexpr char kMillionA[] = "34aa973cd4c4daa4f61eeb2bdbad27316534016f";
constexpr char k640Bytes[] = "dea356a2cddd90c7a7ecedc5ebb563934f460452";
constexpr char kEmpty[] = "da39a3ee5e6b4b0d3255bfef95601890afd80709";
constexpr char k448BitMessage[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

std::string MustHex(Result<std::string> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : std::string();
}

std::string Repeat(std::string_view s, size_t times) {
  std::string out;
  for (size_t i = 0; i < times; ++i) out += s;
  return out;
}

TEST(Sha1Test, Rfc3174Vectors) {
  EXPECT_EQ(MustHex(Sha1Hex("abc")), kAbc);
  EXPECT_EQ(MustHex(Sha1Hex(k448BitMessage)), k448Bits);
  EXPECT_EQ(MustHex(Sha1Hex(std::string(1000000, 'a'))), kMillionA);
  EXPECT_EQ(MustHex(Sha1Hex(Repeat("01234567", 80))), k640Bytes);  // TEST4: "0123456701234567…" ×10
  EXPECT_EQ(MustHex(Sha1Hex("")), kEmpty);
}

TEST(Sha1Test, PartsHashLikeTheirConcatenation) {
  std::vector<std::string_view> parts = {"abcdbcdecdefdefgefgh", "", "fghighijhijkijkljklmklmnlmnomnopnopq"};
  auto digest = Sha1(parts);
  ASSERT_TRUE(digest.ok()) << digest.status().ToString();
  EXPECT_EQ(HexEncode(*digest), k448Bits);
  std::vector<std::string_view> none;
  auto empty = Sha1(none);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(HexEncode(*empty), kEmpty);
}

}  // namespace
}  // namespace vigilo
