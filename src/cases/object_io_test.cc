// The case-storage adapters over the store seam: what a sink stores and
// returns, how a replay and a conflict come out, and what a fetch asks of
// which store.
#include "vigilo/cases/object_io.h"

#include <gtest/gtest.h>

#include <string>

#include "vigilo/store/fault_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::cases {
namespace {

using store::FaultInjectingStore;
using store::FaultPlan;
using store::MemoryStore;

constexpr std::string_view kKey = "datasets/geo/attempts/a/g1/source-fields.json";
constexpr std::string_view kBytes = R"({"cases_present":true,"fields":{"dataset_id":"geo"},"schema":"x"})";

TEST(StoreSinkTest, CreatesTheExactBytesAndReturnsTheirReferenceUnderTheAlias) {
  MemoryStore memory;
  ObjectSink sink = StoreSink(memory, "archive-1");
  auto ref = sink(std::string(kKey), StorageFormat::kDatasetSourceFields, std::string(kBytes));
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(*ref, ObjectRef::ForBytes("archive-1", std::string(kKey), StorageFormat::kDatasetSourceFields, kBytes));
  EXPECT_EQ(ref->revision, std::nullopt);
  EXPECT_EQ(memory.Peek(kKey), std::string(kBytes));
}

TEST(StoreSinkTest, AReplayIsVerifiedAndOtherBytesAreRefusedUntouched) {
  MemoryStore memory;
  FaultInjectingStore counted(memory, FaultPlan());
  ObjectSink sink = StoreSink(counted, "local");
  auto first = sink(std::string(kKey), StorageFormat::kDatasetSourceFields, std::string(kBytes));
  auto replay = sink(std::string(kKey), StorageFormat::kDatasetSourceFields, std::string(kBytes));
  ASSERT_TRUE(first.ok() && replay.ok());
  EXPECT_EQ(*first, *replay);
  EXPECT_EQ(counted.operations(), 4u);  // a create and a read back, twice
  auto other = sink(std::string(kKey), StorageFormat::kDatasetSourceFields, std::string(kBytes) + " ");
  EXPECT_EQ(other.status().code(), StatusCode::kAlreadyExists) << other.status().ToString();
  EXPECT_EQ(other.status().path(), kKey);
  EXPECT_EQ(memory.Peek(kKey), std::string(kBytes));
  EXPECT_EQ(memory.object_count(), 1u);
}

TEST(StoreSinkTest, RecordsTheRevisionOfAStoreWithRevisions) {
  MemoryStore memory(store::Capabilities{.writable = true,
                                         .conditional_create = true,
                                         .read_after_create = true,
                                         .single_ranges = true,
                                         .revisions = true});
  auto ref = StoreSink(memory, "local")(std::string(kKey), StorageFormat::kDatasetSourceFields, std::string(kBytes));
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  auto head = memory.Head(kKey);
  ASSERT_TRUE(head.ok() && head->revision.has_value());
  EXPECT_EQ(ref->revision, head->revision);
  EXPECT_TRUE(ref->Validate().ok());
}

TEST(StoreSinkTest, AStoreThatLosesTheObjectAfterCreatingItIsAnError) {
  // Told kCreated, but the read back finds nothing: no read-after-create.
  class ForgetfulStore final : public store::ObjectStore {
   public:
    const store::Capabilities& capabilities() const override { return inner.capabilities(); }
    Result<store::Bytes> Get(std::string_view key, const store::GetOptions&) override {
      return NotFound("no such object").WithPath(std::string(key));
    }
    Result<store::ObjectInfo> Head(std::string_view key, const store::AttemptContext* = nullptr) override { return inner.Head(key); }
    Result<store::CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const store::AttemptContext* = nullptr) override {
      return inner.CreateIfAbsent(key, bytes);
    }
    Result<std::unique_ptr<store::ObjectWriter>> BeginCreate(std::string_view key, const store::AttemptContext* = nullptr) override {
      return inner.BeginCreate(key);
    }
    Status Delete(std::string_view key, const store::AttemptContext* = nullptr) override { return inner.Delete(key); }
    MemoryStore inner;
  } forgetful;
  auto ref = StoreSink(forgetful, "local")(std::string(kKey), StorageFormat::kDatasetSourceFields, std::string(kBytes));
  EXPECT_EQ(ref.status().code(), StatusCode::kNotFound) << ref.status().ToString();
  EXPECT_EQ(ref.status().path(), kKey);
}

TEST(StoreFetchTest, EachReferenceIsReadFromTheStoreItsAliasNames) {
  MemoryStore a, b;
  auto in_a = StoreSink(a, "a")("k/one.json", StorageFormat::kDatasetSourceFields, "{\"a\":1}");
  auto in_b = StoreSink(b, "b")("k/one.json", StorageFormat::kDatasetSourceFields, "{\"b\":22}");
  ASSERT_TRUE(in_a.ok() && in_b.ok());
  StoreResolver resolve = [&](std::string_view alias) -> Result<store::ObjectStore*> {
    if (alias == "a") return &a;
    if (alias == "b") return &b;
    return NotFound("storage alias \"" + std::string(alias) + "\" is not configured");
  };
  ObjectFetch fetch = StoreFetch(resolve, 1 << 20);
  auto got_a = fetch(*in_a);
  auto got_b = fetch(*in_b);
  ASSERT_TRUE(got_a.ok() && got_b.ok());
  EXPECT_EQ(got_a->bytes(), "{\"a\":1}");
  EXPECT_EQ(got_b->bytes(), "{\"b\":22}");
  ObjectRef elsewhere = *in_a;
  elsewhere.storage_alias = "c";
  EXPECT_EQ(fetch(elsewhere).status().ToString(), "not_found: storage alias \"c\" is not configured");
}

TEST(StoreFetchTest, AnOversizedReferenceIsRefusedBeforeAnyRequest) {
  MemoryStore memory;
  auto ref = StoreSink(memory, "local")(std::string(kKey), StorageFormat::kDatasetSourceFields, std::string(kBytes));
  ASSERT_TRUE(ref.ok());
  FaultInjectingStore counted(memory, FaultPlan());
  auto bytes = StoreBytesFetch(SingleStore(counted))(*ref, kBytes.size() - 1);
  EXPECT_EQ(bytes.status().code(), StatusCode::kLimitExceeded) << bytes.status().ToString();
  EXPECT_EQ(bytes.status().path(), kKey);
  EXPECT_EQ(counted.operations(), 0u);
  EXPECT_EQ(*StoreBytesFetch(SingleStore(counted))(*ref, kBytes.size()), kBytes);
}

TEST(StoreFetchTest, AReferenceWithAnotherSizeOrDigestIsAnIntegrityError) {
  MemoryStore memory;
  auto ref = StoreSink(memory, "local")(std::string(kKey), StorageFormat::kDatasetSourceFields, std::string(kBytes));
  ASSERT_TRUE(ref.ok());
  ObjectFetch fetch = StoreFetch(SingleStore(memory), 1 << 20);
  ObjectRef shorter = *ref;
  shorter.byte_count -= 1;
  EXPECT_EQ(fetch(shorter).status().ToString(),
            "integrity_error: " + std::string(kKey) + ": object is " + std::to_string(kBytes.size()) +
                " bytes, expected " + std::to_string(kBytes.size() - 1));
  ObjectRef other_digest = *ref;
  other_digest.digest = std::string(64, '0');
  EXPECT_EQ(fetch(other_digest).status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(fetch(other_digest).status().path(), kKey);
}

}  // namespace
}  // namespace vigilo::cases
