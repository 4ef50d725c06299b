#include "vigilo/store/resident_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "test_bytes.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::store {
namespace {

using testing::BinaryPayload;
std::span<const uint8_t> B(std::string_view s) { return testing::AsBytes(s); }

// The inner store's Gets, counted (the whole-object reads among them).
class CountingStore final : public ForwardingStore {
 public:
  explicit CountingStore(ObjectStore& inner) : ForwardingStore(inner) {}
  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override {
    ++gets;
    if (!options.range) ++whole;
    return ForwardingStore::Get(key, options);
  }
  std::atomic<int> gets{0}, whole{0};
};

GetOptions Range(uint64_t offset, uint64_t length) {
  GetOptions get;
  get.range = ByteRange{offset, length};
  return get;
}

struct Fixture {
  explicit Fixture(uint64_t max_bytes) {
    auto owned = std::make_unique<CountingStore>(bucket);
    counting = owned.get();
    store = std::make_unique<ResidentStore>(std::move(owned), ResidentStoreOptions{.max_bytes = max_bytes});
  }
  void Put(std::string_view key, const std::string& bytes) { ASSERT_TRUE(bucket.CreateIfAbsent(key, B(bytes)).ok()); }
  MemoryStore bucket;
  CountingStore* counting = nullptr;
  std::unique_ptr<ResidentStore> store;
};

TEST(ResidentStore, RangesAreTheInnerBytesAndTheObjectIsReadOnce) {
  Fixture f(1 << 20);
  const std::string a = BinaryPayload(5000, 1);
  f.Put("a", a);
  for (auto [offset, length] : {std::pair<uint64_t, uint64_t>{0, 5000}, {17, 100}, {4999, 1}, {2500, 0}}) {
    auto got = f.store->Get("a", Range(offset, length));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->view(), a.substr(offset, length));
  }
  auto whole = f.store->Get("a");
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->view(), a);
  EXPECT_EQ(f.counting->gets.load(), 1);  // the first Get read it whole; the rest came from memory
  EXPECT_EQ(f.store->held_bytes(), 5000u);
  auto head = f.store->Head("a");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->size, 5000u);
}

TEST(ResidentStore, TheFirstObjectStartsOnA2MiBBoundary) {
  // What the store is for: the kernel can back the memory with 2 MiB pages.
  Fixture f(64 << 20);
  f.Put("a", BinaryPayload(3 << 20, 2));
  auto got = f.store->Get("a", Range(0, 1));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(got->data()) % (2 << 20), 0u);
  // The next object follows it, 64-byte aligned, in the same chunk.
  f.Put("b", BinaryPayload(100, 3));
  auto next = f.store->Get("b", Range(0, 1));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(next->data()), reinterpret_cast<uintptr_t>(got->data()) + (3 << 20));
}

TEST(ResidentStore, ObjectsBeyondTheBudgetAreReadFromTheInnerStoreEveryTime) {
  Fixture f(3000);
  const std::string a = BinaryPayload(2000, 4), b = BinaryPayload(2000, 5);
  f.Put("a", a);
  f.Put("b", b);
  ASSERT_TRUE(f.store->Get("a", Range(0, 10)).ok());
  EXPECT_EQ(f.store->held_bytes(), 2000u);
  const int before = f.counting->gets.load();
  for (int i = 0; i < 3; ++i) {
    auto got = f.store->Get("b", Range(100, 50));
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->view(), b.substr(100, 50));
  }
  // One refused whole read (over the 1,000 bytes left), then only the callers' own Gets.
  EXPECT_EQ(f.counting->gets.load() - before, 4);
  EXPECT_EQ(f.store->held_bytes(), 2000u);
}

TEST(ResidentStore, ReadsThatAreNotReusedAreNotHeld) {
  Fixture f(1 << 20);
  f.Put("a", BinaryPayload(1000, 6));
  GetOptions once;
  once.reuse = false;
  ASSERT_TRUE(f.store->Get("a", once).ok());
  EXPECT_EQ(f.store->held_bytes(), 0u);
}

TEST(ResidentStore, ABudgetOfZeroHoldsNothing) {
  Fixture f(0);
  f.Put("a", BinaryPayload(1000, 7));
  ASSERT_TRUE(f.store->Get("a", Range(0, 10)).ok());
  ASSERT_TRUE(f.store->Get("a", Range(0, 10)).ok());
  EXPECT_EQ(f.counting->gets.load(), 2);
  EXPECT_EQ(f.store->held_bytes(), 0u);
}

// Every refusal is the inner store's own, code and message, held or not.
TEST(ResidentStore, ErrorsAreTheInnerStoresErrors) {
  Fixture f(1 << 20);
  f.Put("a", BinaryPayload(1000, 8));
  ASSERT_TRUE(f.store->Get("a", Range(0, 1)).ok());  // now held
  std::vector<GetOptions> cases;
  cases.push_back(Range(990, 11));  // past the end
  cases.push_back(Range(1001, 0));
  GetOptions capped = Range(0, 1000);
  capped.max_bytes = 999;
  cases.push_back(capped);
  GetOptions sized;
  sized.expected_size = 1001;
  cases.push_back(sized);
  for (const GetOptions& o : cases) {
    auto mine = f.store->Get("a", o);
    auto inner = f.bucket.Get("a", o);
    ASSERT_FALSE(mine.ok());
    ASSERT_FALSE(inner.ok());
    EXPECT_EQ(mine.status().code(), inner.status().code());
    EXPECT_EQ(mine.status().ToString(), inner.status().ToString());
  }
  auto missing = f.store->Get("nothing/here", Range(0, 1));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().ToString(), f.bucket.Get("nothing/here", Range(0, 1)).status().ToString());
  auto invalid = f.store->Get("../up", Range(0, 1));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().ToString(), f.bucket.Get("../up", Range(0, 1)).status().ToString());
  // A wrong expected size on the first read holds nothing and answers as the inner store.
  f.Put("b", BinaryPayload(10, 9));
  GetOptions wrong;
  wrong.expected_size = 11;
  EXPECT_EQ(f.store->Get("b", wrong).status().ToString(), f.bucket.Get("b", wrong).status().ToString());
  EXPECT_EQ(f.store->held_bytes(), 1000u);
}

TEST(ResidentStore, BytesOutliveTheStore) {
  Fixture f(1 << 20);
  const std::string a = BinaryPayload(4096, 10);
  f.Put("a", a);
  auto got = f.store->Get("a", Range(1000, 96));
  ASSERT_TRUE(got.ok());
  f.store.reset();
  EXPECT_EQ(got->view(), a.substr(1000, 96));
}

TEST(ResidentStore, EmptyObjectsAreHeldAsEmpty) {
  Fixture f(1 << 20);
  f.Put("empty", "");
  for (int i = 0; i < 2; ++i) {
    auto got = f.store->Get("empty");
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(got->empty());
  }
  EXPECT_EQ(f.counting->gets.load(), 1);
}

TEST(ResidentStore, DeleteForgetsTheCopy) {
  Fixture f(1 << 20);
  f.Put("a", BinaryPayload(100, 11));
  ASSERT_TRUE(f.store->Get("a").ok());
  ASSERT_TRUE(f.store->Delete("a").ok());
  auto got = f.store->Get("a");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
}

TEST(ResidentStore, ConcurrentFirstReadsReadTheObjectOnce) {
  Fixture f(1 << 20);
  const std::string a = BinaryPayload(100000, 12);
  f.Put("a", a);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<GetRequest> batch;
      for (uint64_t i = 0; i < 16; ++i) batch.push_back({"a", Range((t * 16 + i) * 700, 700)});
      std::vector<GetResponse> answers = f.store->GetMany(batch);
      for (size_t i = 0; i < answers.size(); ++i) {
        const uint64_t offset = (t * 16 + i) * 700;
        if (!answers[i].bytes.ok() || answers[i].bytes->view() != a.substr(offset, 700)) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(f.counting->gets.load(), 1);
  EXPECT_EQ(f.store->held_bytes(), 100000u);
}

}  // namespace
}  // namespace vigilo::store
