// Objects held whole in memory, over any ObjectStore: the first reused Get
// of a key reads the whole object from the inner store into anonymous
// memory that asks the kernel for 2 MiB pages (MADV_HUGEPAGE), and every
// later Get of the key is answered from there. For a long-lived reader of a
// local publication (`index eval`, a binding's open publication), where a
// one-at-a-time query's probed lists are a few dozen KB each at random
// places: read from the file mapping's 4 KiB pages every list costs page
// walks, read from 2 MiB pages it does not (docs/format/
// ivf-build-algorithms.md, "Resident objects").
//
// Bounded: objects are taken in while their total stays within max_bytes;
// an object that would pass it (and every Get with reuse = false, a reader
// that keeps its own copy) goes to the inner store as before. Held memory
// is returned when the store and every Bytes it handed out are gone.
// Answers are exactly the inner store's: the same bytes, and the same
// errors (the checks are PlanGet's on the object's size, as every backend's).
// The inner store's own answer is taken when memory cannot be had.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "vigilo/store/forwarding_store.h"

namespace vigilo::store {

struct ResidentStoreOptions {
  uint64_t max_bytes = 0;  // 0: nothing is held (every call forwards)
};

class ResidentStore final : public ForwardingStore {
 public:
  ResidentStore(std::unique_ptr<ObjectStore> inner, ResidentStoreOptions options);
  ~ResidentStore() override;

  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override;
  // One after another through Get (the store is for local objects, whose
  // batches the inner store runs one after another too).
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override;
  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* attempt = nullptr) override;
  // Forgets the key's copy (its memory stays until the store is gone).
  Status Delete(std::string_view key, const AttemptContext* attempt = nullptr) override;

  // Bytes of objects held so far.
  uint64_t held_bytes() const;

  class Arena;

 private:
  // The held copy of `key`, read whole now if it fits; nullopt when it is
  // not held (too large, no memory, or the inner store failed).
  std::optional<std::span<const uint8_t>> Hold(std::string_view key, const GetOptions& options);

  const ResidentStoreOptions options_;
  std::shared_ptr<Arena> arena_;  // shared with every Bytes handed out
  mutable std::mutex mu_;
  uint64_t held_ = 0;                                                     // guarded by mu_
  // Hashed (a query looks up every key it reads, and keys share long prefixes).
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };
  std::unordered_map<std::string, std::span<const uint8_t>, KeyHash, std::equal_to<>> objects_;  // guarded by mu_
  std::unordered_set<std::string, KeyHash, std::equal_to<>> too_large_;                          // guarded by mu_
};

}  // namespace vigilo::store
