#include "process_test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace vigilo::control::testing_support {
namespace {

bool WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

bool Link::Send(const std::string& message) {
  uint32_t size = static_cast<uint32_t>(message.size());
  return WriteAll(write_fd_, &size, sizeof size) && WriteAll(write_fd_, message.data(), message.size());
}

std::string Link::Receive() {
  uint32_t size = 0;
  if (!ReadAll(read_fd_, &size, sizeof size)) return "<eof>";
  std::string message(size, '\0');
  if (!ReadAll(read_fd_, message.data(), size)) return "<eof>";
  return message;
}

void Link::Close() {
  if (read_fd_ >= 0) ::close(read_fd_);
  if (write_fd_ >= 0) ::close(write_fd_);
  read_fd_ = write_fd_ = -1;
}

ChildProcess::ChildProcess(const std::function<void(Link&)>& body) {
  int to_child[2];
  int to_parent[2];
  if (::pipe(to_child) != 0 || ::pipe(to_parent) != 0) std::abort();
  pid_ = ::fork();
  if (pid_ < 0) std::abort();
  if (pid_ == 0) {
    ::close(to_child[1]);
    ::close(to_parent[0]);
    Link link(to_child[0], to_parent[1]);
    body(link);
    ::_exit(0);
  }
  ::close(to_child[0]);
  ::close(to_parent[1]);
  link_ = Link(to_parent[0], to_child[1]);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), link_(std::exchange(other.link_, Link{-1, -1})) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) Wait();
}

int ChildProcess::Wait() {
  if (pid_ <= 0) return -1;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  link_.Close();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace vigilo::control::testing_support
