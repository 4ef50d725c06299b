// Cleanup and store identity through a Context: a directory store's ledger
// id names its host, a drain never opens another host's directory, and a
// root written to another host's directory is refused naming that host
// (issue 33); legacy "local:/path" ids are this host's.
#include "vigilo/engine/cleanup.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "vigilo/cases/object_ref.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/engine/context.h"
#include "vigilo/engine/roots.h"
#include "vigilo/json/write.h"

namespace vigilo::engine {
namespace {

namespace fs = std::filesystem;

constexpr store::Micros kSecond = 1'000'000;
constexpr store::Micros kT0 = store::Micros{1'767'225'600} * kSecond;  // 2026-01-01T00:00:00Z

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
  Result<std::vector<control::CleanupReport>> reports = DrainDueCleanup(*context_, std::nullopt, nullptr);
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
  Result<std::vector<control::CleanupReport>> there = DrainDueCleanup(*box2, std::nullopt, nullptr);
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
  Result<std::vector<control::CleanupReport>> reports = DrainDueCleanup(*context_, store_dir_.string(), nullptr);
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
  Result<std::vector<control::CleanupReport>> reports = DrainDueCleanup(*context_, std::nullopt, nullptr);
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

}  // namespace
}  // namespace vigilo::engine
