// Wrappers pass a batch through as one batch: a reader's round (a query's
// selected row-group runs) reaches the backend as one GetMany, which a
// remote backend sends at once. A wrapper that answered GetMany by looping
// over Get would serialise every round; these tests fail if one does.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vigilo/store/caching_store.h"
#include "vigilo/store/config.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/memory_store.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/prefixed_store.h"

namespace vigilo::store {
namespace {

// Counts the batches and single Gets that reach it, and whether each
// request carried an attempt context.
class BatchCountingStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override {
    ++singles;
    return inner().Get(key, options);
  }
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override {
    batch_sizes.push_back(requests.size());
    for (const GetRequest& r : requests) with_context += r.options.attempt != nullptr ? 1 : 0;
    if (fail_first_attempt_of.empty()) return inner().GetMany(requests);
    std::vector<GetResponse> out = inner().GetMany(requests);
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].key == fail_first_attempt_of && requests[i].options.attempt->attempt == 0) {
        out[i].bytes = Unavailable("injected: the first attempt is lost");
      }
    }
    return out;
  }
  std::vector<size_t> batch_sizes;
  int singles = 0;
  int with_context = 0;
  std::string fail_first_attempt_of;  // this key's first attempt fails transiently
};

// A governor on a manual clock: backoffs take no time.
struct TestGovernor {
  explicit TestGovernor(uint64_t permits) {
    GovernorLimits limits;
    limits.concurrent_remote_requests = permits;
    governor = std::move(RequestGovernor::Create(limits, clock, random)).value();
  }
  ManualClock clock;
  SeededRandom random{7};
  std::unique_ptr<RequestGovernor> governor;
};

std::filesystem::path FreshDirectory(const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("vigilo-wrapper-batch-" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

struct Wrapped {
  std::string name;
  // The wrapper over `counting`, and the key prefix it adds.
  std::function<std::unique_ptr<ObjectStore>(ObjectStore& counting)> wrap;
  std::string prefix;
};

std::vector<Wrapped> Wrappers() {
  return {
      {"Forwarding", [](ObjectStore& s) { return std::make_unique<ForwardingStore>(s); }, ""},
      {"Prefixed",
       [](ObjectStore& s) { return std::move(MakePrefixedStore(std::make_unique<ForwardingStore>(s), "pubs/a")).value(); },
       "pubs/a/"},
      {"DeclaredCapabilities",
       [](ObjectStore& s) {
         return DeclareCapabilities(std::make_unique<ForwardingStore>(s), Capabilities{.writable = false});
       },
       ""},
      {"Governed",
       [](ObjectStore& s) {
         static TestGovernor governor(16);
         return std::make_unique<GovernedStore>(s, *governor.governor);
       },
       ""},
      {"FaultInjecting", [](ObjectStore& s) { return std::make_unique<FaultInjectingStore>(s, FaultPlan()); }, ""},
      {"Caching",
       [](ObjectStore& s) {
         return std::make_unique<CachingStore>(std::make_unique<ForwardingStore>(s),
                                               CachingStoreOptions{.directory = FreshDirectory("caching").string(),
                                                                   .cache_namespace = "test"});
       },
       ""},
  };
}

class WrapperBatchTest : public ::testing::TestWithParam<Wrapped> {};

TEST_P(WrapperBatchTest, ABatchReachesTheBackendAsOneBatch) {
  MemoryStore memory;
  const std::string& prefix = GetParam().prefix;
  for (const char* key : {"x/1", "x/2", "x/3"}) {
    const std::string bytes = std::string("bytes of ") + key;
    ASSERT_TRUE(memory
                    .CreateIfAbsent(prefix + key, std::span<const uint8_t>(
                                                      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()))
                    .ok());
  }
  BatchCountingStore counting(memory);
  std::unique_ptr<ObjectStore> wrapper = GetParam().wrap(counting);
  std::vector<GetRequest> batch = {{"x/1", {}}, {"x/2", {}}, {"x/3", {}}};
  batch[1].options.range = ByteRange{0, 5};
  std::vector<GetResponse> answers = wrapper->GetMany(batch);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0].bytes->view(), "bytes of x/1");
  EXPECT_EQ(answers[1].bytes->view(), "bytes");
  EXPECT_EQ(answers[2].bytes->view(), "bytes of x/3");
  EXPECT_EQ(counting.batch_sizes, std::vector<size_t>{3});
  EXPECT_EQ(counting.singles, 0);
}

// Keys x/0 … x/{n-1} in a memory store, each holding "bytes of x/i".
void Fill(MemoryStore& memory, int n) {
  for (int i = 0; i < n; ++i) {
    const std::string key = "x/" + std::to_string(i);
    const std::string bytes = "bytes of " + key;
    ASSERT_TRUE(memory
                    .CreateIfAbsent(key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                                  bytes.size()))
                    .ok());
  }
}

// Requests viewing `keys`, which outlive them.
std::vector<GetRequest> Requests(const std::vector<std::string>& keys) {
  std::vector<GetRequest> out;
  for (const std::string& key : keys) out.push_back({key, {}});
  return out;
}

TEST(GovernedBatchTest, ABatchGoesInWavesOfTheFreePermitsEachRequestWithItsAttemptContext) {
  MemoryStore memory;
  Fill(memory, 5);
  BatchCountingStore counting(memory);
  TestGovernor governor(2);
  GovernedStore governed(counting, *governor.governor);
  const std::vector<std::string> keys = {"x/0", "x/1", "x/2", "x/3", "x/4"};
  std::vector<GetRequest> batch = Requests(keys);
  std::vector<GetResponse> answers = governed.GetMany(batch);
  ASSERT_EQ(answers.size(), 5u);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(answers[i].bytes->view(), "bytes of " + keys[i]);
  EXPECT_EQ(counting.batch_sizes, (std::vector<size_t>{2, 2, 1}));
  EXPECT_EQ(counting.with_context, 5);
  EXPECT_EQ(counting.singles, 0);
  EXPECT_EQ(governor.governor->permits_available(), 2u);
}

TEST(GovernedBatchTest, ATransientFailureIsRetriedAloneInTheNextRound) {
  MemoryStore memory;
  Fill(memory, 3);
  BatchCountingStore counting(memory);
  counting.fail_first_attempt_of = "x/1";
  TestGovernor governor(4);
  GovernedStore governed(counting, *governor.governor);
  const std::vector<std::string> keys = {"x/0", "x/1", "x/2"};
  std::vector<GetRequest> batch = Requests(keys);
  std::vector<GetResponse> answers = governed.GetMany(batch);
  EXPECT_EQ(answers[0].bytes->view(), "bytes of x/0");
  ASSERT_TRUE(answers[1].bytes.ok()) << answers[1].bytes.status().ToString();
  EXPECT_EQ(answers[1].bytes->view(), "bytes of x/1");
  EXPECT_EQ(answers[2].bytes->view(), "bytes of x/2");
  EXPECT_EQ(counting.batch_sizes, (std::vector<size_t>{3, 1}));
}

TEST(GovernedBatchTest, AFinalErrorIsThatRequestsAloneAndNamesItsAttempts) {
  MemoryStore memory;
  Fill(memory, 2);
  TestGovernor governor(4);
  FaultInjectingStore faulty(memory, FaultPlan().OnKey("x/1", StoreOp::kGet, FaultKind::kTransient, 0, 100));
  GovernedStore governed(faulty, *governor.governor);
  const std::vector<std::string> keys = {"x/0", "x/1", "missing"};
  std::vector<GetRequest> batch = Requests(keys);
  std::vector<GetResponse> answers = governed.GetMany(batch);
  EXPECT_EQ(answers[0].bytes->view(), "bytes of x/0");
  ASSERT_FALSE(answers[1].bytes.ok());
  EXPECT_EQ(answers[1].bytes.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(answers[1].bytes.status().message().find("(after 3 attempts)"), std::string_view::npos)
      << answers[1].bytes.status().ToString();
  EXPECT_EQ(answers[2].bytes.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(faulty.faults_injected(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Wrappers, WrapperBatchTest, ::testing::ValuesIn(Wrappers()),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace vigilo::store
