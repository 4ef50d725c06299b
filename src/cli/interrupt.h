// SIGINT and SIGTERM as cancellation for long commands (ingestion, cleanup,
// index build, eval and verify, embed import, dataset export; docs/errors.md,
// "Signals"): the first signal cancels what is running — the command
// then removes what it created, or keeps unfinished work recorded for a
// rerun, and exits with `cancelled`'s status (docs/errors.md) — and a second
// one of the same kind stops the process at once.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <string>
#include <thread>

#include "vigilo/common/status.h"
#include "vigilo/store/clock.h"

namespace vigilo::cli {

// Signal → CancelToken. CancelToken::Cancel takes a mutex, which a signal
// handler must not, so the handler only writes the signal's number to a
// pipe and a watcher thread does the cancelling (and says so on stderr).
// Restores the previous handlers.
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
      if (n == 1 && (byte == SIGINT || byte == SIGTERM)) {
        signal_.store(byte);
        std::fprintf(stderr, "\nvigilo: %s: cancelling (%s again stops at once)\n", Name(byte), Name(byte));
        cancel.Cancel();
      }
    });
    struct sigaction action {};
    action.sa_handler = [](int sig) {
      char byte = static_cast<char>(sig);
      (void)!::write(write_fd_, &byte, 1);
    };
    action.sa_flags = SA_RESETHAND;  // a second signal stops the process at once
    sigemptyset(&action.sa_mask);
    installed_int_ = sigaction(SIGINT, &action, &previous_int_) == 0;
    installed_term_ = sigaction(SIGTERM, &action, &previous_term_) == 0;
  }
  InterruptCancels(const InterruptCancels&) = delete;
  InterruptCancels& operator=(const InterruptCancels&) = delete;
  ~InterruptCancels() {
    if (installed_int_) sigaction(SIGINT, &previous_int_, nullptr);
    if (installed_term_) sigaction(SIGTERM, &previous_term_, nullptr);
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

  // SIGINT or SIGTERM once one arrived, else 0. Read after the command returned.
  int signal() const { return signal_.load(); }

  // A `cancelled` status from a command this object watched, said as the
  // signal that caused it: "interrupted by SIGINT; <what the command left>".
  Status Explain(Status status, const std::string& left) const {
    const int sig = signal_.load();
    if (status.code() != StatusCode::kCancelled || sig == 0) return status;
    return Cancelled(std::string("interrupted by ") + Name(sig) + "; " + left);
  }

 private:
  static const char* Name(int sig) { return sig == SIGTERM ? "SIGTERM" : "SIGINT"; }

  static inline volatile sig_atomic_t write_fd_ = -1;
  int fds_[2] = {-1, -1};
  std::thread watcher_;
  std::atomic<int> signal_{0};
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  bool installed_int_ = false;
  bool installed_term_ = false;
};

}  // namespace vigilo::cli
