#include "vigilo/store/memory_store.h"

#include <gtest/gtest.h>

namespace vigilo::store {
namespace {

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(MemoryStoreTest, GetSharesTheStoredBuffer) {
  MemoryStore store;
  ASSERT_TRUE(store.CreateIfAbsent("k", AsBytes("0123456789")).ok());
  Bytes first = std::move(store.Get("k")).value();
  Bytes second = std::move(store.Get("k")).value();
  EXPECT_EQ(first.data(), second.data());
  GetOptions options;
  options.range = ByteRange{4, 3};
  Bytes part = std::move(store.Get("k", options)).value();
  EXPECT_EQ(part.data(), first.data() + 4);
  EXPECT_EQ(part.view(), "456");
}

TEST(MemoryStoreTest, InspectionAndTampering) {
  MemoryStore store;
  EXPECT_EQ(store.object_count(), 0u);
  ASSERT_TRUE(store.CreateIfAbsent("b/2", AsBytes("two")).ok());
  ASSERT_TRUE(store.CreateIfAbsent("a/1", AsBytes("one")).ok());
  EXPECT_EQ(store.object_count(), 2u);
  EXPECT_EQ(store.Keys(), (std::vector<std::string>{"a/1", "b/2"}));
  EXPECT_EQ(store.Peek("a/1"), "one");
  EXPECT_EQ(store.Peek("zzz"), std::nullopt);

  Bytes before = std::move(store.Get("a/1")).value();
  store.Overwrite("a/1", "0ne");
  EXPECT_EQ(store.Get("a/1")->view(), "0ne");
  EXPECT_EQ(before.view(), "one");  // handed-out bytes never change
  // The tampered object is what a replay compares against.
  EXPECT_EQ(store.CreateIfAbsent("a/1", AsBytes("one")).status().code(), StatusCode::kAlreadyExists);
  store.Overwrite("c/3", "three");
  EXPECT_EQ(store.object_count(), 3u);
  ASSERT_TRUE(store.Delete("c/3").ok());
  EXPECT_EQ(store.Peek("c/3"), std::nullopt);
}

TEST(MemoryStoreTest, ReadOnlyStoreReadsButRefusesWrites) {
  MemoryStore store(Capabilities{.writable = false, .conditional_create = true, .read_after_create = true});
  store.Overwrite("k", "seeded");
  EXPECT_EQ(store.Get("k")->view(), "seeded");
  Status refused = store.CreateIfAbsent("new", AsBytes("x")).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(), "the store is read-only");
  EXPECT_EQ(refused.path(), "new");
  EXPECT_EQ(store.Delete("k").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Peek("k"), "seeded");
  EXPECT_EQ(store.object_count(), 1u);
}

TEST(MemoryStoreTest, RevisionsAreContentTokensWhenDeclared) {
  MemoryStore plain;
  EXPECT_EQ(plain.CreateIfAbsent("k", AsBytes("x"))->revision, std::nullopt);

  MemoryStore store(Capabilities{.writable = true, .conditional_create = true, .read_after_create = true,
                                 .single_ranges = true, .revisions = true});
  auto created = store.CreateIfAbsent("k", AsBytes("x"));
  ASSERT_TRUE(created.ok());
  ASSERT_TRUE(created->revision.has_value());
  EXPECT_EQ(created->revision->size(), 32u);
  EXPECT_EQ(store.Head("k")->revision, created->revision);
  EXPECT_EQ(store.CreateIfAbsent("k", AsBytes("x"))->revision, created->revision);
  EXPECT_NE(store.CreateIfAbsent("other", AsBytes("y"))->revision, created->revision);
}

TEST(MemoryStoreTest, AWriterCommitsAtMostOnce) {
  MemoryStore store;
  auto writer = std::move(store.BeginCreate("k")).value();
  ASSERT_TRUE(writer->Append(AsBytes("abc")).ok());
  EXPECT_EQ(store.object_count(), 0u);
  EXPECT_EQ(writer->Commit()->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(writer->Commit().status().code(), StatusCode::kInternal);
  EXPECT_EQ(writer->Append(AsBytes("d")).code(), StatusCode::kInternal);
  EXPECT_EQ(store.Peek("k"), "abc");
}

}  // namespace
}  // namespace vigilo::store
