#include "vigilo/common/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vigilo {
namespace {

// What a non-regular file is, for the refusal message.
std::string_view FileKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "an unknown kind of file";
}

}  // namespace

Status ErrnoStatus(int err, std::string_view action, std::string_view path) {
  std::string message(action);
  message += ": ";
  message += std::strerror(err);
  StatusCode code;
  switch (err) {
    case ENOENT:
    case ENOTDIR: code = StatusCode::kNotFound; break;
    case EEXIST: code = StatusCode::kAlreadyExists; break;
    case ENOSPC:
    case EDQUOT:
    case EFBIG: code = StatusCode::kLimitExceeded; break;
    case EINTR:
    case EAGAIN: code = StatusCode::kUnavailable; break;
    default: code = StatusCode::kIoError; break;
  }
  return Status(code, std::move(message)).WithPath(std::string(path));
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Result<RegularFile> OpenRegularFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  // forever; the mode is checked before anything reads from the descriptor.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(errno, "cannot open", path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "cannot stat", path);
  if (!S_ISREG(st.st_mode)) {
    std::string kind(FileKind(st.st_mode));
    return InvalidArgument("not a regular file: it is " + kind).WithPath(path);
  }
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return ErrnoStatus(errno, "cannot clear O_NONBLOCK on", path);
  }
  return RegularFile{std::move(fd), static_cast<uint64_t>(st.st_size)};
}

}  // namespace vigilo
