// The in-memory backend: the one test fake of the store shared by every
// test, and the backing of crash tests (a fresh wrapper over the same
// MemoryStore is a restarted process over the same bucket). Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "vigilo/store/object_store.h"

namespace vigilo::store {

class MemoryStore final : public ObjectStore {
 public:
  explicit MemoryStore(Capabilities capabilities = {.writable = true,
                                                    .conditional_create = true,
                                                    .read_after_create = true,
                                                    .single_ranges = true,
                                                    .revisions = false});

  const Capabilities& capabilities() const override { return capabilities_; }
  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override;
  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* = nullptr) override;
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const AttemptContext* = nullptr) override;
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key, const AttemptContext* = nullptr) override;
  Status Delete(std::string_view key, const AttemptContext* = nullptr) override;

  // Test inspection and tampering (not part of the seam).
  size_t object_count() const;
  std::optional<std::string> Peek(std::string_view key) const;
  // Replaces or inserts an object behind the seam's back (corruption tests).
  void Overwrite(std::string_view key, std::string bytes);
  // Every key, sorted (tests only: the seam itself has no listing).
  std::vector<std::string> Keys() const;

 private:
  Capabilities capabilities_;
  mutable std::mutex mu_;
  std::map<std::string, Bytes, std::less<>> objects_;
};

}  // namespace vigilo::store
