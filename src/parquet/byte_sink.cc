#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "vigilo/common/file.h"
#include "vigilo/parquet/writer.h"

namespace vigilo::parquet {

Status MemorySink::Append(std::span<const uint8_t> bytes) {
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return Status::Ok();
}

Result<std::unique_ptr<FileSink>> FileSink::Create(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return ErrnoStatus(errno, "cannot create", path);
  }
  return std::unique_ptr<FileSink>(new FileSink(fd, path));
}

FileSink::~FileSink() {
  if (fd_ >= 0) ::close(fd_);
}

Status FileSink::Append(std::span<const uint8_t> bytes) {
  if (fd_ < 0) return IoError("file sink is closed").WithPath(path_);
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot write", path_);
    }
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status FileSink::Close() {
  if (fd_ < 0) return Status::Ok();
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) return ErrnoStatus(errno, "cannot close", path_);
  return Status::Ok();
}

}  // namespace vigilo::parquet
