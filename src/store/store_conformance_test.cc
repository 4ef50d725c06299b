// The one conformance suite every ObjectStore backend and wrapper passes: the
// seam's semantics (object_store.h) asserted once, run against each entry of
// StoreFactories() below.
//
// Adding a backend or wrapper: add ONE entry to StoreFactories() (and its
// include). `make(env, writable)` returns a fresh, empty store; a wrapper
// wraps a fresh inner store (e.g. a MemoryStore built with the `writable`
// capability) and owns it, or parks it in env.keep_alive. Nothing else in
// this file changes.
//
// A read-only backend (http) sets `read_only_backend`: its factory also puts
// a writable store in env.seed whose objects the backend serves, the cases
// create objects through that seed and read them through the backend, and
// the cases about writes, HEAD and deletes are skipped for it (they are the
// seed's, tested under its own name).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <latch>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "vigilo/common/paths.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/http_store.h"
#include "http_test_support.h"
#include "test_bytes.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/prefixed_store.h"
#include "vigilo/store/resident_store.h"
#include "vigilo/store/memory_store.h"
#include "vigilo/store/object_store.h"
#ifdef VIGILO_S3_CONFORMANCE
#include "rgw_test_support.h"
#include "vigilo/store/config.h"
#include "vigilo/store/s3_store.h"
#endif

namespace vigilo::store {
namespace {

// What a factory may use: a fresh empty directory (removed after the test),
// and a place for objects the store refers to but does not own (destroyed
// after the store).
struct StoreEnv {
  std::filesystem::path dir;
  std::vector<std::shared_ptr<void>> keep_alive;
  // Read-only backends: the writable store whose objects the backend serves.
  std::unique_ptr<ObjectStore> seed;
};

struct StoreFactory {
  std::string name;  // the test-name suffix: letters and digits only
  bool read_only_backend = false;
  // A fresh, empty store; `writable` false gives the read-only variant.
  std::function<Result<std::unique_ptr<ObjectStore>>(StoreEnv& env, bool writable)> make;
};

// GoogleTest prints a failing test's parameter; the name says it all.
void PrintTo(const StoreFactory& factory, std::ostream* out) { *out << factory.name; }

#ifdef VIGILO_S3_CONFORMANCE
// s3_store_test: the suite over one real Ceph RGW per process (store_test
// runs it over the other backends). Each store is a fresh prefix of the one
// bucket: "S3" the bare backend (one attempt per call), "GovernedS3" the
// alias as the dispatcher opens it (backend registry, request governor,
// declared capabilities).
std::vector<StoreFactory> StoreFactories() {
  return {
      {"S3", false,
       [](StoreEnv&, bool writable) -> Result<std::unique_ptr<ObjectStore>> {
         VIGILO_ASSIGN_OR_RETURN(testing::SharedRgw * rgw, testing::SharedRgw::Get());
         StoreEntry entry = rgw->Entry("lake", rgw->FreshPrefix(), writable);
         return MakeS3Backend()->Open(entry, OpenOptions{.writable = writable});
       }},
      {"GovernedS3", false,
       [](StoreEnv& env, bool writable) -> Result<std::unique_ptr<ObjectStore>> {
         VIGILO_ASSIGN_OR_RETURN(testing::SharedRgw * rgw, testing::SharedRgw::Get());
         auto random = std::make_shared<SeededRandom>(13);
         env.keep_alive.push_back(random);
         VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<RequestGovernor> governor,
                                 RequestGovernor::Create(GovernorLimits{}, DefaultClock(), *random));
         RequestGovernor& g = *governor;
         env.keep_alive.push_back(std::shared_ptr<RequestGovernor>(std::move(governor)));
         StoreEntry entry = rgw->Entry("lake", rgw->FreshPrefix(), writable);
         return OpenConfiguredStore(entry, OpenOptions{.writable = writable, .governor = &g});
       }},
  };
}
#else
std::vector<StoreFactory> StoreFactories() {
  return {
      {"Memory", false,
       [](StoreEnv&, bool writable) -> Result<std::unique_ptr<ObjectStore>> {
         Capabilities caps{.writable = writable,
                           .conditional_create = true,
                           .read_after_create = true,
                           .single_ranges = true,
                           .revisions = false};
         return std::unique_ptr<ObjectStore>(std::make_unique<MemoryStore>(caps));
       }},
      {"Local", false,
       [](StoreEnv& env, bool writable) {
         return OpenLocalStore((env.dir / "root").string(), {.writable = writable, .create_root = true});
       }},
      // A prefix of a local store is a store of its own.
      {"PrefixedLocal", false,
       [](StoreEnv& env, bool writable) -> Result<std::unique_ptr<ObjectStore>> {
         VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> local,
                                 OpenLocalStore((env.dir / "root").string(), {.writable = writable, .create_root = true}));
         return MakePrefixedStore(std::move(local), "pubs/one");
       }},
      // Held in memory once read: every object (ResidentLocal), or only
      // those within a 64-byte budget, the rest read through (ResidentTiny).
      {"ResidentLocal", false,
       [](StoreEnv& env, bool writable) -> Result<std::unique_ptr<ObjectStore>> {
         VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> local,
                                 OpenLocalStore((env.dir / "root").string(), {.writable = writable, .create_root = true}));
         return std::unique_ptr<ObjectStore>(
             std::make_unique<ResidentStore>(std::move(local), ResidentStoreOptions{.max_bytes = uint64_t{1} << 30}));
       }},
      {"ResidentTiny", false,
       [](StoreEnv& env, bool writable) -> Result<std::unique_ptr<ObjectStore>> {
         VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> local,
                                 OpenLocalStore((env.dir / "root").string(), {.writable = writable, .create_root = true}));
         return std::unique_ptr<ObjectStore>(
             std::make_unique<ResidentStore>(std::move(local), ResidentStoreOptions{.max_bytes = 64}));
       }},
      {"FaultNoFaults", false,
       [](StoreEnv&, bool writable) -> Result<std::unique_ptr<ObjectStore>> {
         Capabilities caps{.writable = writable,
                           .conditional_create = true,
                           .read_after_create = true,
                           .single_ranges = true,
                           .revisions = false};
         return std::unique_ptr<ObjectStore>(
             std::make_unique<FaultInjectingStore>(std::make_shared<MemoryStore>(caps), FaultPlan()));
       }},
      // Every third operation fails transiently (before reaching the backing
      // store); the governor's retries must make that invisible.
      {"GovernedTransient", false,
       [](StoreEnv& env, bool writable) -> Result<std::unique_ptr<ObjectStore>> {
         Capabilities caps{.writable = writable,
                           .conditional_create = true,
                           .read_after_create = true,
                           .single_ranges = true,
                           .revisions = false};
         FaultPlan plan;
         for (StoreOp op : {StoreOp::kGet, StoreOp::kHead, StoreOp::kCreateIfAbsent, StoreOp::kDelete}) {
           for (uint64_t n = 0; n < 4096; n += 3) {
             FaultRule rule;
             rule.at_operation = n;
             rule.op = op;
             plan.Add(std::move(rule));  // kTransient, once
           }
         }
         auto clock = std::make_shared<ManualClock>();
         auto random = std::make_shared<SeededRandom>(7);
         env.keep_alive.push_back(clock);
         env.keep_alive.push_back(random);
         // Operation numbers are shared by concurrent callers, so one thread
         // can meet several faulty numbers in a row: the seed's ceiling of 32
         // attempts makes a spurious exhaustion (about 3^-32) impossible in
         // practice, where the default 3 flaked in the 8-thread race.
         GovernorLimits limits;
         limits.remote_request_attempts = 32;
         VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<RequestGovernor> governor,
                                 RequestGovernor::Create(limits, *clock, *random));
         RequestGovernor& g = *governor;
         env.keep_alive.push_back(std::shared_ptr<RequestGovernor>(std::move(governor)));
         auto faulty = std::make_unique<FaultInjectingStore>(std::make_shared<MemoryStore>(caps), std::move(plan));
         return std::unique_ptr<ObjectStore>(std::make_unique<GovernedStore>(std::move(faulty), g));
       }},
      // A private nginx serves a local store's directory; reads go over HTTP
      // (single ranges, never HEAD) under a governor on the real clock.
      {"Http", true,
       [](StoreEnv& env, bool) -> Result<std::unique_ptr<ObjectStore>> {
         const std::filesystem::path served = env.dir / "served";
         if (!env.seed) {
           VIGILO_ASSIGN_OR_RETURN(env.seed, OpenLocalStore(served.string(), {.writable = true, .create_root = true}));
         }
         VIGILO_ASSIGN_OR_RETURN(testing::SharedNginx * nginx, testing::SharedNginx::Get());
         VIGILO_ASSIGN_OR_RETURN(std::string url, nginx->Serve(served));
         auto random = std::make_shared<SeededRandom>(11);
         env.keep_alive.push_back(random);
         VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<RequestGovernor> governor,
                                 RequestGovernor::Create(GovernorLimits{}, DefaultClock(), *random));
         RequestGovernor& g = *governor;
         env.keep_alive.push_back(std::shared_ptr<RequestGovernor>(std::move(governor)));
         return OpenHttpStore({.base_url = url, .governor = &g, .cancel = nullptr});
       }},
  };
}
#endif

using testing::AsBytes;
using testing::BinaryPayload;

class StoreConformanceTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "-" + info->name();
    for (char& c : name) {
      if (c == '/') c = '-';
    }
    env_.dir = std::filesystem::temp_directory_path() / ("vigilo-store-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(env_.dir);
    std::filesystem::create_directories(env_.dir);
    auto made = GetParam().make(env_, true);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    store_ = std::move(made).value();
  }
  void TearDown() override {
    store_.reset();
    env_.seed.reset();
    env_.keep_alive.clear();
    std::filesystem::remove_all(env_.dir);
  }

  ObjectStore& store() { return *store_; }
  // Where the cases create objects: the store itself, or a read-only
  // backend's seed.
  ObjectStore& writer() { return env_.seed ? *env_.seed : *store_; }
  bool read_only_backend() const { return GetParam().read_only_backend; }

  CreateOutcome Create(std::string_view key, std::string_view bytes) {
    auto created = writer().CreateIfAbsent(key, AsBytes(bytes));
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    if (!created.ok()) return CreateOutcome::kCreated;
    EXPECT_EQ(created->size, bytes.size());
    return created->outcome;
  }
  std::string GetAll(std::string_view key) {
    auto got = store_->Get(key);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? std::string(got->view()) : std::string("<error>");
  }
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) {
    GetOptions options;
    options.range = ByteRange{offset, length};
    VIGILO_ASSIGN_OR_RETURN(Bytes bytes, store_->Get(key, options));
    return std::string(bytes.view());
  }
  StatusCode GetCode(std::string_view key, const GetOptions& options = {}) {
    return store_->Get(key, options).status().code();
  }

  StoreEnv env_;
  std::unique_ptr<ObjectStore> store_;
};

TEST_P(StoreConformanceTest, WritableStorePassesRequireWritable) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  EXPECT_TRUE(store().capabilities().writable);
  EXPECT_TRUE(RequireWritable(store(), "test").ok());
}

TEST_P(StoreConformanceTest, CreateThenGetReturnsExactBytes) {
  std::string payload = BinaryPayload(1000, 1);
  EXPECT_EQ(Create("a/b/object.bin", payload), CreateOutcome::kCreated);
  EXPECT_EQ(GetAll("a/b/object.bin"), payload);
  EXPECT_EQ(Create("a/b/sibling.json", "{\"x\":1}"), CreateOutcome::kCreated);
  EXPECT_EQ(GetAll("a/b/sibling.json"), "{\"x\":1}");
  EXPECT_EQ(GetAll("a/b/object.bin"), payload);
  auto text = GetString(store(), "a/b/sibling.json", 7);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "{\"x\":1}");
  EXPECT_EQ(GetString(store(), "a/b/sibling.json", 6).status().code(), StatusCode::kLimitExceeded);
}

TEST_P(StoreConformanceTest, IdenticalReplayIsAlreadyIdentical) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  EXPECT_EQ(Create("k", "same bytes"), CreateOutcome::kCreated);
  EXPECT_EQ(Create("k", "same bytes"), CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(Create("k", "same bytes"), CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(GetAll("k"), "same bytes");
}

TEST_P(StoreConformanceTest, ConflictingBytesAreAlreadyExistsAndLeaveTheOriginal) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  EXPECT_EQ(Create("k", "original"), CreateOutcome::kCreated);
  for (std::string_view other : {"originaL", "origina", "original+", ""}) {
    auto clash = store().CreateIfAbsent("k", AsBytes(other));
    EXPECT_EQ(clash.status().code(), StatusCode::kAlreadyExists) << other;
    EXPECT_EQ(clash.status().path(), "k");
  }
  EXPECT_EQ(GetAll("k"), "original");
  EXPECT_EQ(store().Head("k")->size, 8u);
}

TEST_P(StoreConformanceTest, EmptyObject) {
  EXPECT_EQ(Create("empty", ""), CreateOutcome::kCreated);
  auto got = store().Get("empty");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->empty());
  EXPECT_EQ(*GetRange("empty", 0, 0), "");
  EXPECT_EQ(GetRange("empty", 0, 1).status().code(), StatusCode::kOutOfRange);
  if (read_only_backend()) return;
  EXPECT_EQ(store().Head("empty")->size, 0u);
  EXPECT_EQ(Create("empty", ""), CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(store().CreateIfAbsent("empty", AsBytes("x")).status().code(), StatusCode::kAlreadyExists);
}

TEST_P(StoreConformanceTest, Ranges) {
  std::string payload = "0123456789";
  Create("r", payload);
  EXPECT_EQ(*GetRange("r", 0, 3), "012");
  EXPECT_EQ(*GetRange("r", 4, 3), "456");
  EXPECT_EQ(*GetRange("r", 7, 3), "789");
  EXPECT_EQ(*GetRange("r", 0, 10), payload);
  EXPECT_EQ(*GetRange("r", 0, 0), "");
  EXPECT_EQ(*GetRange("r", 5, 0), "");
  EXPECT_EQ(*GetRange("r", 10, 0), "");  // empty at the very end
  auto past = GetRange("r", 8, 3);
  EXPECT_EQ(past.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(past.status().path(), "r");
  EXPECT_EQ(GetRange("r", 11, 0).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(GetRange("r", 0, 11).status().code(), StatusCode::kOutOfRange);
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(GetRange("r", 2, kMax).status().code(), StatusCode::kOutOfRange);  // offset + length wraps
  EXPECT_EQ(GetRange("r", kMax, 2).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(GetRange("r", kMax, kMax).status().code(), StatusCode::kOutOfRange);
}

TEST_P(StoreConformanceTest, MaxBytesCapsTheAnswerNotTheObject) {
  Create("m", "0123456789");
  GetOptions options;
  options.max_bytes = 9;
  auto over = store().Get("m", options);
  EXPECT_EQ(over.status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(over.status().path(), "m");
  options.max_bytes = 10;
  EXPECT_EQ(store().Get("m", options)->view(), "0123456789");
  // A cap below the object's size but at least the range's length is fine.
  options.max_bytes = 4;
  options.range = ByteRange{3, 4};
  EXPECT_EQ(store().Get("m", options)->view(), "3456");
  options.range = ByteRange{3, 5};
  EXPECT_EQ(GetCode("m", options), StatusCode::kLimitExceeded);
  options.max_bytes = 0;
  options.range = ByteRange{3, 0};
  EXPECT_EQ(store().Get("m", options)->view(), "");
}

TEST_P(StoreConformanceTest, ExpectedSizeMismatchIsIntegrityError) {
  Create("s", "12345");
  GetOptions options;
  options.expected_size = 5;
  EXPECT_EQ(store().Get("s", options)->view(), "12345");
  options.range = ByteRange{1, 2};
  EXPECT_EQ(store().Get("s", options)->view(), "23");
  for (uint64_t wrong : {0ull, 4ull, 6ull, 1ull << 40}) {
    options.expected_size = wrong;
    auto got = store().Get("s", options);
    EXPECT_EQ(got.status().code(), StatusCode::kIntegrityError) << wrong;
    EXPECT_EQ(got.status().path(), "s");
  }
}

TEST_P(StoreConformanceTest, MissingKeyIsNotFound) {
  auto got = store().Get("no/such/object");
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(got.status().path(), "no/such/object");
  Create("present", "x");
  EXPECT_EQ(GetCode("present/child"), StatusCode::kNotFound);  // below an object
  EXPECT_EQ(GetCode("presen"), StatusCode::kNotFound);
  if (read_only_backend()) return;
  EXPECT_EQ(store().Head("no/such/object").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store().Head("present/child").status().code(), StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, InvalidKeysAreInvalidArgumentForEveryOperation) {
  Create("a/b", "x");
  for (std::string_view key : {"../x", "a//b", "a:b", "", "/abs", "a/./b", "a/..", "a\\b", "a?b", "a#b",
                               "trailing/", "ctl\x01"}) {
    SCOPED_TRACE(std::string(key));
    EXPECT_EQ(GetCode(key), StatusCode::kInvalidArgument);
    EXPECT_EQ(store().Head(key).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store().CreateIfAbsent(key, AsBytes("x")).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store().BeginCreate(key).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store().Delete(key).code(), StatusCode::kInvalidArgument);
  }
  std::string too_long(kMaxLogicalKeyBytes + 1, 'k');
  EXPECT_EQ(store().CreateIfAbsent(too_long, AsBytes("x")).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GetAll("a/b"), "x");
}

TEST_P(StoreConformanceTest, StreamingCreateIsInvisibleUntilCommit) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  auto begun = store().BeginCreate("stream/obj");
  ASSERT_TRUE(begun.ok()) << begun.status().ToString();
  auto writer = std::move(begun).value();
  std::string expected;
  for (int i = 0; i < 5; ++i) {
    std::string part = BinaryPayload(100 + static_cast<size_t>(i), static_cast<uint32_t>(i));
    ASSERT_TRUE(writer->Append(AsBytes(part)).ok());
    expected += part;
    EXPECT_EQ(writer->size(), expected.size());
    EXPECT_EQ(GetCode("stream/obj"), StatusCode::kNotFound);
    EXPECT_EQ(store().Head("stream/obj").status().code(), StatusCode::kNotFound);
  }
  ASSERT_TRUE(writer->Append({}).ok());
  auto committed = writer->Commit();
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  EXPECT_EQ(committed->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(committed->size, expected.size());
  EXPECT_EQ(GetAll("stream/obj"), expected);
  EXPECT_FALSE(writer->Commit().ok());  // at most once
}

TEST_P(StoreConformanceTest, AbandonedStreamingCreateLeavesNothing) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  {
    auto writer = std::move(store().BeginCreate("gone")).value();
    ASSERT_TRUE(writer->Append(AsBytes("partial")).ok());
  }
  EXPECT_EQ(GetCode("gone"), StatusCode::kNotFound);
  // The key is still free for a later create with other bytes.
  EXPECT_EQ(Create("gone", "complete"), CreateOutcome::kCreated);
  EXPECT_EQ(GetAll("gone"), "complete");
}

TEST_P(StoreConformanceTest, StreamingCommitOfAnExistingKey) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  Create("k", "abcdef");
  auto same = std::move(store().BeginCreate("k")).value();
  ASSERT_TRUE(same->Append(AsBytes("abc")).ok());
  ASSERT_TRUE(same->Append(AsBytes("def")).ok());
  auto replay = same->Commit();
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(replay->size, 6u);

  for (std::string_view other : {"abcdeX", "abcde", "abcdefg", ""}) {
    auto writer = std::move(store().BeginCreate("k")).value();
    ASSERT_TRUE(writer->Append(AsBytes(other)).ok());
    auto clash = writer->Commit();
    EXPECT_EQ(clash.status().code(), StatusCode::kAlreadyExists) << other;
  }
  EXPECT_EQ(GetAll("k"), "abcdef");
}

TEST_P(StoreConformanceTest, ConcurrentWritersOfOneKeyOneWins) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  auto first = std::move(store().BeginCreate("race")).value();
  auto second = std::move(store().BeginCreate("race")).value();
  ASSERT_TRUE(first->Append(AsBytes("first")).ok());
  ASSERT_TRUE(second->Append(AsBytes("second")).ok());
  EXPECT_EQ(second->Commit()->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(first->Commit().status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(GetAll("race"), "second");
}

TEST_P(StoreConformanceTest, LargeStreamingObjectRoundTripsAndCompares) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  // Several MiB in uneven chunks: a backend's compare of an existing object
  // must cover all of it, the last byte included.
  std::string payload = BinaryPayload((3u << 20) + 12345, 7);
  auto write = [&](std::string_view bytes) {
    auto writer = std::move(store().BeginCreate("big/object")).value();
    for (size_t at = 0; at < bytes.size(); at += 65521) {
      EXPECT_TRUE(writer->Append(AsBytes(bytes.substr(at, 65521))).ok());
    }
    return writer->Commit();
  };
  EXPECT_EQ(write(payload)->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(write(payload)->outcome, CreateOutcome::kAlreadyIdentical);
  std::string last_differs = payload;
  last_differs.back() = static_cast<char>(last_differs.back() ^ 1);
  EXPECT_EQ(write(last_differs).status().code(), StatusCode::kAlreadyExists);
  std::string first_differs = payload;
  first_differs.front() = static_cast<char>(first_differs.front() ^ 1);
  EXPECT_EQ(write(first_differs).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(store().CreateIfAbsent("big/object", AsBytes(last_differs)).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(store().CreateIfAbsent("big/object", AsBytes(payload))->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(GetAll("big/object"), payload);
  EXPECT_EQ(*GetRange("big/object", payload.size() - 5, 5), payload.substr(payload.size() - 5));
}

TEST_P(StoreConformanceTest, DeleteRemovesAndIsIdempotent) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  Create("d/obj", "bytes");
  ASSERT_TRUE(store().Delete("d/obj").ok());
  EXPECT_EQ(GetCode("d/obj"), StatusCode::kNotFound);
  EXPECT_EQ(store().Head("d/obj").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(store().Delete("d/obj").ok());
  EXPECT_TRUE(store().Delete("never/created").ok());
  // A deleted key is free again.
  EXPECT_EQ(Create("d/obj", "other bytes"), CreateOutcome::kCreated);
  EXPECT_EQ(GetAll("d/obj"), "other bytes");
}

TEST_P(StoreConformanceTest, BytesStayValidAfterDeleteAndAfterTheStoreIsGone) {
  std::string payload = BinaryPayload(10000, 3);
  Create("keep", payload);
  Bytes whole = std::move(store().Get("keep")).value();
  GetOptions options;
  options.range = ByteRange{100, 50};
  Bytes part = std::move(store().Get("keep", options)).value();
  ASSERT_TRUE(writer().Delete("keep").ok());
  EXPECT_EQ(whole.view(), payload);
  store_.reset();
  env_.keep_alive.clear();
  EXPECT_EQ(whole.view(), payload);
  EXPECT_EQ(part.view(), payload.substr(100, 50));
  Bytes slice = whole.Slice(9990, 10);
  whole = Bytes();
  EXPECT_EQ(slice.view(), payload.substr(9990));
}

TEST_P(StoreConformanceTest, HeadReportsSizes) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  Create("h/0", "");
  Create("h/1", "x");
  Create("h/big", BinaryPayload(70000, 9));
  EXPECT_EQ(store().Head("h/0")->size, 0u);
  EXPECT_EQ(store().Head("h/1")->size, 1u);
  EXPECT_EQ(store().Head("h/big")->size, 70000u);
  auto info = store().Head("h/1");
  EXPECT_EQ(info->revision.has_value(), store().capabilities().revisions);
}

TEST_P(StoreConformanceTest, LargeObjectWholeAndRangedReads) {
  std::string payload = BinaryPayload((3u << 20) + 777, 5);
  Create("big/read", payload);
  EXPECT_EQ(GetAll("big/read"), payload);
  GetOptions options;
  options.expected_size = payload.size();
  EXPECT_EQ(store().Get("big/read", options)->view(), payload);
  for (uint64_t offset : {uint64_t{0}, uint64_t{1} << 20, payload.size() - 65536}) {
    options.range = ByteRange{offset, 65536};
    auto got = store().Get("big/read", options);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->view(), payload.substr(offset, 65536)) << offset;
  }
}

TEST_P(StoreConformanceTest, ReadOnlyVariantRefusesWrites) {
  auto made = GetParam().make(env_, false);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  ObjectStore& ro = **made;
  EXPECT_FALSE(ro.capabilities().writable);
  Status refused = RequireWritable(ro, "ro");
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(), "store \"ro\" does not guarantee writes; refusing to write to it");
  EXPECT_EQ(ro.CreateIfAbsent("k", AsBytes("x")).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ro.BeginCreate("k").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ro.Delete("k").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ro.Get("k").status().code(), StatusCode::kNotFound);
  // A read-only remote never sends HEAD (sizes come from manifests).
  EXPECT_EQ(ro.Head("k").status().code(),
            read_only_backend() ? StatusCode::kUnimplemented : StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, ConcurrentCreatesOfOneKeyHaveExactlyOneWinner) {
  if (read_only_backend()) GTEST_SKIP() << "a write case: the backend is read-only";
  constexpr int kThreads = 8;
  for (int round = 0; round < 10; ++round) {
    std::string key = "race/" + std::to_string(round);
    // Threads i and i + 4 write the same bytes, so a loser can be an
    // identical replay as well as a conflict.
    std::vector<std::string> payloads;
    for (int i = 0; i < kThreads; ++i) payloads.push_back("payload " + std::to_string(i % 4) + BinaryPayload(4096, static_cast<uint32_t>(i % 4)));
    std::vector<Result<CreateResult>> results(kThreads, Result<CreateResult>(Internal("not run")));
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        results[static_cast<size_t>(i)] = store().CreateIfAbsent(key, AsBytes(payloads[static_cast<size_t>(i)]));
      });
    }
    for (auto& t : threads) t.join();
    int winners = 0;
    int winner = -1;
    for (int i = 0; i < kThreads; ++i) {
      const auto& r = results[static_cast<size_t>(i)];
      if (r.ok() && r->outcome == CreateOutcome::kCreated) {
        ++winners;
        winner = i;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    for (int i = 0; i < kThreads; ++i) {
      if (i == winner) continue;
      const auto& r = results[static_cast<size_t>(i)];
      if (payloads[static_cast<size_t>(i)] == payloads[static_cast<size_t>(winner)]) {
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_EQ(r->outcome, CreateOutcome::kAlreadyIdentical);
      } else {
        EXPECT_EQ(r.status().code(), StatusCode::kAlreadyExists) << r.status().ToString();
      }
    }
    EXPECT_EQ(GetAll(key), payloads[static_cast<size_t>(winner)]);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreConformanceTest, ::testing::ValuesIn(StoreFactories()),
                         [](const ::testing::TestParamInfo<StoreFactory>& param) { return param.param.name; });

}  // namespace
}  // namespace vigilo::store
