#include "vigilo/common/byte_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "vigilo/common/file.h"

namespace vigilo {

Result<size_t> StringByteSource::Read(std::span<char> buf) {
  size_t n = std::min(buf.size(), data_.size() - pos_);
  std::memcpy(buf.data(), data_.data() + pos_, n);
  pos_ += n;
  return n;
}

Result<std::unique_ptr<FileByteSource>> FileByteSource::Open(const std::string& path) {
  // A FIFO, device or directory is refused without blocking (stdin is the
  // way to stream from a pipe).
  VIGILO_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path));
  return std::unique_ptr<FileByteSource>(new FileByteSource(file.fd.release(), true, path));
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
    return ErrnoStatus(errno, "cannot read", name_);
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

Result<WholeFile> WholeFile::Open(const std::string& path, size_t max_bytes) {
  std::unique_ptr<FileByteSource> source;
  if (path.empty() || path == "-") {
    source = FileByteSource::Stdin();
  } else {
    VIGILO_ASSIGN_OR_RETURN(source, FileByteSource::Open(path));
  }
  const std::string name = path.empty() || path == "-" ? "<stdin>" : path;
  WholeFile file;
  const size_t size = source->SizeHint();
  if (size > max_bytes) {
    return LimitExceeded("input exceeds the limit of " + std::to_string(max_bytes) + " bytes").WithPath(name);
  }
  if (size > 0) {
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, source->fd_, 0);
    if (map != MAP_FAILED) {
      ::madvise(map, size, MADV_SEQUENTIAL);
      file.map_ = static_cast<char*>(map);
      file.map_size_ = size;
      return file;
    }
  }
  auto data = ReadAll(*source, max_bytes, size);  // a pipe, an empty file, or a file mmap refused
  if (!data.ok()) return std::move(data).take_status().WithPath(name);
  file.read_ = std::move(*data);
  return file;
}

WholeFile::WholeFile(WholeFile&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)), map_size_(std::exchange(other.map_size_, 0)),
      read_(std::move(other.read_)) {}

WholeFile& WholeFile::operator=(WholeFile&& other) noexcept {
  if (this != &other) {
    if (map_ != nullptr) ::munmap(map_, map_size_);
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    read_ = std::move(other.read_);
  }
  return *this;
}

WholeFile::~WholeFile() {
  if (map_ != nullptr) ::munmap(map_, map_size_);
}

}  // namespace vigilo
