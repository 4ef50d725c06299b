#include "vigilo/store/local_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "vigilo/common/file.h"

namespace vigilo::store {
namespace {

constexpr size_t kCompareChunk = 1 << 16;
// Each mapping is a kernel VMA (vm.max_map_count is 65530 by default), so the
// cache is bounded; an evicted mapping lives on while a Bytes still uses it.
constexpr size_t kMaxCachedMappings = 1024;

// A read-only, shared mapping of one whole object.
struct Mapping {
  Mapping(void* address, size_t length) : addr(address), size(length) {}
  ~Mapping() { ::munmap(addr, size); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  void* addr;
  size_t size;
};

Status KeyError(Status status, std::string_view key) { return std::move(status).WithPath(std::string(key)); }

Status NotADirectoryInTheWay(std::string_view key) {
  // A local directory cannot hold both "a" and "a/b"; retrying cannot help.
  return IoError("cannot create the object: one of its parent directories is a file").WithPath(std::string(key));
}

std::string ParentOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

// fsync of a directory makes the entries created or removed in it durable.
Status SyncDirectory(const std::string& dir, std::string_view key) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(errno, "cannot open the object's directory", key);
  if (::fsync(fd.get()) != 0) return ErrnoStatus(errno, "cannot fsync the object's directory", key);
  return Status::Ok();
}

Status WriteAll(int fd, std::span<const uint8_t> bytes, std::string_view key) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot write", key);
    }
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status ReadFullyAt(int fd, std::span<uint8_t> out, uint64_t offset, std::string_view key) {
  while (!out.empty()) {
    ssize_t n = ::pread(fd, out.data(), out.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot read", key);
    }
    if (n == 0) return IoError("the file ended early (truncated while in use?)").WithPath(std::string(key));
    out = out.subspan(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

// The bytes a create wanted, chunk by chunk, for comparison with an
// existing object without loading either whole.
using ExpectedChunk = std::function<Result<std::span<const uint8_t>>(uint64_t offset, size_t length)>;

// kAlreadyIdentical when the existing object at `target` holds exactly the
// `size` expected bytes, else AlreadyExists (the object is never touched).
Result<CreateResult> CompareWithExisting(const std::string& target, std::string_view key, uint64_t size,
                                         const ExpectedChunk& expected) {
  auto existing = OpenRegularFile(target);
  if (!existing.ok()) return KeyError(std::move(existing).take_status(), key);
  Status differs = AlreadyExists("object already exists with different bytes").WithPath(std::string(key));
  if (existing->size != size) return differs;
  std::vector<uint8_t> buffer(static_cast<size_t>(std::min<uint64_t>(size, kCompareChunk)));
  for (uint64_t offset = 0; offset < size;) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(size - offset, kCompareChunk));
    std::span<uint8_t> chunk(buffer.data(), n);
    VIGILO_RETURN_IF_ERROR(ReadFullyAt(existing->fd.get(), chunk, offset, key));
    VIGILO_ASSIGN_OR_RETURN(std::span<const uint8_t> want, expected(offset, n));
    if (std::memcmp(chunk.data(), want.data(), n) != 0) return differs;
    offset += n;
  }
  return CreateResult{CreateOutcome::kAlreadyIdentical, size, std::nullopt};
}

// Creates the key's missing parent directories below the root, fsyncing the
// directory that gained each new entry.
Status CreateParentDirectories(const std::string& root, std::string_view key) {
  for (size_t slash = key.find('/'); slash != std::string_view::npos; slash = key.find('/', slash + 1)) {
    std::string dir = root + "/" + std::string(key.substr(0, slash));
    if (::mkdir(dir.c_str(), 0755) == 0) {
      VIGILO_RETURN_IF_ERROR(SyncDirectory(ParentOf(dir), key));
      continue;
    }
    if (errno == EEXIST) continue;  // a directory, or a file that the temp-file open reports
    if (errno == ENOTDIR) return NotADirectoryInTheWay(key);
    return ErrnoStatus(errno, "cannot create directory", key);
  }
  return Status::Ok();
}

std::string RandomHex() {
  uint64_t value = 0;
  if (::getrandom(&value, sizeof value, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof value)) {
    static std::atomic<uint64_t> fallback{0};
    value = fallback.fetch_add(1) ^ static_cast<uint64_t>(::getpid()) << 32;
  }
  static const char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (size_t i = 0; i < 16; ++i) out[i] = kDigits[(value >> (60 - 4 * i)) & 0xf];
  return out;
}

struct TempFile {
  UniqueFd fd;
  std::string path;
};

// A private temporary file beside `target` (so link(2) stays on one
// filesystem). The dot and the pid/random suffix keep it from being mistaken
// for another object in practice.
Result<TempFile> CreateTempBeside(const std::string& root, const std::string& target, std::string_view key) {
  std::string dir = ParentOf(target);
  std::string base = target.substr(dir.size() + 1);
  bool made_parents = false;
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string tmp = dir + "/." + base + ".tmp-" + std::to_string(::getpid()) + "-" + RandomHex();
    // Read-write: a commit that finds the key taken compares through this descriptor.
    UniqueFd fd(::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd.valid()) return TempFile{std::move(fd), std::move(tmp)};
    int err = errno;
    if (err == EEXIST) continue;  // a name collision: draw again
    if (err == ENOENT && !made_parents) {
      made_parents = true;
      VIGILO_RETURN_IF_ERROR(CreateParentDirectories(root, key));
      --attempt;
      continue;
    }
    if (err == ENOTDIR) return NotADirectoryInTheWay(key);
    return ErrnoStatus(err, "cannot create a temporary file for", key);
  }
  return IoError("cannot pick an unused temporary file name").WithPath(std::string(key));
}

// Makes a complete, fsynced temporary file visible at `target` unless the
// key exists: link(2) fails with EEXIST instead of replacing anything.
// Returns true if linked, false if the key exists. The temp file is removed
// either way.
Result<bool> LinkIntoPlace(const std::string& tmp, const std::string& target, std::string_view key) {
  int linked = ::link(tmp.c_str(), target.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (linked == 0) {
    VIGILO_RETURN_IF_ERROR(SyncDirectory(ParentOf(target), key));
    return true;
  }
  if (err == EEXIST) return false;
  return ErrnoStatus(err, "cannot link the object into place", key);
}

// The streaming create: a temp file written as bytes arrive, linked into
// place at Commit; removed if the writer dies first.
class LocalWriter final : public ObjectWriter {
 public:
  LocalWriter(TempFile temp, std::string target, std::string key)
      : temp_(std::move(temp)), target_(std::move(target)), key_(std::move(key)) {}
  ~LocalWriter() override {
    if (!temp_.path.empty()) ::unlink(temp_.path.c_str());
  }

  Status Append(std::span<const uint8_t> bytes) override {
    if (!error_.ok()) return error_;
    if (done_) return Internal("append to a committed object writer").WithPath(key_);
    error_ = WriteAll(temp_.fd.get(), bytes, key_);
    if (error_.ok()) size_ += bytes.size();
    return error_;
  }
  uint64_t size() const override { return size_; }

  Result<CreateResult> Commit(const AttemptContext* = nullptr) override {
    if (!error_.ok()) return error_;
    if (done_) return Internal("object writer committed twice").WithPath(key_);
    done_ = true;
    if (::fsync(temp_.fd.get()) != 0) return ErrnoStatus(errno, "cannot fsync", key_);
    std::string tmp = std::move(temp_.path);
    temp_.path.clear();
    VIGILO_ASSIGN_OR_RETURN(bool linked, LinkIntoPlace(tmp, target_, key_));
    if (linked) return CreateResult{CreateOutcome::kCreated, size_, std::nullopt};
    // The temp file is unlinked but its descriptor still reads it.
    std::vector<uint8_t> buffer(kCompareChunk);
    int fd = temp_.fd.get();
    return CompareWithExisting(target_, key_, size_,
                               [&](uint64_t offset, size_t length) -> Result<std::span<const uint8_t>> {
                                 std::span<uint8_t> chunk(buffer.data(), length);
                                 VIGILO_RETURN_IF_ERROR(ReadFullyAt(fd, chunk, offset, key_));
                                 return std::span<const uint8_t>(chunk);
                               });
  }

 private:
  TempFile temp_;
  std::string target_;
  std::string key_;
  uint64_t size_ = 0;
  bool done_ = false;
  Status error_;
};

class LocalStore final : public ObjectStore {
 public:
  LocalStore(std::string root, bool writable)
      : root_(std::move(root)),
        capabilities_{.writable = writable,
                      .conditional_create = true,
                      .read_after_create = true,
                      .single_ranges = true,
                      .revisions = false} {}

  const Capabilities& capabilities() const override { return capabilities_; }

  Result<Bytes> Get(std::string_view key, const GetOptions& options) override {
    // Only valid keys are ever cached, so a cached key needs no second
    // validation (a query's ranged reads hit the cache every time).
    std::shared_ptr<const Mapping> mapping = CachedMapping(key);
    if (!mapping) {
      VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
      auto file = OpenRegularFile(PathOf(key));
      if (!file.ok()) return KeyError(std::move(file).take_status(), key);
      // Every check before mapping: a refused read costs no address space.
      VIGILO_RETURN_IF_ERROR(PlanGet(key, file->size, options).status());
      if (file->size == 0) return Bytes();
      VIGILO_ASSIGN_OR_RETURN(mapping, Map(file->fd.get(), file->size, key));
      if (options.reuse) mapping = Cache(key, std::move(mapping));
    }
    VIGILO_ASSIGN_OR_RETURN(ByteRange range, PlanGet(key, mapping->size, options));
    if (range.length == 0) return Bytes();
    std::span<const uint8_t> whole(static_cast<const uint8_t*>(mapping->addr), mapping->size);
    return Bytes(mapping, whole.subspan(static_cast<size_t>(range.offset), static_cast<size_t>(range.length)));
  }

  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    if (auto mapping = CachedMapping(key)) return ObjectInfo{mapping->size, std::nullopt};
    auto file = OpenRegularFile(PathOf(key));
    if (!file.ok()) return KeyError(std::move(file).take_status(), key);
    return ObjectInfo{file->size, std::nullopt};
  }

  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(CheckWrite(key));
    std::string target = PathOf(key);
    auto expected = [&](uint64_t offset, size_t length) -> Result<std::span<const uint8_t>> {
      return bytes.subspan(static_cast<size_t>(offset), length);
    };
    // A replay (the common case of a rerun) is verified without writing.
    auto present = CompareWithExisting(target, key, bytes.size(), expected);
    if (present.ok() || present.status().code() != StatusCode::kNotFound) return present;

    VIGILO_ASSIGN_OR_RETURN(TempFile temp, CreateTempBeside(root_, target, key));
    Status written = WriteAll(temp.fd.get(), bytes, key);
    if (written.ok() && ::fsync(temp.fd.get()) != 0) written = ErrnoStatus(errno, "cannot fsync", key);
    if (!written.ok()) {
      ::unlink(temp.path.c_str());
      return written;
    }
    VIGILO_ASSIGN_OR_RETURN(bool linked, LinkIntoPlace(temp.path, target, key));
    if (linked) return CreateResult{CreateOutcome::kCreated, bytes.size(), std::nullopt};
    return CompareWithExisting(target, key, bytes.size(), expected);  // lost a race
  }

  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(CheckWrite(key));
    std::string target = PathOf(key);
    VIGILO_ASSIGN_OR_RETURN(TempFile temp, CreateTempBeside(root_, target, key));
    return std::unique_ptr<ObjectWriter>(new LocalWriter(std::move(temp), std::move(target), std::string(key)));
  }

  Status Delete(std::string_view key, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(CheckWrite(key));
    std::string target = PathOf(key);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = mappings_.find(key); it != mappings_.end()) mappings_.erase(it);
    }
    if (::unlink(target.c_str()) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();  // already gone
      return ErrnoStatus(errno, "cannot delete", key);
    }
    return SyncDirectory(ParentOf(target), key);
  }

 private:
  std::string PathOf(std::string_view key) const { return root_ + "/" + std::string(key); }

  Status CheckWrite(std::string_view key) const {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    if (!capabilities_.writable) return InvalidArgument("the store is read-only").WithPath(std::string(key));
    return Status::Ok();
  }

  static Result<std::shared_ptr<const Mapping>> Map(int fd, uint64_t size, std::string_view key) {
    if (size > std::numeric_limits<size_t>::max()) return LimitExceeded("object too large to map").WithPath(std::string(key));
    void* addr = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
    if (addr == MAP_FAILED) return ErrnoStatus(errno, "cannot map", key);
    return std::shared_ptr<const Mapping>(std::make_shared<Mapping>(addr, static_cast<size_t>(size)));
  }

  std::shared_ptr<const Mapping> CachedMapping(std::string_view key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = mappings_.find(key);
    return it == mappings_.end() ? nullptr : it->second;
  }

  // Keeps the first mapping of a key when two readers raced to map it.
  std::shared_ptr<const Mapping> Cache(std::string_view key, std::shared_ptr<const Mapping> mapping) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = mappings_.find(key); it != mappings_.end()) return it->second;
    if (mappings_.size() >= kMaxCachedMappings) mappings_.erase(mappings_.begin());
    mappings_.emplace(std::string(key), mapping);
    return mapping;
  }

  const std::string root_;
  const Capabilities capabilities_;
  // Objects are immutable, so a mapping stays right for as long as its key
  // exists; Delete through this store drops it. (A key deleted and recreated
  // by another process behind this store's back is not the seam's contract.)
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const Mapping>, std::less<>> mappings_;
};

}  // namespace

Result<std::unique_ptr<ObjectStore>> OpenLocalStore(const std::string& root, const LocalStoreOptions& options) {
  if (root.empty()) return InvalidArgument("the local store's root directory is empty");
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(root, ec).lexically_normal().string();
  if (ec) return IoError("cannot resolve the root directory: " + ec.message()).WithPath(root);
  while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
  if (options.create_root) {
    std::filesystem::create_directories(absolute, ec);
    if (ec) return ErrnoStatus(ec.value(), "cannot create the root directory", root);
  }
  struct stat st;
  if (::stat(absolute.c_str(), &st) != 0) return ErrnoStatus(errno, "cannot open the root directory", root);
  if (!S_ISDIR(st.st_mode)) return InvalidArgument("the store's root is not a directory").WithPath(root);
  return std::unique_ptr<ObjectStore>(new LocalStore(std::move(absolute), options.writable));
}

}  // namespace vigilo::store
