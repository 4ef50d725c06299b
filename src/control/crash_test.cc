// A crash between staging and publication, at every step of a small
// publication: the writer dies before each control or store step (and the
// fault wrapper crashes each create before or after it takes effect). A
// restarted process (a new connection, time past the lease) then finds
// either nothing, a resumable attempt that it finishes by reusing the
// objects, or, if it chooses to abandon instead, cleanup work that a drain
// removes completely. A published attempt is never cleaned up.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "control_test_support.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::control {
namespace {

using testing_support::BackendName;
using testing_support::ControlBackends;
using testing_support::kLease;
using testing_support::RootValue;

const std::vector<std::pair<std::string, std::string>> kObjects = {
    {"source-fields.json", R"({"dataset_id":"geo"})"},
    {"batches/0000000000-0000000002.jsonl", "{\"case\":0}\n{\"case\":1}\n"},
    {"manifest.json", R"({"case_count":2})"},
};
// Begin, then record + create per object, then publish.
constexpr int kSteps = 1 + 2 * 3 + 1;

struct WriterRun {
  std::optional<Lease> lease;
  Status status;  // the store's crash, if it crashed
};

// The writer protocol every publication follows: keys are recorded before
// their create is issued and the root is published last. Stops before step
// `stop_before` (the process dies there) or at the first failing call.
WriterRun RunWriter(ControlStore& control, store::ObjectStore& objects, const AttemptSpec& spec,
                    std::optional<Lease> resumed, int stop_before) {
  WriterRun run;
  run.lease = std::move(resumed);
  int step = 0;
  auto proceed = [&]() { return step++ < stop_before; };
  if (!run.lease.has_value()) {
    if (!proceed()) return run;
    Result<Lease> lease = control.BeginAttempt(spec);
    if (!lease.ok()) {
      run.status = lease.status();
      return run;
    }
    run.lease = *lease;
  } else {
    ++step;
  }
  const Lease& lease = *run.lease;
  for (const auto& [name, bytes] : kObjects) {
    if (!proceed()) return run;
    if (Status s = control.RecordKey(lease, lease.key_prefix + name); !s.ok()) {
      run.status = s;
      return run;
    }
    if (!proceed()) return run;
    Result<store::CreateResult> created = objects.CreateIfAbsent(
        lease.key_prefix + name, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    if (!created.ok()) {
      run.status = created.status();
      return run;
    }
  }
  if (!proceed()) return run;
  run.status = control.PublishRoot(lease, RootValue(lease.key_prefix + "manifest.json")).status();
  return run;
}

enum class Recovery { kResume, kAbandon };

class CrashTest : public testing_support::ControlTest {
 protected:
  void SetUp() override {
    ControlTest::SetUp();
    objects_ = std::make_unique<store::MemoryStore>();
    Result<std::unique_ptr<store::RequestGovernor>> governor =
        store::RequestGovernor::Create(store::GovernorLimits{}, governor_clock_, governor_random_);
    ASSERT_TRUE(governor.ok());
    governor_ = std::move(governor).value();
  }

  // Keys before objects: whatever the crash left in the store is recorded.
  void ExpectEveryObjectRecorded() {
    Result<std::vector<AttemptRecord>> attempts = control_->ListAttempts(Namespace::kDatasets, "geo");
    ASSERT_TRUE(attempts.ok());
    std::vector<std::string> recorded;
    for (const AttemptRecord& a : *attempts) {
      Result<AttemptRecord> full = control_->GetAttempt(a.attempt);
      ASSERT_TRUE(full.ok());
      recorded.insert(recorded.end(), full->keys.begin(), full->keys.end());
    }
    for (const std::string& key : objects_->Keys()) {
      EXPECT_NE(std::find(recorded.begin(), recorded.end(), key), recorded.end()) << key << " is not recorded";
    }
  }

  void ExpectPublishedAndComplete(const std::string& prefix) {
    Result<std::optional<RootRecord>> root = control_->GetRoot(Namespace::kDatasets, "geo");
    ASSERT_TRUE(root.ok());
    ASSERT_TRUE(root->has_value());
    EXPECT_EQ((*root)->value, RootValue(prefix + "manifest.json"));
    ASSERT_EQ(objects_->object_count(), kObjects.size());
    for (const auto& [name, bytes] : kObjects) EXPECT_EQ(objects_->Peek(prefix + name), bytes) << name;
  }

  // The restarted process: a new connection, time past every lease, and
  // only the ledger to go by.
  void RestartAndRecover(Recovery recovery) {
    Reopen();
    clock_.Advance(kLease);
    ExpectEveryObjectRecorded();
    Result<std::vector<AttemptRecord>> attempts = control_->ListAttempts(Namespace::kDatasets, "geo");
    ASSERT_TRUE(attempts.ok());
    if (attempts->empty()) {  // died before its attempt was begun: nothing was written
      EXPECT_EQ(objects_->object_count(), 0u);
      return;
    }
    ASSERT_EQ(attempts->size(), 1u);
    const AttemptRecord& attempt = attempts->front();
    if (attempt.state == AttemptState::kPublished) {  // died after publishing: nothing to do
      EXPECT_EQ(control_->AbandonExpired(attempt.attempt, 0).code(), StatusCode::kAlreadyExists);
      CleanupReport report = DrainCleanup(*control_, store_id_, *objects_, *governor_);
      EXPECT_EQ(report.claimed, 0u);
      ExpectPublishedAndComplete(attempt.key_prefix);
      return;
    }
    ASSERT_EQ(attempt.state, AttemptState::kActive);
    if (recovery == Recovery::kResume) {
      Result<Lease> lease = control_->ResumeAttempt(attempt.attempt, "restarted", kLease);
      ASSERT_TRUE(lease.ok()) << lease.status().ToString();
      EXPECT_GT(lease->epoch, attempt.epoch);
      WriterRun finished = RunWriter(*control_, *objects_, Spec("geo"), *lease, kSteps);
      ASSERT_TRUE(finished.status.ok()) << finished.status.ToString();
      ExpectPublishedAndComplete(attempt.key_prefix);
    } else {
      ASSERT_TRUE(control_->AbandonExpired(attempt.attempt, 0).ok());
      CleanupReport report = DrainCleanup(*control_, store_id_, *objects_, *governor_);
      ASSERT_TRUE(report.status.ok()) << report.status.ToString();
      EXPECT_EQ(report.remaining, 0u);
      EXPECT_EQ(objects_->object_count(), 0u);
      Result<std::optional<RootRecord>> root = control_->GetRoot(Namespace::kDatasets, "geo");
      ASSERT_TRUE(root.ok());
      EXPECT_FALSE(root->has_value());
    }
  }

  std::unique_ptr<store::MemoryStore> objects_;  // new per SetUp: the loops below start over
  store::ManualClock governor_clock_{0};
  store::SeededRandom governor_random_{3};
  std::unique_ptr<store::RequestGovernor> governor_;
};

TEST_P(CrashTest, AWriterThatDiesBeforeAnyStepLeavesAResumableAttemptOrCleanupWork) {
  for (Recovery recovery : {Recovery::kResume, Recovery::kAbandon}) {
    for (int stop = 0; stop <= kSteps; ++stop) {
      SCOPED_TRACE("stop before step " + std::to_string(stop) +
                   (recovery == Recovery::kResume ? ", resume" : ", abandon"));
      TearDown();
      SetUp();
      WriterRun run = RunWriter(*control_, *objects_, Spec("geo"), std::nullopt, stop);
      ASSERT_TRUE(run.status.ok()) << run.status.ToString();
      RestartAndRecover(recovery);
    }
  }
}

TEST_P(CrashTest, AStoreCrashBeforeOrAfterEachCreateIsRecoverable) {
  for (Recovery recovery : {Recovery::kResume, Recovery::kAbandon}) {
    for (store::FaultKind fault : {store::FaultKind::kCrash, store::FaultKind::kCrashAfterEffect}) {
      for (uint64_t create = 0; create < kObjects.size(); ++create) {
        SCOPED_TRACE(std::string(store::FaultKindName(fault)) + " at create " + std::to_string(create) +
                     (recovery == Recovery::kResume ? ", resume" : ", abandon"));
        TearDown();
        SetUp();
        store::FaultInjectingStore crashing(*objects_,
                                            store::FaultPlan().On(store::StoreOp::kCreateIfAbsent, fault, create));
        WriterRun run = RunWriter(*control_, crashing, Spec("geo"), std::nullopt, kSteps);
        ASSERT_TRUE(store::IsInjectedCrash(run.status)) << run.status.ToString();
        EXPECT_EQ(objects_->object_count(), fault == store::FaultKind::kCrash ? create : create + 1);
        RestartAndRecover(recovery);
      }
    }
  }
}

TEST_P(CrashTest, ADrainThatCrashesIsFinishedByTheNextOne) {
  WriterRun run = RunWriter(*control_, *objects_, Spec("geo"), std::nullopt, kSteps - 1);
  ASSERT_TRUE(run.status.ok());
  ASSERT_TRUE(control_->Abandon(*run.lease).ok());
  {
    store::FaultInjectingStore crashing(*objects_, store::FaultPlan().On(store::StoreOp::kDelete,
                                                                        store::FaultKind::kCrashAfterEffect, 1));
    CleanupReport report = DrainCleanup(*control_, store_id_, crashing, *governor_);
    EXPECT_FALSE(report.status.ok());
    EXPECT_EQ(report.deleted, 1u);  // the second delete took effect but its process died
    EXPECT_EQ(report.remaining, 2u);
    EXPECT_EQ(objects_->object_count(), 1u);
  }
  Reopen();
  CleanupReport next = DrainCleanup(*control_, store_id_, *objects_, *governor_);
  ASSERT_TRUE(next.status.ok()) << next.status.ToString();
  EXPECT_EQ(next.deleted, 2u);
  EXPECT_EQ(objects_->object_count(), 0u);
}

TEST_P(CrashTest, ADrainThatDiesHoldingItsClaimIsTakenOverWhenTheClaimExpires) {
  WriterRun run = RunWriter(*control_, *objects_, Spec("geo"), std::nullopt, kSteps - 1);
  ASSERT_TRUE(run.status.ok());
  ASSERT_TRUE(control_->Abandon(*run.lease).ok());
  Result<std::vector<CleanupItem>> claimed = control_->ClaimCleanup(store_id_, 100, 180 * testing_support::kSecond);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 3u);
  Reopen();  // the drain's process died before FinishCleanup
  EXPECT_EQ(DrainCleanup(*control_, store_id_, *objects_, *governor_).claimed, 0u);
  clock_.Advance(180 * testing_support::kSecond);
  CleanupReport report = DrainCleanup(*control_, store_id_, *objects_, *governor_);
  ASSERT_TRUE(report.status.ok()) << report.status.ToString();
  EXPECT_EQ(report.deleted, 3u);
  EXPECT_EQ(objects_->object_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashTest, ::testing::ValuesIn(ControlBackends()), BackendName);

}  // namespace
}  // namespace vigilo::control
