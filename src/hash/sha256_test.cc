#include "vigilo/hash/sha256.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vigilo/common/hex.h"

namespace vigilo {
namespace {

// FIPS 180-2 / NIST CSRC example vectors.
constexpr char kEmpty[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kAbc[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr char k448Bits[] = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
constexpr char kMillionA[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
constexpr char k448BitMessage[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

std::string HexOf(const Sha256Hasher& h) {
  auto digest = h.Finalize();
  EXPECT_TRUE(digest.ok()) << digest.status().ToString();
  return digest.ok() ? HexEncode(*digest) : std::string();
}

std::string MustHex(Result<std::string> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : std::string();
}

TEST(Sha256Test, NistVectors) {
  EXPECT_EQ(MustHex(Sha256Hex("")), kEmpty);
  EXPECT_EQ(MustHex(Sha256Hex("abc")), kAbc);
  EXPECT_EQ(MustHex(Sha256Hex(k448BitMessage)), k448Bits);
  EXPECT_EQ(MustHex(Sha256Hex(std::string(1000000, 'a'))), kMillionA);
}

TEST(Sha256Test, MillionAStreamedInAwkwardPieces) {
  const std::string a(1000000, 'a');
  for (size_t piece : {size_t{1}, size_t{55}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}}) {
    SCOPED_TRACE("piece=" + std::to_string(piece));
    Sha256Hasher h;
    for (size_t at = 0; at < a.size(); at += piece) h.Update(std::string_view(a).substr(at, piece));
    EXPECT_EQ(HexOf(h), kMillionA);
  }
}

TEST(Sha256Test, SpanAndStringViewAgree) {
  const std::vector<uint8_t> abc = {'a', 'b', 'c'};
  auto digest = Sha256(std::span<const uint8_t>(abc));
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(HexEncode(*digest), kAbc);
  EXPECT_EQ(MustHex(Sha256Hex(std::span<const uint8_t>(abc))), kAbc);
}

TEST(Sha256Test, UpdateAfterFinalizeContinuesTheStream) {
  Sha256Hasher h;
  h.Update("ab");
  EXPECT_EQ(HexOf(h), MustHex(Sha256Hex("ab")));
  h.Update("c");
  EXPECT_EQ(HexOf(h), kAbc);
  EXPECT_EQ(HexOf(h), kAbc);  // idempotent
}

TEST(Sha256Test, MoveKeepsStateAndEmptiesSource) {
  Sha256Hasher a;
  a.Update("ab");
  Sha256Hasher b = std::move(a);
  b.Update("c");
  EXPECT_EQ(HexOf(b), kAbc);

  auto moved_from = a.Finalize();  // NOLINT(bugprone-use-after-move): the point of the test
  ASSERT_FALSE(moved_from.ok());
  EXPECT_EQ(moved_from.status().code(), StatusCode::kInternal);

  Sha256Hasher c;
  c = std::move(b);
  EXPECT_EQ(HexOf(c), kAbc);
}

}  // namespace
}  // namespace vigilo
