// Durable cleanup: only abandoned attempts' recorded keys are deleted, under
// the governor's cleanup budget; what a drain does not finish (budget,
// cancellation, failures, a drain that died holding its claim) stays
// recorded and the next drain finishes it; nothing published is deleted.
#include "vigilo/control/cleanup.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "control_test_support.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::control {
namespace {

using testing_support::BackendName;
using testing_support::ControlBackends;
using testing_support::kLease;
using testing_support::kSecond;
using testing_support::RootValue;

// A MemoryStore whose Delete first runs a hook (fail a key, advance time,
// cancel), for the drains below.
class HookedStore final : public store::ObjectStore {
 public:
  explicit HookedStore(store::MemoryStore& inner) : inner_(inner) {}
  std::function<Status(std::string_view key)> before_delete;
  std::vector<std::string> deletes;

  const store::Capabilities& capabilities() const override { return inner_.capabilities(); }
  Result<store::Bytes> Get(std::string_view key, const store::GetOptions& options) override {
    return inner_.Get(key, options);
  }
  Result<store::ObjectInfo> Head(std::string_view key, const store::AttemptContext* = nullptr) override { return inner_.Head(key); }
  Result<store::CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const store::AttemptContext* = nullptr) override {
    return inner_.CreateIfAbsent(key, bytes);
  }
  Result<std::unique_ptr<store::ObjectWriter>> BeginCreate(std::string_view key, const store::AttemptContext* = nullptr) override {
    return inner_.BeginCreate(key);
  }
  Status Delete(std::string_view key, const store::AttemptContext* = nullptr) override {
    deletes.emplace_back(key);
    if (before_delete) VIGILO_RETURN_IF_ERROR(before_delete(key));
    return inner_.Delete(key);
  }

 private:
  store::MemoryStore& inner_;
};

class CleanupTest : public testing_support::ControlTest {
 protected:
  void SetUp() override {
    ControlTest::SetUp();
    Result<std::unique_ptr<store::RequestGovernor>> governor =
        store::RequestGovernor::Create(store::GovernorLimits{}, governor_clock_, governor_random_);
    ASSERT_TRUE(governor.ok()) << governor.status().ToString();
    governor_ = std::move(governor).value();
  }

  // Records and creates `names` under the lease's prefix; returns the keys.
  // Keys before objects: a key whose record is refused is not created.
  std::vector<std::string> Write(const Lease& lease, const std::vector<std::string>& names, bool expect_ok = true) {
    std::vector<std::string> keys;
    for (const std::string& name : names) {
      std::string key = lease.key_prefix + name;
      Status recorded = control_->RecordKey(lease, key);
      if (expect_ok) {
        EXPECT_TRUE(recorded.ok()) << recorded.ToString();
      }
      if (!recorded.ok()) continue;
      std::string bytes = "bytes of " + key;
      EXPECT_TRUE(objects_.CreateIfAbsent(key, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()))
                      .ok());
      keys.push_back(key);
    }
    return keys;
  }

  // An abandoned attempt on this fixture's store with `count` objects.
  std::vector<std::string> AbandonedWith(int count) {
    Lease lease = Begin("geo");
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i) names.push_back("batch-" + std::to_string(i));
    std::vector<std::string> keys = Write(lease, names);
    EXPECT_TRUE(control_->Abandon(lease).ok());
    return keys;
  }

  CleanupReport Drain(store::ObjectStore& store, const store::CancelToken* cancel = nullptr) {
    return DrainCleanup(*control_, store_id_, store, *governor_, cancel);
  }

  bool Exists(const std::string& key) { return objects_.Peek(key).has_value(); }

  store::MemoryStore objects_;
  store::ManualClock governor_clock_{0};
  store::SeededRandom governor_random_{5};
  std::unique_ptr<store::RequestGovernor> governor_;
};

TEST_P(CleanupTest, OnlyAbandonedAttemptsOnThisStoreAreCleanedUp) {
  Lease published = Begin("geo");
  std::vector<std::string> kept = Write(published, {"a", "manifest.json"});
  ASSERT_TRUE(control_->PublishRoot(published, RootValue(kept.back())).ok());
  Lease active = Begin("geo");
  std::vector<std::string> in_progress = Write(active, {"a"});
  std::vector<std::string> abandoned = AbandonedWith(2);
  AttemptSpec elsewhere_spec = Spec("geo");
  elsewhere_spec.store = "another-store";
  Result<Lease> elsewhere = control_->BeginAttempt(elsewhere_spec);
  ASSERT_TRUE(elsewhere.ok());
  std::vector<std::string> other_store = Write(*elsewhere, {"x"});
  ASSERT_TRUE(control_->Abandon(*elsewhere).ok());

  Result<std::vector<std::string>> stores = control_->StoresWithDueCleanup();
  ASSERT_TRUE(stores.ok());
  EXPECT_EQ(*stores, (std::vector<std::string>{"another-store", "test-store"}));

  CleanupReport report = Drain(objects_);
  EXPECT_TRUE(report.status.ok()) << report.status.ToString();
  EXPECT_EQ(report.store, "test-store");
  EXPECT_EQ(report.claimed, 2u);
  EXPECT_EQ(report.deleted, 2u);
  EXPECT_EQ(report.remaining, 0u);
  for (const std::string& key : abandoned) EXPECT_FALSE(Exists(key)) << key;
  for (const std::string& key : kept) EXPECT_TRUE(Exists(key)) << key;
  for (const std::string& key : in_progress) EXPECT_TRUE(Exists(key)) << key;
  for (const std::string& key : other_store) EXPECT_TRUE(Exists(key)) << key;

  CleanupReport again = Drain(objects_);
  EXPECT_TRUE(again.status.ok());
  EXPECT_EQ(again.claimed, 0u);
  Result<std::vector<std::string>> left = control_->StoresWithDueCleanup();
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, std::vector<std::string>{"another-store"});
}

TEST_P(CleanupTest, ARecordedKeyThatWasNeverCreatedIsCleanedUpToo) {
  Lease lease = Begin("geo");
  ASSERT_TRUE(control_->RecordKey(lease, lease.key_prefix + "never-created").ok());
  ASSERT_TRUE(control_->Abandon(lease).ok());
  CleanupReport report = Drain(objects_);
  EXPECT_TRUE(report.status.ok()) << report.status.ToString();
  EXPECT_EQ(report.deleted, 1u);
  Result<AttemptRecord> row = control_->GetAttempt(lease.attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_TRUE(row->keys.empty());
}

TEST_P(CleanupTest, AFailedDeleteStaysRecordedForTheNextDrain) {
  std::vector<std::string> keys = AbandonedWith(2);
  HookedStore failing(objects_);
  failing.before_delete = [&](std::string_view key) {
    return key == keys[0] ? IoError("permission denied") : Status::Ok();
  };
  CleanupReport report = Drain(failing);
  EXPECT_EQ(report.status.code(), StatusCode::kIoError);
  EXPECT_EQ(report.status.message(),
            "cleanup of test-store: 1 of 2 cleanup steps unfinished, first step 0: io_error: permission denied; they "
            "stay recorded for a later cleanup");
  EXPECT_EQ(report.deleted, 1u);
  EXPECT_EQ(report.remaining, 1u);
  EXPECT_TRUE(Exists(keys[0]));
  EXPECT_FALSE(Exists(keys[1]));

  CleanupReport retry = Drain(objects_);
  EXPECT_TRUE(retry.status.ok()) << retry.status.ToString();
  EXPECT_EQ(retry.deleted, 1u);
  EXPECT_EQ(retry.remaining, 0u);
  EXPECT_FALSE(Exists(keys[0]));
}

TEST_P(CleanupTest, TheBudgetRunningOutLeavesTheRestRecorded) {
  std::vector<std::string> keys = AbandonedWith(5);
  HookedStore slow(objects_);
  // Each delete takes 11 s of the 30 s budget: three run, two are left.
  slow.before_delete = [&](std::string_view) {
    governor_clock_.Advance(11 * kSecond);
    return Status::Ok();
  };
  CleanupReport report = Drain(slow);
  EXPECT_EQ(report.status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(report.status.message(),
            "cleanup of test-store: 2 of 5 cleanup steps unfinished: the cleanup budget of 30000 ms ran out; they "
            "stay recorded for a later cleanup");
  EXPECT_EQ(report.claimed, 5u);
  EXPECT_EQ(report.deleted, 3u);
  EXPECT_EQ(report.remaining, 2u);
  EXPECT_EQ(slow.deletes.size(), 3u);

  CleanupReport next = Drain(objects_);
  EXPECT_TRUE(next.status.ok()) << next.status.ToString();
  EXPECT_EQ(next.claimed, 2u);
  EXPECT_EQ(next.remaining, 0u);
  for (const std::string& key : keys) EXPECT_FALSE(Exists(key)) << key;
}

// SIGINT, as `vigilo store cleanup` wires it: the token is cancelled in the
// middle of a drain, which stops, and what it did not delete stays recorded.
TEST_P(CleanupTest, CancellingADrainLeavesCleanupRecorded) {
  std::vector<std::string> keys = AbandonedWith(5);
  store::CancelToken cancel;
  HookedStore interrupted(objects_);
  interrupted.before_delete = [&](std::string_view) {
    if (interrupted.deletes.size() == 2) cancel.Cancel();
    return Status::Ok();
  };
  CleanupReport report = Drain(interrupted, &cancel);
  EXPECT_EQ(report.status.code(), StatusCode::kCancelled);
  EXPECT_EQ(report.status.message(),
            "cleanup of test-store: 3 of 5 cleanup steps unfinished: cancelled; they stay recorded for a later "
            "cleanup");
  EXPECT_EQ(report.deleted, 2u);
  EXPECT_EQ(report.remaining, 3u);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(Exists(keys[i]), i >= 2) << keys[i];

  store::CancelToken fresh;
  CleanupReport next = Drain(objects_, &fresh);
  EXPECT_TRUE(next.status.ok()) << next.status.ToString();
  EXPECT_EQ(next.deleted, 3u);
  EXPECT_EQ(objects_.object_count(), 0u);
}

TEST_P(CleanupTest, AnAlreadyCancelledDrainDeletesNothing) {
  std::vector<std::string> keys = AbandonedWith(2);
  store::CancelToken cancel;
  cancel.Cancel();
  CleanupReport report = Drain(objects_, &cancel);
  EXPECT_EQ(report.status.code(), StatusCode::kCancelled);
  EXPECT_EQ(report.deleted, 0u);
  EXPECT_EQ(report.remaining, 2u);
  EXPECT_EQ(objects_.object_count(), 2u);
  // Its claim was released: the next drain does not wait for it to expire.
  EXPECT_EQ(Drain(objects_).deleted, 2u);
}

TEST_P(CleanupTest, AnAttemptAbandonedByATakeoverSettlesFirst) {
  Lease lease = Begin("geo");
  std::vector<std::string> keys = Write(lease, {"a"});
  clock_.Advance(kLease);
  ASSERT_TRUE(control_->AbandonExpired(lease.attempt, kDefaultAbandonSettle).ok());
  CleanupReport early = Drain(objects_);
  EXPECT_TRUE(early.status.ok());
  EXPECT_EQ(early.claimed, 0u);
  EXPECT_EQ(early.remaining, 1u);  // recorded, not yet due
  clock_.Advance(kDefaultAbandonSettle - 1);
  EXPECT_EQ(Drain(objects_).claimed, 0u);
  clock_.Advance(1);
  CleanupReport due = Drain(objects_);
  EXPECT_EQ(due.deleted, 1u);
  EXPECT_FALSE(Exists(keys[0]));
}

TEST_P(CleanupTest, ClaimsKeepConcurrentDrainsApartUntilTheyExpire) {
  std::vector<std::string> keys = AbandonedWith(3);
  Result<std::vector<CleanupItem>> first = control_->ClaimCleanup(store_id_, 10, 60 * kSecond);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->size(), 3u);
  EXPECT_EQ((*first)[0].key, keys[0]);
  Status no_claim = control_->ClaimCleanup(store_id_, 10, 0).status();
  EXPECT_EQ(no_claim.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(no_claim.message(), "a cleanup claim must be more than 0 and at most 24 hours; got 0 µs");
  // Another drain meanwhile finds nothing to do …
  Result<std::vector<CleanupItem>> second = control_->ClaimCleanup(store_id_, 10, 60 * kSecond);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->empty());
  // … until the first drain's claim expires (it died without finishing).
  clock_.Advance(60 * kSecond);
  Reopen();
  Result<std::vector<CleanupItem>> after = control_->ClaimCleanup(store_id_, 2, 60 * kSecond);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 2u);  // max_items bounds a claim
  std::vector<CleanupFailure> failed = {{(*after)[1], "io_error: boom"}};
  ASSERT_TRUE(control_->FinishCleanup(*after, std::span(after->data(), 1), failed).ok());
  Result<uint64_t> pending = control_->PendingCleanupKeys(store_id_);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(*pending, 2u);
  // Finishing released the claim; the failed key now sorts last.
  Result<std::vector<CleanupItem>> rest = control_->ClaimCleanup(store_id_, 10, 60 * kSecond);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 2u);
  EXPECT_EQ((*rest)[0].key, keys[2]);
  EXPECT_EQ((*rest)[1].key, keys[1]);
}

// A seeded random history of writers over one store: attempts begin, write,
// publish identical or different roots, replace, abandon, or die and are
// abandoned or resumed after expiry; drains run (sometimes cancelled or failing) in
// between. After every step, every object of every published attempt is
// still there, and every object in the store is recorded by some attempt.
TEST_P(CleanupTest, NothingPublishedIsEverDeleted) {
  store::SeededRandom dice(2026);
  struct Writer {
    Lease lease;
    std::vector<std::string> created;
    bool done = false;
  };
  std::vector<Writer> writers;
  std::set<std::string> published_keys;
  uint64_t replaced = 0, identical = 0, drained = 0, resumed_count = 0;
  auto check = [&](int step) {
    for (const std::string& key : published_keys) ASSERT_TRUE(Exists(key)) << "step " << step << ": " << key;
  };
  for (int step = 0; step < 500; ++step) {
    const uint64_t roll = dice.UniformUpTo(11);
    const std::string name = "ds" + std::to_string(dice.UniformUpTo(2));
    if (roll <= 1 || writers.empty()) {
      writers.push_back(Writer{Begin(name, "w" + std::to_string(step)), {}, false});
      continue;
    }
    Writer& w = writers[dice.UniformUpTo(writers.size() - 1)];
    if (w.done) continue;
    if (roll <= 4) {
      std::vector<std::string> keys = Write(w.lease, {"obj-" + std::to_string(step)}, /*expect_ok=*/false);
      w.created.insert(w.created.end(), keys.begin(), keys.end());
    } else if (roll <= 7) {
      std::string value = RootValue(w.lease.key_prefix + "root-" + std::to_string(dice.UniformUpTo(1)));
      if (dice.UniformUpTo(2) == 0) {  // sometimes exactly what the name holds already
        Result<AttemptRecord> row = control_->GetAttempt(w.lease.attempt);
        ASSERT_TRUE(row.ok());
        Result<std::optional<RootRecord>> current = control_->GetRoot(Namespace::kDatasets, row->name);
        ASSERT_TRUE(current.ok());
        if (current->has_value()) value = (*current)->value;
      }
      Result<PublishOutcome> outcome = control_->PublishRoot(w.lease, value);
      if (!outcome.ok() && outcome.status().code() == StatusCode::kAlreadyExists) {
        Result<AttemptRecord> row = control_->GetAttempt(w.lease.attempt);
        ASSERT_TRUE(row.ok());
        Result<std::optional<RootRecord>> current = control_->GetRoot(Namespace::kDatasets, row->name);
        ASSERT_TRUE(current.ok() && current->has_value());
        outcome = control_->ReplaceRoot(w.lease, (*current)->value, value);
      }
      if (outcome.ok()) {
        replaced += *outcome == PublishOutcome::kReplaced ? 1 : 0;
        identical += *outcome == PublishOutcome::kAlreadyIdentical ? 1 : 0;
        published_keys.insert(w.created.begin(), w.created.end());
        w.done = true;
      } else {
        ASSERT_EQ(outcome.status().code(), StatusCode::kFenced) << outcome.status().ToString();
      }
    } else if (roll == 8) {
      if (control_->Abandon(w.lease).ok()) w.done = true;
    } else if (roll == 9) {
      // Every lease so far expires; another writer abandons some attempts
      // and resumes the others.
      clock_.Advance(kLease);
      for (Writer& other : writers) {
        if (other.done) continue;
        if (dice.UniformUpTo(1) == 0) {
          ASSERT_TRUE(control_->AbandonExpired(other.lease.attempt, 0).ok());
          other.done = true;
        } else {
          Result<Lease> resumed = control_->ResumeAttempt(other.lease.attempt, "resumer", kLease);
          ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
          other.lease = *resumed;
          ++resumed_count;
        }
      }
    } else {
      store::CancelToken cancel;
      HookedStore flaky(objects_);
      flaky.before_delete = [&](std::string_view) -> Status {
        uint64_t r = dice.UniformUpTo(9);
        if (r == 0) cancel.Cancel();
        if (r == 1) return IoError("flaky");
        return Status::Ok();
      };
      drained += Drain(flaky, &cancel).deleted;
    }
    check(step);
    // Keys before objects: every object in the store is in the ledger or
    // was created by a published attempt.
    for (const std::string& key : objects_.Keys()) {
      bool known = published_keys.count(key) != 0;
      for (const Writer& other : writers) {
        for (const std::string& k : other.created) known = known || k == key;
      }
      ASSERT_TRUE(known) << key;
    }
  }
  // Finally everything abandoned is drained and only published objects remain.
  for (int i = 0; i < 10; ++i) (void)Drain(objects_);
  check(1000);
  for (const std::string& key : objects_.Keys()) {
    bool published = published_keys.count(key) != 0;
    bool active = false;
    for (const Writer& w : writers) {
      if (!w.done) {
        for (const std::string& k : w.created) active = active || k == key;
      }
    }
    EXPECT_TRUE(published || active) << key;
  }
  // The history exercised every path.
  EXPECT_FALSE(published_keys.empty());
  EXPECT_GT(replaced, 0u);
  EXPECT_GT(identical, 0u);
  EXPECT_GT(drained, 0u);
  EXPECT_GT(resumed_count, 0u);
}

// What `vigilo store cleanup` looks for beyond due keys (issue 34): active
// attempts whose lease expired (a dead writer, a released lease), per store
// and by expiry; and the abandoned attempts that still hold keys, due or
// not, for a dry run. Published attempts are never among them.
TEST_P(CleanupTest, ExpiredAttemptsAreFoundByStoreAndExpiryAndNeverPublishedOnes) {
  Lease live = Begin("live");
  Lease dead = Begin("dead");
  Write(dead, {"a", "b"});
  Lease published = Begin("done");
  std::vector<std::string> kept = Write(published, {"manifest.json"});
  ASSERT_TRUE(control_->PublishRoot(published, RootValue(kept.back())).ok());
  AttemptSpec elsewhere_spec = Spec("far");
  elsewhere_spec.store = "another-store";
  ASSERT_TRUE(control_->BeginAttempt(elsewhere_spec).ok());
  // The dead one stops renewing; the live one renews.
  clock_.Advance(kLease / 2);
  ASSERT_TRUE(control_->RenewLease(live, kLease).ok());
  clock_.Advance(kLease / 2 + 1);

  Result<std::vector<AttemptRecord>> expired = control_->ExpiredAttempts(store_id_, clock_.Now());
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  ASSERT_EQ(expired->size(), 1u);
  EXPECT_EQ((*expired)[0].attempt, dead.attempt);
  EXPECT_EQ((*expired)[0].state, AttemptState::kActive);
  EXPECT_TRUE((*expired)[0].keys.empty());  // records without keys
  // A cutoff before its expiry finds nothing.
  EXPECT_TRUE(control_->ExpiredAttempts(store_id_, dead.expires_at - 1)->empty());
  Result<std::vector<std::string>> stores = control_->StoresWithExpiredAttempts(clock_.Now());
  ASSERT_TRUE(stores.ok());
  EXPECT_EQ(*stores, (std::vector<std::string>{"another-store", "test-store"}));
  EXPECT_TRUE(control_->StoresWithExpiredAttempts(dead.expires_at - 1)->empty());

  // Abandoned (with a settle time), it awaits cleanup until drained.
  EXPECT_TRUE(control_->AttemptsAwaitingCleanup(store_id_)->empty());
  ASSERT_TRUE(control_->AbandonExpired(dead.attempt, 10 * kSecond).ok());
  EXPECT_TRUE(control_->ExpiredAttempts(store_id_, clock_.Now())->empty());
  Result<std::vector<AttemptRecord>> awaiting = control_->AttemptsAwaitingCleanup(store_id_);
  ASSERT_TRUE(awaiting.ok()) << awaiting.status().ToString();
  ASSERT_EQ(awaiting->size(), 1u);
  EXPECT_EQ((*awaiting)[0].attempt, dead.attempt);
  EXPECT_EQ((*awaiting)[0].cleanup_due_at, clock_.Now() + 10 * kSecond);
  clock_.Advance(10 * kSecond);
  CleanupReport report = Drain(objects_);
  EXPECT_EQ(report.deleted, 2u);
  EXPECT_EQ(report.deleted_keys, (std::vector<std::string>{dead.key_prefix + "a", dead.key_prefix + "b"}));
  EXPECT_TRUE(control_->AttemptsAwaitingCleanup(store_id_)->empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, CleanupTest, ::testing::ValuesIn(ControlBackends()), BackendName);

TEST(AttemptOfKeyTest, FindsTheAttemptPrefixOfAKeyAndNothingElse) {
  const std::string id = "0f8a4a0e-6a7b-4c1d-9e2f-3a4b5c6d7e8f";
  std::optional<AttemptKey> key = AttemptOfKey("datasets/geo/attempts/" + id + "/g2/batches/x.jsonl");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->ns, Namespace::kDatasets);
  EXPECT_EQ(key->name, "geo");
  EXPECT_EQ(key->attempt_id.ToString(), id);
  EXPECT_EQ(key->generation, 2u);
  EXPECT_EQ(key->prefix, "datasets/geo/attempts/" + id + "/g2/");
  EXPECT_TRUE(AttemptOfKey("runs/r.1/attempts/" + id + "/g1/manifest.json").has_value());
  for (const std::string& other : std::vector<std::string>{"datasets/geo/attempts/" + id + "/g2/", "datasets/geo/attempts/" + id + "/g0/x",
        "datasets/geo/attempts/" + id + "/g01/x", "datasets/geo/attempts/" + id + "/2/x",
        "datasets/geo/attempt/" + id + "/g1/x", "datasets/geo/attempts/not-a-uuid/g1/x",
        "Datasets/geo/attempts/" + id + "/g1/x", "datasets/.geo/attempts/" + id + "/g1/x",
        "datasets/geo/attempts/" + id + "/g99999999999/x", "manifest.json", ""}) {
    EXPECT_FALSE(AttemptOfKey(other).has_value()) << other;
  }
}

}  // namespace
}  // namespace vigilo::control
