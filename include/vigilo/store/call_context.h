// What one call of the ObjectStore seam may know about the request it is:
// which attempt of its operation, how long it may take, whether the caller
// has given up. The request governor (governor.h) is the only place that
// waits, retries or gives up; it fills an AttemptContext for every attempt
// and passes it down, so a backend implements exactly one attempt and sets
// its connect and transfer timeouts from the context. A call without a
// context (a bare backend, a test) is one attempt under DefaultAttempt's
// limits.
#pragma once

#include <cstdint>

#include "vigilo/common/status.h"
#include "vigilo/store/clock.h"

namespace vigilo::store {

// A stall detector for one transfer: reset only by transferred bytes
// (OnBytes with n > 0), bounded by the operation deadline. Not thread-safe:
// one transfer, one thread (a libcurl callback).
class ProgressTimer {
 public:
  ProgressTimer(Clock& clock, Micros no_progress_timeout, Micros deadline);

  void OnBytes(uint64_t n);
  // OK; DeadlineExceeded "no bytes transferred for N ms" once the timeout
  // has passed without bytes; DeadlineExceeded "operation deadline passed"
  // once the deadline has. Both are exact on the clock: at timeout - 1 µs
  // still OK.
  Status Check() const;
  // Time until Check() would fail (≥ 0), for a poll or socket timeout.
  Micros Remaining() const;

 private:
  Clock& clock_;
  Micros no_progress_timeout_;
  Micros deadline_;
  Micros last_progress_;
};

// What one attempt may know: which one it is and how long it may take. A
// remote sets its connect and transfer timeouts from these, and passes
// `cancel` into its transfer.
struct AttemptContext {
  uint32_t attempt = 0;          // 0 for the operation's first request
  uint32_t max_attempts = 0;
  Micros deadline = 0;           // the operation's, on clock->Now()
  Micros remaining = 0;          // deadline - now as the attempt starts (> 0)
  Micros connect_timeout = 0;    // the connection timeout, clipped to remaining
  Micros no_progress_timeout = 0;
  Clock* clock = nullptr;
  const CancelToken* cancel = nullptr;

  ProgressTimer StartProgressTimer() const { return ProgressTimer(*clock, no_progress_timeout, deadline); }
};

// The context of a call made without one: a single attempt starting now on
// `clock` with the seed's default timeouts (connection 5 s, no progress
// 15 s, operation deadline 120 s), not cancellable.
AttemptContext DefaultAttempt(Clock& clock);

}  // namespace vigilo::store
