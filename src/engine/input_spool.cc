#include "input_spool.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "vigilo/common/file.h"

namespace vigilo::engine {
namespace {

constexpr size_t kCopyBuffer = 256 * 1024;  // the stream buffer budget

Status WriteAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot write the input spool", path);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

InputSpool::InputSpool(InputSpool&& other) noexcept
    : read_path_(std::move(other.read_path_)), spool_dir_(std::move(other.spool_dir_)),
      spooled_bytes_(other.spooled_bytes_), size_hint_(other.size_hint_) {
  other.spool_dir_.clear();
}

InputSpool& InputSpool::operator=(InputSpool&& other) noexcept {
  if (this != &other) {
    this->~InputSpool();
    new (this) InputSpool(std::move(other));
  }
  return *this;
}

InputSpool::~InputSpool() {
  if (!spool_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(spool_dir_, ec);
  }
}

Result<InputSpool> InputSpool::Open(const std::string& path, const std::filesystem::path& scratch_dir,
                                    uint64_t quota_bytes, ByteSource* stdin_source) {
  InputSpool spool;
  if (path != "-") {
    VIGILO_ASSIGN_OR_RETURN(auto probe, FileByteSource::Open(path));
    spool.read_path_ = path;
    spool.size_hint_ = probe->SizeHint();
    return spool;
  }
  std::unique_ptr<FileByteSource> owned_stdin;
  if (stdin_source == nullptr) {
    owned_stdin = FileByteSource::Stdin();
    stdin_source = owned_stdin.get();
  }
  std::string pattern = (scratch_dir / "vigilo-input-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return ErrnoStatus(errno, "cannot create the input spool directory in", scratch_dir.string());
  }
  spool.spool_dir_ = pattern;
  std::string file = (spool.spool_dir_ / "stdin").string();
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus(errno, "cannot create the input spool", file);
  std::string buffer(kCopyBuffer, '\0');
  Status status;
  while (status.ok()) {
    Result<size_t> n = stdin_source->Read(std::span<char>(buffer.data(), buffer.size()));
    if (!n.ok()) {
      status = n.status();
      break;
    }
    if (*n == 0) break;
    // Charged before it is written: a full quota stops here, never the disk.
    if (*n > quota_bytes - spool.spooled_bytes_) {
      status = LimitExceeded("standard input is larger than the validation spool (" + std::to_string(quota_bytes) +
                             " bytes), which must hold a copy of it; give the input as a file, or raise the "
                             "ingestion_validation_spool_bytes budget")
                   .WithPath("ingestion_validation_spool_bytes");
      break;
    }
    status = WriteAll(fd, buffer.data(), *n, file);
    spool.spooled_bytes_ += *n;
  }
  if (::close(fd) != 0 && status.ok()) status = ErrnoStatus(errno, "cannot close the input spool", file);
  if (!status.ok()) return status;  // the destructor removes the spool
  spool.read_path_ = file;
  spool.size_hint_ = spool.spooled_bytes_;
  return spool;
}

Result<std::unique_ptr<ByteSource>> InputSpool::OpenReader() const {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<FileByteSource> source, FileByteSource::Open(read_path_));
  return std::unique_ptr<ByteSource>(std::move(source));
}

}  // namespace vigilo::engine
