// One publishing writer's attempt, shared by dataset ingestion and run
// planning (docs/format/case-storage-ingest.md): take an attempt (resume an
// unfinished one whose writer is gone and whose admission record matches,
// else begin one), record every key in the ledger before its conditional
// create, keep the lease alive, publish the root fenced by the lease, and on
// failure leave either a resumable attempt or nothing.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "vigilo/cases/object_io.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/write_target.h"
#include "vigilo/store/governor.h"

namespace vigilo::engine {

// PublishRoot's refusal when the name holds other content: AlreadyExists
// "the <label> '<name>' already holds <what> (version N); replacing it takes
// the replace option, and a rerun with it reuses what this run wrote".
Status NameHoldsOther(std::string_view label, const std::string& name, const std::string& what, uint64_t version);

class AttemptWriter {
 public:
  AttemptWriter(const WriteTarget& target, control::Namespace ns, std::string name, store::Micros lease_duration,
                const store::CancelToken* cancel);

  // Drains due cleanup on the store, then resumes the newest active attempt
  // of this name and store whose lease has expired and for which
  // `resumable(its admission record)` holds; abandons the other expired
  // ones (dead writers); else begins an attempt recording `admission`.
  Status Take(const std::string& admission, const std::function<bool(const std::string&)>& resumable);

  const control::Lease& lease() const { return *lease_; }
  const control::AttemptRef& attempt() const { return attempt_; }
  bool resumed() const { return resumed_; }
  // The admission record of the attempt taken (a resumed one's own).
  const std::string& admission() const { return admission_; }

  // Creates objects under the attempt: cancellation checked, the object
  // within `max_object_bytes` (the staging spool), the lease kept, the key
  // recorded, then a conditional create and a read-back (cases::StoreSink).
  cases::ObjectSink Sink(uint64_t max_object_bytes);
  store::ObjectStore& governed() { return governed_; }
  const cases::SinkStats& stats() const { return stats_; }

  // Renews the lease once half of it has passed.
  Status KeepLease();
  Status CheckCancelled() const;

  struct PublishedRoot {
    RootOutcome outcome = RootOutcome::kPublished;
    control::RootRecord record;  // what the name holds now
    cases::ObjectRef root;       // its reference: `root` as given, or the existing one when kUnchanged
  };
  // Publishes `root` (as canonical JSON) under the name,
  // fenced by the lease. When the name holds another value: if
  // `same(current)` (the same content written by another attempt) the
  // outcome is kUnchanged and this attempt is abandoned and its objects
  // deleted; else with `replace` a compare-and-set on the value read
  // (kReplaced); else `refusal(current)` is returned and the attempt is
  // kept resumable by OnFailure, so that a rerun with replace reuses it.
  Result<PublishedRoot> PublishRoot(const cases::ObjectRef& root, bool replace,
                                    const std::function<Result<bool>(const control::RootRecord&)>& same,
                                    const std::function<Status(const control::RootRecord&)>& refusal);

  // The root object a published record names, fetched and verified from
  // this store; nullopt when the record's attempt wrote to another store.
  Result<std::optional<cases::VerifiedObject>> FetchPublishedRoot(const control::RootRecord& record,
                                                                  uint64_t max_bytes);

  // The ledger id of the store a published record's attempt wrote to, when
  // that is not this writer's store (nullopt when it is, or is unknown).
  std::optional<std::string> OtherStoreOf(const control::RootRecord& record);

  // PublishRoot's `same` for a root whose manifest `decode` reads and
  // `equal(theirs, mine)` compares: the name's current root fetched
  // (FetchPublishedRoot; a root in another store is never the same), decoded
  // into `theirs` (kept for the caller: an unchanged outcome reports it).
  template <class Manifest, class Decode, class Equal>
  std::function<Result<bool>(const control::RootRecord&)> SameRoot(uint64_t max_bytes, Decode decode, Equal equal,
                                                                   const Manifest& mine,
                                                                   std::optional<Manifest>& theirs) {
    return [this, max_bytes, decode, equal, &mine, &theirs](const control::RootRecord& current) -> Result<bool> {
      VIGILO_ASSIGN_OR_RETURN(std::optional<cases::VerifiedObject> object, FetchPublishedRoot(current, max_bytes));
      if (!object) return false;
      VIGILO_ASSIGN_OR_RETURN(theirs, decode(*object));
      return equal(*theirs, mine);
    };
  }

  // The holder gives up: the attempt's keys are deleted now (what does not
  // finish stays recorded for `vigilo store cleanup`).
  void AbandonAndClean();

  // What a failure leaves: after PublishRoot refused a name held by another
  // value, or for a retryable code (unavailable, deadline_exceeded,
  // cancelled, io_error), the attempt stays resumable and
  // its lease is released so a rerun takes it over at once (the message
  // says so); otherwise it is abandoned and cleaned. An io_error that is a
  // refused permission or a read-only file system is not cured by a rerun:
  // its message says what to fix first (issue 34). Returns the status to
  // report.
  Status OnFailure(const Status& error);

  uint64_t cleanup_deleted() const { return cleanup_deleted_; }

  // Fills `report` with what this attempt did: its attempt, whether it
  // resumed, its object counts and the cleanup it drained; and, given what
  // PublishRoot returned, the outcome, version and root the name holds.
  void Report(PublicationReport& report) const;
  void Report(const PublishedRoot& published, PublicationReport& report) const;

 private:
  void Drain();

  const WriteTarget& target_;
  control::ControlStore& control_;
  control::Namespace ns_;
  std::string name_;
  store::Micros lease_duration_;
  const store::CancelToken* cancel_;
  store::GovernedStore governed_;
  std::optional<control::Lease> lease_;
  control::AttemptRef attempt_;
  std::string admission_;
  bool resumed_ = false;
  bool name_taken_ = false;
  cases::SinkStats stats_;
  uint64_t cleanup_deleted_ = 0;
};

}  // namespace vigilo::engine
