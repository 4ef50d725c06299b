#include "vigilo/store/object_store.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "vigilo/store/memory_store.h"

namespace vigilo::store {
namespace {

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(BytesTest, FromVectorTakesTheBufferWithoutCopying) {
  std::vector<uint8_t> buffer = {1, 2, 3, 4};
  const uint8_t* data = buffer.data();
  Bytes bytes = Bytes::FromVector(std::move(buffer));
  EXPECT_EQ(bytes.data(), data);
  EXPECT_EQ(bytes.size(), 4u);
  EXPECT_EQ(bytes.span()[3], 4);
}

TEST(BytesTest, FromStringAndSlicesShareTheOwner) {
  Bytes bytes = Bytes::FromString("hello world");
  Bytes world = bytes.Slice(6, 5);
  EXPECT_EQ(world.view(), "world");
  EXPECT_EQ(world.data(), bytes.data() + 6);
  bytes = Bytes();  // the slice alone keeps the buffer alive
  EXPECT_TRUE(bytes.empty());
  EXPECT_EQ(world.view(), "world");
  EXPECT_EQ(world.Slice(1, 3).view(), "orl");
  EXPECT_TRUE(Bytes::FromString("").empty());
  EXPECT_EQ(Bytes().view(), "");
}

TEST(BytesTest, CopyIsIndependentOfItsSource) {
  std::string source = "abc";
  Bytes copy = Bytes::Copy(AsBytes(source));
  source[0] = 'X';
  EXPECT_EQ(copy.view(), "abc");
  EXPECT_NE(static_cast<const void*>(copy.data()), static_cast<const void*>(source.data()));
  Bytes shared = copy;  // copies share
  EXPECT_EQ(shared.data(), copy.data());
}

TEST(RequireWritableTest, NamesTheAliasAndTheMissingGuarantee) {
  EXPECT_TRUE(RequireWritable(MemoryStore(), "x").ok());
  struct Case {
    Capabilities caps;
    std::string message;
  };
  const Case cases[] = {
      {{.writable = false, .conditional_create = true, .read_after_create = true},
       "store \"x\" does not guarantee writes; refusing to write to it"},
      {{.writable = true, .conditional_create = false, .read_after_create = true},
       "store \"x\" does not guarantee conditional create; refusing to write to it"},
      {{.writable = true, .conditional_create = true, .read_after_create = false},
       "store \"x\" does not guarantee read-after-create; refusing to write to it"},
  };
  for (const Case& c : cases) {
    Status s = RequireWritable(MemoryStore(c.caps), "x");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.message);
  }
}

TEST(ValidateStoreKeyTest, WrapsTheLogicalKeyRulesAsInvalidArgument) {
  EXPECT_TRUE(ValidateStoreKey("datasets/abc/manifest.json").ok());
  Status s = ValidateStoreKey("a//b");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "logical key has an empty segment at byte 2");
  EXPECT_EQ(s.path(), "a//b");
  EXPECT_EQ(ValidateStoreKey("a:b").message(), "logical key contains a colon (URI scheme or drive letter) at byte 1");
  EXPECT_EQ(ValidateStoreKey("").message(), "logical key is empty");
  EXPECT_EQ(ValidateStoreKey("../x").code(), StatusCode::kInvalidArgument);
}

TEST(PlanGetTest, WholeObjectAndRanges) {
  EXPECT_EQ(*PlanGet("k", 10, {}), (ByteRange{0, 10}));
  GetOptions options;
  options.range = ByteRange{3, 4};
  EXPECT_EQ(*PlanGet("k", 10, options), (ByteRange{3, 4}));
  options.range = ByteRange{10, 0};
  EXPECT_EQ(*PlanGet("k", 10, options), (ByteRange{10, 0}));
  options.range = ByteRange{7, 4};
  Status past = PlanGet("k", 10, options).status();
  EXPECT_EQ(past.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(past.message(), "range [7, +4) is past the end of the 10-byte object");
  EXPECT_EQ(past.path(), "k");
  options.range = ByteRange{1, std::numeric_limits<uint64_t>::max()};
  EXPECT_EQ(PlanGet("k", 10, options).status().code(), StatusCode::kOutOfRange);
  options.range = ByteRange{std::numeric_limits<uint64_t>::max(), 1};
  EXPECT_EQ(PlanGet("k", 10, options).status().code(), StatusCode::kOutOfRange);
}

TEST(PlanGetTest, ExpectedSizeThenRangeThenCap) {
  GetOptions options;
  options.expected_size = 11;
  options.range = ByteRange{20, 1};  // also out of range: the size check comes first
  Status wrong_size = PlanGet("obj", 10, options).status();
  EXPECT_EQ(wrong_size.code(), StatusCode::kIntegrityError);
  EXPECT_EQ(wrong_size.message(), "object is 10 bytes, expected 11");
  EXPECT_EQ(wrong_size.path(), "obj");

  options.expected_size = 10;
  options.max_bytes = 0;  // also over the cap: the range check comes first
  EXPECT_EQ(PlanGet("obj", 10, options).status().code(), StatusCode::kOutOfRange);

  options.range = ByteRange{2, 5};
  options.max_bytes = 4;
  Status over = PlanGet("obj", 10, options).status();
  EXPECT_EQ(over.code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(over.message(), "reading 5 bytes exceeds the limit of 4");
  options.max_bytes = 5;
  EXPECT_EQ(*PlanGet("obj", 10, options), (ByteRange{2, 5}));
}

TEST(GetStringTest, CopiesTheWholeObjectUnderACap) {
  MemoryStore store;
  ASSERT_TRUE(store.CreateIfAbsent("k", AsBytes("12345")).ok());
  EXPECT_EQ(*GetString(store, "k", 5), "12345");
  EXPECT_EQ(GetString(store, "k", 4).status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(GetString(store, "missing", 4).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vigilo::store
