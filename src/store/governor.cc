#include "vigilo/store/governor.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "vigilo/common/checked.h"
#include "vigilo/common/setting_checks.h"

namespace vigilo::store {
namespace {

namespace gb = governor_bounds;
using std::chrono::milliseconds;

// A permit wait re-checks cancellation and the (injected) clock this often
// in real time: a CancelToken cannot wake a foreign condition variable, and a
// ManualClock's Advance() notifies nobody. Bounds cancel latency, not fairness.
constexpr Micros kPermitPollMicros = 5'000;

Micros ToMicros(milliseconds d) { return std::chrono::duration_cast<std::chrono::microseconds>(d).count(); }

std::string Ms(milliseconds d) { return MillisecondsText(d); }
std::string MicrosAsMs(Micros us) {
  return us % 1000 == 0 ? std::to_string(us / 1000) + " ms" : std::to_string(us) + " microseconds";
}

std::string ByteCount(uint64_t n) { return ByteCountText(n); }

Status CheckAtMostDeadline(std::string_view field, milliseconds value, milliseconds deadline) {
  if (value <= deadline) return Status::Ok();
  return InvalidSetting(field,
                        "must be at most object_operation_deadline_ms (" + Ms(deadline) + "), got " + Ms(value));
}

// The same code, path and offset with another message.
Status Reworded(const Status& status, std::string message) {
  Status out(status.code(), std::move(message));
  if (!status.path().empty()) out = std::move(out).WithPath(std::string(status.path()));
  if (status.offset()) out = std::move(out).WithOffset(*status.offset());
  return out;
}

std::string LastError(const Status& last) {
  return last.ok() ? std::string() : "; last error: " + last.ToString();
}

}  // namespace

// ---------------------------------------------------------------- limits

Status GovernorLimits::Validate() const {
  VIGILO_RETURN_IF_ERROR(CheckCount("concurrent_remote_requests", concurrent_remote_requests,
                                    gb::kMinConcurrentRequests, gb::kMaxConcurrentRequests));
  VIGILO_RETURN_IF_ERROR(
      CheckCount("remote_request_attempts", remote_request_attempts, gb::kMinAttempts, gb::kMaxAttempts));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("retry_backoff_base_ms", retry_backoff_base_ms, gb::kMinBackoff, gb::kMaxBackoff));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("retry_backoff_cap_ms", retry_backoff_cap_ms, gb::kMinBackoff, gb::kMaxBackoff));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("connection_timeout_ms", connection_timeout_ms, gb::kMinTimeout, gb::kMaxTimeout));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("no_progress_timeout_ms", no_progress_timeout_ms, gb::kMinTimeout, gb::kMaxTimeout));
  VIGILO_RETURN_IF_ERROR(CheckDuration("object_operation_deadline_ms", object_operation_deadline_ms,
                                       gb::kMinDeadline, gb::kMaxDeadline));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("cleanup_deadline_ms", cleanup_deadline_ms, gb::kMinDeadline, gb::kMaxDeadline));
  VIGILO_RETURN_IF_ERROR(CheckBytes("stream_buffer_bytes", stream_buffer_bytes, gb::kMinStreamBufferBytes,
                                    gb::kMaxStreamBufferBytes));

  // Every permitted request may hold one stream buffer.
  Result<uint64_t> buffering = CheckedMul(concurrent_remote_requests, stream_buffer_bytes);
  if (!buffering.ok() || *buffering > gb::kMaxStreamBufferingBytes) {
    return InvalidSetting("stream_buffer_bytes",
                          "× concurrent_remote_requests (" + std::to_string(concurrent_remote_requests) +
                              ") must be at most " + ByteCount(gb::kMaxStreamBufferingBytes) +
                              " of stream buffering, got " +
                              (buffering.ok() ? ByteCount(*buffering) : std::string("more than 2^64 bytes")));
  }
  // The seed includes connection, stall and backoff waits in the deadline.
  VIGILO_RETURN_IF_ERROR(
      CheckAtMostDeadline("connection_timeout_ms", connection_timeout_ms, object_operation_deadline_ms));
  VIGILO_RETURN_IF_ERROR(
      CheckAtMostDeadline("no_progress_timeout_ms", no_progress_timeout_ms, object_operation_deadline_ms));
  if (retry_backoff_cap_ms < retry_backoff_base_ms) {
    return InvalidSetting("retry_backoff_cap_ms", "must be at least retry_backoff_base_ms (" +
                                                      Ms(retry_backoff_base_ms) + "), got " +
                                                      Ms(retry_backoff_cap_ms));
  }
  return CheckAtMostDeadline("retry_backoff_cap_ms", retry_backoff_cap_ms, object_operation_deadline_ms);
}

Micros GovernorLimits::BackoffCeiling(uint32_t retry_index) const {
  const Micros cap = ToMicros(retry_backoff_cap_ms);
  if (retry_index >= 62) return cap;  // 2^62 µs is far past any cap
  Micros ceiling = 0;
  if (__builtin_mul_overflow(ToMicros(retry_backoff_base_ms), Micros{1} << retry_index, &ceiling)) return cap;
  return std::min(cap, ceiling);
}

bool IsTransient(const Status& status) {
  return status.code() == StatusCode::kUnavailable || status.code() == StatusCode::kDeadlineExceeded;
}

// ---------------------------------------------------------------- progress

ProgressTimer::ProgressTimer(Clock& clock, Micros no_progress_timeout, Micros deadline)
    : clock_(clock), no_progress_timeout_(no_progress_timeout), deadline_(deadline), last_progress_(clock.Now()) {}

void ProgressTimer::OnBytes(uint64_t n) {
  if (n > 0) last_progress_ = clock_.Now();
}

Status ProgressTimer::Check() const {
  const Micros now = clock_.Now();
  if (now >= deadline_) return DeadlineExceeded("operation deadline passed during the transfer");
  if (now - last_progress_ >= no_progress_timeout_) {
    return DeadlineExceeded("no bytes transferred for " + MicrosAsMs(now - last_progress_));
  }
  return Status::Ok();
}

Micros ProgressTimer::Remaining() const {
  const Micros now = clock_.Now();
  return std::max<Micros>(0, std::min(deadline_ - now, last_progress_ + no_progress_timeout_ - now));
}

AttemptContext DefaultAttempt(Clock& clock) {
  const GovernorLimits limits;
  AttemptContext context;
  context.attempt = 0;
  context.max_attempts = 1;
  context.remaining = ToMicros(limits.object_operation_deadline_ms);
  context.deadline = clock.Now() + context.remaining;
  context.connect_timeout = ToMicros(limits.connection_timeout_ms);
  context.no_progress_timeout = ToMicros(limits.no_progress_timeout_ms);
  context.clock = &clock;
  return context;
}

// ---------------------------------------------------------------- governor

RequestGovernor::RequestGovernor(const GovernorLimits& limits, Clock& clock, RandomSource& random)
    : limits_(limits), clock_(clock), random_(random), available_(limits.concurrent_remote_requests) {}

RequestGovernor::~RequestGovernor() = default;

Result<std::unique_ptr<RequestGovernor>> RequestGovernor::Create(const GovernorLimits& limits, Clock& clock,
                                                                 RandomSource& random) {
  VIGILO_RETURN_IF_ERROR(limits.Validate());
  return std::unique_ptr<RequestGovernor>(new RequestGovernor(limits, clock, random));
}

uint64_t RequestGovernor::permits_available() const {
  std::lock_guard<std::mutex> lock(mu_);
  return available_;
}

uint64_t RequestGovernor::waiting_for_permit() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

Status RequestGovernor::Acquire(std::string_view what, Micros deadline, const CancelToken* cancel) {
  std::unique_lock<std::mutex> lock(mu_);
  bool counted = false;
  Status status;
  for (;;) {
    if (cancel != nullptr && cancel->cancelled()) {
      status = Cancelled(std::string(what) + ": cancelled while waiting for a request permit");
      break;
    }
    const Micros now = clock_.Now();
    if (now >= deadline) {
      status = DeadlineExceeded(std::string(what) + ": deadline passed while waiting for one of " +
                                std::to_string(limits_.concurrent_remote_requests) + " request permits");
      break;
    }
    if (available_ > 0) {
      --available_;
      break;
    }
    if (!counted) {
      ++waiting_;
      counted = true;
    }
    permit_freed_.wait_for(lock, std::chrono::microseconds(std::min(kPermitPollMicros, deadline - now)));
  }
  if (counted) --waiting_;
  // A waiter giving up may have swallowed the notification for a free permit.
  if (!status.ok() && available_ > 0) permit_freed_.notify_one();
  return status;
}

void RequestGovernor::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++available_;
  }
  permit_freed_.notify_one();
}

Result<RequestGovernor::Operation> RequestGovernor::BeginUntil(std::string_view what, Micros deadline,
                                                               const CancelToken* cancel) {
  VIGILO_RETURN_IF_ERROR(Acquire(what, deadline, cancel));
  return Operation(*this, std::string(what), deadline, cancel);
}

Result<RequestGovernor::Operation> RequestGovernor::Begin(std::string_view what, const CancelToken* cancel) {
  return BeginUntil(what, clock_.Now() + ToMicros(limits_.object_operation_deadline_ms), cancel);
}

std::optional<RequestGovernor::Operation> RequestGovernor::TryBegin(std::string_view what, const CancelToken* cancel) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (available_ == 0) return std::nullopt;
    --available_;
  }
  return Operation(*this, std::string(what), clock_.Now() + ToMicros(limits_.object_operation_deadline_ms), cancel);
}

std::vector<Status> RequestGovernor::RunTogether(std::span<Operation> operations, const BatchAttemptFn& attempt) {
  std::vector<std::optional<Status>> outcome(operations.size());
  for (;;) {
    // Who attempts this round, and the one backoff the round sleeps: the
    // longest any of them drew.
    std::vector<size_t> round;
    Micros wait = 0;
    const CancelToken* cancel = nullptr;
    for (size_t i = 0; i < operations.size(); ++i) {
      if (outcome[i]) continue;
      Operation& op = operations[i];
      if (op.governor_ == nullptr) {
        outcome[i] = Internal("a moved-from request operation was used");
        continue;
      }
      if (Status can = op.CheckCanAttempt(); !can.ok()) {
        outcome[i] = std::move(can);
        continue;
      }
      Result<Micros> drawn = op.DrawBackoff();
      if (!drawn.ok()) {
        outcome[i] = drawn.status();
        continue;
      }
      wait = std::max(wait, *drawn);
      if (cancel == nullptr) cancel = op.cancel_;
      round.push_back(i);
    }
    if (round.empty()) break;
    if (wait > 0 && !clock_.SleepFor(wait, cancel).ok()) {
      for (size_t i : round) outcome[i] = operations[i].BackoffCancelled();
      break;
    }
    std::vector<size_t> ready;
    std::vector<AttemptContext> contexts;
    for (size_t i : round) {
      operations[i].BackoffTaken();
      AttemptContext context;
      if (Status filled = operations[i].FillContext(context); !filled.ok()) {
        outcome[i] = std::move(filled);
        continue;
      }
      ready.push_back(i);
      contexts.push_back(context);
    }
    if (ready.empty()) continue;
    std::vector<Status> statuses = attempt(ready, contexts);
    for (size_t k = 0; k < ready.size(); ++k) {
      Status status = k < statuses.size() ? std::move(statuses[k]) : Internal("a batch attempt gave no status");
      outcome[ready[k]] = operations[ready[k]].Conclude(std::move(status), /*retry=*/true);
    }
  }
  std::vector<Status> out;
  out.reserve(operations.size());
  for (auto& o : outcome) out.push_back(o ? std::move(*o) : Internal("a batched operation never ran"));
  return out;
}

Status RequestGovernor::Run(std::string_view what, const AttemptFn& attempt, const CancelToken* cancel) {
  Result<Operation> operation = Begin(what, cancel);
  if (!operation.ok()) return operation.status();
  return operation->Run(attempt);
}

CleanupOutcome RequestGovernor::RunCleanup(std::string_view what, size_t count,
                                           const std::function<Status(size_t step, const AttemptContext&)>& step,
                                           const CancelToken* cancel) {
  const Micros deadline = clock_.Now() + ToMicros(limits_.cleanup_deadline_ms);
  CleanupOutcome outcome;
  Status stopped;        // the budget ran out or the caller cancelled
  Status first_failure;  // a step that failed on its own
  for (size_t i = 0; i < count; ++i) {
    if (!stopped.ok()) {
      outcome.unfinished.push_back(i);
      continue;
    }
    Result<Operation> operation =
        BeginUntil(std::string(what) + " (cleanup step " + std::to_string(i) + ")", deadline, cancel);
    Status status = operation.ok() ? operation->Run([&](const AttemptContext& context) { return step(i, context); })
                                   : operation.status();
    if (status.ok()) continue;
    outcome.unfinished.push_back(i);
    const bool budget_gone = status.code() == StatusCode::kDeadlineExceeded && clock_.Now() >= deadline;
    const bool cancelled = status.code() == StatusCode::kCancelled && cancel != nullptr && cancel->cancelled();
    if (budget_gone || cancelled) {
      stopped = status;
    } else if (first_failure.ok()) {
      first_failure = Reworded(status, "step " + std::to_string(i) + ": " + status.ToString());
    }
  }
  if (outcome.unfinished.empty()) return outcome;

  const std::string unfinished = std::string(what) + ": " + std::to_string(outcome.unfinished.size()) + " of " +
                                 std::to_string(count) + " cleanup steps unfinished";
  const std::string kept = "; they stay recorded for a later cleanup";
  if (stopped.code() == StatusCode::kDeadlineExceeded) {
    outcome.status =
        DeadlineExceeded(unfinished + ": the cleanup budget of " + Ms(limits_.cleanup_deadline_ms) + " ran out" + kept);
  } else if (stopped.code() == StatusCode::kCancelled) {
    outcome.status = Cancelled(unfinished + ": cancelled" + kept);
  } else {
    outcome.status = Reworded(first_failure, unfinished + ", first " + std::string(first_failure.message()) + kept);
  }
  return outcome;
}

// ---------------------------------------------------------------- operation

RequestGovernor::Operation::Operation(RequestGovernor& governor, std::string what, Micros deadline,
                                      const CancelToken* cancel)
    : governor_(&governor), what_(std::move(what)), deadline_(deadline), cancel_(cancel) {}

RequestGovernor::Operation::Operation(Operation&& other) noexcept
    : governor_(std::exchange(other.governor_, nullptr)),
      what_(std::move(other.what_)),
      deadline_(other.deadline_),
      cancel_(other.cancel_),
      attempts_used_(other.attempts_used_),
      backoffs_(other.backoffs_),
      backoff_due_(other.backoff_due_),
      last_error_(std::move(other.last_error_)) {}

RequestGovernor::Operation& RequestGovernor::Operation::operator=(Operation&& other) noexcept {
  if (this == &other) return *this;
  if (governor_ != nullptr) governor_->Release();
  governor_ = std::exchange(other.governor_, nullptr);
  what_ = std::move(other.what_);
  deadline_ = other.deadline_;
  cancel_ = other.cancel_;
  attempts_used_ = other.attempts_used_;
  backoffs_ = other.backoffs_;
  backoff_due_ = other.backoff_due_;
  last_error_ = std::move(other.last_error_);
  return *this;
}

RequestGovernor::Operation::~Operation() {
  if (governor_ != nullptr) governor_->Release();
}

Status RequestGovernor::Operation::CheckCanAttempt() const {
  const auto max_attempts = static_cast<uint32_t>(governor_->limits_.remote_request_attempts);
  if (attempts_used_ >= max_attempts) {
    return LimitExceeded(what_ + ": all " + std::to_string(max_attempts) +
                         " attempts of remote_request_attempts are used" + LastError(last_error_));
  }
  if (cancel_ != nullptr && cancel_->cancelled()) return Cancelled(what_ + ": cancelled" + LastError(last_error_));
  return Status::Ok();
}

Result<Micros> RequestGovernor::Operation::DrawBackoff() {
  if (!backoff_due_) return Micros{0};
  // Full jitter: uniform over [0, ceiling], never a sleep that leaves no
  // time for the attempt it waits for.
  const Micros ceiling = governor_->limits_.BackoffCeiling(backoffs_);
  const auto wait = static_cast<Micros>(governor_->random_.UniformUpTo(static_cast<uint64_t>(ceiling)));
  if (wait >= deadline_ - governor_->clock_.Now()) {
    return DeadlineExceeded(what_ + ": the deadline would pass during the retry backoff before attempt " +
                            std::to_string(attempts_used_ + 1) + LastError(last_error_));
  }
  return wait;
}

void RequestGovernor::Operation::BackoffTaken() {
  if (!backoff_due_) return;
  ++backoffs_;
  backoff_due_ = false;
}

Status RequestGovernor::Operation::BackoffCancelled() const {
  return Cancelled(what_ + ": cancelled during the retry backoff" + LastError(last_error_));
}

Status RequestGovernor::Operation::FillContext(AttemptContext& context) const {
  const GovernorLimits& limits = governor_->limits_;
  Clock& clock = governor_->clock_;
  const Micros now = clock.Now();
  if (now >= deadline_) {
    return DeadlineExceeded(what_ + ": the deadline passed before attempt " + std::to_string(attempts_used_ + 1) +
                            LastError(last_error_));
  }
  context.attempt = attempts_used_;
  context.max_attempts = static_cast<uint32_t>(limits.remote_request_attempts);
  context.deadline = deadline_;
  context.remaining = deadline_ - now;
  context.connect_timeout = std::min(ToMicros(limits.connection_timeout_ms), context.remaining);
  context.no_progress_timeout = ToMicros(limits.no_progress_timeout_ms);
  context.clock = &clock;
  context.cancel = cancel_;
  return Status::Ok();
}

Status RequestGovernor::Operation::PrepareAttempt(AttemptContext& context) {
  VIGILO_RETURN_IF_ERROR(CheckCanAttempt());
  VIGILO_ASSIGN_OR_RETURN(Micros wait, DrawBackoff());
  if (backoff_due_) {
    if (!governor_->clock_.SleepFor(wait, cancel_).ok()) return BackoffCancelled();
    BackoffTaken();
  }
  return FillContext(context);
}

std::optional<Status> RequestGovernor::Operation::Conclude(Status status, bool retry) {
  ++attempts_used_;
  if (status.ok() || !IsTransient(status)) {
    backoff_due_ = false;
    return status;
  }
  last_error_ = status;
  backoff_due_ = true;
  if (governor_->clock_.Now() >= deadline_) {
    return DeadlineExceeded(what_ + ": the deadline passed during attempt " + std::to_string(attempts_used_) +
                            LastError(last_error_));
  }
  if (attempts_used_ >= governor_->limits_.remote_request_attempts) {
    return Reworded(status, std::string(status.message()) + " (after " + std::to_string(attempts_used_) +
                                " attempts)");
  }
  if (!retry) return status;
  return std::nullopt;
}

Status RequestGovernor::Operation::RunAttempts(const AttemptFn& attempt, bool retry) {
  if (governor_ == nullptr) return Internal("a moved-from request operation was used");
  for (;;) {
    AttemptContext context;
    VIGILO_RETURN_IF_ERROR(PrepareAttempt(context));
    if (std::optional<Status> done = Conclude(attempt(context), retry)) return *std::move(done);
  }
}

Status RequestGovernor::Operation::Run(const AttemptFn& attempt) { return RunAttempts(attempt, /*retry=*/true); }

Status RequestGovernor::Operation::RunOnce(const AttemptFn& attempt) {
  return RunAttempts(attempt, /*retry=*/false);
}

// ---------------------------------------------------------------- store

namespace {

class GovernedWriter final : public ObjectWriter {
 public:
  GovernedWriter(std::unique_ptr<ObjectWriter> inner, RequestGovernor& governor, std::string key,
                 const CancelToken* cancel)
      : inner_(std::move(inner)), governor_(governor), key_(std::move(key)), cancel_(cancel) {}

  Status Append(std::span<const uint8_t> bytes) override { return inner_->Append(bytes); }
  uint64_t size() const override { return inner_->size(); }

  Result<CreateResult> Commit(const AttemptContext* /*caller's: the governor makes its own*/ = nullptr) override {
    Result<RequestGovernor::Operation> operation = governor_.Begin("commit " + key_, cancel_);
    if (!operation.ok()) return operation.status();
    std::optional<Result<CreateResult>> committed;
    Status status = operation->RunOnce([&](const AttemptContext& context) {
      committed.emplace(inner_->Commit(&context));
      return committed->ok() ? Status::Ok() : committed->status();
    });
    if (!status.ok()) return status;
    return std::move(*committed);
  }

 private:
  std::unique_ptr<ObjectWriter> inner_;
  RequestGovernor& governor_;
  std::string key_;
  const CancelToken* cancel_;
};

}  // namespace

GovernedStore::GovernedStore(std::unique_ptr<ObjectStore> inner, RequestGovernor& governor,
                             const CancelToken* cancel)
    : ForwardingStore(std::move(inner)), governor_(governor), cancel_(cancel) {}

GovernedStore::GovernedStore(ObjectStore& inner, RequestGovernor& governor, const CancelToken* cancel)
    : ForwardingStore(inner), governor_(governor), cancel_(cancel) {}

Result<Bytes> GovernedStore::Get(std::string_view key, const GetOptions& options) {
  if (options.attempt != nullptr) return inner().Get(key, options);  // already governed
  return governor_.RunResult(
      "get " + std::string(key),
      [&](const AttemptContext& context) {
        GetOptions attempt = options;
        attempt.attempt = &context;
        return inner().Get(key, attempt);
      },
      cancel_);
}

std::vector<GetResponse> GovernedStore::GetMany(std::span<const GetRequest> requests) {
  const bool governed_above = !requests.empty() && std::all_of(requests.begin(), requests.end(), [](const GetRequest& r) {
    return r.options.attempt != nullptr;
  });
  if (governed_above) return inner().GetMany(requests);
  std::vector<GetResponse> answers(requests.size(), GetResponse{Result<Bytes>(Internal("unanswered"))});
  size_t next = 0;
  while (next < requests.size()) {
    // A wave: the first Get waits for a permit, the others take only the
    // permits free now (never waiting for a second one while holding one).
    std::vector<RequestGovernor::Operation> operations;
    std::vector<size_t> members;
    Result<RequestGovernor::Operation> first = governor_.Begin("get " + std::string(requests[next].key), cancel_);
    if (!first.ok()) {
      answers[next++] = GetResponse{Result<Bytes>(first.status())};
      continue;
    }
    operations.push_back(std::move(first).value());
    members.push_back(next++);
    while (next < requests.size()) {
      std::optional<RequestGovernor::Operation> more =
          governor_.TryBegin("get " + std::string(requests[next].key), cancel_);
      if (!more) break;
      operations.push_back(std::move(*more));
      members.push_back(next++);
    }
    std::vector<Status> outcomes = governor_.RunTogether(
        operations, [&](std::span<const size_t> which, std::span<const AttemptContext> contexts) {
          std::vector<GetRequest> batch;
          batch.reserve(which.size());
          for (size_t k = 0; k < which.size(); ++k) {
            GetRequest request = requests[members[which[k]]];
            request.options.attempt = &contexts[k];
            batch.push_back(request);
          }
          std::vector<GetResponse> got = inner().GetMany(batch);
          std::vector<Status> statuses;
          statuses.reserve(which.size());
          for (size_t k = 0; k < which.size(); ++k) {
            if (k >= got.size()) {
              statuses.push_back(Internal("the backend answered fewer Gets than it was asked"));
              continue;
            }
            statuses.push_back(got[k].bytes.ok() ? Status::Ok() : got[k].bytes.status());
            answers[members[which[k]]] = std::move(got[k]);
          }
          return statuses;
        });
    for (size_t i = 0; i < members.size(); ++i) {
      if (!outcomes[i].ok()) answers[members[i]] = GetResponse{Result<Bytes>(std::move(outcomes[i]))};
    }
  }
  return answers;
}

Result<ObjectInfo> GovernedStore::Head(std::string_view key, const AttemptContext* attempt) {
  if (attempt != nullptr) return inner().Head(key, attempt);
  return governor_.RunResult(
      "head " + std::string(key), [&](const AttemptContext& context) { return inner().Head(key, &context); },
      cancel_);
}

Result<CreateResult> GovernedStore::CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                                   const AttemptContext* attempt) {
  if (attempt != nullptr) return inner().CreateIfAbsent(key, bytes, attempt);
  return governor_.RunResult(
      "create " + std::string(key),
      [&](const AttemptContext& context) { return inner().CreateIfAbsent(key, bytes, &context); }, cancel_);
}

Result<std::unique_ptr<ObjectWriter>> GovernedStore::BeginCreate(std::string_view key, const AttemptContext* attempt) {
  // Governed above: that governor's writer commits this one's (unwrapped).
  if (attempt != nullptr) return inner().BeginCreate(key, attempt);
  Result<std::unique_ptr<ObjectWriter>> writer = governor_.RunResult(
      "begin create " + std::string(key),
      [&](const AttemptContext& context) { return inner().BeginCreate(key, &context); }, cancel_);
  if (!writer.ok()) return writer;
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<GovernedWriter>(std::move(writer).value(), governor_, std::string(key), cancel_));
}

Status GovernedStore::Delete(std::string_view key, const AttemptContext* attempt) {
  if (attempt != nullptr) return inner().Delete(key, attempt);
  return governor_.Run(
      "delete " + std::string(key), [&](const AttemptContext& context) { return inner().Delete(key, &context); },
      cancel_);
}

}  // namespace vigilo::store
