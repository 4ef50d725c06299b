// A read-through cache of immutable bytes in a local directory, over any
// ObjectStore (docs/format/http-reading.md, "The cache directory"). A Get
// that names its object's size (expected_size: every publication read does)
// is answered from a file when the same (namespace, key, size, range) was
// fetched before, by this or another process; otherwise the inner store
// answers and the bytes are stored for next time. Only Gets with
// expected_size are cached: the size says the caller knows the object from
// an immutable description (a manifest), while a manifest itself is read
// without one and always goes to the inner store.
//
// An entry is the bytes followed by their SHA-256; a file of another length
// or digest (a torn disk, a stray edit) is ignored and refetched. Entries are
// written to a temporary file in the directory and renamed into place, so a
// crash leaves no partial entry and concurrent writers of one entry (whose
// bytes are identical) are harmless. The directory is bounded: past
// max_bytes the least recently used entries (mtime, refreshed on every hit)
// are unlinked, which never disturbs a process still reading one.
//
// The cache never fails a read: an unusable directory or a failed write
// leaves the inner store's answer unchanged.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>
#include <string>

#include "vigilo/common/result.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

inline constexpr uint64_t kDefaultCacheMaxBytes = uint64_t{256} << 20;

struct CachingStoreOptions {
  // The cache directory (created with its parents when missing).
  std::string directory;
  // Part of every entry's name: entries of different namespaces never meet.
  // Publications use their artifact-uuid and a hash of their base URL.
  std::string cache_namespace;
  // The directory's bound, over every namespace and process (approximate:
  // checked after each write by this process).
  uint64_t max_bytes = kDefaultCacheMaxBytes;
};

// What the cache did so far (this process, this store).
struct CacheCounters {
  uint64_t hits = 0;       // Gets answered from the directory
  uint64_t hit_bytes = 0;  // their bytes
  uint64_t misses = 0;     // cacheable Gets the inner store answered
};

class CachingStore final : public ForwardingStore {
 public:
  CachingStore(std::unique_ptr<ObjectStore> inner, CachingStoreOptions options);
  ~CachingStore() override;

  // Everything but reads forwards unchanged: the cache adds no write path.
  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override;
  // Hits are answered from the directory (GetResponse::cached); the misses
  // go to the inner store's GetMany as one batch.
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override;

  CacheCounters counters() const;
  // The entry file a Get would use (tests corrupt it).
  std::string EntryPath(std::string_view key, uint64_t object_size, const ByteRange& range) const;

 private:
  struct Slot {
    std::string path;  // the entry file
    uint64_t length;   // the bytes the Get returns
  };
  std::optional<Slot> SlotFor(std::string_view key, const GetOptions& options) const;
  bool Lookup(const Slot& slot, Bytes* out);
  void Keep(const Slot& slot, const Bytes& fetched);
  bool ReadEntry(const std::string& path, uint64_t length, Bytes* out);
  void WriteEntry(const std::string& path, std::span<const uint8_t> bytes);
  // Unlinks least recently used entries until the directory is under 7/8
  // of max_bytes.
  void Evict();

  CachingStoreOptions options_;
  std::mutex mu_;
  bool directory_ready_ = false;
  // Bytes this process wrote since the last scan, plus what that scan found
  // (-1 before the first scan).
  int64_t known_bytes_ = -1;
  std::atomic<uint64_t> hits_{0}, hit_bytes_{0}, misses_{0};
};

}  // namespace vigilo::store
