#include "attempt_writer.h"

#include <utility>

#include "vigilo/common/paths.h"
#include "vigilo/control/cleanup.h"

namespace vigilo::service {
namespace {

bool Retryable(StatusCode code) {
  return code == StatusCode::kUnavailable || code == StatusCode::kDeadlineExceeded ||
         code == StatusCode::kCancelled || code == StatusCode::kIoError;
}

Status WithSuffix(const Status& s, const std::string& suffix) {
  Status out(s.code(), std::string(s.message()) + suffix);
  return s.path().empty() ? out : std::move(out).WithPath(std::string(s.path()));
}

}  // namespace

Status CheckWriteTarget(const WriteTarget& target) {
  if (target.control == nullptr || target.store == nullptr || target.governor == nullptr ||
      target.wall_clock == nullptr) {
    return Internal("a write needs a control store, a store, a governor and a wall clock");
  }
  if (Status s = ValidateStorageAlias(target.alias); !s.ok()) {
    return InvalidArgument(std::string(s.message())).WithPath("storage_alias");
  }
  return store::RequireWritable(*target.store, target.alias);
}

AttemptWriter::AttemptWriter(const WriteTarget& target, control::Namespace ns, std::string name,
                             store::Micros lease_duration, const store::CancelToken* cancel)
    : target_(target), control_(*target.control), ns_(ns), name_(std::move(name)), lease_duration_(lease_duration),
      cancel_(cancel), governed_(*target.store, *target.governor, cancel) {}

void AttemptWriter::Drain() {
  control::CleanupReport drained =
      control::DrainCleanup(control_, target_.ledger_store_id, *target_.store, *target_.governor, cancel_);
  cleanup_deleted_ += drained.deleted;
}

Status AttemptWriter::Take(const std::string& admission, const std::function<bool(const std::string&)>& resumable) {
  Drain();  // every writing command drains its store first
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::AttemptRecord> attempts, control_.ListAttempts(ns_, name_));
  store::Micros now = target_.wall_clock->Now();
  std::optional<control::AttemptRecord> candidate;
  for (const control::AttemptRecord& a : attempts) {
    if (a.state != control::AttemptState::kActive || a.store != target_.ledger_store_id) continue;
    if (a.lease_expires_at > now) continue;  // a live writer: not ours to touch
    if (resumable(a.admission_limits)) {
      candidate = a;  // the newest one wins (oldest first)
    } else {
      // A dead writer of other input or limits under this name: its
      // objects become cleanup work once the settle time has passed.
      (void)control_.AbandonExpired(a.attempt, control::kDefaultAbandonSettle);
    }
  }
  if (candidate) {
    Result<control::Lease> lease = control_.ResumeAttempt(candidate->attempt, control::ProcessOwner(), lease_duration_);
    if (lease.ok()) {
      lease_ = *lease;
      attempt_ = lease_->attempt;
      admission_ = candidate->admission_limits;
      resumed_ = true;
      return Status::Ok();
    }
    // Lost a race for it (another rerun took it): begin afresh below.
  }
  control::AttemptSpec spec;
  spec.ns = ns_;
  spec.name = name_;
  spec.store = target_.ledger_store_id;
  spec.owner = control::ProcessOwner();
  spec.admission_limits = admission;
  spec.lease_duration = lease_duration_;
  VIGILO_ASSIGN_OR_RETURN(lease_, control_.BeginAttempt(spec));
  attempt_ = lease_->attempt;
  admission_ = admission;
  return Status::Ok();
}

Status AttemptWriter::CheckCancelled() const {
  if (cancel_ != nullptr && cancel_->cancelled()) return Cancelled("cancelled");
  return Status::Ok();
}

// Renewed once half of the lease has passed, so that a long write keeps it
// and a dead one loses it within one lease duration.
Status AttemptWriter::KeepLease() {
  store::Micros now = target_.wall_clock->Now();
  if (lease_->expires_at - now > lease_duration_ / 2) return Status::Ok();
  VIGILO_ASSIGN_OR_RETURN(lease_, control_.RenewLease(*lease_, lease_duration_));
  return Status::Ok();
}

cases::ObjectSink AttemptWriter::Sink(uint64_t max_object_bytes) {
  cases::ObjectSink store_sink = cases::StoreSink(governed_, target_.alias, &stats_);
  return [this, store_sink, max_object_bytes](const std::string& key, cases::StorageFormat schema,
                                              std::string bytes) -> Result<cases::ObjectRef> {
    VIGILO_RETURN_IF_ERROR(CheckCancelled());
    // The staging spool: the bytes of the object in flight. Uploads are
    // one at a time, so this is one object, which admission bounds.
    if (bytes.size() > max_object_bytes) {
      return LimitExceeded("an object of " + std::to_string(bytes.size()) + " bytes does not fit the staging spool")
          .WithPath(key);
    }
    VIGILO_RETURN_IF_ERROR(KeepLease());
    // Recorded before the create: a crash after it leaves a key the
    // ledger knows, so cleanup can find it.
    VIGILO_RETURN_IF_ERROR(control_.RecordKey(*lease_, key));
    return store_sink(key, schema, std::move(bytes));
  };
}

Result<control::PublishOutcome> AttemptWriter::Publish(std::string_view value) {
  VIGILO_RETURN_IF_ERROR(KeepLease());
  return control_.PublishRoot(*lease_, value);
}

Result<control::PublishOutcome> AttemptWriter::Replace(std::string_view expected, std::string_view value) {
  VIGILO_RETURN_IF_ERROR(KeepLease());
  return control_.ReplaceRoot(*lease_, expected, value);
}

void AttemptWriter::AbandonAndClean() {
  if (!lease_) return;
  if (control_.Abandon(*lease_).ok()) {
    lease_.reset();
    Drain();
  }
}

Status AttemptWriter::OnFailure(const Status& error, bool keep) {
  if (!lease_ || error.code() == StatusCode::kFenced) return error;  // not ours any more
  if (keep || Retryable(error.code())) {
    if (control_.RenewLease(*lease_, 1).ok()) {
      return WithSuffix(error, " (attempt " + control::AttemptName(lease_->attempt) +
                                   " is kept; rerunning the same command resumes it)");
    }
    return error;
  }
  AbandonAndClean();
  return error;
}

}  // namespace vigilo::service
