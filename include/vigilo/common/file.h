// Local file helpers every layer shares: one errno -> Status mapping and one
// way to open a file for reading that refuses anything but a regular file
// (a FIFO, device or directory) without blocking on it.
#pragma once

#include <string>
#include <string_view>

#include "vigilo/common/result.h"

namespace vigilo {

// The Status for a failed system call: ENOENT/ENOTDIR -> NotFound,
// EEXIST -> AlreadyExists, ENOSPC/EDQUOT/EFBIG -> LimitExceeded,
// EINTR/EAGAIN -> Unavailable, everything else (EACCES, EMFILE, EIO, …)
// -> IoError. The message is "<action>: <strerror>", the path is `path`.
Status ErrnoStatus(int err, std::string_view action, std::string_view path);

// An owned file descriptor (closed on destruction).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

struct RegularFile {
  UniqueFd fd;
  uint64_t size = 0;
};

// Opens `path` read-only with O_NONBLOCK (so a FIFO cannot block the open),
// fstats it, refuses anything that is not a regular file (InvalidArgument
// naming what it is: "a FIFO", "a directory", "a device", …), then clears
// O_NONBLOCK. Errors map through ErrnoStatus.
Result<RegularFile> OpenRegularFile(const std::string& path);

}  // namespace vigilo
