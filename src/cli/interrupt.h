// SIGINT as cancellation for commands that write (ingestion, cleanup):
// the first Ctrl-C cancels what is running, so unfinished work stays
// recorded for a rerun; a second one stops the process at once.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "vigilo/store/clock.h"

namespace vigilo::cli {

// SIGINT → CancelToken. CancelToken::Cancel takes a mutex, which a signal
// handler must not, so the handler only writes a byte to a pipe and a
// watcher thread does the cancelling. Restores the previous handler.
class InterruptCancels {
 public:
  explicit InterruptCancels(store::CancelToken& cancel) {
    if (::pipe(fds_) != 0) return;
    write_fd_ = fds_[1];
    watcher_ = std::thread([this, &cancel] {
      char byte = 0;
      ssize_t n;
      while ((n = ::read(fds_[0], &byte, 1)) < 0 && errno == EINTR) {
      }
      if (n == 1 && byte == 'i') cancel.Cancel();
    });
    struct sigaction action {};
    action.sa_handler = [](int) {
      char byte = 'i';
      (void)!::write(write_fd_, &byte, 1);
    };
    action.sa_flags = SA_RESETHAND;  // a second Ctrl-C stops the process at once
    sigemptyset(&action.sa_mask);
    installed_ = sigaction(SIGINT, &action, &previous_) == 0;
  }
  InterruptCancels(const InterruptCancels&) = delete;
  InterruptCancels& operator=(const InterruptCancels&) = delete;
  ~InterruptCancels() {
    if (installed_) sigaction(SIGINT, &previous_, nullptr);
    if (watcher_.joinable()) {
      char byte = 'q';
      (void)!::write(fds_[1], &byte, 1);
      watcher_.join();
    }
    if (write_fd_ >= 0) {
      ::close(fds_[0]);
      ::close(fds_[1]);
      write_fd_ = -1;
    }
  }

 private:
  static inline volatile sig_atomic_t write_fd_ = -1;
  int fds_[2] = {-1, -1};
  std::thread watcher_;
  struct sigaction previous_ {};
  bool installed_ = false;
};

}  // namespace vigilo::cli
