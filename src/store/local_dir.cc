#include "vigilo/store/local_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "vigilo/common/byte_source.h"
#include "vigilo/common/paths.h"

namespace vigilo::store {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  int err = errno;
  std::string msg = what + " " + path + ": " + std::strerror(err);
  return err == ENOENT ? NotFound(msg) : IoError(msg);
}

Status WriteAllAndSync(int fd, std::string_view bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write", path);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return Errno("cannot fsync", path);
  return Status::Ok();
}

}  // namespace

Result<CreateOutcome> CreateIfAbsent(const std::string& root, std::string_view key, std::string_view bytes) {
  VIGILO_RETURN_IF_ERROR(ValidateLogicalKey(key));
  std::filesystem::path target = std::filesystem::path(root) / std::string(key);
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) return IoError("cannot create directory " + target.parent_path().string() + ": " + ec.message());
  // A unique temporary name in the same directory, so link() stays on one filesystem.
  static std::atomic<uint64_t> counter{0};
  std::string tmp = target.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", tmp);
  Status written = WriteAllAndSync(fd, bytes, tmp);
  ::close(fd);
  if (!written.ok()) {
    ::unlink(tmp.c_str());
    return written;
  }
  int linked = ::link(tmp.c_str(), target.c_str());
  int link_errno = errno;
  ::unlink(tmp.c_str());
  if (linked == 0) {
    // Make the new directory entry durable too.
    int dir = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
    return CreateOutcome::kCreated;
  }
  if (link_errno != EEXIST) {
    errno = link_errno;
    return Errno("cannot create", target.string());
  }
  // Replay: verify the existing object rather than overwrite it.
  auto existing = ReadFileToString(target.string(), bytes.size());
  if (existing.ok() && *existing == bytes) return CreateOutcome::kAlreadyIdentical;
  if (!existing.ok() && existing.status().code() != StatusCode::kLimitExceeded) return existing.status();
  return AlreadyExists("object " + std::string(key) + " already exists with different bytes");
}

Result<std::string> ReadObject(const std::string& root, std::string_view key, size_t max_bytes) {
  VIGILO_RETURN_IF_ERROR(ValidateLogicalKey(key));
  return ReadFileToString((std::filesystem::path(root) / std::string(key)).string(), max_bytes);
}

}  // namespace vigilo::store
