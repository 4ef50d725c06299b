#include "vigilo/common/paths.h"

#include <gtest/gtest.h>

#include <string>

namespace vigilo {
namespace {

std::string Why(const Status& s) { return std::string(s.message()); }

TEST(PublicationPathTest, AcceptsRelativePaths) {
  EXPECT_TRUE(ValidatePublicationPath("centroids.parquet").ok());
  EXPECT_TRUE(ValidatePublicationPath("ivf_postings/cid_bucket=000003/part-00000.parquet").ok());
  EXPECT_TRUE(ValidatePublicationPath("source/part-0.parquet").ok());
  EXPECT_TRUE(ValidatePublicationPath("embedding/vocab é.txt").ok());
}

TEST(PublicationPathTest, RejectsEachRule) {
  EXPECT_NE(Why(ValidatePublicationPath("")).find("empty"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("/abs/path")).find("empty segment at byte 0"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("a//b")).find("empty segment at byte 2"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("a/")).find("empty segment"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("./a")).find("'.' segment"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("a/../b")).find("'..' segment at byte 2"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("a?x=1")).find("query"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("a#frag")).find("fragment"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("https://host/a")).find("colon"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("s3:bucket")).find("colon"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("a\\b")).find("backslash"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("a\nb")).find("control"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath("a\xff")).find("UTF-8"), std::string::npos);
  EXPECT_NE(Why(ValidatePublicationPath(std::string(1025, 'a'))).find("limit is 1024"), std::string::npos);
  EXPECT_TRUE(ValidatePublicationPath(std::string(1024, 'a')).ok());
  EXPECT_EQ(ValidatePublicationPath("..").code(), StatusCode::kInvalidFormat);
}

TEST(LogicalKeyTest, AcceptsAndRejects) {
  EXPECT_TRUE(ValidateLogicalKey("datasets/abc/batches/000001.jsonl").ok());
  EXPECT_TRUE(ValidateLogicalKey(std::string(1024, 'k')).ok());
  EXPECT_FALSE(ValidateLogicalKey(std::string(1025, 'k')).ok());
  // 1,024 bytes is a UTF-8 byte count, not a character count.
  std::string two_byte;
  for (int i = 0; i < 513; ++i) two_byte += "\xc3\xa9";
  EXPECT_NE(Why(ValidateLogicalKey(two_byte)).find("1026 bytes"), std::string::npos);
  EXPECT_FALSE(ValidateLogicalKey("").ok());
  EXPECT_FALSE(ValidateLogicalKey("a/./b").ok());
  EXPECT_FALSE(ValidateLogicalKey("a/../b").ok());
  EXPECT_FALSE(ValidateLogicalKey("a//b").ok());
  EXPECT_NE(Why(ValidateLogicalKey("a\\b")).find("backslash"), std::string::npos);
  EXPECT_NE(Why(ValidateLogicalKey("a:b")).find("colon"), std::string::npos);
  EXPECT_NE(Why(ValidateLogicalKey("a?b")).find("query"), std::string::npos);
  EXPECT_NE(Why(ValidateLogicalKey("a#b")).find("fragment"), std::string::npos);
  EXPECT_NE(Why(ValidateLogicalKey("a\x7f")).find("control character at byte 1"), std::string::npos);
  EXPECT_NE(Why(ValidateLogicalKey("a\xc2\x85")).find("control character"), std::string::npos);  // C1 NEL
  EXPECT_TRUE(ValidateLogicalKey("a\xc2\xa0").ok());  // NBSP is not a control character
}

TEST(StorageAliasTest, AcceptsAndRejects) {
  EXPECT_TRUE(ValidateStorageAlias("primary-store_1").ok());
  EXPECT_TRUE(ValidateStorageAlias(std::string(128, 'a')).ok());
  EXPECT_FALSE(ValidateStorageAlias(std::string(129, 'a')).ok());
  EXPECT_FALSE(ValidateStorageAlias("").ok());
  EXPECT_NE(Why(ValidateStorageAlias("bad.alias")).find("bad byte at 3"), std::string::npos);
  EXPECT_FALSE(ValidateStorageAlias("é").ok());
}

}  // namespace
}  // namespace vigilo
