#include "attempt_writer.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "vigilo/common/paths.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/engine/cleanup.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::engine {
namespace {

bool Retryable(StatusCode code) {
  return code == StatusCode::kUnavailable || code == StatusCode::kDeadlineExceeded ||
         code == StatusCode::kCancelled || code == StatusCode::kIoError;
}

Status WithSuffix(const Status& s, const std::string& suffix) {
  Status out(s.code(), std::string(s.message()) + suffix);
  if (!s.path().empty()) out = std::move(out).WithPath(std::string(s.path()));
  return s.offset() ? std::move(out).WithOffset(*s.offset()) : out;
}

// An io_error a rerun cannot cure: the store refused this user (EACCES,
// EPERM) or is mounted read-only (EROFS). ErrnoStatus puts strerror's text
// in the message; that text is all that is left of the errno here.
bool NeedsAFix(const Status& s) {
  if (s.code() != StatusCode::kIoError) return false;
  for (int err : {EACCES, EPERM, EROFS}) {
    if (s.message().find(std::strerror(err)) != std::string_view::npos) return true;
  }
  return false;
}

// "1 hour", "90 minutes", "30 seconds": a grace period in words.
std::string DescribeGrace(store::Micros grace) {
  const store::Micros seconds = grace / 1'000'000;
  auto unit = [](store::Micros n, const char* one) {
    return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
  };
  if (seconds % 3600 == 0) return unit(seconds / 3600, "hour");
  if (seconds % 60 == 0) return unit(seconds / 60, "minute");
  return unit(seconds, "second");
}

// The root reference a published record holds (its canonical JSON value).
Result<cases::ObjectRef> RootRefOf(const control::RootRecord& record) {
  VIGILO_ASSIGN_OR_RETURN(json::Value parsed, json::Parse(record.value));
  return cases::ObjectRef::FromJson(parsed, "$");
}

}  // namespace

std::string_view RootOutcomeName(RootOutcome outcome) {
  switch (outcome) {
    case RootOutcome::kPublished:
      return "published";
    case RootOutcome::kReplaced:
      return "replaced";
    case RootOutcome::kUnchanged:
      return "unchanged";
  }
  return "unknown";
}

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
  // A local directory keeps no directory the deletes left empty (issue 34).
  if (!target_.local_root.empty() && !drained.deleted_keys.empty()) {
    (void)RemoveEmptiedDirectories(target_.local_root, drained.deleted_keys, control_,
                                   control::LedgerStoreIdForms(target_.ledger_store_id));
  }
}

Status AttemptWriter::Take(const std::string& admission, const std::function<bool(const std::string&)>& resumable) {
  Drain();  // every writing command drains its store first
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::AttemptRecord> attempts, control_.ListAttempts(ns_, name_));
  store::Micros now = target_.wall_clock->Now();
  std::optional<control::AttemptRecord> candidate;
  for (const control::AttemptRecord& a : attempts) {
    if (a.state != control::AttemptState::kActive || !control::SameLedgerStore(a.store, target_.ledger_store_id)) {
      continue;
    }
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

Result<AttemptWriter::PublishedRoot> AttemptWriter::PublishRoot(
    const cases::ObjectRef& root, bool replace, const std::function<Result<bool>(const control::RootRecord&)>& same,
    const std::function<Status(const control::RootRecord&)>& refusal) {
  VIGILO_ASSIGN_OR_RETURN(std::string value, json::ToCanonical(root.ToJson()));
  VIGILO_RETURN_IF_ERROR(KeepLease());
  PublishedRoot out;
  out.root = root;
  Result<control::PublishOutcome> published = control_.PublishRoot(*lease_, value);
  if (!published.ok()) {
    if (published.status().code() != StatusCode::kAlreadyExists) return published.status();
    // The name holds something else: the same content written by another
    // attempt (a concurrent or earlier writer), or something other.
    VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> current, control_.GetRoot(ns_, name_));
    if (!current) return published.status();
    VIGILO_ASSIGN_OR_RETURN(bool is_same, same(*current));
    if (is_same) {
      out.outcome = RootOutcome::kUnchanged;
      VIGILO_ASSIGN_OR_RETURN(out.root, RootRefOf(*current));
      out.record = std::move(*current);
      AbandonAndClean();  // ours duplicates what is published
      return out;
    }
    if (!replace) {
      name_taken_ = true;
      return refusal(*current);
    }
    VIGILO_RETURN_IF_ERROR(KeepLease());
    VIGILO_ASSIGN_OR_RETURN(control::PublishOutcome replaced, control_.ReplaceRoot(*lease_, current->value, value));
    out.outcome = replaced == control::PublishOutcome::kAlreadyIdentical ? RootOutcome::kPublished
                                                                        : RootOutcome::kReplaced;
  }
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> now, control_.GetRoot(ns_, name_));
  if (now) out.record = std::move(*now);
  return out;
}

Result<std::optional<cases::VerifiedObject>> AttemptWriter::FetchPublishedRoot(const control::RootRecord& record,
                                                                               uint64_t max_bytes) {
  VIGILO_ASSIGN_OR_RETURN(control::AttemptRecord owner, control_.GetAttempt(record.attempt));
  if (!control::SameLedgerStore(owner.store, target_.ledger_store_id)) return std::optional<cases::VerifiedObject>();
  VIGILO_ASSIGN_OR_RETURN(cases::ObjectRef ref, RootRefOf(record));
  VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject object, cases::StoreFetch(cases::SingleStore(governed_), max_bytes)(ref));
  return std::optional<cases::VerifiedObject>(std::move(object));
}

std::optional<std::string> AttemptWriter::OtherStoreOf(const control::RootRecord& record) {
  Result<control::AttemptRecord> owner = control_.GetAttempt(record.attempt);
  if (!owner.ok() || control::SameLedgerStore(owner->store, target_.ledger_store_id)) return std::nullopt;
  return owner->store;
}

void AttemptWriter::AbandonAndClean() {
  if (!lease_) return;
  if (control_.Abandon(*lease_).ok()) {
    lease_.reset();
    Drain();
  }
}

Status AttemptWriter::OnFailure(const Status& error) {
  if (!lease_ || error.code() == StatusCode::kFenced) return error;  // not ours any more
  if (name_taken_ || Retryable(error.code())) {
    if (control_.RenewLease(*lease_, 1).ok()) {
      if (NeedsAFix(error)) {
        return WithSuffix(error, "; a rerun alone cannot cure this: make that path writable for this user (its "
                                 "owner and permissions, and a file system not mounted read-only) or write "
                                 "elsewhere; attempt " + control::AttemptName(lease_->attempt) +
                                     " is kept, and the same command resumes it once that is fixed");
      }
      if (name_taken_) {
        // Rerunning the same command would resume it only to be refused
        // again: what resumes it usefully is the replace option (issue 34).
        return WithSuffix(error, " (attempt " + control::AttemptName(lease_->attempt) +
                                     " is kept: a rerun with the replace option resumes it and reuses its objects; "
                                     "otherwise `vigilo store cleanup` deletes them once the attempt has been idle "
                                     "for " + DescribeGrace(kDefaultCleanupGrace) + ")");
      }
      return WithSuffix(error, " (attempt " + control::AttemptName(lease_->attempt) +
                                   " is kept; rerunning the same command resumes it)");
    }
    return error;
  }
  AbandonAndClean();
  return error;
}

void AttemptWriter::Report(PublicationReport& report) const {
  report.attempt = attempt();
  report.resumed = resumed();
  report.objects_written = stats().created;
  report.objects_replayed = stats().replayed;
  report.bytes_written = stats().created_bytes;
  report.cleanup_deleted = cleanup_deleted();
}

void AttemptWriter::Report(const PublishedRoot& published, PublicationReport& report) const {
  report.root_version = published.record.version;
  report.outcome = published.outcome;
  report.root = published.root;
}

Status NameHoldsOther(std::string_view label, const std::string& name, const std::string& what, uint64_t version) {
  return AlreadyExists("the " + std::string(label) + " '" + name + "' already holds " + what + " (version " +
                       std::to_string(version) +
                       "); replacing it takes the replace option, and a rerun with it reuses what this run wrote")
      .WithPath(name);
}

}  // namespace vigilo::engine
