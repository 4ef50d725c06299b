// Wrappers pass a batch through as one batch: a reader's round (a query's
// selected row-group runs) reaches the backend as one GetMany, which a
// remote backend sends at once. A wrapper that answered GetMany by looping
// over Get would serialise every round; these tests fail if one does.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vigilo/store/config.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/memory_store.h"
#include "vigilo/store/prefixed_store.h"

namespace vigilo::store {
namespace {

// Counts the batches and single Gets that reach it.
class BatchCountingStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override {
    ++singles;
    return inner().Get(key, options);
  }
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override {
    batch_sizes.push_back(requests.size());
    return inner().GetMany(requests);
  }
  std::vector<size_t> batch_sizes;
  int singles = 0;
};

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

INSTANTIATE_TEST_SUITE_P(Wrappers, WrapperBatchTest, ::testing::ValuesIn(Wrappers()),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace vigilo::store
