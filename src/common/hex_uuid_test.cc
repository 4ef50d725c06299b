#include <gtest/gtest.h>

#include "vigilo/common/hex.h"
#include "vigilo/common/uuid.h"

namespace vigilo {
namespace {

TEST(HexTest, RoundTrip) {
  std::vector<uint8_t> bytes = {0x00, 0x01, 0xab, 0xff};
  EXPECT_EQ(HexEncode(bytes), "0001abff");
  EXPECT_EQ(*HexDecodeLower("0001abff"), bytes);
}

TEST(HexTest, RejectsUppercaseOddLengthAndJunk) {
  EXPECT_EQ(HexDecodeLower("0A").status().code(), StatusCode::kInvalidFormat);
  EXPECT_NE(HexDecodeLower("abc").status().message().find("odd length"), std::string_view::npos);
  EXPECT_NE(HexDecodeLower("zz").status().message().find("position 0"), std::string_view::npos);
  EXPECT_TRUE(IsLowerHex(std::string(64, 'a'), 64));
  EXPECT_FALSE(IsLowerHex(std::string(63, 'a'), 64));
  EXPECT_FALSE(IsLowerHex(std::string(63, 'a') + "A", 64));
}

TEST(UuidTest, ParsesCanonicalLowercase) {
  auto u = Uuid::Parse("0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->version(), 7);
  EXPECT_TRUE(u->is_rfc_variant());
  EXPECT_EQ(u->ToString(), "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b");
}

TEST(UuidTest, RejectsNonCanonicalForms) {
  EXPECT_FALSE(Uuid::Parse("0190A1B2-C3D4-7E5F-8A6B-7C8D9E0F1A2B").ok());   // uppercase
  EXPECT_FALSE(Uuid::Parse("{0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b}").ok()); // braces
  EXPECT_FALSE(Uuid::Parse("0190a1b2c3d47e5f8a6b7c8d9e0f1a2b").ok());       // no hyphens
  EXPECT_FALSE(Uuid::Parse("0190a1b2-c3d4-7e5f-8a6b_7c8d9e0f1a2b").ok());   // wrong separator
  auto nil = Uuid::Parse("00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(nil.status().code(), StatusCode::kInvalidFormat);
  EXPECT_NE(nil.status().message().find("nil"), std::string_view::npos);
}

TEST(UuidTest, V8FromHashSetsVersionAndVariant) {
  std::array<uint8_t, 32> hash;
  hash.fill(0xff);
  Uuid u = Uuid::V8FromHash(hash);
  EXPECT_EQ(u.version(), 8);
  EXPECT_TRUE(u.is_rfc_variant());
  EXPECT_EQ(u.ToString(), "ffffffff-ffff-8fff-bfff-ffffffffffff");
  hash.fill(0);
  EXPECT_EQ(Uuid::V8FromHash(hash).ToString(), "00000000-0000-8000-8000-000000000000");
}

}  // namespace
}  // namespace vigilo
