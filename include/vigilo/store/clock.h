// Time, sleep, randomness and cancellation, injected wherever leases,
// retries, deadlines and tests need them (the request governor, the control
// store). Production uses SystemClock/SystemRandom; tests use ManualClock
// and a seeded or scripted RandomSource so timeouts take milliseconds.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "vigilo/common/status.h"
#include "vigilo/common/uuid.h"

namespace vigilo::store {

// Cancellation visible to every wait: set once, never cleared.
class CancelToken {
 public:
  void Cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  friend class SystemClock;
  friend class ManualClock;
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
};

using Micros = int64_t;

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time.
  virtual Micros Now() = 0;
  // Sleeps `duration` (≤ 0 returns at once); Cancelled as soon as `cancel`
  // is cancelled (also if it already was).
  virtual Status SleepFor(Micros duration, const CancelToken* cancel) = 0;
};

// std::chrono::steady_clock and a condition-variable sleep.
class SystemClock final : public Clock {
 public:
  Micros Now() override;
  Status SleepFor(Micros duration, const CancelToken* cancel) override;
};
Clock& DefaultClock();

// A test clock: time moves only by Advance() or by SleepFor (which advances
// time by the slept duration at once, so backoff schedules run instantly and
// can be asserted exactly).
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Micros start = 0) : now_(start) {}
  Micros Now() override { return now_.load(); }
  Status SleepFor(Micros duration, const CancelToken* cancel) override;
  void Advance(Micros duration) { now_.fetch_add(duration); }
  Micros total_slept() const { return slept_.load(); }

 private:
  std::atomic<Micros> now_;
  std::atomic<Micros> slept_{0};
};

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // Uniform in [0, bound] (inclusive); bound ≥ 0.
  virtual uint64_t UniformUpTo(uint64_t bound) = 0;
  // 16 random bytes for identifiers (attempt IDs, run IDs).
  virtual void Fill(uint8_t* out, size_t n) = 0;
};

// A process-wide generator seeded from the OS (getrandom), thread-safe.
RandomSource& DefaultRandom();

// A random, non-nil UUID version 4 (RFC 9562) from `random`: attempt ids,
// run ids.
Uuid RandomUuidV4(RandomSource& random);

// Deterministic for tests (splitmix64 from a seed).
class SeededRandom final : public RandomSource {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}
  uint64_t UniformUpTo(uint64_t bound) override;
  void Fill(uint8_t* out, size_t n) override;

 private:
  uint64_t Next();
  std::mutex mu_;
  uint64_t state_;
};

}  // namespace vigilo::store
