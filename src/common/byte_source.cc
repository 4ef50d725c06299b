#include "vigilo/common/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
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

Result<std::string> ReadAll(ByteSource& source, size_t max_bytes, size_t size_hint) {
  // Reads straight into the string; with a size hint (a regular file) there
  // is one allocation and no copying. One byte past max_bytes proves overflow.
  std::string out;
  out.resize(std::min(std::max<size_t>(size_hint, 1) + 1, max_bytes + 1));
  size_t used = 0;
  while (true) {
    if (used == out.size()) {
      if (out.size() > max_bytes) break;
      out.resize(std::min(out.size() * 2, max_bytes + 1));
    }
    VIGILO_ASSIGN_OR_RETURN(size_t n, source.Read(std::span<char>(out.data() + used, out.size() - used)));
    if (n == 0) {
      out.resize(used);
      return out;
    }
    used += n;
  }
  return LimitExceeded("input exceeds the limit of " + std::to_string(max_bytes) + " bytes");
}

size_t FileByteSource::SizeHint() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) return 0;
  return static_cast<size_t>(st.st_size);
}

Result<std::string> ReadFileToString(const std::string& path, size_t max_bytes) {
  VIGILO_ASSIGN_OR_RETURN(auto source, FileByteSource::Open(path));
  auto data = ReadAll(*source, max_bytes, source->SizeHint());
  if (!data.ok()) return std::move(data).take_status().WithPath(path);
  return data;
}

}  // namespace vigilo
