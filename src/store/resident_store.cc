#include "vigilo/store/resident_store.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace vigilo::store {

// Anonymous memory in chunks of whole 2 MiB pages, each chunk aligned to
// 2 MiB (so the kernel can back it with huge pages) and asked for them;
// objects are placed one after another, 64-byte aligned. Nothing is freed
// before the arena goes: objects are immutable and held for the store's
// life. A chunk is reserved address space; only the pages written to (the
// objects' bytes, rounded up to the page the last one ends in) take memory.
class ResidentStore::Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    for (const Chunk& c : chunks_) ::munmap(c.base, c.length);
  }

  // n writable bytes, or nullptr when no memory can be had.
  uint8_t* Allocate(size_t n) {
    const size_t at = (used_ + 63) & ~size_t{63};
    if (chunks_.empty() || at > chunks_.back().length || n > chunks_.back().length - at) {
      if (n > SIZE_MAX - kPage) return nullptr;
      if (!NewChunk(std::max(kChunk, (n + kPage - 1) / kPage * kPage))) return nullptr;
      used_ = n;
      return chunks_.back().base;
    }
    used_ = at + n;
    return chunks_.back().base + at;
  }

 private:
  static constexpr size_t kPage = size_t{2} << 20;
  static constexpr size_t kChunk = size_t{32} << 20;
  struct Chunk {
    uint8_t* base;
    size_t length;
  };

  bool NewChunk(size_t length) {
    // Over-reserve by one page and trim, so the chunk starts on a 2 MiB boundary.
    if (length > SIZE_MAX - kPage) return false;
    const size_t reserved = length + kPage;
    void* p = ::mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    const uintptr_t start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (start + kPage - 1) & ~uintptr_t{kPage - 1};
    if (aligned > start) ::munmap(p, aligned - start);
    const uintptr_t end = start + reserved, used_end = aligned + length;
    if (end > used_end) ::munmap(reinterpret_cast<void*>(used_end), end - used_end);
    // Advice only: without huge pages (a kernel without THP, or "never")
    // the bytes are still right, on 4 KiB pages.
    ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
    chunks_.push_back({reinterpret_cast<uint8_t*>(aligned), length});
    return true;
  }

  std::vector<Chunk> chunks_;
  size_t used_ = 0;  // of the last chunk
};

ResidentStore::ResidentStore(std::unique_ptr<ObjectStore> inner, ResidentStoreOptions options)
    : ForwardingStore(std::move(inner)), options_(options), arena_(std::make_shared<Arena>()) {}

ResidentStore::~ResidentStore() = default;

uint64_t ResidentStore::held_bytes() const {
  std::lock_guard lock(mu_);
  return held_;
}

std::optional<std::span<const uint8_t>> ResidentStore::Hold(std::string_view key, const GetOptions& options) {
  // Under the lock throughout: two first reads of one key read it once,
  // and the arena is not thread-safe. (The inner store is local: a read
  // is a copy from the page cache.)
  std::lock_guard lock(mu_);
  if (auto it = objects_.find(key); it != objects_.end()) return it->second;
  if (too_large_.contains(key) || held_ >= options_.max_bytes) return std::nullopt;
  GetOptions whole;
  whole.max_bytes = options_.max_bytes - held_;
  whole.expected_size = options.expected_size;
  whole.reuse = false;  // the inner store keeps nothing of it: the copy is here
  whole.attempt = options.attempt;
  Result<Bytes> bytes = inner().Get(key, whole);
  if (!bytes.ok()) {
    // Too large for what is left, or any other failure: the caller's own
    // Get goes to the inner store, which answers it as it always would.
    if (bytes.status().code() == StatusCode::kLimitExceeded) too_large_.emplace(key);
    return std::nullopt;
  }
  uint8_t* copy = bytes->empty() ? nullptr : arena_->Allocate(bytes->size());
  if (!bytes->empty() && copy == nullptr) return std::nullopt;
  if (copy != nullptr) std::memcpy(copy, bytes->data(), bytes->size());
  held_ += bytes->size();
  const std::span<const uint8_t> held(copy, bytes->size());
  objects_.emplace(std::string(key), held);
  return held;
}

Result<Bytes> ResidentStore::Get(std::string_view key, const GetOptions& options) {
  if (!options.reuse || options_.max_bytes == 0) return inner().Get(key, options);
  const std::optional<std::span<const uint8_t>> held = Hold(key, options);
  if (!held) return inner().Get(key, options);
  VIGILO_ASSIGN_OR_RETURN(ByteRange range, PlanGet(key, held->size(), options));
  if (range.length == 0) return Bytes();
  return Bytes(arena_, held->subspan(static_cast<size_t>(range.offset), static_cast<size_t>(range.length)));
}

// ObjectStore's own batch (each request through this store's Get), not the
// forwarding base's, which would hand the batch to the inner store whole.
std::vector<GetResponse> ResidentStore::GetMany(std::span<const GetRequest> requests) {
  return ObjectStore::GetMany(requests);
}

Result<ObjectInfo> ResidentStore::Head(std::string_view key, const AttemptContext* attempt) {
  {
    std::lock_guard lock(mu_);
    if (auto it = objects_.find(key); it != objects_.end()) return ObjectInfo{it->second.size(), std::nullopt};
  }
  return inner().Head(key, attempt);
}

Status ResidentStore::Delete(std::string_view key, const AttemptContext* attempt) {
  {
    std::lock_guard lock(mu_);
    if (auto it = objects_.find(key); it != objects_.end()) objects_.erase(it);
    if (auto it = too_large_.find(key); it != too_large_.end()) too_large_.erase(it);
  }
  return inner().Delete(key, attempt);
}

}  // namespace vigilo::store
