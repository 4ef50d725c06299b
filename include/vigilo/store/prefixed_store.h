// A store seen from one of its key prefixes: key K is the inner store's
// PREFIX/K. What `ALIAS:KEY` locators use to read a publication that lives
// under a prefix of a configured store, whose manifest names its objects
// relative to itself (seed 002: relative paths). Every call forwards, a
// batch as one batch; errors name the caller's keys.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/store/forwarding_store.h"

namespace vigilo::store {

class PrefixedStore final : public ForwardingStore {
 public:
  // `prefix` is empty or a valid key directory ending in '/' (checked by
  // MakePrefixedStore).
  PrefixedStore(std::unique_ptr<ObjectStore> inner, std::string prefix)
      : ForwardingStore(std::move(inner)), prefix_(std::move(prefix)) {}

  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override;
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override;
  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* = nullptr) override;
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const AttemptContext* = nullptr) override;
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key, const AttemptContext* = nullptr) override;
  Status Delete(std::string_view key, const AttemptContext* = nullptr) override;

  const std::string& prefix() const { return prefix_; }

 private:
  std::string Full(std::string_view key) const { return prefix_ + std::string(key); }
  // Errors name keys as the caller gave them: the inner store's PREFIX/K is K.
  Status Own(Status s) const;
  std::string prefix_;
};

// `prefix` without a trailing '/' gets one; an empty prefix is the whole
// store. InvalidArgument when PREFIX/x would not be a valid store key.
Result<std::unique_ptr<ObjectStore>> MakePrefixedStore(std::unique_ptr<ObjectStore> inner, std::string_view prefix);

}  // namespace vigilo::store
