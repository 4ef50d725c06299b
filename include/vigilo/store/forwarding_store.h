// A store that passes every call to another one: the base of wrappers that
// change one or two calls (a reader's prefetched ranges, tests that count or
// refuse something), so each says only what it changes.
#pragma once

#include <memory>
#include <span>
#include <utility>
#include <string_view>
#include <vector>

#include "vigilo/store/object_store.h"

namespace vigilo::store {

class ForwardingStore : public ObjectStore {
 public:
  // `inner` outlives the wrapper.
  explicit ForwardingStore(ObjectStore& inner) : inner_(inner) {}
  // The wrapper owns `inner`.
  explicit ForwardingStore(std::unique_ptr<ObjectStore> inner) : owned_(std::move(inner)), inner_(*owned_) {}

  const Capabilities& capabilities() const override { return inner_.capabilities(); }
  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override { return inner_.Get(key, options); }
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override { return inner_.GetMany(requests); }
  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* attempt = nullptr) override {
    return inner_.Head(key, attempt);
  }
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                      const AttemptContext* attempt = nullptr) override {
    return inner_.CreateIfAbsent(key, bytes, attempt);
  }
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key,
                                                    const AttemptContext* attempt = nullptr) override {
    return inner_.BeginCreate(key, attempt);
  }
  Status Delete(std::string_view key, const AttemptContext* attempt = nullptr) override {
    return inner_.Delete(key, attempt);
  }

 protected:
  ObjectStore& inner() { return inner_; }

 private:
  std::unique_ptr<ObjectStore> owned_;  // set when the wrapper owns inner_
  ObjectStore& inner_;
};

}  // namespace vigilo::store
