#include "vigilo/common/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace vigilo {
namespace {

TEST(Utf8Test, AcceptsValidSequences) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii \x7f"));
  EXPECT_TRUE(IsValidUtf8("\xc3\xa9"));              // é
  EXPECT_TRUE(IsValidUtf8("\xe2\x80\xa8"));          // U+2028
  EXPECT_TRUE(IsValidUtf8("\xf0\x9f\x98\x80"));      // 😀
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));      // U+10FFFF
  EXPECT_TRUE(IsValidUtf8(std::string("a\0b", 3)));  // NUL is valid UTF-8
}

TEST(Utf8Test, ReportsFirstInvalidOffset) {
  EXPECT_EQ(FindInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FindInvalidUtf8("\xc0\x80"), 0u);                // overlong NUL
  EXPECT_EQ(FindInvalidUtf8("x\xe0\x80\x80"), 1u);           // overlong 3-byte
  EXPECT_EQ(FindInvalidUtf8("\xed\xa0\x80"), 0u);            // surrogate U+D800
  EXPECT_EQ(FindInvalidUtf8("\xf4\x90\x80\x80"), 0u);        // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("\xf0\x9f\x98"), 0u);            // truncated
  EXPECT_EQ(FindInvalidUtf8("\xc3\xa9\x80"), 2u);            // stray continuation
  std::string long_valid(100000, 'a');
  EXPECT_EQ(FindInvalidUtf8(long_valid + "\xfe"), 100000u);  // past simdjson's blocks
}

}  // namespace
}  // namespace vigilo

namespace vigilo {
namespace {
TEST(Utf8Test, FindsControlCharacters) {
  EXPECT_EQ(FindControlCharacter("abc"), kUtf8Valid);
  EXPECT_EQ(FindControlCharacter("ab\tc"), 2u);
  EXPECT_EQ(FindControlCharacter("ab\x7f"), 2u);
  EXPECT_EQ(FindControlCharacter("a\xc2\x9f"), 1u);       // C1 APC
  EXPECT_EQ(FindControlCharacter("a\xc2\xa0"), kUtf8Valid);  // NBSP
}
}  // namespace
}  // namespace vigilo
