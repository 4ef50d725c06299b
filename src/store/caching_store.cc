#include "vigilo/store/caching_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

#include "vigilo/common/file.h"
#include "vigilo/hash/sha256.h"

namespace vigilo::store {
namespace {

constexpr size_t kDigestSize = kSha256DigestSize;
constexpr size_t kEntryNameSize = 2 * kDigestSize;
// A temporary file this old belongs to a process that died mid-write.
constexpr int64_t kStaleTempSeconds = 3600;

std::string Hex(std::span<const uint8_t> bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

bool WriteAll(int fd, std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return true;
}

bool ReadAll(int fd, std::span<uint8_t> out) {
  uint64_t offset = 0;
  while (!out.empty()) {
    ssize_t n = ::pread(fd, out.data(), out.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out = out.subspan(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

bool IsEntryName(const std::string& name) {
  return name.size() == kEntryNameSize &&
         std::all_of(name.begin(), name.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

CachingStore::CachingStore(std::unique_ptr<ObjectStore> inner, CachingStoreOptions options)
    : ForwardingStore(std::move(inner)), options_(std::move(options)) {}

CachingStore::~CachingStore() = default;

CacheCounters CachingStore::counters() const {
  return CacheCounters{.hits = hits_.load(), .hit_bytes = hit_bytes_.load(), .misses = misses_.load()};
}

std::string CachingStore::EntryPath(std::string_view key, uint64_t object_size, const ByteRange& range) const {
  // NUL separates the parts: neither a namespace nor a key holds one, so
  // different tuples never hash the same text.
  std::string text = "vigilo-cache-v1";
  for (const std::string& part : {options_.cache_namespace, std::string(key), std::to_string(object_size),
                                  std::to_string(range.offset), std::to_string(range.length)}) {
    text.push_back('\0');
    text += part;
  }
  auto digest = Sha256(std::string_view(text));
  // Sha256 of a string in memory cannot fail; an empty name would simply miss.
  return options_.directory + "/" + (digest.ok() ? Hex(*digest) : std::string());
}

// The entry a Get may use, or nullopt when it is not cacheable: no size
// stated, or a request the seam refuses (the inner store's to refuse, with
// its own words: a cache hit must never turn an error into bytes).
std::optional<CachingStore::Slot> CachingStore::SlotFor(std::string_view key, const GetOptions& options) const {
  if (!options.expected_size || !ValidateStoreKey(key).ok()) return std::nullopt;
  auto plan = PlanGet(key, *options.expected_size, options);
  if (!plan.ok() || plan->length == 0) return std::nullopt;
  return Slot{EntryPath(key, *options.expected_size, *plan), plan->length};
}

bool CachingStore::Lookup(const Slot& slot, Bytes* out) {
  if (!ReadEntry(slot.path, slot.length, out)) return false;
  hits_.fetch_add(1);
  hit_bytes_.fetch_add(out->size());
  return true;
}

void CachingStore::Keep(const Slot& slot, const Bytes& fetched) {
  misses_.fetch_add(1);
  // A range larger than the whole bound would only be evicted at once.
  if (fetched.size() == slot.length && slot.length + kDigestSize <= options_.max_bytes) {
    WriteEntry(slot.path, fetched.span());
  }
}

Result<Bytes> CachingStore::Get(std::string_view key, const GetOptions& options) {
  std::optional<Slot> slot = SlotFor(key, options);
  if (!slot) return inner().Get(key, options);
  Bytes cached;
  if (Lookup(*slot, &cached)) return cached;
  VIGILO_ASSIGN_OR_RETURN(Bytes fetched, inner().Get(key, options));
  Keep(*slot, fetched);
  return fetched;
}

// Hits answered here; the misses go to the inner store as one batch, so a
// remote store still fetches them concurrently.
std::vector<GetResponse> CachingStore::GetMany(std::span<const GetRequest> requests) {
  std::vector<std::optional<GetResponse>> answers(requests.size());
  std::vector<std::optional<Slot>> slots(requests.size());
  std::vector<GetRequest> misses;
  std::vector<size_t> miss_index;
  for (size_t i = 0; i < requests.size(); ++i) {
    slots[i] = SlotFor(requests[i].key, requests[i].options);
    Bytes cached;
    if (slots[i] && Lookup(*slots[i], &cached)) {
      answers[i].emplace(GetResponse{std::move(cached), true});
    } else {
      misses.push_back(requests[i]);
      miss_index.push_back(i);
    }
  }
  std::vector<GetResponse> fetched = inner().GetMany(misses);
  for (size_t j = 0; j < fetched.size(); ++j) {
    const size_t i = miss_index[j];
    if (slots[i] && fetched[j].bytes.ok()) Keep(*slots[i], *fetched[j].bytes);
    answers[i].emplace(std::move(fetched[j]));
  }
  std::vector<GetResponse> out;
  out.reserve(requests.size());
  for (auto& a : answers) out.push_back(std::move(*a));
  return out;
}

bool CachingStore::ReadEntry(const std::string& path, uint64_t length, Bytes* out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) return false;
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (static_cast<uint64_t>(st.st_size) != length + kDigestSize) return false;
  std::vector<uint8_t> bytes(static_cast<size_t>(length) + kDigestSize);
  if (!ReadAll(fd.get(), bytes)) return false;
  std::span<const uint8_t> body(bytes.data(), static_cast<size_t>(length));
  auto digest = Sha256(body);
  if (!digest.ok() || std::memcmp(digest->data(), bytes.data() + length, kDigestSize) != 0) return false;
  // The access time eviction reads (mtime: atime is often not kept).
  ::futimens(fd.get(), nullptr);
  bytes.resize(static_cast<size_t>(length));
  *out = Bytes::FromVector(std::move(bytes));
  return true;
}

void CachingStore::WriteEntry(const std::string& path, std::span<const uint8_t> bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!directory_ready_) {
    std::error_code ec;
    std::filesystem::create_directories(options_.directory, ec);
    if (ec) return;
    directory_ready_ = true;
  }
  auto digest = Sha256(bytes);
  if (!digest.ok()) return;
  static std::atomic<uint64_t> sequence{0};
  // No fsync: an entry torn by a crash fails its digest and is refetched.
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::string tmp = options_.directory + "/.tmp-" + std::to_string(::getpid()) + "-" +
                      std::to_string(sequence.fetch_add(1)) + "-" + std::to_string(::time(nullptr));
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!fd.valid()) {
      if (errno == EEXIST) continue;
      return;
    }
    bool written = WriteAll(fd.get(), bytes) && WriteAll(fd.get(), *digest);
    // rename replaces an entry another process wrote meanwhile: the same bytes.
    if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
      ::unlink(tmp.c_str());
      return;
    }
    break;
  }
  if (known_bytes_ >= 0) known_bytes_ += static_cast<int64_t>(bytes.size() + kDigestSize);
  if (known_bytes_ < 0 || static_cast<uint64_t>(known_bytes_) > options_.max_bytes) Evict();
}

void CachingStore::Evict() {
  struct Entry {
    std::string path;
    uint64_t size;
    int64_t mtime_ns;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  const int64_t now = static_cast<int64_t>(::time(nullptr));
  std::error_code ec;
  for (std::filesystem::directory_iterator it(options_.directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string path = it->path().string();
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (name.starts_with(".tmp-")) {
      if (now - static_cast<int64_t>(st.st_mtim.tv_sec) > kStaleTempSeconds) ::unlink(path.c_str());
      continue;
    }
    if (!IsEntryName(name)) continue;  // not ours: never touched
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    entries.push_back({path, size, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec});
    total += size;
  }
  if (total > options_.max_bytes) {
    // Oldest first; unlinking leaves a reader's open descriptor intact.
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.mtime_ns < b.mtime_ns; });
    const uint64_t target = options_.max_bytes / 8 * 7;
    for (const Entry& e : entries) {
      if (total <= target) break;
      if (::unlink(e.path.c_str()) == 0 || errno == ENOENT) total -= e.size;
    }
  }
  known_bytes_ = static_cast<int64_t>(total);
}

}  // namespace vigilo::store
