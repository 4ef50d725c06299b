#include "vigilo/store/clock.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>

#include "vigilo/common/random_bits.h"

namespace vigilo::store {
namespace {

// Fills `out` from the kernel's CSPRNG. getrandom(2) blocks only until the
// pool is first initialised; /dev/urandom is the fallback for kernels or
// sandboxes without the syscall. A process that cannot get randomness must
// not mint identifiers, so the last resort is to stop.
void OsRandom(uint8_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = getrandom(out + done, n - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    break;
  }
  if (done == n) return;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  while (fd >= 0 && done < n) {
    ssize_t got = ::read(fd, out + done, n - done);
    if (got > 0) {
      done += static_cast<size_t>(got);
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  if (fd >= 0) ::close(fd);
  if (done == n) return;
  std::fputs("vigilo: no operating-system randomness (getrandom and /dev/urandom failed)\n", stderr);
  std::abort();
}

// Uniform in [0, bound] without modulo bias: draws below the largest
// multiple of the range are accepted, the rest redrawn.
template <typename NextFn>
uint64_t Uniform(uint64_t bound, NextFn next) {
  if (bound == std::numeric_limits<uint64_t>::max()) return next();
  const uint64_t range = bound + 1;
  const uint64_t reject_below = (0 - range) % range;  // 2^64 mod range
  for (;;) {
    uint64_t x = next();
    if (x >= reject_below) return x % range;
  }
}

void FillFrom(uint8_t* out, size_t n, uint64_t (*next)(void*), void* self) {
  while (n > 0) {
    uint64_t x = next(self);
    size_t take = n < 8 ? n : 8;
    for (size_t i = 0; i < take; ++i) out[i] = static_cast<uint8_t>(x >> (8 * i));
    out += take;
    n -= take;
  }
}

// The process generator: xoshiro256** seeded from the OS, behind a mutex.
// Jitter needs speed, not secrecy; identifiers (Fill) come straight from the
// OS so that a forked child never repeats its parent's attempt or run IDs.
class SystemRandom final : public RandomSource {
 public:
  SystemRandom() : generator_(OsSeed()) {}

  uint64_t UniformUpTo(uint64_t bound) override {
    std::lock_guard<std::mutex> lock(mu_);
    return Uniform(bound, [this] { return Next(); });
  }

  void Fill(uint8_t* out, size_t n) override { OsRandom(out, n); }

 private:
  static uint64_t OsSeed() {
    uint64_t seed = 0;
    OsRandom(reinterpret_cast<uint8_t*>(&seed), sizeof(seed));
    return seed;
  }
  uint64_t Next() { return generator_.Next(); }

  std::mutex mu_;
  Xoshiro256 generator_;  // seeded through splitmix64, so never the all-zero state
};

}  // namespace

void CancelToken::Cancel() {
  {
    // Under the mutex so that a sleeper between its check and its wait
    // cannot miss the notification.
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
}

Micros SystemClock::Now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status SystemClock::SleepFor(Micros duration, const CancelToken* cancel) {
  if (cancel != nullptr && cancel->cancelled()) return Cancelled("cancelled");
  if (duration <= 0) return Status::Ok();
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(duration);
  if (cancel == nullptr) {
    std::this_thread::sleep_until(until);
    return Status::Ok();
  }
  // Waiting on the token's own condition variable is what makes Cancel()
  // wake the sleep at once. Tokens are never const objects (a const pointer
  // only promises the sleeper will not cancel), so waiting on it is sound.
  auto& token = const_cast<CancelToken&>(*cancel);
  std::unique_lock<std::mutex> lock(token.mu_);
  if (token.cv_.wait_until(lock, until, [&] { return token.cancelled(); })) return Cancelled("cancelled");
  return Status::Ok();
}

Clock& DefaultClock() {
  static SystemClock clock;
  return clock;
}

Status ManualClock::SleepFor(Micros duration, const CancelToken* cancel) {
  if (cancel != nullptr && cancel->cancelled()) return Cancelled("cancelled");
  if (duration <= 0) return Status::Ok();
  now_.fetch_add(duration);
  slept_.fetch_add(duration);
  return Status::Ok();
}

Uuid RandomUuidV4(RandomSource& random) {
  Uuid::Bytes bytes{};
  do {
    random.Fill(bytes.data(), bytes.size());
    bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);  // version 4
    bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);  // RFC 9562 variant
  } while (Uuid(bytes).is_nil());
  return Uuid(bytes);
}

RandomSource& DefaultRandom() {
  static SystemRandom random;
  return random;
}

uint64_t SeededRandom::Next() { return SplitMix64(state_); }

uint64_t SeededRandom::UniformUpTo(uint64_t bound) {
  std::lock_guard<std::mutex> lock(mu_);
  return Uniform(bound, [this] { return Next(); });
}

void SeededRandom::Fill(uint8_t* out, size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  FillFrom(out, n, [](void* self) { return static_cast<SeededRandom*>(self)->Next(); }, this);
}

}  // namespace vigilo::store
