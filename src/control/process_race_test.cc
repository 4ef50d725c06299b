// Races between real processes (fork), each with its own connection to the
// control store and its own injected clock. Children meet at barriers the
// parent opens by message, so the racing calls really are concurrent, and
// the database's locking is all that orders them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "control_test_support.h"
#include "process_test_support.h"

namespace vigilo::control {
namespace {

using testing_support::BackendName;
using testing_support::ChildProcess;
using testing_support::ControlBackends;
using testing_support::kLease;
using testing_support::kSecond;
using testing_support::kT0;
using testing_support::Link;
using testing_support::RootValue;

constexpr int kWriters = 8;

std::string Describe(const Status& status) {
  return status.ok() ? "ok" : std::string(StatusCodeName(status.code())) + ": " + std::string(status.message());
}

std::string CodeOf(const std::string& described) { return described.substr(0, described.find(':')); }

class ProcessRaceTest : public testing_support::ControlTest {
 protected:
  // Opens this child's own connection (never one inherited over fork).
  // On failure, tells the parent why and returns null.
  std::unique_ptr<ControlStore> ChildConnect(const std::string& location, store::Clock& clock, Link& link) {
    Result<std::unique_ptr<ControlStore>> opened = GetParam().open(location, clock, store::DefaultRandom());
    if (!opened.ok()) {
      link.Send("open failed: " + Describe(opened.status()));
      return nullptr;
    }
    return std::move(opened).value();
  }

  // Sends `message` to every child and collects one reply from each.
  static std::vector<std::string> Broadcast(std::vector<ChildProcess>& children, const std::string& message) {
    for (ChildProcess& child : children) child.Send(message);
    std::vector<std::string> replies;
    for (ChildProcess& child : children) replies.push_back(child.Receive());
    return replies;
  }

  static std::vector<std::string> CollectAll(std::vector<ChildProcess>& children) {
    std::vector<std::string> replies;
    for (ChildProcess& child : children) replies.push_back(child.Receive());
    return replies;
  }

  static int Count(const std::vector<std::string>& replies, const std::string& code) {
    return static_cast<int>(std::count_if(replies.begin(), replies.end(),
                                          [&](const std::string& r) { return CodeOf(r) == code; }));
  }
};

// Eight writers, each with its own attempt, publish different roots under
// one name at once: exactly one gets the name; every other is told it is
// taken. Then the seven race to replace the winner's value: exactly one
// compare-and-set succeeds.
TEST_P(ProcessRaceTest, EightPublishersOfOneNameExactlyOneWins) {
  control_.reset();  // no connection open across fork
  std::vector<ChildProcess> children;
  for (int i = 0; i < kWriters; ++i) {
    children.emplace_back([this, i](Link& link) {
      store::ManualClock clock(kT0);
      std::unique_ptr<ControlStore> control = ChildConnect(location_, clock, link);
      if (control == nullptr) return;
      Result<Lease> lease = control->BeginAttempt(Spec("geo", "writer-" + std::to_string(i)));
      if (!lease.ok()) return (void)link.Send(Describe(lease.status()));
      link.Send("ready " + std::to_string(lease->epoch));
      link.Receive();  // go
      Result<PublishOutcome> published = control->PublishRoot(*lease, RootValue("writer-" + std::to_string(i)));
      link.Send(published.ok() ? std::string(PublishOutcomeName(*published)) + ": " + std::to_string(i)
                               : Describe(published.status()));
      std::string expected = link.Receive();  // the winner's value
      Result<PublishOutcome> replaced =
          control->ReplaceRoot(*lease, expected, RootValue("writer-" + std::to_string(i) + "-v2"));
      link.Send(replaced.ok() ? std::string(PublishOutcomeName(*replaced)) + ": " + std::to_string(i)
                              : Describe(replaced.status()));
    });
  }
  std::set<std::string> epochs;
  for (const std::string& ready : CollectAll(children)) {
    ASSERT_EQ(ready.substr(0, 6), "ready ") << ready;
    epochs.insert(ready.substr(6));
  }
  EXPECT_EQ(epochs.size(), static_cast<size_t>(kWriters));  // one epoch per writer, never shared

  std::vector<std::string> published = Broadcast(children, "go");
  ASSERT_EQ(Count(published, "published"), 1) << ::testing::PrintToString(published);
  EXPECT_EQ(Count(published, "already_exists"), kWriters - 1) << ::testing::PrintToString(published);
  const std::string winner = std::find_if(published.begin(), published.end(), [](const std::string& r) {
                               return CodeOf(r) == "published";
                             })->substr(11);

  Reopen();
  Result<std::optional<RootRecord>> root = control_->GetRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(root.ok() && root->has_value());
  EXPECT_EQ((*root)->value, RootValue("writer-" + winner));
  EXPECT_EQ((*root)->version, 1u);
  control_.reset();

  std::vector<std::string> replaced = Broadcast(children, RootValue("writer-" + winner));
  EXPECT_EQ(Count(replaced, "replaced"), 1) << ::testing::PrintToString(replaced);
  EXPECT_EQ(Count(replaced, "already_exists"), kWriters - 2) << ::testing::PrintToString(replaced);
  EXPECT_EQ(Count(replaced, "fenced"), 1) << ::testing::PrintToString(replaced);  // the winner: already published
  for (ChildProcess& child : children) EXPECT_EQ(child.Wait(), 0);

  Reopen();
  Result<std::vector<RootRecord>> history = control_->RootHistory(Namespace::kDatasets, "geo");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].value, RootValue("writer-" + winner));
  EXPECT_EQ((*history)[1].version, 2u);
}

// Eight writers find one expired attempt and try to take it over at once:
// exactly one gets the lease (and the next epoch); the others are told it is
// held. Then all eight publish with what they hold: only the new holder can.
TEST_P(ProcessRaceTest, EightWritersTakingOverOneExpiredAttemptExactlyOneWins) {
  Lease original = Begin("geo");
  ASSERT_TRUE(control_->RecordKey(original, original.key_prefix + "batch-0").ok());
  control_.reset();
  std::vector<ChildProcess> children;
  for (int i = 0; i < kWriters; ++i) {
    children.emplace_back([this, i, original](Link& link) {
      store::ManualClock clock(kT0 + 2 * kLease);  // every child sees the lease expired
      std::unique_ptr<ControlStore> control = ChildConnect(location_, clock, link);
      if (control == nullptr) return;
      link.Send("ready");
      link.Receive();
      Result<Lease> resumed = control->ResumeAttempt(original.attempt, "taker-" + std::to_string(i), kLease);
      link.Send(resumed.ok() ? "resumed " + std::to_string(resumed->epoch) : Describe(resumed.status()));
      link.Receive();
      Lease held = resumed.ok() ? *resumed : original;  // a loser still holds the old epoch
      link.Send(Describe(control->PublishRoot(held, RootValue("taker-" + std::to_string(i))).status()));
    });
  }
  for (const std::string& ready : CollectAll(children)) ASSERT_EQ(ready, "ready");
  std::vector<std::string> resumed = Broadcast(children, "go");
  ASSERT_EQ(std::count(resumed.begin(), resumed.end(), "resumed 2"), 1) << ::testing::PrintToString(resumed);
  EXPECT_EQ(Count(resumed, "unavailable"), kWriters - 1) << ::testing::PrintToString(resumed);
  const size_t winner = std::find(resumed.begin(), resumed.end(), "resumed 2") - resumed.begin();

  std::vector<std::string> published = Broadcast(children, "publish");
  for (size_t i = 0; i < published.size(); ++i) {
    if (i == winner) {
      EXPECT_EQ(published[i], "ok");
    } else {
      EXPECT_EQ(published[i], "fenced: attempt " + AttemptName(original.attempt) +
                                  " was taken over: its fencing epoch is now 2 and this writer holds 1");
    }
  }
  for (ChildProcess& child : children) EXPECT_EQ(child.Wait(), 0);

  Reopen();
  Result<std::optional<RootRecord>> root = control_->GetRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(root.ok() && root->has_value());
  EXPECT_EQ((*root)->value, RootValue("taker-" + std::to_string(winner)));
  EXPECT_EQ((*root)->epoch, 2u);
  Result<AttemptRecord> row = control_->GetAttempt(original.attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->owner, "taker-" + std::to_string(winner));
  EXPECT_EQ(row->keys, std::vector<std::string>{original.key_prefix + "batch-0"});
}

// A writer process pauses; meanwhile its lease expires and another process
// takes the attempt over. When the paused writer wakes up, its own clock
// still says its lease is valid, yet every change it tries is fenced.
TEST_P(ProcessRaceTest, APausedWriterIsFencedOnceItsAttemptWasTakenOver) {
  control_.reset();
  ChildProcess paused([this](Link& link) {
    store::ManualClock clock(kT0);
    std::unique_ptr<ControlStore> control = ChildConnect(location_, clock, link);
    if (control == nullptr) return;
    Result<Lease> lease = control->BeginAttempt(Spec("geo", "paused"));
    if (!lease.ok()) return (void)link.Send(Describe(lease.status()));
    link.Send(Describe(control->RecordKey(*lease, lease->key_prefix + "a")));
    link.Receive();  // paused until the parent says otherwise
    clock.Advance(kSecond);  // by its own clock, 29 s of lease are left
    link.Send(Describe(control->RecordKey(*lease, lease->key_prefix + "b")));
    link.Send(Describe(control->PublishRoot(*lease, RootValue("paused")).status()));
  });
  ASSERT_EQ(paused.Receive(), "ok");

  ChildProcess taker([this](Link& link) {
    store::ManualClock clock(kT0 + kLease);
    std::unique_ptr<ControlStore> control = ChildConnect(location_, clock, link);
    if (control == nullptr) return;
    Result<std::vector<AttemptRecord>> attempts = control->ListAttempts(Namespace::kDatasets, "geo");
    if (!attempts.ok() || attempts->size() != 1) return (void)link.Send("no attempt");
    Result<Lease> resumed = control->ResumeAttempt(attempts->front().attempt, "taker", kLease);
    link.Send(resumed.ok() ? "resumed " + std::to_string(resumed->epoch) : Describe(resumed.status()));
  });
  ASSERT_EQ(taker.Receive(), "resumed 2");
  EXPECT_EQ(taker.Wait(), 0);

  paused.Send("wake up");
  std::string record = paused.Receive();
  std::string publish = paused.Receive();
  EXPECT_EQ(paused.Wait(), 0);
  Reopen();
  Result<std::vector<AttemptRecord>> attempts = control_->ListAttempts(Namespace::kDatasets, "geo");
  ASSERT_TRUE(attempts.ok());
  ASSERT_EQ(attempts->size(), 1u);
  const std::string taken = "fenced: attempt " + AttemptName(attempts->front().attempt) +
                            " was taken over: its fencing epoch is now 2 and this writer holds 1";
  EXPECT_EQ(record, taken);
  EXPECT_EQ(publish, taken);
  Result<AttemptRecord> row = control_->GetAttempt(attempts->front().attempt);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->keys, std::vector<std::string>{row->key_prefix + "a"});
  Result<std::optional<RootRecord>> root = control_->GetRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(root.ok());
  EXPECT_FALSE(root->has_value());
}

// Without a takeover, a writer that was paused past its lease is refused
// too: it must resume (and get a new epoch) before it may change anything.
TEST_P(ProcessRaceTest, APausedWriterWhoseLeaseExpiredIsFenced) {
  control_.reset();
  ChildProcess paused([this](Link& link) {
    store::ManualClock clock(kT0);
    std::unique_ptr<ControlStore> control = ChildConnect(location_, clock, link);
    if (control == nullptr) return;
    Result<Lease> lease = control->BeginAttempt(Spec("geo", "paused"));
    if (!lease.ok()) return (void)link.Send(Describe(lease.status()));
    link.Send(AttemptName(lease->attempt));
    link.Receive();
    clock.Advance(kLease);
    link.Send(Describe(control->PublishRoot(*lease, RootValue("paused")).status()));
    Result<Lease> again = control->ResumeAttempt(lease->attempt, "paused", kLease);
    link.Send(again.ok() ? Describe(control->PublishRoot(*again, RootValue("paused")).status())
                         : Describe(again.status()));
  });
  std::string name = paused.Receive();
  paused.Send("wake up");
  EXPECT_EQ(paused.Receive(), "fenced: the lease on attempt " + name + " expired at 2026-01-01T00:00:30.000000Z");
  EXPECT_EQ(paused.Receive(), "ok");
  EXPECT_EQ(paused.Wait(), 0);
}

// Eight processes open a control store that does not exist yet, at once:
// it is created and migrated exactly once, and every writer gets its own
// epoch.
TEST_P(ProcessRaceTest, ConcurrentFirstOpensCreateTheStoreOnce) {
  std::filesystem::path fresh_dir = scratch_ / "fresh";
  std::filesystem::create_directories(fresh_dir);
  const std::string fresh = GetParam().create(fresh_dir);
  control_.reset();
  std::vector<ChildProcess> children;
  for (int i = 0; i < kWriters; ++i) {
    children.emplace_back([this, i, fresh](Link& link) {
      link.Receive();
      store::ManualClock clock(kT0);
      std::unique_ptr<ControlStore> control = ChildConnect(fresh, clock, link);
      if (control == nullptr) return;
      Result<Lease> lease = control->BeginAttempt(Spec("geo", "writer-" + std::to_string(i)));
      link.Send(lease.ok() ? std::to_string(lease->epoch) : Describe(lease.status()));
    });
  }
  std::vector<std::string> epochs = Broadcast(children, "go");
  for (ChildProcess& child : children) EXPECT_EQ(child.Wait(), 0);
  std::sort(epochs.begin(), epochs.end());
  EXPECT_EQ(epochs, (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8"}));
}

INSTANTIATE_TEST_SUITE_P(Backends, ProcessRaceTest, ::testing::ValuesIn(ControlBackends()), BackendName);

}  // namespace
}  // namespace vigilo::control
