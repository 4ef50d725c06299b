#include "vigilo/store/owned_writes.h"

#include <gtest/gtest.h>

#include <functional>

#include "vigilo/store/memory_store.h"

namespace vigilo::store {
namespace {

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A MemoryStore whose creates and deletes can be observed and made to fail.
class ScriptedStore final : public ObjectStore {
 public:
  const Capabilities& capabilities() const override { return inner.capabilities(); }
  Result<Bytes> Get(std::string_view key, const GetOptions& options) override { return inner.Get(key, options); }
  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* = nullptr) override { return inner.Head(key); }
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const AttemptContext* = nullptr) override {
    if (before_create) before_create(key);
    auto result = inner.CreateIfAbsent(key, bytes);
    if (result.ok() && !create_error.ok()) return create_error;  // created, but the answer was lost
    return result;
  }
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key, const AttemptContext* = nullptr) override { return inner.BeginCreate(key); }
  Status Delete(std::string_view key, const AttemptContext* = nullptr) override {
    deleted.emplace_back(key);
    if (!delete_error.ok()) return delete_error;
    return inner.Delete(key);
  }

  MemoryStore inner;
  std::function<void(std::string_view)> before_create;
  Status create_error;
  Status delete_error;
  std::vector<std::string> deleted;
};

using Keys = std::vector<std::string>;

TEST(OwnedWritesTest, OwnsOnlyWhatItCreated) {
  ScriptedStore store;
  ASSERT_TRUE(store.inner.CreateIfAbsent("shared", AsBytes("same")).ok());
  ASSERT_TRUE(store.inner.CreateIfAbsent("theirs", AsBytes("theirs")).ok());
  OwnedWrites owned(store);
  EXPECT_EQ(owned.CreateIfAbsent("mine/1", AsBytes("a"))->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(owned.CreateIfAbsent("shared", AsBytes("same"))->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(owned.CreateIfAbsent("theirs", AsBytes("mine")).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(owned.CreateIfAbsent("bad//key", AsBytes("x")).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(owned.CreateIfAbsent("mine/2", AsBytes("b"))->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(owned.created(), (Keys{"mine/1", "mine/2"}));

  ASSERT_TRUE(owned.RollBack().ok());
  EXPECT_EQ(store.deleted, (Keys{"mine/2", "mine/1"}));  // newest first
  EXPECT_TRUE(owned.created().empty());
  EXPECT_EQ(store.inner.Keys(), (Keys{"shared", "theirs"}));
  EXPECT_EQ(store.inner.Peek("theirs"), "theirs");
}

TEST(OwnedWritesTest, RecordsTheKeyBeforeIssuingTheCreate) {
  ScriptedStore store;
  OwnedWrites owned(store);
  Keys seen;
  store.before_create = [&](std::string_view) { seen = owned.created(); };
  ASSERT_TRUE(owned.CreateIfAbsent("k", AsBytes("x")).ok());
  EXPECT_EQ(seen, Keys{"k"});
}

TEST(OwnedWritesTest, AnUnknownOutcomeStaysRecordedAsPossiblyOurs) {
  ScriptedStore store;
  OwnedWrites owned(store);
  store.create_error = Unavailable("connection reset after upload");
  EXPECT_EQ(owned.CreateIfAbsent("maybe", AsBytes("x")).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(owned.created(), Keys{"maybe"});
  ASSERT_TRUE(owned.RollBack().ok());
  EXPECT_EQ(store.inner.object_count(), 0u);
}

TEST(OwnedWritesTest, AReplayOfItsOwnObjectStaysOwned) {
  ScriptedStore store;
  OwnedWrites owned(store);
  ASSERT_EQ(owned.CreateIfAbsent("k", AsBytes("x"))->outcome, CreateOutcome::kCreated);
  ASSERT_EQ(owned.CreateIfAbsent("k", AsBytes("x"))->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(owned.CreateIfAbsent("k", AsBytes("y")).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(owned.created(), Keys{"k"});
}

TEST(OwnedWritesTest, StreamingCreatesRecordAtCommit) {
  ScriptedStore store;
  ASSERT_TRUE(store.inner.CreateIfAbsent("theirs", AsBytes("t")).ok());
  OwnedWrites owned(store);
  {
    auto abandoned = std::move(owned.BeginCreate("abandoned")).value();
    ASSERT_TRUE(abandoned->Append(AsBytes("x")).ok());
    EXPECT_TRUE(owned.created().empty());
  }
  auto writer = std::move(owned.BeginCreate("streamed")).value();
  ASSERT_TRUE(writer->Append(AsBytes("abc")).ok());
  EXPECT_EQ(writer->size(), 3u);
  EXPECT_TRUE(owned.created().empty());
  EXPECT_EQ(writer->Commit()->outcome, CreateOutcome::kCreated);
  auto clash = std::move(owned.BeginCreate("theirs")).value();
  ASSERT_TRUE(clash->Append(AsBytes("mine")).ok());
  EXPECT_EQ(clash->Commit().status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(owned.created(), Keys{"streamed"});
  EXPECT_EQ(owned.BeginCreate("a:b").status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(owned.RollBack().ok());
  EXPECT_EQ(store.inner.Keys(), Keys{"theirs"});
}

TEST(OwnedWritesTest, RollBackContinuesPastFailuresAndReportsTheFirst) {
  ScriptedStore store;
  OwnedWrites owned(store);
  ASSERT_TRUE(owned.CreateIfAbsent("a", AsBytes("1")).ok());
  ASSERT_TRUE(owned.CreateIfAbsent("b", AsBytes("2")).ok());
  store.delete_error = IoError("disk gone");
  Status rolled = owned.RollBack();
  EXPECT_EQ(rolled.code(), StatusCode::kIoError);
  EXPECT_EQ(rolled.message(), "disk gone");
  EXPECT_EQ(store.deleted, (Keys{"b", "a"}));  // both attempted
  EXPECT_TRUE(owned.created().empty());
}

TEST(OwnedWritesTest, ReleaseForgetsWithoutDeleting) {
  ScriptedStore store;
  OwnedWrites owned(store);
  ASSERT_TRUE(owned.CreateIfAbsent("a", AsBytes("1")).ok());
  owned.Release();
  EXPECT_TRUE(owned.created().empty());
  ASSERT_TRUE(owned.RollBack().ok());
  EXPECT_TRUE(store.deleted.empty());
  EXPECT_EQ(store.inner.Peek("a"), "1");
  EXPECT_EQ(&owned.store(), &store);
}

}  // namespace
}  // namespace vigilo::store
