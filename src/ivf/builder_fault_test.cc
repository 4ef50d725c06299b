// The builder's failure semantics under every store fault, at every
// operation of a small build (centroids, two postings files, a source file,
// the manifest): afterwards either nothing is visible (no manifest.json, and
// once rolled back no object the build created) or the whole publication
// verifies; a rerun through a fresh wrapper over the same backing store (a
// restarted process) then succeeds and builds the very same publication.
// Under AddressSanitizer the sweep injects the five kinds that reach every
// outcome (a failed call, a lost reply, wrongly stored bytes, a crash before
// and after the effect) to stay within ~15 s.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/publication_verify.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

using store::FaultInjectingStore;
using store::FaultKind;
using store::FaultPlan;
using store::MemoryStore;

#if defined(__SANITIZE_ADDRESS__)
const FaultKind kSweptFaults[] = {FaultKind::kTransient, FaultKind::kAckLost, FaultKind::kCorruptStored,
                                  FaultKind::kCrash, FaultKind::kCrashAfterEffect};
#else
const FaultKind kSweptFaults[] = {FaultKind::kTransient,     FaultKind::kTimeout,   FaultKind::kAckLost,
                                  FaultKind::kShortRead,     FaultKind::kLongRead,  FaultKind::kTornWrite,
                                  FaultKind::kCorruptStored, FaultKind::kExistsRaceIdentical,
                                  FaultKind::kCrash,         FaultKind::kCrashAfterEffect};
#endif

class BuilderFaultTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vigilo_build_fault_" + std::to_string(::getpid()) + "_" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    // 240 vectors of dimension 4 in 6 loose clusters.
    std::ofstream f(dir_ / "base.fvecs", std::ios::binary);
    for (int i = 0; i < 240; ++i) {
      int32_t d = 4;
      f.write(reinterpret_cast<const char*>(&d), 4);
      for (int j = 0; j < d; ++j) {
        float v = static_cast<float>((i % 6) * 5 + j) + static_cast<float>(i % 11) * 0.03f;
        f.write(reinterpret_cast<const char*>(&v), 4);
      }
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  BuildOptions Options() const {
    BuildOptions o;
    o.input = (dir_ / "base.fvecs").string();
    o.nlist = 4;
    o.roots = 2;
    o.source = true;
    o.scratch = dir_.string();
    return o;
  }

  // The publication a fault-free build writes: its keys and manifest bytes.
  void BuildClean() {
    FaultInjectingStore counting(clean_, FaultPlan());
    auto built = BuildPublication(Options(), counting);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    operations_ = counting.operations();
    keys_ = clean_.Keys();
  }

  // The whole publication is there, exactly the clean build's, and verifies.
  void ExpectComplete(MemoryStore& backing, const std::string& label) {
    EXPECT_EQ(backing.Keys(), keys_) << label;
    EXPECT_EQ(backing.Peek("manifest.json"), clean_.Peek("manifest.json")) << label;
    auto report = VerifyPublicationFrom(backing, "manifest.json", {});
    ASSERT_TRUE(report.ok()) << label << ": " << report.status().ToString();
    EXPECT_TRUE(report->ok()) << label << ": " << (report->ok() ? "" : report->failures[0].ToString());
  }

  std::filesystem::path dir_;
  MemoryStore clean_;
  uint64_t operations_ = 0;
  std::vector<std::string> keys_;
};

std::string Label(FaultKind kind, uint64_t at) {
  return std::string(store::FaultKindName(kind)) + " at operation " + std::to_string(at);
}

TEST_F(BuilderFaultTest, EveryFaultAtEveryOperationLeavesNothingOrTheWholePublication) {
  BuildClean();
  if (HasFatalFailure()) return;
  ASSERT_EQ(keys_.size(), 5u);  // centroids, 2 postings files, 1 source file, manifest
  uint64_t fired = 0, failed = 0, visible_after_failure = 0;
  for (FaultKind kind : kSweptFaults) {
    const bool crash = kind == FaultKind::kCrash || kind == FaultKind::kCrashAfterEffect;
    for (uint64_t at = 0; at < operations_; ++at) {
      const std::string label = Label(kind, at);
      MemoryStore backing;
      Status built;
      {
        FaultInjectingStore faulty(backing, FaultPlan().At(at, kind));
        built = BuildPublication(Options(), faulty).status();
        if (faulty.faults_injected() == 0) continue;  // the kind does not apply to this operation
        ++fired;
        if (crash) {
          EXPECT_FALSE(built.ok()) << label;
        }
      }
      if (built.ok()) {
        ExpectComplete(backing, label);
        if (HasFatalFailure()) return;
        continue;
      }
      ++failed;
      if (backing.Peek("manifest.json")) {
        // Only a crash once the manifest was created leaves it (the rolled
        // back build removes it first): whole.
        ++visible_after_failure;
        EXPECT_TRUE(crash) << label << ": " << built.ToString();
        ExpectComplete(backing, label);
        FaultInjectingStore restarted(backing, FaultPlan());
        EXPECT_EQ(BuildPublication(Options(), restarted).status().code(), StatusCode::kAlreadyExists) << label;
        ExpectComplete(backing, label);
        if (HasFatalFailure()) return;
        continue;
      }
      // Not visible. Without a crash the build rolled back every object it
      // created; a crashed process could not, and leaves some behind.
      if (!crash) {
        EXPECT_EQ(backing.Keys(), std::vector<std::string>{}) << label << ": " << built.ToString();
      } else {
        for (const std::string& key : backing.Keys()) {
          EXPECT_NE(std::find(keys_.begin(), keys_.end(), key), keys_.end()) << label << ": " << key;
          EXPECT_EQ(backing.Peek(key), clean_.Peek(key)) << label << ": " << key;
        }
      }
      // A restarted build over the same store completes it (the leftovers of
      // a crash are verified replays).
      FaultInjectingStore restarted(backing, FaultPlan());
      auto again = BuildPublication(Options(), restarted);
      ASSERT_TRUE(again.ok()) << label << ": " << again.status().ToString();
      ExpectComplete(backing, label);
      if (HasFatalFailure()) return;
    }
  }
  std::printf("[ %llu operations, %llu faults injected, %llu builds failed, %llu left a complete publication ]\n",
              static_cast<unsigned long long>(operations_), static_cast<unsigned long long>(fired),
              static_cast<unsigned long long>(failed), static_cast<unsigned long long>(visible_after_failure));
  EXPECT_GT(failed, operations_);
}

// Another writer creating one of the build's keys with other bytes first:
// the build fails with AlreadyExists, leaves that object alone and removes
// everything it created itself.
TEST_F(BuilderFaultTest, AKeyTakenByAnotherWriterFailsTheBuildAndIsLeftAlone) {
  BuildClean();
  if (HasFatalFailure()) return;
  for (const std::string& key : keys_) {
    MemoryStore backing;
    FaultPlan plan;
    plan.OnKey(key, store::StoreOp::kCommit, FaultKind::kExistsRaceDifferent);
    plan.OnKey(key, store::StoreOp::kCreateIfAbsent, FaultKind::kExistsRaceDifferent);
    FaultInjectingStore faulty(backing, plan);
    auto built = BuildPublication(Options(), faulty);
    ASSERT_EQ(faulty.faults_injected(), 1u) << key;
    EXPECT_EQ(built.status().code(), StatusCode::kAlreadyExists) << key << ": " << built.status().ToString();
    EXPECT_EQ(backing.Keys(), std::vector<std::string>{key});
    EXPECT_NE(backing.Peek(key), clean_.Peek(key)) << key;  // the other writer's bytes, untouched
  }
}

// The self-check runs before the manifest exists: an object the store
// stored wrongly (while reporting success) keeps the publication invisible.
TEST_F(BuilderFaultTest, AWronglyStoredObjectNeverBecomesVisible) {
  BuildClean();
  if (HasFatalFailure()) return;
  for (const std::string& key : keys_) {
    if (key == "manifest.json") continue;
    MemoryStore backing;
    FaultPlan plan;
    plan.OnKey(key, store::StoreOp::kCommit, FaultKind::kCorruptStored);
    FaultInjectingStore faulty(backing, plan);
    auto built = BuildPublication(Options(), faulty);
    ASSERT_EQ(faulty.faults_injected(), 1u) << key;
    EXPECT_EQ(built.status().code(), StatusCode::kInternal) << key << ": " << built.status().ToString();
    EXPECT_EQ(backing.Keys(), std::vector<std::string>{}) << key;

    // The process dies during the self-check (its first Get after the
    // manifest probe): no rollback runs, and still no manifest.
    MemoryStore crashed;
    FaultPlan then_crash = plan;
    then_crash.On(store::StoreOp::kGet, FaultKind::kCrash, 1);
    FaultInjectingStore dying(crashed, then_crash);
    EXPECT_FALSE(BuildPublication(Options(), dying).ok()) << key;
    EXPECT_TRUE(dying.crashed()) << key;
    EXPECT_FALSE(crashed.Peek("manifest.json").has_value()) << key;
    EXPECT_EQ(crashed.object_count(), keys_.size() - 1) << key;  // everything else, left by the crash
  }
}

// A rolled-back rerun never deletes what it found: objects a crashed build
// left (replayed, not created, by the rerun) survive the rerun's failure.
TEST_F(BuilderFaultTest, ARollBackRemovesOnlyWhatThisBuildCreated) {
  BuildClean();
  if (HasFatalFailure()) return;
  MemoryStore backing;
  backing.Overwrite("centroids.parquet", *clean_.Peek("centroids.parquet"));  // a crashed build's leftover
  backing.Overwrite("notes.txt", "unrelated");
  FaultPlan plan;
  plan.OnKey("manifest.json", store::StoreOp::kCreateIfAbsent, FaultKind::kTransient);
  FaultInjectingStore faulty(backing, plan);
  auto built = BuildPublication(Options(), faulty);
  EXPECT_EQ(built.status().code(), StatusCode::kUnavailable) << built.status().ToString();
  EXPECT_EQ(backing.Keys(), (std::vector<std::string>{"centroids.parquet", "notes.txt"}));
  EXPECT_EQ(backing.Peek("centroids.parquet"), clean_.Peek("centroids.parquet"));
}

}  // namespace
}  // namespace vigilo::ivf
