// Real processes for the race tests: fork() a child that runs a body with a
// message link to the parent (length-prefixed messages over two pipes). A
// child opens its own control-store connection (never one inherited over
// fork) and leaves with _exit, so no test state is torn down twice.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace vigilo::control::testing_support {

class Link {
 public:
  Link(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}
  // false when the other side is gone.
  bool Send(const std::string& message);
  // The next message; "<eof>" when the other side closed without one.
  std::string Receive();
  void Close();

 private:
  int read_fd_;
  int write_fd_;
};

class ChildProcess {
 public:
  // Forks; the child runs body(link) and exits with 0 (or 1 if it could
  // not talk to the parent).
  explicit ChildProcess(const std::function<void(Link&)>& body);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ~ChildProcess();

  bool Send(const std::string& message) { return link_.Send(message); }
  std::string Receive() { return link_.Receive(); }
  // The child's exit status (waitpid); -1 if it died by a signal.
  int Wait();

 private:
  pid_t pid_ = -1;
  Link link_{-1, -1};
};

}  // namespace vigilo::control::testing_support
