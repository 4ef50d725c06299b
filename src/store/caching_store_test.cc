#include "vigilo/store/caching_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "vigilo/store/fault_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::store {
namespace {

namespace fs = std::filesystem;

std::span<const uint8_t> B(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "vigilo-cache-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

GetOptions Range(uint64_t offset, uint64_t length, uint64_t size) {
  GetOptions get;
  get.range = ByteRange{offset, length};
  get.expected_size = size;
  return get;
}

// One "process": a cache over a counting view of the shared bucket.
struct Reader {
  Reader(MemoryStore& bucket, const fs::path& dir, std::string ns, uint64_t max_bytes = kDefaultCacheMaxBytes) {
    auto fault = std::make_unique<FaultInjectingStore>(bucket, FaultPlan());
    inner = fault.get();
    cache = std::make_unique<CachingStore>(
        std::move(fault),
        CachingStoreOptions{.directory = (dir / "ranges").string(), .cache_namespace = std::move(ns),
                            .max_bytes = max_bytes});
  }
  FaultInjectingStore* inner;  // owned by cache
  std::unique_ptr<CachingStore> cache;
};

class CachingStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    ASSERT_TRUE(bucket_.CreateIfAbsent("p/postings.parquet", B("0123456789abcdefghij")).ok());
    ASSERT_TRUE(bucket_.CreateIfAbsent("manifest.json", B("{\"v\":1}")).ok());
  }
  TempDir tmp_;
  MemoryStore bucket_;
};

TEST_F(CachingStoreTest, SecondReadOfARangeIsServedFromTheDirectoryEvenInAnotherProcess) {
  Reader first(bucket_, tmp_.path(), "uuid-1 base-1");
  auto a = first.cache->Get("p/postings.parquet", Range(4, 6, 20));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->view(), "456789");
  EXPECT_EQ(first.inner->operations(), 1u);
  auto again = first.cache->Get("p/postings.parquet", Range(4, 6, 20));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->view(), "456789");
  EXPECT_EQ(first.inner->operations(), 1u);
  EXPECT_EQ(first.cache->counters().hits, 1u);
  EXPECT_EQ(first.cache->counters().hit_bytes, 6u);
  EXPECT_EQ(first.cache->counters().misses, 1u);

  Reader second(bucket_, tmp_.path(), "uuid-1 base-1");
  auto b = second.cache->Get("p/postings.parquet", Range(4, 6, 20));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->view(), "456789");
  EXPECT_EQ(second.inner->operations(), 0u);
  // Another range of the same object is another entry.
  auto c = second.cache->Get("p/postings.parquet", Range(4, 5, 20));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->view(), "45678");
  EXPECT_EQ(second.inner->operations(), 1u);
  // A whole-object Get with its size is cached too.
  GetOptions whole;
  whole.expected_size = 20;
  ASSERT_TRUE(second.cache->Get("p/postings.parquet", whole).ok());
  auto w = second.cache->Get("p/postings.parquet", whole);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->view(), "0123456789abcdefghij");
  EXPECT_EQ(second.inner->operations(), 2u);
}

TEST_F(CachingStoreTest, GetManyAnswersHitsHereAndSendsOnlyTheMisses) {
  Reader reader(bucket_, tmp_.path(), "uuid-1 base-1");
  ASSERT_TRUE(reader.cache->Get("p/postings.parquet", Range(0, 4, 20)).ok());
  ASSERT_EQ(reader.inner->operations(), 1u);
  GetOptions unsized;
  unsized.range = ByteRange{0, 3};
  std::vector<GetRequest> round = {{"p/postings.parquet", Range(0, 4, 20)},   // held
                                   {"p/postings.parquet", Range(10, 5, 20)},  // not yet
                                   {"p/missing.parquet", Range(0, 1, 9)},     // the inner store's error
                                   {"manifest.json", unsized}};               // never cached
  std::vector<GetResponse> answers = reader.cache->GetMany(round);
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_TRUE(answers[0].cached);
  EXPECT_EQ(answers[0].bytes->view(), "0123");
  EXPECT_FALSE(answers[1].cached);
  EXPECT_EQ(answers[1].bytes->view(), "abcde");
  EXPECT_FALSE(answers[2].cached);
  EXPECT_EQ(answers[2].bytes.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(answers[3].cached);
  EXPECT_EQ(answers[3].bytes->view(), "{\"v");
  EXPECT_EQ(reader.inner->operations(), 4u);  // the three misses
  // The miss is held now: the same round again sends only what is never cached.
  answers = reader.cache->GetMany(round);
  EXPECT_TRUE(answers[1].cached);
  EXPECT_EQ(answers[1].bytes->view(), "abcde");
  EXPECT_EQ(reader.inner->operations(), 6u);
}

TEST_F(CachingStoreTest, NamespacesNeverShareEntries) {
  Reader one(bucket_, tmp_.path(), "uuid-1 base-1");
  ASSERT_TRUE(one.cache->Get("p/postings.parquet", Range(0, 4, 20)).ok());
  // The same key and range under another publication's namespace: fetched.
  bucket_.Overwrite("p/postings.parquet", "ABCDEFGHIJKLMNOPQRST");
  Reader two(bucket_, tmp_.path(), "uuid-2 base-1");
  auto b = two.cache->Get("p/postings.parquet", Range(0, 4, 20));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->view(), "ABCD");
  EXPECT_EQ(two.inner->operations(), 1u);
  Reader one_again(bucket_, tmp_.path(), "uuid-1 base-1");
  auto a = one_again.cache->Get("p/postings.parquet", Range(0, 4, 20));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->view(), "0123");
  EXPECT_EQ(one_again.inner->operations(), 0u);
}

TEST_F(CachingStoreTest, GetsWithoutAnExpectedSizeAlwaysGoToTheInnerStore) {
  // The manifest is read without a size: it is never cached.
  Reader r(bucket_, tmp_.path(), "ns");
  for (int i = 0; i < 2; ++i) {
    auto m = r.cache->Get("manifest.json");
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->view(), "{\"v\":1}");
  }
  EXPECT_EQ(r.inner->operations(), 2u);
  EXPECT_EQ(r.cache->counters().misses, 0u);
  EXPECT_FALSE(fs::exists(tmp_.path() / "ranges"));
}

TEST_F(CachingStoreTest, ErrorsAreTheInnerStoresAndAreNotCached) {
  Reader r(bucket_, tmp_.path(), "ns");
  // The store holds 20 bytes, the caller expects 21: the inner store decides.
  auto wrong = r.cache->Get("p/postings.parquet", Range(0, 4, 21));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(wrong.status().path(), "p/postings.parquet");
  auto past_end = r.cache->Get("p/postings.parquet", Range(18, 4, 20));
  ASSERT_FALSE(past_end.ok());
  EXPECT_EQ(past_end.status().code(), StatusCode::kOutOfRange);
  auto missing = r.cache->Get("p/missing.parquet", Range(0, 4, 20));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto again = r.cache->Get("p/missing.parquet", Range(0, 4, 20));
  EXPECT_EQ(again.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.inner->operations(), 4u);
  // max_bytes still applies to a cached range.
  ASSERT_TRUE(r.cache->Get("p/postings.parquet", Range(0, 8, 20)).ok());
  GetOptions capped = Range(0, 8, 20);
  capped.max_bytes = 7;
  auto over = r.cache->Get("p/postings.parquet", capped);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kLimitExceeded);
}

TEST_F(CachingStoreTest, ACorruptOrShortEntryIsIgnoredAndRefetched) {
  Reader r(bucket_, tmp_.path(), "ns");
  ASSERT_TRUE(r.cache->Get("p/postings.parquet", Range(2, 8, 20)).ok());
  const std::string entry = r.cache->EntryPath("p/postings.parquet", 20, ByteRange{2, 8});
  ASSERT_EQ(fs::file_size(entry), 8u + 32u);
  {
    // Same length, one byte changed: the digest catches it.
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.put('X');
  }
  auto a = r.cache->Get("p/postings.parquet", Range(2, 8, 20));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->view(), "23456789");
  EXPECT_EQ(r.inner->operations(), 2u);
  // The refetch rewrote the entry: served from the directory again.
  ASSERT_TRUE(r.cache->Get("p/postings.parquet", Range(2, 8, 20)).ok());
  EXPECT_EQ(r.inner->operations(), 2u);
  fs::resize_file(entry, 5);
  auto b = r.cache->Get("p/postings.parquet", Range(2, 8, 20));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->view(), "23456789");
  EXPECT_EQ(r.inner->operations(), 3u);
  EXPECT_EQ(r.cache->counters().hits, 1u);
}

void SetMtime(const std::string& path, time_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST_F(CachingStoreTest, PastItsBoundTheLeastRecentlyUsedEntriesAreEvicted) {
  std::string big(1000, 'z');
  ASSERT_TRUE(bucket_.CreateIfAbsent("big", B(big)).ok());
  // Three entries of 1032 bytes each exceed 2400; removing one reaches 7/8 of it.
  Reader r(bucket_, tmp_.path(), "ns", 2400);
  const std::string a = r.cache->EntryPath("big", 1000, ByteRange{0, 1000});
  const std::string b = r.cache->EntryPath("big", 1000, ByteRange{0, 999});
  const std::string c = r.cache->EntryPath("big", 1000, ByteRange{0, 998});
  ASSERT_TRUE(r.cache->Get("big", Range(0, 1000, 1000)).ok());
  ASSERT_TRUE(r.cache->Get("big", Range(0, 999, 1000)).ok());
  SetMtime(a, 1000000);
  SetMtime(b, 2000000);
  // A hit refreshes a: b is now the least recently used.
  ASSERT_TRUE(r.cache->Get("big", Range(0, 1000, 1000)).ok());
  EXPECT_EQ(r.cache->counters().hits, 1u);
  // A stray file in the directory is not the cache's to delete.
  std::ofstream(tmp_.path() / "ranges" / "README") << "mine";
  ASSERT_TRUE(r.cache->Get("big", Range(0, 998, 1000)).ok());
  EXPECT_TRUE(fs::exists(a));
  EXPECT_FALSE(fs::exists(b));
  EXPECT_TRUE(fs::exists(c));
  EXPECT_TRUE(fs::exists(tmp_.path() / "ranges" / "README"));
  // The evicted range is fetched again.
  const uint64_t before = r.inner->operations();
  auto again = r.cache->Get("big", Range(0, 999, 1000));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->size(), 999u);
  EXPECT_EQ(r.inner->operations(), before + 1);
}

TEST_F(CachingStoreTest, AnUnusableDirectoryNeverFailsARead) {
  // A file where the directory should be.
  std::ofstream(tmp_.path() / "ranges") << "not a directory";
  Reader r(bucket_, tmp_.path(), "ns");
  for (int i = 0; i < 2; ++i) {
    auto a = r.cache->Get("p/postings.parquet", Range(0, 3, 20));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(a->view(), "012");
  }
  EXPECT_EQ(r.inner->operations(), 2u);
  EXPECT_EQ(r.cache->counters().hits, 0u);
}

}  // namespace
}  // namespace vigilo::store
