// The injectable clock and random source, and the request governor: every
// number of seed 004's remote budgets, on a ManualClock (instant and exact)
// with a scripted or seeded random source. Threads meet through the
// governor's own counters, never through sleeps.
#include "vigilo/store/governor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <limits>
#include <map>
#include <thread>
#include <vector>

#include "vigilo/store/clock.h"

namespace vigilo::store {
namespace {

using std::chrono::milliseconds;

constexpr Micros kMs = 1'000;
constexpr Micros kSecond = 1'000'000;

// Returns the bound it is given (the longest backoff) or always zero, and
// records every bound asked for.
class ScriptedRandom final : public RandomSource {
 public:
  explicit ScriptedRandom(bool return_bound = true) : return_bound_(return_bound) {}
  uint64_t UniformUpTo(uint64_t bound) override {
    std::lock_guard<std::mutex> lock(mu_);
    bounds_.push_back(bound);
    return return_bound_ ? bound : 0;
  }
  void Fill(uint8_t* out, size_t n) override { std::fill(out, out + n, uint8_t{0xAB}); }
  std::vector<uint64_t> bounds() {
    std::lock_guard<std::mutex> lock(mu_);
    return bounds_;
  }

 private:
  bool return_bound_;
  std::mutex mu_;
  std::vector<uint64_t> bounds_;
};

// Polls `done` (a governor counter another thread changes) for up to 10 s
// of real time; the poll interval only paces the loop.
template <typename Pred>
bool Eventually(Pred done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

std::unique_ptr<RequestGovernor> MakeGovernor(Clock& clock, RandomSource& random, GovernorLimits limits = {}) {
  Result<std::unique_ptr<RequestGovernor>> governor = RequestGovernor::Create(limits, clock, random);
  EXPECT_TRUE(governor.ok()) << governor.status().ToString();
  return std::move(governor).value();
}

std::vector<RequestGovernor::Operation> HoldAllPermits(RequestGovernor& governor) {
  std::vector<RequestGovernor::Operation> held;
  for (uint64_t i = 0; i < governor.limits().concurrent_remote_requests; ++i) {
    Result<RequestGovernor::Operation> operation = governor.Begin("holder");
    EXPECT_TRUE(operation.ok());
    held.push_back(std::move(operation).value());
  }
  EXPECT_EQ(governor.permits_available(), 0u);
  return held;
}

// The result of a request waiting for a permit, within 10 s of real time. A
// governor that never gives up would hang the test, so on timeout the held
// permits are freed first: the request then runs and the test fails instead.
Status FinishWaiting(std::future<Status>& request, std::vector<RequestGovernor::Operation>& held) {
  if (request.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "the waiting request did not end";
    held.clear();
  }
  return request.get();
}

AttemptFn AlwaysUnavailable(int& calls) {
  return [&calls](const AttemptContext&) {
    ++calls;
    return Unavailable("503");
  };
}

// ---------------------------------------------------------------- clock

TEST(ClockTest, ManualClockSleepAdvancesTimeAtOnce) {
  ManualClock clock(100);
  EXPECT_TRUE(clock.SleepFor(250, nullptr).ok());
  EXPECT_EQ(clock.Now(), 350);
  EXPECT_EQ(clock.total_slept(), 250);
  EXPECT_TRUE(clock.SleepFor(0, nullptr).ok());
  EXPECT_TRUE(clock.SleepFor(-5, nullptr).ok());
  clock.Advance(50);
  EXPECT_EQ(clock.Now(), 400);
  EXPECT_EQ(clock.total_slept(), 250);
}

TEST(ClockTest, ManualClockSleepWithACancelledTokenIsCancelledAndTakesNoTime) {
  ManualClock clock;
  CancelToken cancel;
  EXPECT_TRUE(clock.SleepFor(10, &cancel).ok());
  cancel.Cancel();
  EXPECT_TRUE(cancel.cancelled());
  EXPECT_EQ(clock.SleepFor(1'000, &cancel).code(), StatusCode::kCancelled);
  EXPECT_EQ(clock.SleepFor(0, &cancel).code(), StatusCode::kCancelled);
  EXPECT_EQ(clock.Now(), 10);
}

TEST(ClockTest, SystemClockSleepsTheDuration) {
  SystemClock clock;
  const Micros start = clock.Now();
  ASSERT_TRUE(clock.SleepFor(20 * kMs, nullptr).ok());
  EXPECT_GE(clock.Now() - start, 20 * kMs);
  CancelToken cancel;
  const Micros again = clock.Now();
  ASSERT_TRUE(clock.SleepFor(5 * kMs, &cancel).ok());
  EXPECT_GE(clock.Now() - again, 5 * kMs);
}

TEST(ClockTest, SystemClockSleepEndsAtOnceWhenCancelled) {
  SystemClock clock;
  CancelToken cancel;
  std::atomic<bool> sleeping{false};
  const Micros start = clock.Now();
  std::future<Status> slept = std::async(std::launch::async, [&] {
    sleeping = true;
    return clock.SleepFor(60 * kSecond, &cancel);
  });
  ASSERT_TRUE(Eventually([&] { return sleeping.load(); }));
  cancel.Cancel();
  EXPECT_EQ(slept.get().code(), StatusCode::kCancelled);
  EXPECT_LT(clock.Now() - start, 10 * kSecond);
}

TEST(ClockTest, SeededRandomIsSplitMix64) {
  // splitmix64's published first output for seed 0.
  SeededRandom zero(0);
  EXPECT_EQ(zero.UniformUpTo(std::numeric_limits<uint64_t>::max()), 0xE220A8397B1DCDAFull);
  SeededRandom bytes(0);
  uint8_t out[10] = {};
  bytes.Fill(out, sizeof(out));
  const uint8_t expected_first8[8] = {0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2};
  EXPECT_TRUE(std::equal(out, out + 8, expected_first8));

  SeededRandom a(42);
  SeededRandom b(42);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.UniformUpTo(1'000'000), b.UniformUpTo(1'000'000));
}

TEST(ClockTest, UniformUpToIsInclusiveAndCoversTheRange) {
  SeededRandom random(7);
  EXPECT_EQ(random.UniformUpTo(0), 0u);
  std::vector<int> seen(11, 0);
  for (int i = 0; i < 2'000; ++i) {
    uint64_t x = random.UniformUpTo(10);
    ASSERT_LE(x, 10u);
    ++seen[x];
  }
  for (int count : seen) EXPECT_GT(count, 0);
}

TEST(ClockTest, DefaultRandomGivesDistinctIdentifiers) {
  RandomSource& random = DefaultRandom();
  EXPECT_EQ(&random, &DefaultRandom());
  uint8_t first[16] = {};
  uint8_t second[16] = {};
  random.Fill(first, sizeof(first));
  random.Fill(second, sizeof(second));
  // A false failure needs two equal 128-bit draws.
  EXPECT_FALSE(std::equal(first, first + 16, second));
  EXPECT_EQ(random.UniformUpTo(0), 0u);
  for (int i = 0; i < 100; ++i) EXPECT_LE(random.UniformUpTo(5), 5u);
}

// ---------------------------------------------------------------- limits

TEST(GovernorLimitsTest, DefaultsAreTheSeedsNumbers) {
  GovernorLimits limits;
  EXPECT_EQ(limits.concurrent_remote_requests, 4u);
  EXPECT_EQ(limits.remote_request_attempts, 3u);
  EXPECT_EQ(limits.retry_backoff_base_ms, milliseconds(250));
  EXPECT_EQ(limits.retry_backoff_cap_ms, milliseconds(2'000));
  EXPECT_EQ(limits.connection_timeout_ms, milliseconds(5'000));
  EXPECT_EQ(limits.no_progress_timeout_ms, milliseconds(15'000));
  EXPECT_EQ(limits.object_operation_deadline_ms, milliseconds(120'000));
  EXPECT_EQ(limits.cleanup_deadline_ms, milliseconds(30'000));
  EXPECT_EQ(limits.stream_buffer_bytes, 262'144u);
  EXPECT_TRUE(limits.Validate().ok());
}

TEST(GovernorLimitsTest, BackoffCeilingDoublesFrom250MsUpToTwoSeconds) {
  GovernorLimits limits;
  EXPECT_EQ(limits.BackoffCeiling(0), 250 * kMs);
  EXPECT_EQ(limits.BackoffCeiling(1), 500 * kMs);
  EXPECT_EQ(limits.BackoffCeiling(2), 1'000 * kMs);
  EXPECT_EQ(limits.BackoffCeiling(3), 2'000 * kMs);
  EXPECT_EQ(limits.BackoffCeiling(4), 2'000 * kMs);
  EXPECT_EQ(limits.BackoffCeiling(31), 2'000 * kMs);
  EXPECT_EQ(limits.BackoffCeiling(61), 2'000 * kMs);
  EXPECT_EQ(limits.BackoffCeiling(62), 2'000 * kMs);
  EXPECT_EQ(limits.BackoffCeiling(std::numeric_limits<uint32_t>::max()), 2'000 * kMs);
  limits.retry_backoff_base_ms = milliseconds(60'000);
  limits.retry_backoff_cap_ms = milliseconds(60'000);
  EXPECT_EQ(limits.BackoffCeiling(40), 60 * kSecond);  // the multiplication overflows
}

struct BadOverride {
  const char* field;
  std::function<void(GovernorLimits&)> change;
  const char* message;
};

TEST(GovernorLimitsTest, ValidateRejectsEachOverrideOutsideItsRangeNamingTheField) {
  const std::vector<BadOverride> cases = {
      {"concurrent_remote_requests", [](GovernorLimits& l) { l.concurrent_remote_requests = 0; },
       "concurrent_remote_requests must be between 1 and 64, got 0"},
      {"concurrent_remote_requests", [](GovernorLimits& l) { l.concurrent_remote_requests = 65; },
       "concurrent_remote_requests must be between 1 and 64, got 65"},
      {"remote_request_attempts", [](GovernorLimits& l) { l.remote_request_attempts = 0; },
       "remote_request_attempts must be between 1 and 32, got 0"},
      {"remote_request_attempts", [](GovernorLimits& l) { l.remote_request_attempts = 33; },
       "remote_request_attempts must be between 1 and 32, got 33"},
      {"retry_backoff_base_ms", [](GovernorLimits& l) { l.retry_backoff_base_ms = milliseconds(0); },
       "retry_backoff_base_ms must be between 1 ms and 60000 ms, got 0 ms"},
      {"retry_backoff_cap_ms", [](GovernorLimits& l) { l.retry_backoff_cap_ms = milliseconds(60'001); },
       "retry_backoff_cap_ms must be between 1 ms and 60000 ms, got 60001 ms"},
      {"connection_timeout_ms", [](GovernorLimits& l) { l.connection_timeout_ms = milliseconds(-1); },
       "connection_timeout_ms must be between 1 ms and 3600000 ms, got -1 ms"},
      {"no_progress_timeout_ms", [](GovernorLimits& l) { l.no_progress_timeout_ms = milliseconds(3'600'001); },
       "no_progress_timeout_ms must be between 1 ms and 3600000 ms, got 3600001 ms"},
      {"object_operation_deadline_ms",
       [](GovernorLimits& l) { l.object_operation_deadline_ms = milliseconds(999); },
       "object_operation_deadline_ms must be between 1000 ms and 3600000 ms, got 999 ms"},
      {"cleanup_deadline_ms", [](GovernorLimits& l) { l.cleanup_deadline_ms = milliseconds(3'600'001); },
       "cleanup_deadline_ms must be between 1000 ms and 3600000 ms, got 3600001 ms"},
      {"stream_buffer_bytes", [](GovernorLimits& l) { l.stream_buffer_bytes = 4'095; },
       "stream_buffer_bytes must be between 4096 bytes (4 KiB) and 8388608 bytes (8 MiB), got 4095 bytes"},
      {"stream_buffer_bytes", [](GovernorLimits& l) { l.stream_buffer_bytes = 8 * 1'048'576 + 1; },
       "stream_buffer_bytes must be between 4096 bytes (4 KiB) and 8388608 bytes (8 MiB), got 8388609 bytes"},
      // Relationships.
      {"stream_buffer_bytes",
       [](GovernorLimits& l) {
         l.concurrent_remote_requests = 64;
         l.stream_buffer_bytes = 2 * 1'048'576;
       },
       "stream_buffer_bytes × concurrent_remote_requests (64) must be at most 67108864 bytes (64 MiB) of stream "
       "buffering, got 134217728 bytes (128 MiB)"},
      {"connection_timeout_ms", [](GovernorLimits& l) { l.connection_timeout_ms = milliseconds(120'001); },
       "connection_timeout_ms must be at most object_operation_deadline_ms (120000 ms), got 120001 ms"},
      {"no_progress_timeout_ms", [](GovernorLimits& l) { l.object_operation_deadline_ms = milliseconds(10'000); },
       "no_progress_timeout_ms must be at most object_operation_deadline_ms (10000 ms), got 15000 ms"},
      {"retry_backoff_cap_ms", [](GovernorLimits& l) { l.retry_backoff_cap_ms = milliseconds(249); },
       "retry_backoff_cap_ms must be at least retry_backoff_base_ms (250 ms), got 249 ms"},
      {"retry_backoff_cap_ms",
       [](GovernorLimits& l) {
         l.object_operation_deadline_ms = milliseconds(1'000);
         l.connection_timeout_ms = milliseconds(1'000);
         l.no_progress_timeout_ms = milliseconds(1'000);
       },
       "retry_backoff_cap_ms must be at most object_operation_deadline_ms (1000 ms), got 2000 ms"},
  };
  for (const BadOverride& bad : cases) {
    GovernorLimits limits;
    bad.change(limits);
    Status status = limits.Validate();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad.message;
    EXPECT_EQ(status.path(), bad.field);
    EXPECT_EQ(status.message(), bad.message);
    ManualClock clock;
    ScriptedRandom random;
    Result<std::unique_ptr<RequestGovernor>> governor = RequestGovernor::Create(limits, clock, random);
    ASSERT_FALSE(governor.ok());
    EXPECT_EQ(governor.status().message(), bad.message);
  }
}

TEST(GovernorLimitsTest, EveryRangeEndIsAccepted) {
  const std::vector<std::function<void(GovernorLimits&)>> ends = {
      [](GovernorLimits& l) { l.concurrent_remote_requests = 1; },
      [](GovernorLimits& l) { l.concurrent_remote_requests = 64; },  // 64 × 256 KiB = 16 MiB
      [](GovernorLimits& l) { l.remote_request_attempts = 1; },
      [](GovernorLimits& l) { l.remote_request_attempts = 32; },
      [](GovernorLimits& l) {
        l.retry_backoff_base_ms = milliseconds(1);
        l.retry_backoff_cap_ms = milliseconds(1);
      },
      [](GovernorLimits& l) {
        l.retry_backoff_base_ms = milliseconds(60'000);
        l.retry_backoff_cap_ms = milliseconds(60'000);
      },
      [](GovernorLimits& l) {
        l.connection_timeout_ms = milliseconds(1);
        l.no_progress_timeout_ms = milliseconds(1);
      },
      [](GovernorLimits& l) {
        l.object_operation_deadline_ms = milliseconds(3'600'000);
        l.connection_timeout_ms = milliseconds(3'600'000);
        l.no_progress_timeout_ms = milliseconds(3'600'000);
        l.cleanup_deadline_ms = milliseconds(3'600'000);
      },
      [](GovernorLimits& l) {
        l.object_operation_deadline_ms = milliseconds(1'000);
        l.connection_timeout_ms = milliseconds(1'000);
        l.no_progress_timeout_ms = milliseconds(1'000);
        l.retry_backoff_cap_ms = milliseconds(1'000);
        l.cleanup_deadline_ms = milliseconds(1'000);
      },
      [](GovernorLimits& l) { l.stream_buffer_bytes = 4'096; },
      [](GovernorLimits& l) {
        l.stream_buffer_bytes = 8 * 1'048'576;
        l.concurrent_remote_requests = 8;  // exactly 64 MiB of buffering
      },
  };
  for (size_t i = 0; i < ends.size(); ++i) {
    GovernorLimits limits;
    ends[i](limits);
    EXPECT_TRUE(limits.Validate().ok()) << i << ": " << limits.Validate().ToString();
  }
}

TEST(GovernorLimitsTest, OnlyUnavailableAndAttemptTimeoutsAreTransient) {
  EXPECT_TRUE(IsTransient(Unavailable("503")));
  EXPECT_TRUE(IsTransient(DeadlineExceeded("connect timed out")));
  for (const Status& final_error :
       {Status::Ok(), IoError("disk"), NotFound("k"), AlreadyExists("k"), IntegrityError("size"),
        LimitExceeded("big"), InvalidArgument("key"), OutOfRange("range"), Cancelled("stop"), Fenced("lease"),
        Unimplemented("x"), Internal("bug"), ParseError("json"), InvalidFormat("f"), NotCanonical("c")}) {
    EXPECT_FALSE(IsTransient(final_error)) << final_error.ToString();
  }
}

// ---------------------------------------------------------------- permits

TEST(GovernorTest, AFifthConcurrentRequestWaitsUntilAPermitFrees) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  EXPECT_EQ(governor->permits_available(), 4u);
  std::vector<RequestGovernor::Operation> held = HoldAllPermits(*governor);

  std::atomic<bool> ran{false};
  std::future<Status> fifth = std::async(std::launch::async, [&] {
    return governor->Run("get k", [&](const AttemptContext&) {
      ran = true;
      return Status::Ok();
    });
  });
  ASSERT_TRUE(Eventually([&] { return governor->waiting_for_permit() == 1; }));
  EXPECT_FALSE(ran.load());
  held.pop_back();  // one request ends
  EXPECT_TRUE(fifth.get().ok());
  EXPECT_TRUE(ran.load());
  EXPECT_EQ(governor->waiting_for_permit(), 0u);
  EXPECT_EQ(governor->permits_available(), 1u);
  held.clear();
  EXPECT_EQ(governor->permits_available(), 4u);
}

TEST(GovernorTest, NoMoreThanFourRequestsAreInFlight) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  std::atomic<int> in_flight{0};
  std::atomic<int> most{0};
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  std::vector<std::future<Status>> requests;
  for (int i = 0; i < 8; ++i) {
    requests.push_back(std::async(std::launch::async, [&] {
      return governor->Run("get k", [&](const AttemptContext&) {
        int now = ++in_flight;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        gate.wait();
        --in_flight;
        return Status::Ok();
      });
    }));
  }
  ASSERT_TRUE(Eventually([&] { return in_flight.load() == 4 && governor->waiting_for_permit() == 4; }));
  EXPECT_EQ(governor->permits_available(), 0u);
  open.set_value();
  for (auto& request : requests) EXPECT_TRUE(request.get().ok());
  EXPECT_EQ(most.load(), 4);
  EXPECT_EQ(governor->permits_available(), 4u);
}

TEST(GovernorTest, TheDeadlineIncludesThePermitWait) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  std::vector<RequestGovernor::Operation> held = HoldAllPermits(*governor);
  int calls = 0;
  std::future<Status> fifth = std::async(std::launch::async, [&] {
    return governor->Run("get k", [&](const AttemptContext&) {
      ++calls;
      return Status::Ok();
    });
  });
  ASSERT_TRUE(Eventually([&] { return governor->waiting_for_permit() == 1; }));
  clock.Advance(120 * kSecond);
  Status status = FinishWaiting(fifth, held);
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(status.message(), "get k: deadline passed while waiting for one of 4 request permits");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(governor->waiting_for_permit(), 0u);
  EXPECT_EQ(governor->permits_available(), 0u);
}

TEST(GovernorTest, TimeSpentWaitingForAPermitIsTakenFromTheAttempts) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  std::vector<RequestGovernor::Operation> held = HoldAllPermits(*governor);
  AttemptContext seen;
  std::future<Status> fifth = std::async(std::launch::async, [&] {
    return governor->Run("get k", [&](const AttemptContext& context) {
      seen = context;
      return Status::Ok();
    });
  });
  ASSERT_TRUE(Eventually([&] { return governor->waiting_for_permit() == 1; }));
  clock.Advance(118 * kSecond);
  held.pop_back();
  ASSERT_TRUE(fifth.get().ok());
  EXPECT_EQ(seen.attempt, 0u);
  EXPECT_EQ(seen.max_attempts, 3u);
  EXPECT_EQ(seen.deadline, 120 * kSecond);
  EXPECT_EQ(seen.remaining, 2 * kSecond);
  EXPECT_EQ(seen.connect_timeout, 2 * kSecond);  // 5 s, clipped to what is left
  EXPECT_EQ(seen.no_progress_timeout, 15 * kSecond);
  EXPECT_EQ(seen.clock, &clock);
}

TEST(GovernorTest, CancelEndsAPermitWait) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  std::vector<RequestGovernor::Operation> held = HoldAllPermits(*governor);
  CancelToken cancel;
  int calls = 0;
  std::future<Status> fifth = std::async(std::launch::async, [&] {
    return governor->Run(
        "get k",
        [&](const AttemptContext&) {
          ++calls;
          return Status::Ok();
        },
        &cancel);
  });
  ASSERT_TRUE(Eventually([&] { return governor->waiting_for_permit() == 1; }));
  cancel.Cancel();
  Status status = FinishWaiting(fifth, held);
  EXPECT_EQ(status.code(), StatusCode::kCancelled);
  EXPECT_EQ(status.message(), "get k: cancelled while waiting for a request permit");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(clock.Now(), 0);
}

TEST(GovernorTest, AMovedOperationHoldsOnePermit) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  Result<RequestGovernor::Operation> first = governor->Begin("a");
  ASSERT_TRUE(first.ok());
  RequestGovernor::Operation moved = std::move(first).value();
  EXPECT_EQ(governor->permits_available(), 3u);
  Result<RequestGovernor::Operation> second = governor->Begin("b");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(governor->permits_available(), 2u);
  moved = std::move(second).value();  // releases the first permit
  EXPECT_EQ(governor->permits_available(), 3u);
  { RequestGovernor::Operation gone = std::move(moved); }
  EXPECT_EQ(governor->permits_available(), 4u);
}

// ---------------------------------------------------------------- attempts

TEST(GovernorTest, ANonTransientErrorIsReturnedAfterOneAttempt) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  int calls = 0;
  Status status = governor->Run("get k", [&](const AttemptContext&) {
    ++calls;
    return NotFound("no object at the key").WithPath("k");
  });
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "no object at the key");
  EXPECT_EQ(status.path(), "k");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(clock.total_slept(), 0);
  EXPECT_TRUE(random.bounds().empty());
}

TEST(GovernorTest, AFourthAttemptNeverHappens) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  int calls = 0;
  Status status = governor->Run("get k", AlwaysUnavailable(calls));
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "503 (after 3 attempts)");
  EXPECT_EQ(random.bounds().size(), 2u);  // two backoffs between three attempts
}

TEST(GovernorTest, ExactlyTheConfiguredNumberOfAttempts) {
  for (uint64_t n : {1u, 2u, 5u, 32u}) {
    ManualClock clock;
    ScriptedRandom random;
    GovernorLimits limits;
    limits.remote_request_attempts = n;
    auto governor = MakeGovernor(clock, random, limits);
    int calls = 0;
    uint32_t last_index = 0;
    Status status = governor->Run("get k", [&](const AttemptContext& context) {
      ++calls;
      last_index = context.attempt;
      EXPECT_EQ(context.max_attempts, n);
      return Unavailable("503");
    });
    EXPECT_EQ(static_cast<uint64_t>(calls), n);
    EXPECT_EQ(last_index + 1, n);
    EXPECT_EQ(status.message(), "503 (after " + std::to_string(n) + " attempts)");
  }
}

TEST(GovernorTest, SucceedsOnTheLastAllowedAttempt) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  int calls = 0;
  Status status = governor->Run("get k", [&](const AttemptContext&) {
    ++calls;
    return calls < 3 ? Unavailable("503") : Status::Ok();
  });
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(calls, 3);
}

TEST(GovernorTest, AnAttemptsOwnTimeoutIsRetried) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  int calls = 0;
  Status status = governor->Run("get k", [&](const AttemptContext&) {
    ++calls;
    return calls == 1 ? DeadlineExceeded("connection timed out") : Status::Ok();
  });
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(calls, 2);
}

// ---------------------------------------------------------------- backoff

// The clock time of each attempt; attempts themselves take no time, so the
// gaps are exactly the backoff sleeps.
std::vector<Micros> AttemptTimes(RequestGovernor& governor, Clock& clock) {
  std::vector<Micros> times;
  (void)governor.Run("get k", [&](const AttemptContext&) {
    times.push_back(clock.Now());
    return Unavailable("503");
  });
  return times;
}

TEST(GovernorTest, BackoffAtItsBoundFollowsTheCeilings) {
  ManualClock clock;
  ScriptedRandom random(/*return_bound=*/true);
  GovernorLimits limits;
  limits.remote_request_attempts = 6;
  auto governor = MakeGovernor(clock, random, limits);
  std::vector<Micros> times = AttemptTimes(*governor, clock);
  EXPECT_EQ(times, (std::vector<Micros>{0, 250 * kMs, 750 * kMs, 1'750 * kMs, 3'750 * kMs, 5'750 * kMs}));
  EXPECT_EQ(random.bounds(),
            (std::vector<uint64_t>{250'000, 500'000, 1'000'000, 2'000'000, 2'000'000}));
  EXPECT_EQ(clock.total_slept(), 5'750 * kMs);
}

TEST(GovernorTest, BackoffAtZeroRetriesAtOnce) {
  ManualClock clock;
  ScriptedRandom random(/*return_bound=*/false);
  auto governor = MakeGovernor(clock, random);
  EXPECT_EQ(AttemptTimes(*governor, clock), (std::vector<Micros>{0, 0, 0}));
}

TEST(GovernorTest, JitteredBackoffStaysWithinItsBounds) {
  GovernorLimits limits;
  limits.remote_request_attempts = 32;
  bool jittered = false;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    ManualClock clock;
    SeededRandom random(seed);
    auto governor = MakeGovernor(clock, random, limits);
    std::vector<Micros> times = AttemptTimes(*governor, clock);
    ASSERT_EQ(times.size(), 32u);  // 32 backoffs of at most 2 s fit in 120 s
    for (size_t i = 1; i < times.size(); ++i) {
      const Micros slept = times[i] - times[i - 1];
      const Micros ceiling = limits.BackoffCeiling(static_cast<uint32_t>(i - 1));
      EXPECT_GE(slept, 0);
      EXPECT_LE(slept, ceiling);
      if (slept != ceiling) jittered = true;
    }
  }
  EXPECT_TRUE(jittered);
}

TEST(GovernorTest, BackoffNeverSleepsPastTheDeadline) {
  ManualClock clock;
  ScriptedRandom random;
  GovernorLimits limits;
  limits.remote_request_attempts = 32;
  limits.object_operation_deadline_ms = milliseconds(1'000);
  limits.connection_timeout_ms = milliseconds(1'000);
  limits.no_progress_timeout_ms = milliseconds(1'000);
  limits.retry_backoff_cap_ms = milliseconds(1'000);
  auto governor = MakeGovernor(clock, random, limits);
  int calls = 0;
  Status status = governor->Run("get k", AlwaysUnavailable(calls));
  // Attempts at 0, 250 and 750 ms; the next backoff (1 s) would end past 1 s.
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(clock.total_slept(), 750 * kMs);
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(status.message(),
            "get k: the deadline would pass during the retry backoff before attempt 4; last error: unavailable: 503");
}

TEST(GovernorTest, SlowAttemptsUseUpTheDeadline) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  int calls = 0;
  Status status = governor->Run("get k", [&](const AttemptContext& context) {
    ++calls;
    EXPECT_EQ(context.remaining, 120 * kSecond - clock.Now());
    clock.Advance(70 * kSecond);  // a transfer that stalls out
    return Unavailable("stalled");
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(status.message(), "get k: the deadline passed during attempt 2; last error: unavailable: stalled");
}

// Cancels `token` as a backoff sleep starts, so the interruption is exact.
class CancellingClock final : public Clock {
 public:
  CancellingClock(ManualClock& inner, CancelToken& token) : inner_(inner), token_(token) {}
  Micros Now() override { return inner_.Now(); }
  Status SleepFor(Micros duration, const CancelToken* cancel) override {
    token_.Cancel();
    return inner_.SleepFor(duration, cancel);
  }

 private:
  ManualClock& inner_;
  CancelToken& token_;
};

TEST(GovernorTest, CancelEndsABackoffSleep) {
  ManualClock manual;
  CancelToken cancel;
  CancellingClock clock(manual, cancel);
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  int calls = 0;
  Status status = governor->Run("get k", AlwaysUnavailable(calls), &cancel);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(status.code(), StatusCode::kCancelled);
  EXPECT_EQ(status.message(), "get k: cancelled during the retry backoff; last error: unavailable: 503");
  EXPECT_EQ(manual.total_slept(), 0);
}

TEST(GovernorTest, CancelEndsARealBackoffSleepAtOnce) {
  SystemClock clock;
  ScriptedRandom random;  // the longest backoff: 60 s
  GovernorLimits limits;
  limits.retry_backoff_base_ms = milliseconds(60'000);
  limits.retry_backoff_cap_ms = milliseconds(60'000);
  auto governor = MakeGovernor(clock, random, limits);
  CancelToken cancel;
  std::atomic<int> calls{0};
  const Micros start = clock.Now();
  std::future<Status> request = std::async(std::launch::async, [&] {
    return governor->Run(
        "get k",
        [&](const AttemptContext&) {
          ++calls;
          return Unavailable("503");
        },
        &cancel);
  });
  ASSERT_TRUE(Eventually([&] { return calls.load() == 1; }));
  cancel.Cancel();
  Status status = request.get();
  EXPECT_EQ(status.code(), StatusCode::kCancelled);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_LT(clock.Now() - start, 10 * kSecond);
}

TEST(GovernorTest, ACancelledOperationRunsNothing) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  CancelToken cancel;
  cancel.Cancel();
  int calls = 0;
  Status status = governor->Run("get k", AlwaysUnavailable(calls), &cancel);
  EXPECT_EQ(status.code(), StatusCode::kCancelled);
  EXPECT_EQ(status.message(), "get k: cancelled while waiting for a request permit");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(governor->permits_available(), 4u);
}

// ---------------------------------------------------------------- operations

TEST(GovernorTest, AVerificationReadCountsAsAnAttempt) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  Result<RequestGovernor::Operation> operation = governor->Begin("create k");
  ASSERT_TRUE(operation.ok());
  int puts = 0;
  Status put = operation->Run([&](const AttemptContext&) {
    ++puts;
    return puts == 1 ? Unavailable("reply lost") : Status::Ok();
  });
  EXPECT_TRUE(put.ok());
  EXPECT_EQ(operation->attempts_used(), 2u);
  EXPECT_EQ(clock.total_slept(), 250 * kMs);

  uint32_t read_index = 99;
  Status verify = operation->Run([&](const AttemptContext& context) {
    read_index = context.attempt;
    return Status::Ok();
  });
  EXPECT_TRUE(verify.ok());
  EXPECT_EQ(read_index, 2u);
  EXPECT_EQ(clock.total_slept(), 250 * kMs);  // no backoff after a success

  int more = 0;
  Status none_left = operation->Run(AlwaysUnavailable(more));
  EXPECT_EQ(none_left.code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(none_left.message(),
            "create k: all 3 attempts of remote_request_attempts are used; last error: unavailable: reply lost");
  EXPECT_EQ(more, 0);
}

TEST(GovernorTest, RunOnceDoesNotRetryButTheNextAttemptBacksOff) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  Result<RequestGovernor::Operation> operation = governor->Begin("commit k");
  ASSERT_TRUE(operation.ok());
  int calls = 0;
  Status once = operation->RunOnce(AlwaysUnavailable(calls));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(once.code(), StatusCode::kUnavailable);
  EXPECT_EQ(once.message(), "503");
  EXPECT_EQ(clock.total_slept(), 0);
  Status reconcile = operation->Run([&](const AttemptContext& context) {
    EXPECT_EQ(context.attempt, 1u);
    return Status::Ok();
  });
  EXPECT_TRUE(reconcile.ok());
  EXPECT_EQ(clock.total_slept(), 250 * kMs);
}

TEST(GovernorTest, RunResultReturnsTheSuccessfulAttemptsValue) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  int calls = 0;
  Result<int> value = governor->RunResult("head k", [&](const AttemptContext&) -> Result<int> {
    ++calls;
    if (calls == 1) return Unavailable("503");
    return 42;
  });
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 42);
  Result<int> missing =
      governor->RunResult("head k", [&](const AttemptContext&) -> Result<int> { return NotFound("gone"); });
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "gone");
}

// ---------------------------------------------------------------- progress

TEST(ProgressTimerTest, ResetsOnlyOnTransferredBytes) {
  ManualClock clock;
  ProgressTimer timer(clock, 15 * kSecond, 120 * kSecond);
  clock.Advance(15 * kSecond - 1);
  EXPECT_TRUE(timer.Check().ok());
  EXPECT_EQ(timer.Remaining(), 1);
  timer.OnBytes(0);  // a callback without bytes is no progress
  clock.Advance(1);
  Status stalled = timer.Check();
  EXPECT_EQ(stalled.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(stalled.message(), "no bytes transferred for 15000 ms");
  EXPECT_TRUE(IsTransient(stalled));  // the governor retries a stalled attempt
  EXPECT_EQ(timer.Remaining(), 0);

  timer.OnBytes(1);
  EXPECT_TRUE(timer.Check().ok());
  EXPECT_EQ(timer.Remaining(), 15 * kSecond);
  clock.Advance(10 * kSecond);
  timer.OnBytes(4'096);
  clock.Advance(15 * kSecond - 1);
  EXPECT_TRUE(timer.Check().ok());
}

TEST(ProgressTimerTest, IsBoundedByTheOperationDeadline) {
  ManualClock clock;
  ProgressTimer timer(clock, 15 * kSecond, 20 * kSecond);
  clock.Advance(10 * kSecond);
  timer.OnBytes(1);
  EXPECT_EQ(timer.Remaining(), 10 * kSecond);  // the deadline comes first
  clock.Advance(10 * kSecond);
  Status late = timer.Check();
  EXPECT_EQ(late.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(late.message(), "operation deadline passed during the transfer");
}

TEST(ProgressTimerTest, AnAttemptStartsOneFromItsContext) {
  ManualClock clock(5 * kSecond);
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  Status status = governor->Run("get k", [&](const AttemptContext& context) {
    ProgressTimer timer = context.StartProgressTimer();
    clock.Advance(15 * kSecond);
    return timer.Check();
  });
  EXPECT_EQ(status.message(), "no bytes transferred for 15000 ms (after 3 attempts)");
}

// ---------------------------------------------------------------- cleanup

TEST(GovernorCleanupTest, HasItsOwnBudgetAndReturnsWhatItDidNotFinish) {
  ManualClock clock;
  ScriptedRandom random;
  GovernorLimits limits;
  limits.object_operation_deadline_ms = milliseconds(1'000);  // cleanup is not bound by it
  limits.connection_timeout_ms = milliseconds(1'000);
  limits.no_progress_timeout_ms = milliseconds(1'000);
  limits.retry_backoff_cap_ms = milliseconds(1'000);
  auto governor = MakeGovernor(clock, random, limits);
  std::vector<size_t> ran;
  CleanupOutcome outcome = governor->RunCleanup("purge", 5, [&](size_t step, const AttemptContext& context) {
    EXPECT_EQ(context.deadline, 30 * kSecond);
    ran.push_back(step);
    clock.Advance(10 * kSecond);
    return Status::Ok();
  });
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(outcome.unfinished, (std::vector<size_t>{3, 4}));
  EXPECT_EQ(outcome.status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(outcome.status.message(),
            "purge: 2 of 5 cleanup steps unfinished: the cleanup budget of 30000 ms ran out; they stay recorded for "
            "a later cleanup");
  EXPECT_EQ(governor->permits_available(), 4u);
}

TEST(GovernorCleanupTest, AFailedStepDoesNotStopTheOthers) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  int step2_calls = 0;
  CleanupOutcome outcome = governor->RunCleanup("purge", 3, [&](size_t step, const AttemptContext&) {
    if (step == 1) return IoError("permission denied").WithPath("k1");
    if (step == 2 && ++step2_calls == 1) return Unavailable("503");  // retried
    return Status::Ok();
  });
  EXPECT_EQ(outcome.unfinished, (std::vector<size_t>{1}));
  EXPECT_EQ(step2_calls, 2);
  EXPECT_EQ(outcome.status.code(), StatusCode::kIoError);
  EXPECT_EQ(outcome.status.path(), "k1");
  EXPECT_EQ(outcome.status.message(),
            "purge: 1 of 3 cleanup steps unfinished, first step 1: io_error: k1: permission denied; they stay "
            "recorded for a later cleanup");
}

TEST(GovernorCleanupTest, CancelLeavesTheRestUnfinished) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  CancelToken cancel;
  CleanupOutcome outcome = governor->RunCleanup(
      "purge", 3,
      [&](size_t, const AttemptContext&) {
        cancel.Cancel();
        return Status::Ok();
      },
      &cancel);
  EXPECT_EQ(outcome.unfinished, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(outcome.status.code(), StatusCode::kCancelled);
  EXPECT_EQ(outcome.status.message(),
            "purge: 2 of 3 cleanup steps unfinished: cancelled; they stay recorded for a later cleanup");
}

TEST(GovernorCleanupTest, AllDoneIsOk) {
  ManualClock clock;
  ScriptedRandom random;
  auto governor = MakeGovernor(clock, random);
  CleanupOutcome outcome =
      governor->RunCleanup("purge", 4, [&](size_t, const AttemptContext&) { return Status::Ok(); });
  EXPECT_TRUE(outcome.status.ok());
  EXPECT_TRUE(outcome.unfinished.empty());
}

// ---------------------------------------------------------------- limits

TEST(GovernorCreateTest, RefusesBadLimitsBeforeAnyRequestAndUsesTheSeedsDefaults) {
  ManualClock clock;
  SeededRandom random(1);
  GovernorLimits bad;
  bad.remote_request_attempts = 33;
  Status refused = RequestGovernor::Create(bad, clock, random).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.path(), "remote_request_attempts");

  auto governor = RequestGovernor::Create(GovernorLimits{}, clock, random);
  ASSERT_TRUE(governor.ok());
  EXPECT_EQ((*governor)->limits().concurrent_remote_requests, 4u);
  EXPECT_EQ((*governor)->limits().remote_request_attempts, 3u);
  EXPECT_EQ(&(*governor)->clock(), &clock);
}

// ---------------------------------------------------------------- store

// A store whose calls fail from a script before they reach a map, and whose
// create can "lose its reply" after storing (a remote's lost acknowledgement).
class ScriptedStore final : public ObjectStore {
 public:
  std::deque<Status> failures;  // consumed one per call
  bool lose_create_reply = false;
  int calls = 0;
  int commits = 0;
  std::function<void()> on_call;

  const Capabilities& capabilities() const override { return caps_; }

  Result<Bytes> Get(std::string_view key, const GetOptions&) override {
    VIGILO_RETURN_IF_ERROR(Call());
    auto it = objects_.find(std::string(key));
    if (it == objects_.end()) return NotFound("no object").WithPath(std::string(key));
    return Bytes::FromString(it->second);
  }
  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(Call());
    auto it = objects_.find(std::string(key));
    if (it == objects_.end()) return NotFound("no object").WithPath(std::string(key));
    return ObjectInfo{.size = it->second.size(), .revision = std::nullopt};
  }
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(Call());
    std::string value(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    auto [it, created] = objects_.emplace(std::string(key), value);
    if (!created && it->second != value) return AlreadyExists("other bytes").WithPath(std::string(key));
    if (created && lose_create_reply) {
      lose_create_reply = false;
      return Unavailable("reply lost");
    }
    return CreateResult{.outcome = created ? CreateOutcome::kCreated : CreateOutcome::kAlreadyIdentical,
                        .size = value.size(),
                        .revision = std::nullopt};
  }
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key, const AttemptContext* = nullptr) override;
  Status Delete(std::string_view key, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(Call());
    objects_.erase(std::string(key));
    return Status::Ok();
  }

  Status Call() {
    ++calls;
    if (on_call) on_call();
    if (failures.empty()) return Status::Ok();
    Status next = failures.front();
    failures.pop_front();
    return next;
  }

  std::map<std::string, std::string> objects_;

 private:
  Capabilities caps_{.writable = true, .conditional_create = true, .read_after_create = true};
};

class ScriptedWriter final : public ObjectWriter {
 public:
  ScriptedWriter(ScriptedStore& store, std::string key) : store_(store), key_(std::move(key)) {}
  Status Append(std::span<const uint8_t> bytes) override {
    bytes_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return Status::Ok();
  }
  uint64_t size() const override { return bytes_.size(); }
  Result<CreateResult> Commit(const AttemptContext* = nullptr) override {
    ++store_.commits;
    return store_.CreateIfAbsent(key_, {reinterpret_cast<const uint8_t*>(bytes_.data()), bytes_.size()});
  }

 private:
  ScriptedStore& store_;
  std::string key_;
  std::string bytes_;
};

Result<std::unique_ptr<ObjectWriter>> ScriptedStore::BeginCreate(std::string_view key, const AttemptContext*) {
  VIGILO_RETURN_IF_ERROR(Call());
  return std::unique_ptr<ObjectWriter>(std::make_unique<ScriptedWriter>(*this, std::string(key)));
}

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

struct GovernedFixture {
  ManualClock clock;
  ScriptedRandom random;
  std::unique_ptr<RequestGovernor> governor = MakeGovernor(clock, random);
  ScriptedStore* inner = nullptr;
  std::unique_ptr<GovernedStore> store;

  GovernedFixture() {
    auto scripted = std::make_unique<ScriptedStore>();
    inner = scripted.get();
    store = std::make_unique<GovernedStore>(std::move(scripted), *governor);
  }
};

TEST(GovernedStoreTest, TransientFailuresAreRetriedAndEveryCallHoldsAPermit) {
  GovernedFixture f;
  f.inner->objects_["k"] = "hello";
  std::vector<uint64_t> permits_during_call;
  f.inner->on_call = [&] { permits_during_call.push_back(f.governor->permits_available()); };
  f.inner->failures = {Unavailable("503"), DeadlineExceeded("connect timed out")};
  Result<Bytes> got = f.store->Get("k");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->view(), "hello");
  EXPECT_EQ(f.inner->calls, 3);
  EXPECT_EQ(permits_during_call, (std::vector<uint64_t>{3, 3, 3}));
  EXPECT_EQ(f.governor->permits_available(), 4u);

  Result<ObjectInfo> head = f.store->Head("k");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->size, 5u);
  EXPECT_TRUE(f.store->capabilities().conditional_create);
}

TEST(GovernedStoreTest, NonTransientErrorsPassThroughUnchanged) {
  GovernedFixture f;
  Result<Bytes> missing = f.store->Get("nope");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().ToString(), "not_found: nope: no object");
  EXPECT_EQ(f.inner->calls, 1);

  f.inner->failures = {Unavailable("a"), Unavailable("b"), Unavailable("c"), Unavailable("d")};
  Status deleted = f.store->Delete("k");
  EXPECT_EQ(deleted.message(), "c (after 3 attempts)");
  EXPECT_EQ(f.inner->calls, 4);
}

TEST(GovernedStoreTest, ARetriedCreateAfterALostReplyFindsItsOwnBytes) {
  GovernedFixture f;
  f.inner->lose_create_reply = true;
  Result<CreateResult> created = f.store->CreateIfAbsent("k", AsBytes("abc"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(created->size, 3u);
  EXPECT_EQ(f.inner->calls, 2);
  EXPECT_EQ(f.inner->objects_.at("k"), "abc");
}

// The dispatcher governs a remote store, and a writer governs it again to
// add its cancel token: the stacked governed stores make one operation, as
// if there were one (found on RGW: an ingest made 9 connection attempts and
// said "(after 3 attempts) (after 3 attempts)").
TEST(GovernedStoreTest, StackedGovernedStoresRetryOnceAndHoldOnePermit) {
  GovernedFixture f;
  CancelToken cancel;
  ForwardingStore declared(static_cast<ObjectStore&>(*f.store));  // as DeclareCapabilities between them
  GovernedStore outer(declared, *f.governor, &cancel);
  f.inner->objects_["k"] = "hello";
  std::vector<uint64_t> permits_during_call;
  f.inner->on_call = [&] { permits_during_call.push_back(f.governor->permits_available()); };

  f.inner->failures = {Unavailable("a"), Unavailable("b"), Unavailable("c"), Unavailable("d")};
  Status created = outer.CreateIfAbsent("new", AsBytes("x")).status();
  EXPECT_EQ(created.message(), "c (after 3 attempts)");
  EXPECT_EQ(f.inner->calls, 3);
  EXPECT_EQ(permits_during_call, (std::vector<uint64_t>{3, 3, 3}));

  for (auto call : std::vector<std::function<Status()>>{
           [&] { return outer.Get("k").status(); }, [&] { return outer.Head("k").status(); },
           [&] { return outer.Delete("gone"); }}) {
    f.inner->calls = 0;
    f.inner->failures = {Unavailable("a"), Unavailable("b")};
    EXPECT_TRUE(call().ok());
    EXPECT_EQ(f.inner->calls, 3);
  }
  f.inner->calls = 0;
  f.inner->failures = {Unavailable("a"), Unavailable("b"), Unavailable("c")};
  const GetRequest requests[] = {{.key = "k", .options = {}}, {.key = "k", .options = {}}};
  std::vector<GetResponse> answers = outer.GetMany(requests);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_TRUE(answers[0].bytes.ok() && answers[1].bytes.ok());
  EXPECT_EQ(f.inner->calls, 5);  // 2, then the round that retries both, then 1

  Result<std::unique_ptr<ObjectWriter>> writer = outer.BeginCreate("w");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(AsBytes("xyz")).ok());
  f.inner->failures = {Unavailable("503")};
  EXPECT_EQ((*writer)->Commit().status().message(), "503");
  EXPECT_EQ(f.inner->commits, 1);
  EXPECT_EQ(f.governor->permits_available(), 4u);

  // The outer store's cancel token governs the whole stack.
  cancel.Cancel();
  f.inner->calls = 0;
  EXPECT_EQ(outer.Get("k").status().code(), StatusCode::kCancelled);
  EXPECT_EQ(f.inner->calls, 0);
}

TEST(GovernedStoreTest, AWriterCommitsExactlyOnce) {
  GovernedFixture f;
  Result<std::unique_ptr<ObjectWriter>> writer = f.store->BeginCreate("k");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(AsBytes("xyz")).ok());
  EXPECT_EQ((*writer)->size(), 3u);
  f.inner->failures = {Unavailable("503")};
  Result<CreateResult> committed = (*writer)->Commit();
  EXPECT_EQ(committed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(committed.status().message(), "503");
  EXPECT_EQ(f.inner->commits, 1);
  EXPECT_EQ(f.governor->permits_available(), 4u);

  Result<std::unique_ptr<ObjectWriter>> second = f.store->BeginCreate("k2");
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE((*second)->Append(AsBytes("xyz")).ok());
  Result<CreateResult> ok = (*second)->Commit();
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(f.inner->objects_.at("k2"), "xyz");
}

}  // namespace
}  // namespace vigilo::store
