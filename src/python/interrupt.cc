#include "interrupt.h"

#include <pybind11/pybind11.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace py = pybind11;

namespace vigilo::python {
namespace {

// CancelToken::Cancel takes a mutex, which a signal handler must not: the
// handler writes one byte to a pipe and the watcher thread cancels.
volatile sig_atomic_t g_write_fd = -1;

void OnSignal(int sig) {
  char byte = static_cast<char>(sig);
  if (g_write_fd >= 0) (void)!::write(g_write_fd, &byte, 1);
}

bool OnMainThread() {
  py::module_ threading = py::module_::import("threading");
  return threading.attr("current_thread")().is(threading.attr("main_thread")());
}

}  // namespace

InterruptGuard::InterruptGuard(store::CancelToken& cancel) {
  if (!OnMainThread() || g_write_fd >= 0 || ::pipe(fds_) != 0) return;
  g_write_fd = fds_[1];
  watcher_ = std::thread([this, &cancel] {
    char byte = 0;
    ssize_t n;
    while ((n = ::read(fds_[0], &byte, 1)) < 0 && errno == EINTR) {
    }
    if (n == 1 && byte == SIGINT) {
      fired_.store(true);
      cancel.Cancel();
    }
  });
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  installed_ = sigaction(SIGINT, &action, &previous_) == 0;
}

InterruptGuard::~InterruptGuard() {
  if (installed_) sigaction(SIGINT, &previous_, nullptr);
  if (watcher_.joinable()) {
    char byte = 'q';
    (void)!::write(fds_[1], &byte, 1);
    watcher_.join();
  }
  if (fds_[0] >= 0) {
    g_write_fd = -1;
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
}

Status InterruptGuard::Explain(Status status, const char* left) const {
  if (status.code() != StatusCode::kCancelled || !fired_.load()) return status;
  return Cancelled(std::string("interrupted by SIGINT; ") + left);
}

}  // namespace vigilo::python
