// The request governor: one per process, shared by every remote store
// (publication reads over HTTP included). It enforces seed 004's remote
// budgets ("Resource Budgets"):
//
//   Concurrent remote requests   4    shared per-process semaphore across
//                                      reads, writes, retries, and HEADs
//   Remote request attempts      3 total, at most 32, including PUT and
//                                      verification/reconciliation GETs
//   Retry backoff                full jitter from zero to
//                                      min(2 seconds, 250 ms × 2^retry_index),
//                                      only classified transient failures
//   Connection timeout           5 s, included in the operation deadline
//   No-progress stream timeout   15 s, reset only on transferred bytes;
//                                      also bounded by the total deadline
//   Object-operation deadline    120 s: semaphore wait, attempts, backoff,
//                                      transfer, and verification
//   Failed-attempt cleanup       30 s, a separate budget; unresolved cleanup
//                                      stays durable work
//   Stream buffer                256 KiB per active object stream
//
// An operation holds one permit from the moment it gets one until it ends,
// across all of its attempts and backoff sleeps. Every wait (permit, backoff)
// honours the operation deadline and the caller's CancelToken. Time and
// randomness are injected (clock.h), so tests run the whole schedule on a
// ManualClock in microseconds of real time. Backends keep their libraries'
// own retries off: this is the only place a request is repeated.
//
// Never take a second permit while holding one (an attempt that starts
// another governed operation): with every permit held that waits until its
// deadline.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/store/call_context.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

// Override ranges. The seed fixes only the attempts ceiling (32); the others
// are vigilo's finite maxima, the same numbers as cases::BudgetConfig (the
// reasons: docs/format/case-storage-budgets.md, decisions 2, 3, 7 and 8).
namespace governor_bounds {
inline constexpr uint64_t kMinConcurrentRequests = 1;
inline constexpr uint64_t kMaxConcurrentRequests = 64;
inline constexpr uint64_t kMinAttempts = 1;
inline constexpr uint64_t kMaxAttempts = 32;  // the seed
inline constexpr uint64_t kMinStreamBufferBytes = uint64_t{4} << 10;
inline constexpr uint64_t kMaxStreamBufferBytes = uint64_t{8} << 20;
inline constexpr uint64_t kMaxStreamBufferingBytes = uint64_t{64} << 20;  // requests × stream buffer
inline constexpr std::chrono::milliseconds kMinTimeout{1};
inline constexpr std::chrono::milliseconds kMaxTimeout{3'600'000};
inline constexpr std::chrono::milliseconds kMinDeadline{1'000};
inline constexpr std::chrono::milliseconds kMaxDeadline{3'600'000};
inline constexpr std::chrono::milliseconds kMinBackoff{1};
inline constexpr std::chrono::milliseconds kMaxBackoff{60'000};
}  // namespace governor_bounds

// The seed's defaults. Field names are those of cases::BudgetConfig, so an
// error's path names the same setting in both.
struct GovernorLimits {
  uint64_t concurrent_remote_requests = 4;
  uint64_t remote_request_attempts = 3;  // total, the first attempt included
  std::chrono::milliseconds retry_backoff_base_ms{250};
  std::chrono::milliseconds retry_backoff_cap_ms{2'000};
  std::chrono::milliseconds connection_timeout_ms{5'000};
  std::chrono::milliseconds no_progress_timeout_ms{15'000};
  std::chrono::milliseconds object_operation_deadline_ms{120'000};
  std::chrono::milliseconds cleanup_deadline_ms{30'000};
  uint64_t stream_buffer_bytes = uint64_t{256} << 10;  // per active object stream

  // Every field against governor_bounds, then: concurrent_remote_requests ×
  // stream_buffer_bytes ≤ 64 MiB; connection and no-progress timeouts and the
  // backoff cap ≤ the operation deadline; base ≤ cap. InvalidArgument whose
  // path is the field and whose message names the bound and the value.
  Status Validate() const;

  // min(retry_backoff_cap_ms, retry_backoff_base_ms × 2^retry_index) in
  // microseconds, for every index without overflow: 250, 500, 1000, 2000,
  // 2000 ms… at defaults.
  Micros BackoffCeiling(uint32_t retry_index) const;
};

// The classification: only these failures are retried. Unavailable is what
// a backend reports for a failure a repeat may cure (5xx, 429, connection
// refused or reset, a lost reply); DeadlineExceeded from an attempt is that
// request's own connect or no-progress timeout. Everything else is final:
// IoError (local I/O, or a remote failure the backend did not classify),
// NotFound, AlreadyExists, IntegrityError, LimitExceeded, InvalidArgument,
// Cancelled, Fenced… The governor never retries past its own deadline, so
// classifying DeadlineExceeded as transient cannot extend an operation.
bool IsTransient(const Status& status);

using AttemptFn = std::function<Status(const AttemptContext&)>;
// One attempt of several operations at once (a batch of Gets): `which`
// holds the indexes of the operations attempting, `contexts` their attempt
// contexts in the same order; returns one status per index, in that order.
using BatchAttemptFn =
    std::function<std::vector<Status>(std::span<const size_t> which, std::span<const AttemptContext> contexts)>;

// What RunCleanup did not finish. The caller keeps exactly these steps in
// its durable record (OwnedWrites, the control ledger) for a later run.
struct CleanupOutcome {
  std::vector<size_t> unfinished;  // step indexes, ascending
  // OK iff nothing is unfinished. Otherwise DeadlineExceeded when the
  // cleanup budget ran out, Cancelled when cancelled, else the first failed
  // step's code; the message counts the unfinished steps.
  Status status;
};

class RequestGovernor {
 public:
  class Operation;

  // InvalidArgument for limits that fail Validate(). `clock` and `random`
  // must outlive the governor.
  static Result<std::unique_ptr<RequestGovernor>> Create(const GovernorLimits& limits, Clock& clock,
                                                         RandomSource& random);
  RequestGovernor(const RequestGovernor&) = delete;
  RequestGovernor& operator=(const RequestGovernor&) = delete;
  ~RequestGovernor();

  // Starts an operation: its deadline runs from now, and it waits for a
  // permit (DeadlineExceeded if the deadline passes first, Cancelled on
  // cancel, neither consuming an attempt). `what` names the operation in
  // errors ("get cases/…"): never a URL, bucket or credential.
  Result<Operation> Begin(std::string_view what, const CancelToken* cancel = nullptr);

  // Begin without waiting: an operation if a permit is free now, else none.
  // A caller that holds a permit takes further ones only this way (never
  // waiting for a second permit while holding one).
  std::optional<Operation> TryBegin(std::string_view what, const CancelToken* cancel = nullptr);

  // Runs every operation's attempts together, in rounds: each round makes
  // one attempt of every operation still going (one call of `attempt`),
  // after one backoff sleep, the longest any of them drew (so an operation
  // may wait longer than its own draw, never shorter). Each operation keeps
  // its own attempts, deadline and outcome, exactly as Operation::Run
  // reports them. Returns one status per operation, in order.
  std::vector<Status> RunTogether(std::span<Operation> operations, const BatchAttemptFn& attempt);

  // Begin, then Operation::Run: the common one-request operation.
  Status Run(std::string_view what, const AttemptFn& attempt, const CancelToken* cancel = nullptr);
  // The same for an attempt returning Result<T>; the value of the attempt
  // that succeeded.
  template <typename Fn>
  std::invoke_result_t<Fn&, const AttemptContext&> RunResult(std::string_view what, Fn&& attempt,
                                                             const CancelToken* cancel = nullptr);

  // Runs cleanup steps 0…count-1 in order, each as its own governed
  // operation (a permit, retries on transient failures) but all under one
  // separate deadline of cleanup_deadline_ms from now instead of the
  // operation deadline. A failing step does not stop the others; the budget
  // running out or `cancel` does, leaving the rest unfinished.
  CleanupOutcome RunCleanup(std::string_view what, size_t count,
                            const std::function<Status(size_t step, const AttemptContext&)>& step,
                            const CancelToken* cancel = nullptr);

  const GovernorLimits& limits() const { return limits_; }
  Clock& clock() const { return clock_; }
  // For tests and diagnostics.
  uint64_t permits_available() const;
  uint64_t waiting_for_permit() const;

 private:
  RequestGovernor(const GovernorLimits& limits, Clock& clock, RandomSource& random);
  Result<Operation> BeginUntil(std::string_view what, Micros deadline, const CancelToken* cancel);
  Status Acquire(std::string_view what, Micros deadline, const CancelToken* cancel);
  void Release();

  const GovernorLimits limits_;
  Clock& clock_;
  RandomSource& random_;
  mutable std::mutex mu_;
  std::condition_variable permit_freed_;
  uint64_t available_;
  uint64_t waiting_ = 0;
};

// One object operation holding one permit until it is destroyed. All of its
// requests share its attempts and its deadline: a create that verifies or
// reconciles by reading back runs the read as a further Run on the same
// Operation, so the read counts as an attempt (the seed: attempts include
// "PUT and verification/reconciliation GETs"). Used by one thread at a time.
class RequestGovernor::Operation {
 public:
  Operation(Operation&& other) noexcept;
  Operation& operator=(Operation&& other) noexcept;
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;
  ~Operation();

  // Runs `attempt` as the next attempt, and again after each transient
  // failure while attempts and time remain. Before an attempt that follows a
  // transient failure it sleeps uniform[0, BackoffCeiling(retry_index)] on
  // the clock, retry_index counting this operation's backoffs from 0; a
  // sleep that would end at or past the deadline is not taken. Returns:
  //  - OK, or the first non-transient error, unchanged;
  //  - the last transient error with " (after N attempts)" appended once
  //    the attempts are spent;
  //  - LimitExceeded if no attempt is left when called (nothing runs);
  //  - DeadlineExceeded once the deadline has passed (checked before each
  //    attempt and backoff, and after a failed attempt), with the last error;
  //  - Cancelled when `cancel` is cancelled (before an attempt, in backoff).
  Status Run(const AttemptFn& attempt);
  // Exactly one attempt (backoff first if the last attempt failed
  // transiently), for a request that must not be repeated blindly, such as
  // an ObjectWriter's Commit. Same results as Run, without the retry.
  Status RunOnce(const AttemptFn& attempt);

  template <typename Fn>
  std::invoke_result_t<Fn&, const AttemptContext&> RunResult(Fn&& attempt);

  uint32_t attempts_used() const { return attempts_used_; }
  Micros deadline() const { return deadline_; }

 private:
  friend class RequestGovernor;
  Operation(RequestGovernor& governor, std::string what, Micros deadline, const CancelToken* cancel);
  Status RunAttempts(const AttemptFn& attempt, bool retry);
  // Backoff (if due), then the deadline and cancel checks; fills `context`.
  Status PrepareAttempt(AttemptContext& context);
  // The steps of PrepareAttempt, for RunTogether's rounds: attempts left and
  // not cancelled; the backoff to sleep (0 unless the last attempt failed
  // transiently; DeadlineExceeded if it would leave no time); the backoff
  // slept; the deadline check and the context.
  Status CheckCanAttempt() const;
  Result<Micros> DrawBackoff();
  void BackoffTaken();
  Status BackoffCancelled() const;
  Status FillContext(AttemptContext& context) const;
  // Counts an attempt's result: the operation's outcome, or none when it is
  // retried (`retry` and transient, with attempts and time left).
  std::optional<Status> Conclude(Status status, bool retry);

  RequestGovernor* governor_;  // null once moved from
  std::string what_;
  Micros deadline_;
  const CancelToken* cancel_;
  uint32_t attempts_used_ = 0;
  uint32_t backoffs_ = 0;
  bool backoff_due_ = false;  // the last attempt failed transiently
  Status last_error_;
};

template <typename Fn>
std::invoke_result_t<Fn&, const AttemptContext&> RequestGovernor::Operation::RunResult(Fn&& attempt) {
  using R = std::invoke_result_t<Fn&, const AttemptContext&>;
  std::optional<R> last;
  Status status = Run([&](const AttemptContext& context) -> Status {
    last.emplace(attempt(context));
    return last->ok() ? Status::Ok() : last->status();
  });
  if (!status.ok()) return R(std::move(status));
  return std::move(*last);
}

template <typename Fn>
std::invoke_result_t<Fn&, const AttemptContext&> RequestGovernor::RunResult(std::string_view what, Fn&& attempt,
                                                                          const CancelToken* cancel) {
  using R = std::invoke_result_t<Fn&, const AttemptContext&>;
  Result<Operation> operation = Begin(what, cancel);
  if (!operation.ok()) return R(std::move(operation).take_status());
  return operation->RunResult(std::forward<Fn>(attempt));
}

// Any store with every call governed: Get, Head, CreateIfAbsent,
// BeginCreate and Delete are operations retried on transient failures (a
// retried create that finds its own bytes reports kAlreadyIdentical, the
// seam's replay); each attempt reaches the backend with its AttemptContext,
// so the backend makes exactly one request with the operation's timeouts.
// A batch (GetMany) reaches the backend as batches: as many of its Gets as
// permits are free (at least one, waited for) go together, each its own
// operation, retried together in rounds (RequestGovernor::RunTogether). A
// writer's Append passes straight through (a backend's writer buffers or
// spools; only its Commit is a request); its Commit is one governed attempt,
// because a writer commits at most once. Non-transient errors come back
// unchanged. A call that arrives with an AttemptContext is already governed
// (a governed store above this one made that attempt): it passes straight
// through as that one attempt, so stacked governed stores (the dispatcher's
// under a writer's, which adds the caller's cancel token) retry once, not
// once per layer, and never hold two permits for one request.
class GovernedStore final : public ForwardingStore {
 public:
  // `governor` (and `cancel`, applied to every call) outlive the store.
  GovernedStore(std::unique_ptr<ObjectStore> inner, RequestGovernor& governor,
                const CancelToken* cancel = nullptr);
  // Borrows `inner`, which must outlive the GovernedStore (a writer that
  // also drains cleanup needs the backend itself beside its governed view).
  GovernedStore(ObjectStore& inner, RequestGovernor& governor, const CancelToken* cancel = nullptr);

  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override;
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override;
  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* attempt = nullptr) override;
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                      const AttemptContext* attempt = nullptr) override;
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key,
                                                    const AttemptContext* attempt = nullptr) override;
  Status Delete(std::string_view key, const AttemptContext* attempt = nullptr) override;

 private:
  RequestGovernor& governor_;
  const CancelToken* cancel_;
};

}  // namespace vigilo::store
