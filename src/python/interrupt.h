// Ctrl-C as cancellation, as the CLI's interrupt handler does it
// (src/cli/interrupt.h; docs/errors.md, "Signals"): while a long operation
// runs with the GIL released, Python's own SIGINT handler cannot run, so
// the guard installs one that cancels the operation's token instead. The
// operation then stops at its next step, cleans up as the CLI's would, and
// the binding raises vigilo.Cancelled (a KeyboardInterrupt). Python's
// handler is back when the guard ends. Only the main thread installs one
// (signals are delivered to Python there); elsewhere the guard does nothing.
//
// A copy of the CLI's mechanism rather than a shared one: signal handling
// belongs to an edge, and the engine takes a CancelToken from whichever
// edge calls it.
#pragma once

#include <signal.h>

#include <atomic>
#include <thread>

#include "vigilo/common/status.h"
#include "vigilo/store/clock.h"

namespace vigilo::python {

class InterruptGuard {
 public:
  // Call with the GIL held (it asks Python whether this is the main thread).
  explicit InterruptGuard(store::CancelToken& cancel);
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  ~InterruptGuard();

  // `cancelled` caused by the signal, said so: "interrupted by SIGINT; <left>".
  Status Explain(Status status, const char* left) const;

 private:
  int fds_[2] = {-1, -1};
  std::thread watcher_;
  std::atomic<bool> fired_{false};
  bool installed_ = false;
  struct sigaction previous_ {};
};

}  // namespace vigilo::python
