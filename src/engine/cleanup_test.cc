// Cleanup and store identity through a Context: a directory store's ledger
// id names its host, a drain never opens another host's directory, and a
// root written to another host's directory is refused naming that host
// (issue 33); legacy "local:/path" ids are this host's.
#include "vigilo/engine/cleanup.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vigilo/cases/object_ref.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/engine/context.h"
#include "vigilo/engine/roots.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::engine {
namespace {

namespace fs = std::filesystem;

constexpr store::Micros kSecond = 1'000'000;
constexpr store::Micros kT0 = store::Micros{1'767'225'600} * kSecond;  // 2026-01-01T00:00:00Z

// CleanStores' drain reports (issue 33's part of it).
Result<std::vector<control::CleanupReport>> Drains(Context& context, std::optional<std::string> spec) {
  CleanupOptions options;
  options.store_spec = std::move(spec);
  VIGILO_ASSIGN_OR_RETURN(std::vector<StoreCleanupReport> reports, CleanStores(context, options));
  std::vector<control::CleanupReport> out;
  for (StoreCleanupReport& r : reports) out.push_back(std::move(r.drain));
  return out;
}

class EngineCleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "vigilo_engine_cleanup_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = fs::weakly_canonical(pattern);
    store_dir_ = dir_ / "store";
    fs::create_directories(store_dir_);
    context_ = MakeContext("box-1");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A context on `host` over the shared control database (a file, so two
  // contexts for two hosts see one ledger).
  std::unique_ptr<Context> MakeContext(const std::string& host) {
    ContextOptions options;
    options.settings.host = host;
    options.settings.control = (dir_ / "control.sqlite3").string();
    options.wall_clock = &clock_;
    Result<std::unique_ptr<Context>> made = Context::Create(std::move(options));
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }

  control::ControlStore& Ledger() { return *context_->Control().value(); }

  // An attempt on `store_id` that wrote `key` (a real file under store_dir_
  // too), then gave up: its key is cleanup work now.
  std::string AbandonedKey(const std::string& store_id, const std::string& name) {
    control::AttemptSpec spec;
    spec.name = name;
    spec.store = store_id;
    spec.owner = "test";
    spec.lease_duration = 30 * kSecond;
    Result<control::Lease> lease = Ledger().BeginAttempt(spec);
    EXPECT_TRUE(lease.ok()) << lease.status().ToString();
    const std::string key = lease->key_prefix + "batches/0000000000-0000000001.jsonl";
    EXPECT_TRUE(Ledger().RecordKey(*lease, key).ok());
    WriteObject(key);
    EXPECT_TRUE(Ledger().Abandon(*lease).ok());
    return key;
  }

  void WriteObject(const std::string& key) {
    fs::create_directories((store_dir_ / key).parent_path());
    std::ofstream(store_dir_ / key) << "{}\n";
  }

  // Publishes `name` from an attempt on `store_id` (the root is not read).
  void Publish(const std::string& store_id, const std::string& name) {
    control::AttemptSpec spec;
    spec.name = name;
    spec.store = store_id;
    spec.owner = "test";
    spec.lease_duration = 30 * kSecond;
    Result<control::Lease> lease = Ledger().BeginAttempt(spec);
    ASSERT_TRUE(lease.ok()) << lease.status().ToString();
    cases::ObjectRef ref = cases::ObjectRef::ForBytes("local", lease->key_prefix + "manifest.json",
                                                      cases::StorageFormat::kDatasetManifest, "{}");
    ASSERT_TRUE(Ledger().PublishRoot(*lease, json::ToCanonical(ref.ToJson()).value()).ok());
  }

  std::string ThisHostsId() const { return "local://box-1" + store_dir_.string(); }
  std::string OtherHostsId() const { return "local://box-2" + store_dir_.string(); }

  fs::path dir_, store_dir_;
  store::ManualClock clock_{kT0};
  std::unique_ptr<Context> context_;
};

TEST_F(EngineCleanupTest, ADrainNeverOpensAnotherHostsDirectory) {
  // The same path on box-2 is another directory: its keys are box-2's to delete.
  const std::string theirs = AbandonedKey(OtherHostsId(), "theirs");
  const std::string ours = AbandonedKey(ThisHostsId(), "ours");
  Result<std::vector<control::CleanupReport>> reports = Drains(*context_, std::nullopt);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ASSERT_EQ(reports->size(), 2u);
  const control::CleanupReport& mine = (*reports)[0].store == ThisHostsId() ? (*reports)[0] : (*reports)[1];
  const control::CleanupReport& other = (*reports)[0].store == ThisHostsId() ? (*reports)[1] : (*reports)[0];
  EXPECT_TRUE(mine.status.ok()) << mine.status.ToString();
  EXPECT_EQ(mine.deleted, 1u);
  EXPECT_TRUE(mine.skipped.empty());
  EXPECT_FALSE(fs::exists(store_dir_ / ours));

  EXPECT_EQ(other.store, OtherHostsId());
  EXPECT_TRUE(other.status.ok()) << other.status.ToString();
  EXPECT_EQ(other.claimed, 0u);
  EXPECT_EQ(other.deleted, 0u);
  EXPECT_EQ(other.remaining, 1u);
  EXPECT_NE(other.skipped.find("box-2"), std::string::npos) << other.skipped;
  EXPECT_TRUE(fs::exists(store_dir_ / theirs));

  // On box-2 the same drain deletes them, and skips nothing of box-1's.
  std::unique_ptr<Context> box2 = MakeContext("box-2");
  Result<std::vector<control::CleanupReport>> there = Drains(*box2, std::nullopt);
  ASSERT_TRUE(there.ok()) << there.status().ToString();
  ASSERT_EQ(there->size(), 1u);
  EXPECT_EQ((*there)[0].store, OtherHostsId());
  EXPECT_EQ((*there)[0].deleted, 1u);
  EXPECT_FALSE(fs::exists(store_dir_ / theirs));
}

TEST_F(EngineCleanupTest, ANamedDirectoryIsDrainedUnderItsIdAndItsLegacyIdButNotAnotherHosts) {
  const std::string legacy = AbandonedKey("local:" + store_dir_.string(), "old");
  const std::string current = AbandonedKey(ThisHostsId(), "new");
  const std::string theirs = AbandonedKey(OtherHostsId(), "theirs");
  Result<std::vector<control::CleanupReport>> reports = Drains(*context_, store_dir_.string());
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ASSERT_EQ(reports->size(), 1u);
  EXPECT_EQ((*reports)[0].store, ThisHostsId());
  EXPECT_EQ((*reports)[0].deleted, 2u);
  EXPECT_TRUE((*reports)[0].status.ok()) << (*reports)[0].status.ToString();
  EXPECT_FALSE(fs::exists(store_dir_ / legacy));
  EXPECT_FALSE(fs::exists(store_dir_ / current));
  EXPECT_TRUE(fs::exists(store_dir_ / theirs));
}

TEST_F(EngineCleanupTest, ALegacyIdIsDrainedAsThisHostsDirectory) {
  const std::string legacy = AbandonedKey("local:" + store_dir_.string(), "old");
  Result<std::vector<control::CleanupReport>> reports = Drains(*context_, std::nullopt);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ASSERT_EQ(reports->size(), 1u);
  EXPECT_EQ((*reports)[0].store, "local:" + store_dir_.string());
  EXPECT_EQ((*reports)[0].deleted, 1u);
  EXPECT_FALSE(fs::exists(store_dir_ / legacy));
}

TEST_F(EngineCleanupTest, ARootInAnotherHostsDirectoryIsRefusedNamingTheHost) {
  Publish(OtherHostsId(), "remote-set");
  RootLocator locator;
  locator.name = "remote-set";
  Result<OpenedRoot> opened = OpenPublishedRoot(*context_, locator, "", control::Namespace::kDatasets);
  ASSERT_EQ(opened.status().code(), StatusCode::kInvalidArgument) << opened.status().ToString();
  EXPECT_EQ(opened.status().path(), "store");
  const std::string message(opened.status().message());
  EXPECT_NE(message.find("the dataset 'remote-set' was written to the directory " + store_dir_.string() +
                         " on the host box-2, not on this host (box-1)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("`store`"), std::string::npos) << message;

  // Named explicitly (a copy of that directory here), it opens.
  EXPECT_TRUE(OpenPublishedRoot(*context_, locator, store_dir_.string(), control::Namespace::kDatasets).ok());
  // On box-2, and for this host's own and legacy ids, the name opens alone.
  std::unique_ptr<Context> box2 = MakeContext("box-2");
  EXPECT_TRUE(OpenPublishedRoot(*box2, locator, "", control::Namespace::kDatasets).ok());
  Publish("local:" + store_dir_.string(), "legacy-set");
  locator.name = "legacy-set";
  EXPECT_TRUE(OpenPublishedRoot(*context_, locator, "", control::Namespace::kDatasets).ok());
}

TEST_F(EngineCleanupTest, AWriteSessionNamesItsDirectoryWithThisHost) {
  Result<std::unique_ptr<WriteSession>> session = OpenWriteSession(*context_, store_dir_.string(), false);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_EQ((*session)->target.ledger_store_id, ThisHostsId());
  // Without a host name a directory cannot be named in the ledger.
  std::unique_ptr<Context> unnamed = MakeContext("");
  Result<std::unique_ptr<WriteSession>> refused = OpenWriteSession(*unnamed, store_dir_.string(), false);
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("`host` is empty"), std::string::npos);
}

// ---- issue 34: attempts nobody cleaned ----

class StaleAttemptTest : public EngineCleanupTest {
 protected:
  // An attempt of `name` on this host's directory that wrote `count` batch
  // objects and then stopped renewing its lease (a killed writer).
  control::Lease Dead(const std::string& name, int count) {
    control::AttemptSpec spec;
    spec.name = name;
    spec.store = ThisHostsId();
    spec.owner = "killed";
    spec.lease_duration = 300 * kSecond;
    Result<control::Lease> lease = Ledger().BeginAttempt(spec);
    EXPECT_TRUE(lease.ok()) << lease.status().ToString();
    for (int i = 0; i < count; ++i) {
      const std::string key = lease->key_prefix + "batches/" + std::to_string(i) + ".jsonl";
      EXPECT_TRUE(Ledger().RecordKey(*lease, key).ok());
      WriteObject(key);
    }
    return *lease;
  }

  Result<std::vector<StoreCleanupReport>> Clean(store::Micros grace = kDefaultCleanupGrace) {
    CleanupOptions options;
    options.grace = grace;
    return CleanStores(*context_, options);
  }

  // Every directory below the store that holds nothing.
  std::vector<std::string> EmptyDirectories() {
    std::vector<std::string> out;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(store_dir_)) {
      if (e.is_directory() && fs::is_empty(e.path())) out.push_back(fs::relative(e.path(), store_dir_).string());
    }
    return out;
  }
};

TEST_F(StaleAttemptTest, AKilledWritersAttemptIsKeptForTheGraceThenCleanedWithItsDirectories) {
  control::Lease dead = Dead("geo", 3);
  Publish(ThisHostsId(), "kept-set");  // another name, published: never touched
  const std::string published_dir = (store_dir_ / "datasets" / "kept-set").string();
  fs::create_directories(published_dir);
  std::ofstream(fs::path(published_dir) / "marker") << "x";

  // Live lease: nothing to do.
  Result<std::vector<StoreCleanupReport>> live = Clean();
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  EXPECT_TRUE(live->empty());

  // Expired, within the grace: kept for a rerun, and said so.
  clock_.Advance(300 * kSecond + 10 * kSecond);
  Result<std::vector<StoreCleanupReport>> kept = Clean();
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].drain.store, ThisHostsId());
  EXPECT_EQ((*kept)[0].expired_kept, 1u);
  EXPECT_EQ((*kept)[0].expired_abandoned, 0u);
  EXPECT_EQ((*kept)[0].kept_until, dead.expires_at + kDefaultCleanupGrace);
  EXPECT_EQ((*kept)[0].drain.deleted, 0u);
  EXPECT_TRUE(fs::exists(store_dir_ / (dead.key_prefix + "batches/0.jsonl")));

  // Past the grace (and so the settle time): abandoned and deleted in one run,
  // and no directory it emptied is left.
  clock_.Advance(kDefaultCleanupGrace);
  Result<std::vector<StoreCleanupReport>> cleaned = Clean();
  ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
  ASSERT_EQ(cleaned->size(), 1u);
  const StoreCleanupReport& r = (*cleaned)[0];
  EXPECT_TRUE(r.drain.status.ok()) << r.drain.status.ToString();
  EXPECT_EQ(r.expired_abandoned, 1u);
  EXPECT_EQ(r.drain.deleted, 3u);
  EXPECT_EQ(r.drain.remaining, 0u);
  EXPECT_EQ(r.expired_kept, 0u);
  EXPECT_FALSE(fs::exists(store_dir_ / "datasets" / "geo"));
  EXPECT_TRUE(fs::exists(fs::path(published_dir) / "marker"));
  EXPECT_EQ(EmptyDirectories(), std::vector<std::string>{});
  EXPECT_EQ(Ledger().GetAttempt(dead.attempt)->state, control::AttemptState::kAbandoned);
  // Nothing is left to do.
  EXPECT_TRUE(Clean()->empty());
}

TEST_F(StaleAttemptTest, AGraceShorterThanTheSettleTimeAbandonsNowAndDeletesAfterTheSettleTime) {
  control::Lease dead = Dead("geo", 2);
  clock_.Advance(300 * kSecond + 30 * kSecond);  // expired 30 s ago
  Result<std::vector<StoreCleanupReport>> first = Clean(0);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].expired_abandoned, 1u);
  EXPECT_EQ((*first)[0].drain.deleted, 0u) << "a paused writer's create may still land";
  EXPECT_EQ((*first)[0].drain.remaining, 2u);
  // The report says when they become deletable: the settle time after the lease expired.
  EXPECT_EQ((*first)[0].remaining_due_at, dead.expires_at + control::kDefaultAbandonSettle);
  EXPECT_TRUE(fs::exists(store_dir_ / (dead.key_prefix + "batches/1.jsonl")));
  clock_.Advance(control::kDefaultAbandonSettle - 30 * kSecond);
  Result<std::vector<StoreCleanupReport>> second = Clean(0);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].drain.deleted, 2u);
  EXPECT_EQ((*second)[0].remaining_due_at, std::nullopt);
  EXPECT_EQ(EmptyDirectories(), std::vector<std::string>{});
}

TEST_F(StaleAttemptTest, ADryRunListsWhatWouldBeDeletedWithItsBytesAndChangesNothing) {
  control::Lease dead = Dead("geo", 2);
  const std::string gone = AbandonedKey(ThisHostsId(), "old");  // abandoned, due now
  fs::remove(store_dir_ / gone);                                 // its object already gone
  control::Lease young = Dead("fresh", 1);
  clock_.Advance(300 * kSecond + kDefaultCleanupGrace + kSecond);
  ASSERT_TRUE(Ledger().RenewLease(young, 300 * kSecond).status().code() == StatusCode::kFenced);  // it is dead too
  // `young` expired as long ago as `dead`: both are past the grace; make a
  // third one that is within it.
  control::Lease recent = Dead("recent", 1);
  clock_.Advance(301 * kSecond);

  CleanupOptions options;
  Result<CleanupPlan> plan = PlanCleanup(*context_, options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->candidates.size(), 3u);
  std::map<std::string, CleanupCandidate> by_name;
  for (const CleanupCandidate& c : plan->candidates) by_name.emplace(c.attempt.name, c);
  ASSERT_EQ(by_name.count("geo"), 1u);
  EXPECT_EQ(by_name["geo"].reason, "expired");
  EXPECT_EQ(by_name["geo"].keys, 2u);
  EXPECT_EQ(by_name["geo"].objects, 2u);
  EXPECT_EQ(by_name["geo"].bytes, 6u);  // "{}\n" twice
  EXPECT_EQ(by_name["geo"].deletable_at, clock_.Now());
  EXPECT_EQ(by_name["geo"].store, ThisHostsId());
  EXPECT_EQ(by_name["old"].reason, "abandoned");
  EXPECT_EQ(by_name["old"].keys, 1u);
  EXPECT_EQ(by_name["old"].objects, 0u);
  EXPECT_EQ(by_name["old"].bytes, 0u);
  EXPECT_EQ(by_name["fresh"].reason, "expired");
  EXPECT_EQ(by_name.count("recent"), 0u);
  ASSERT_EQ(plan->stores.size(), 1u);
  EXPECT_EQ(plan->stores[0].expired_kept, 1u);
  EXPECT_EQ(plan->stores[0].kept_until, recent.expires_at + kDefaultCleanupGrace);

  // Nothing changed: the objects, the states, the recorded keys.
  EXPECT_TRUE(fs::exists(store_dir_ / (dead.key_prefix + "batches/0.jsonl")));
  EXPECT_EQ(Ledger().GetAttempt(dead.attempt)->state, control::AttemptState::kActive);
  EXPECT_EQ(Ledger().PendingCleanupKeys(ThisHostsId()).value(), 1u);
}

TEST_F(StaleAttemptTest, SharedDirectoriesStayWhileAWriterOfTheNameIsActive) {
  control::Lease dead = Dead("geo", 1);
  clock_.Advance(300 * kSecond + kDefaultCleanupGrace + kSecond);
  control::Lease live = Dead("geo", 0);  // a live writer of the same name, no directory of its own yet
  Result<std::vector<StoreCleanupReport>> cleaned = Clean();
  ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
  EXPECT_EQ((*cleaned)[0].drain.deleted, 1u);
  // Its own prefix is gone; datasets/geo/attempts stays for the live writer.
  EXPECT_FALSE(fs::exists(store_dir_ / dead.key_prefix));
  EXPECT_FALSE(fs::exists(store_dir_ / "datasets/geo/attempts" / dead.attempt.attempt_id.ToString()));
  EXPECT_TRUE(fs::exists(store_dir_ / "datasets/geo/attempts"));
  (void)live;
}

TEST_F(StaleAttemptTest, ADeadWritersTemporaryFileDoesNotKeepItsDirectory) {
  control::Lease dead = Dead("geo", 1);
  // What a writer killed in the middle of a create leaves (store/local_store.cc).
  pid_t gone = 0;
  for (pid_t p = 4'000'000; p > 3'000'000; p -= 7919) {
    if (::kill(p, 0) != 0 && errno == ESRCH) {
      gone = p;
      break;
    }
  }
  ASSERT_NE(gone, 0);
  const fs::path temp = store_dir_ / (dead.key_prefix + "batches/.1.jsonl.tmp-" + std::to_string(gone) +
                                      "-0123456789abcdef");
  std::ofstream(temp) << "partial";
  // A live process's temporary file is another writer's: it stays.
  const fs::path live_temp = store_dir_ / (dead.key_prefix + "index/.L0.json.tmp-" + std::to_string(::getppid()) +
                                           "-0123456789abcdef");
  fs::create_directories(live_temp.parent_path());
  std::ofstream(live_temp) << "partial";
  clock_.Advance(300 * kSecond + kDefaultCleanupGrace + kSecond);
  Result<std::vector<StoreCleanupReport>> cleaned = Clean();
  ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(temp.parent_path()));
  EXPECT_TRUE(fs::exists(live_temp));
  EXPECT_EQ(EmptyDirectories(), std::vector<std::string>{});
}

TEST_F(StaleAttemptTest, AGraceOutOfRangeIsRefusedNamingTheSetting) {
  Dead("geo", 1);
  for (store::Micros grace : {store::Micros{-1}, kMaxCleanupGrace + 1}) {
    Result<std::vector<StoreCleanupReport>> refused = Clean(grace);
    ASSERT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(refused.status().path(), "grace");
    CleanupOptions options;
    options.grace = grace;
    EXPECT_EQ(PlanCleanup(*context_, options).status().code(), StatusCode::kInvalidArgument);
  }
}

TEST_F(StaleAttemptTest, APlanMayNotReadADatasetReferenceIntoAnUnpublishedAttempt) {
  control::Lease dead = Dead("geo", 1);
  cases::ObjectRef ref = cases::ObjectRef::ForBytes("local", dead.key_prefix + "manifest.json",
                                                    cases::StorageFormat::kDatasetManifest, "{}");
  Result<std::unique_ptr<WriteSession>> session = OpenWriteSession(*context_, store_dir_.string(), false);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  RootLocator locator;
  locator.ref = ref;
  Result<std::unique_ptr<PlanDataset>> refused = OpenPlanDataset(*context_, **session, locator);
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("which was never published (it is active)"), std::string::npos)
      << refused.status().ToString();
  // A published attempt's reference is fine.
  Publish(ThisHostsId(), "done");
  Result<std::optional<control::RootRecord>> done = Ledger().GetRoot(control::Namespace::kDatasets, "done");
  ASSERT_TRUE(done.ok() && done->has_value());
  locator.ref = cases::ObjectRef::FromJson(json::Parse((*done)->value).value(), "$").value();
  EXPECT_TRUE(OpenPlanDataset(*context_, **session, locator).ok());
}

}  // namespace
}  // namespace vigilo::engine
