// The attempt ledger and its leases on injected wall time (no sleeps):
// what an attempt records, when a lease expires to the microsecond, how a
// takeover fences the previous holder, and which arguments are refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control_test_support.h"

namespace vigilo::control {
namespace {

using testing_support::BackendName;
using testing_support::ControlBackends;
using testing_support::kLease;
using testing_support::kSecond;
using testing_support::kT0;

class AttemptTest : public testing_support::ControlTest {};

TEST_P(AttemptTest, BeginRecordsTheAttemptUnderItsPrefix) {
  AttemptSpec spec = Spec("geo");
  spec.attempt_id = Id(1);
  spec.generation = 3;
  Result<Lease> lease = control_->BeginAttempt(spec);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ(lease->attempt, (AttemptRef{Id(1), 3}));
  EXPECT_EQ(lease->epoch, 1u);
  EXPECT_EQ(lease->expires_at, kT0 + kLease);
  EXPECT_EQ(lease->key_prefix, "datasets/geo/attempts/00000000-0000-4000-8000-000000000001/g3/");

  Result<AttemptRecord> row = control_->GetAttempt(lease->attempt);
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(row->ns, Namespace::kDatasets);
  EXPECT_EQ(row->name, "geo");
  EXPECT_EQ(row->store, "test-store");
  EXPECT_EQ(row->key_prefix, lease->key_prefix);
  EXPECT_EQ(row->owner, "writer-1");
  EXPECT_EQ(row->state, AttemptState::kActive);
  EXPECT_EQ(row->epoch, 1u);
  EXPECT_EQ(row->lease_expires_at, kT0 + kLease);
  EXPECT_EQ(row->admission_limits, R"({"case_batch_max_bytes":1048576})");
  EXPECT_EQ(row->created_at, kT0);
  EXPECT_EQ(row->updated_at, kT0);
  EXPECT_FALSE(row->cleanup_due_at.has_value());
  EXPECT_TRUE(row->keys.empty());
}

TEST_P(AttemptTest, PrefixMatchesTheCaseStorageKeyLayout) {
  EXPECT_EQ(AttemptKeyPrefix(Namespace::kRuns, "r-1", Id(10), 1),
            "runs/r-1/attempts/00000000-0000-4000-8000-00000000000a/g1/");
  EXPECT_EQ(AttemptKeyPrefix(Namespace::kDatasets, "a.b_c-D9", Id(2), 42),
            "datasets/a.b_c-D9/attempts/00000000-0000-4000-8000-000000000002/g42/");
}

TEST_P(AttemptTest, EpochsIncreaseAcrossTheWholeStore) {
  EXPECT_EQ(Begin("a").epoch, 1u);
  EXPECT_EQ(Begin("b").epoch, 2u);
  EXPECT_EQ(Begin("a").epoch, 3u);
  Reopen();  // a restarted process continues the sequence
  EXPECT_EQ(Begin("c").epoch, 4u);
}

TEST_P(AttemptTest, FreshAttemptIdsAreRandomVersion4Uuids) {
  Lease a = Begin("geo");
  Lease b = Begin("geo");
  EXPECT_EQ(a.attempt.attempt_id.version(), 4);
  EXPECT_TRUE(a.attempt.attempt_id.is_rfc_variant());
  EXPECT_NE(a.attempt.attempt_id, b.attempt.attempt_id);
  EXPECT_EQ(a.attempt.generation, 1u);
}

TEST_P(AttemptTest, AnAttemptIdAndGenerationAreUsedOnce) {
  AttemptSpec spec = Spec("geo");
  spec.attempt_id = Id(1);
  ASSERT_TRUE(control_->BeginAttempt(spec).ok());
  Status again = control_->BeginAttempt(spec).status();
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(),
            "attempt 00000000-0000-4000-8000-000000000001/g1 exists already (active); an attempt ID and "
            "generation are used once");
  spec.generation = 2;  // the next generation of the same attempt ID is a new prefix
  Result<Lease> next = control_->BeginAttempt(spec);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->key_prefix, "datasets/geo/attempts/00000000-0000-4000-8000-000000000001/g2/");
}

TEST_P(AttemptTest, SpecsThatBreakTheRulesAreRefused) {
  struct Case {
    std::function<void(AttemptSpec&)> change;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](AttemptSpec& s) { s.name = ".geo"; }, StatusCode::kInvalidFormat, "a root name must not start with '.'"},
      {[](AttemptSpec& s) { s.name = "a/b"; }, StatusCode::kInvalidFormat,
       "a root name is made of A-Z, a-z, 0-9, '.', '_' and '-' only"},
      {[](AttemptSpec& s) { s.name = std::string(129, 'x'); }, StatusCode::kInvalidFormat,
       "a root name is 1-128 characters; got 129"},
      {[](AttemptSpec& s) { s.name = ""; }, StatusCode::kInvalidFormat, "a root name is 1-128 characters; got 0"},
      {[](AttemptSpec& s) { s.owner = ""; }, StatusCode::kInvalidArgument, "the owner is empty"},
      {[](AttemptSpec& s) { s.owner = "a\nb"; }, StatusCode::kInvalidArgument,
       "the owner contains a control character"},
      {[](AttemptSpec& s) { s.store = ""; }, StatusCode::kInvalidArgument, "the store id is empty"},
      {[](AttemptSpec& s) { s.admission_limits = R"({"b":1,"a":2})"; }, StatusCode::kInvalidArgument,
       "the admission limits must be canonical JSON: not_canonical: not the canonical JSON form; found 'b' where "
       "the canonical form has 'a' (at byte 2)"},
      {[](AttemptSpec& s) { s.admission_limits = "[]"; }, StatusCode::kInvalidArgument,
       "the admission limits must be a JSON object"},
      {[](AttemptSpec& s) { s.generation = 0; }, StatusCode::kInvalidArgument,
       "the generation must be at least 1"},
      {[](AttemptSpec& s) { s.lease_duration = 0; }, StatusCode::kInvalidArgument,
       "a lease lasts more than 0 and at most 24 hours; got 0 µs"},
      {[](AttemptSpec& s) { s.lease_duration = kMaxLeaseDuration + 1; }, StatusCode::kInvalidArgument,
       "a lease lasts more than 0 and at most 24 hours; got 86400000001 µs"},
      {[](AttemptSpec& s) { s.attempt_id = Uuid(); }, StatusCode::kInvalidArgument,
       "the attempt ID must not be the nil UUID"},
  };
  for (const Case& c : cases) {
    AttemptSpec spec = Spec("geo");
    c.change(spec);
    Status status = control_->BeginAttempt(spec).status();
    EXPECT_EQ(status.code(), c.code) << status.ToString();
    EXPECT_EQ(status.message(), c.message);
  }
  Result<std::vector<AttemptRecord>> none = control_->ListAttempts(Namespace::kDatasets, "geo");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(AttemptTest, ALeaseExpiresExactlyOnTime) {
  Lease lease = Begin("geo");
  clock_.Advance(kLease - 1);
  EXPECT_TRUE(control_->RecordKey(lease, lease.key_prefix + "a.json").ok());
  clock_.Advance(1);
  Status expired = control_->RecordKey(lease, lease.key_prefix + "b.json");
  EXPECT_EQ(expired.code(), StatusCode::kFenced);
  EXPECT_EQ(expired.message(), "the lease on attempt " + AttemptName(lease.attempt) +
                                   " expired at 2026-01-01T00:00:30.000000Z");
  // A writer whose lease expired cannot publish or renew either, even if
  // nobody has taken over.
  EXPECT_EQ(control_->PublishRoot(lease, testing_support::RootValue("x")).status().code(), StatusCode::kFenced);
  EXPECT_EQ(control_->RenewLease(lease, kLease).status().code(), StatusCode::kFenced);
  Result<AttemptRecord> row = control_->GetAttempt(lease.attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->keys, std::vector<std::string>{lease.key_prefix + "a.json"});
}

TEST_P(AttemptTest, RenewExtendsTheLeaseFromNow) {
  Lease lease = Begin("geo");
  clock_.Advance(20 * kSecond);
  Result<Lease> renewed = control_->RenewLease(lease, kLease);
  ASSERT_TRUE(renewed.ok()) << renewed.status().ToString();
  EXPECT_EQ(renewed->epoch, lease.epoch);
  EXPECT_EQ(renewed->expires_at, kT0 + 50 * kSecond);
  clock_.Advance(30 * kSecond - 1);
  EXPECT_TRUE(control_->RecordKey(*renewed, renewed->key_prefix + "a").ok());
  clock_.Advance(1);
  EXPECT_EQ(control_->RecordKey(*renewed, renewed->key_prefix + "b").code(), StatusCode::kFenced);
}

TEST_P(AttemptTest, ResumeIsRefusedWhileTheLeaseIsHeld) {
  Lease lease = Begin("geo");
  clock_.Advance(kLease - 1);
  Status held = control_->ResumeAttempt(lease.attempt, "writer-2", kLease).status();
  EXPECT_EQ(held.code(), StatusCode::kUnavailable);
  EXPECT_EQ(held.message(), "attempt " + AttemptName(lease.attempt) +
                                " is leased by writer-1 until 2026-01-01T00:00:30.000000Z; it can be resumed once "
                                "the lease expires");
}

TEST_P(AttemptTest, ResumeTakesOverWithTheSameKeysAndAHigherEpoch) {
  Lease first = Begin("geo");
  Begin("other");  // epochs are store-wide: the takeover gets 3, not 2
  ASSERT_TRUE(control_->RecordKey(first, first.key_prefix + "batch-0.jsonl").ok());
  clock_.Advance(kLease);
  Result<Lease> second = control_->ResumeAttempt(first.attempt, "writer-2", 10 * kSecond);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->attempt, first.attempt);
  EXPECT_EQ(second->key_prefix, first.key_prefix);
  EXPECT_EQ(second->epoch, 3u);
  EXPECT_EQ(second->expires_at, kT0 + kLease + 10 * kSecond);

  Result<AttemptRecord> row = control_->GetAttempt(first.attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->owner, "writer-2");
  EXPECT_EQ(row->epoch, 3u);
  EXPECT_EQ(row->admission_limits, R"({"case_batch_max_bytes":1048576})");
  EXPECT_EQ(row->keys, std::vector<std::string>{first.key_prefix + "batch-0.jsonl"});

  // The previous holder is fenced from every change, whatever its clock says.
  const std::string taken = "attempt " + AttemptName(first.attempt) +
                            " was taken over: its fencing epoch is now 3 and this writer holds 1";
  Status record = control_->RecordKey(first, first.key_prefix + "late");
  EXPECT_EQ(record.code(), StatusCode::kFenced);
  EXPECT_EQ(record.message(), taken);
  Status publish = control_->PublishRoot(first, testing_support::RootValue("x")).status();
  EXPECT_EQ(publish.code(), StatusCode::kFenced);
  EXPECT_EQ(publish.message(), taken);
  EXPECT_EQ(control_->RenewLease(first, kLease).status().message(), taken);
  EXPECT_EQ(control_->Abandon(first).message(), taken);

  EXPECT_TRUE(control_->RecordKey(*second, second->key_prefix + "batch-1.jsonl").ok());
  Result<PublishOutcome> published = control_->PublishRoot(*second, testing_support::RootValue("m"));
  ASSERT_TRUE(published.ok()) << published.status().ToString();
  EXPECT_EQ(*published, PublishOutcome::kPublished);
}

TEST_P(AttemptTest, RecordedKeysStayUnderTheAttemptsPrefix) {
  Lease lease = Begin("geo");
  Lease other = Begin("geo");
  const std::string outside = other.key_prefix + "a.json";
  Status status = control_->RecordKey(lease, outside);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "cannot record key \"" + outside + "\": an attempt records only keys under its prefix " +
                                  lease.key_prefix);
  EXPECT_EQ(control_->RecordKey(lease, lease.key_prefix).code(), StatusCode::kInvalidArgument);
  Status dotdot = control_->RecordKey(lease, lease.key_prefix + "../x");
  EXPECT_EQ(dotdot.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(dotdot.message(), "cannot record key \"" + lease.key_prefix +
                                  "../x\": logical key has a '..' segment at byte 62");

  // A lease whose prefix was changed by the caller is checked against the
  // attempt's own prefix.
  Lease forged = lease;
  forged.key_prefix = other.key_prefix;
  EXPECT_EQ(control_->RecordKey(forged, outside).code(), StatusCode::kInvalidArgument);

  // All or nothing, and a key recorded twice is recorded once.
  std::vector<std::string> batch = {lease.key_prefix + "a", lease.key_prefix + "b", "elsewhere/c"};
  EXPECT_EQ(control_->RecordKeys(lease, batch).code(), StatusCode::kInvalidArgument);
  batch.pop_back();
  ASSERT_TRUE(control_->RecordKeys(lease, batch).ok());
  ASSERT_TRUE(control_->RecordKeys(lease, batch).ok());
  Result<AttemptRecord> row = control_->GetAttempt(lease.attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->keys, batch);
}

TEST_P(AttemptTest, TheHolderAbandonsAndItsKeysBecomeCleanupWorkAtOnce) {
  Lease lease = Begin("geo");
  ASSERT_TRUE(control_->RecordKey(lease, lease.key_prefix + "a").ok());
  clock_.Advance(kSecond);
  ASSERT_TRUE(control_->Abandon(lease).ok());
  Result<AttemptRecord> row = control_->GetAttempt(lease.attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->state, AttemptState::kAbandoned);
  EXPECT_EQ(row->cleanup_due_at, kT0 + kSecond);

  Status record = control_->RecordKey(lease, lease.key_prefix + "b");
  EXPECT_EQ(record.code(), StatusCode::kFenced);
  EXPECT_EQ(record.message(), "attempt " + AttemptName(lease.attempt) + " was abandoned");
  clock_.Advance(kLease);
  Status resume = control_->ResumeAttempt(lease.attempt, "writer-2", kLease).status();
  EXPECT_EQ(resume.code(), StatusCode::kFenced);
  EXPECT_EQ(resume.message(), "attempt " + AttemptName(lease.attempt) +
                                  " was abandoned: its keys are cleanup work and it cannot be resumed");
}

TEST_P(AttemptTest, AnExpiredAttemptCanBeAbandonedByAnyoneAfterTheSettleTime) {
  Lease lease = Begin("geo");
  Status held = control_->AbandonExpired(lease.attempt, kDefaultAbandonSettle);
  EXPECT_EQ(held.code(), StatusCode::kUnavailable);
  EXPECT_EQ(held.message(), "attempt " + AttemptName(lease.attempt) +
                                " is leased by writer-1 until 2026-01-01T00:00:30.000000Z; it can be abandoned "
                                "once the lease expires");
  clock_.Advance(kLease);
  ASSERT_TRUE(control_->AbandonExpired(lease.attempt, kDefaultAbandonSettle).ok());
  ASSERT_TRUE(control_->AbandonExpired(lease.attempt, kDefaultAbandonSettle).ok());  // idempotent
  Result<AttemptRecord> row = control_->GetAttempt(lease.attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->state, AttemptState::kAbandoned);
  EXPECT_EQ(row->cleanup_due_at, kT0 + kLease + kDefaultAbandonSettle);
  Status negative = control_->AbandonExpired(lease.attempt, -1);
  EXPECT_EQ(negative.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.message(), "the settle time must be at least 0 and at most 24 hours; got -1 µs");
  EXPECT_EQ(control_->AbandonExpired(lease.attempt, kMaxLeaseDuration + 1).code(), StatusCode::kInvalidArgument);
}

TEST_P(AttemptTest, APublishedAttemptCanBeNeitherResumedNorAbandoned) {
  Lease lease = Begin("geo");
  ASSERT_TRUE(control_->PublishRoot(lease, testing_support::RootValue("m")).ok());
  clock_.Advance(kLease);
  const std::string published = "attempt " + AttemptName(lease.attempt) + " is already published";
  Status resume = control_->ResumeAttempt(lease.attempt, "writer-2", kLease).status();
  EXPECT_EQ(resume.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(resume.message(), published);
  Status abandon = control_->AbandonExpired(lease.attempt, 0);
  EXPECT_EQ(abandon.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(abandon.message(), published);
  Status own = control_->Abandon(lease);
  EXPECT_EQ(own.code(), StatusCode::kFenced);
  EXPECT_EQ(own.message(), published);
}

TEST_P(AttemptTest, UnknownAttemptsAreNotFound) {
  AttemptRef ref{Id(9), 1};
  Status status = control_->ResumeAttempt(ref, "w", kLease).status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "no attempt 00000000-0000-4000-8000-000000000009/g1 in the control ledger");
  EXPECT_EQ(control_->GetAttempt(ref).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(control_->RecordKey(Lease{ref, 1, kT0 + kLease, "datasets/x/"}, "datasets/x/a").code(),
            StatusCode::kNotFound);
}

TEST_P(AttemptTest, ARestartedWriterFindsTheAttemptsOfItsName) {
  Lease a = Begin("geo");
  clock_.Advance(kSecond);
  Lease b = Begin("geo");
  Begin("other");
  Reopen();
  Result<std::vector<AttemptRecord>> listed = control_->ListAttempts(Namespace::kDatasets, "geo");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].attempt, a.attempt);
  EXPECT_EQ((*listed)[1].attempt, b.attempt);
  EXPECT_EQ((*listed)[1].created_at, kT0 + kSecond);
  Result<std::vector<AttemptRecord>> runs = control_->ListAttempts(Namespace::kRuns, "geo");
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, AttemptTest, ::testing::ValuesIn(ControlBackends()), BackendName);

}  // namespace
}  // namespace vigilo::control
