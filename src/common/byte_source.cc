#include "vigilo/common/byte_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vigilo {

Result<size_t> StringByteSource::Read(std::span<char> buf) {
  size_t n = std::min(buf.size(), data_.size() - pos_);
  std::memcpy(buf.data(), data_.data() + pos_, n);
  pos_ += n;
  return n;
}

Result<std::unique_ptr<FileByteSource>> FileByteSource::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string msg = "cannot open " + path + ": " + std::strerror(err);
    return err == ENOENT ? NotFound(msg) : IoError(msg);
  }
  return std::unique_ptr<FileByteSource>(new FileByteSource(fd, true, path));
}

std::unique_ptr<FileByteSource> FileByteSource::Stdin() {
  return std::unique_ptr<FileByteSource>(new FileByteSource(0, false, "<stdin>"));
}

FileByteSource::~FileByteSource() {
  if (owned_) ::close(fd_);
}

Result<size_t> FileByteSource::Read(std::span<char> buf) {
  while (true) {
    ssize_t n = ::read(fd_, buf.data(), buf.size());
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    return IoError("cannot read " + name_ + ": " + std::strerror(errno));
  }
}

Result<std::string> ReadAll(ByteSource& source, size_t max_bytes) {
  std::string out;
  char chunk[1 << 16];
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(size_t n, source.Read(chunk));
    if (n == 0) return out;
    if (out.size() + n > max_bytes) {
      return LimitExceeded("input exceeds the limit of " + std::to_string(max_bytes) + " bytes");
    }
    out.append(chunk, n);
  }
}

Result<std::string> ReadFileToString(const std::string& path, size_t max_bytes) {
  VIGILO_ASSIGN_OR_RETURN(auto source, FileByteSource::Open(path));
  auto data = ReadAll(*source, max_bytes);
  if (!data.ok()) return std::move(data).take_status().WithPath(path);
  return data;
}

}  // namespace vigilo
