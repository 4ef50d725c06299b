// Packing and reading a dataset through a store that fails: every operation
// of a small pack, with every fault the fault-injecting wrapper knows, and
// every read with short, long and corrupted bytes. What must hold: a failed
// pack leaves no reachable root or a complete one, never a wrong object; a
// rerun of the same attempt over the same backing store completes it by
// replaying (never overwriting) what is there; a reader names the object
// whose bytes are wrong.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/json/parse.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/memory_store.h"
#include "writer_test_support.h"

namespace vigilo::cases {
namespace {

using store::FaultInjectingStore;
using store::FaultKind;
using store::FaultPlan;
using store::MemoryStore;

constexpr int kCases = 5;
constexpr uint64_t kObjects = 8;  // 3 batches, 2 leaf pages + 1 root page, source fields, manifest

const FaultKind kEveryFault[] = {
    FaultKind::kTransient,   FaultKind::kTimeout,        FaultKind::kAckLost,
    FaultKind::kShortRead,   FaultKind::kLongRead,       FaultKind::kTornWrite,
    FaultKind::kCorruptStored, FaultKind::kExistsRaceIdentical, FaultKind::kExistsRaceDifferent,
    FaultKind::kCrash,       FaultKind::kCrashAfterEffect,
};

std::string CaseJson(int i) {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i + 1);
  return std::string(R"({"id":")") + id + R"(","input":{"prompt":"question )" + std::to_string(i) + R"("}})";
}

// The same attempt every time, so a rerun writes the same keys and bytes.
std::string Prefix() {
  return DatasetAttemptPrefix("geo", *Uuid::Parse("0f8e5c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b"), 1);
}

// Two cases per batch and two entries per index page: several batches and a
// two-level index from five cases.
Result<WrittenDataset> Pack(store::ObjectStore& store) {
  VIGILO_ASSIGN_OR_RETURN(DatasetSourceFields sf, DatasetSourceFields::FromDocument(
                                                      *json::Parse(R"({"dataset_id":"geo","dataset_version":"v1"})")));
  sf.cases_present = true;
  BudgetConfig budget = WriterBudget(BatchLimits{2, 1 << 20}, IndexLimits{2, 1 << 20, 8});
  VIGILO_ASSIGN_OR_RETURN(DatasetWriter writer, DatasetWriter::Start(std::move(sf), budget, TestScratchDir(), Prefix(),
                                                                     StoreSink(store, "local")));
  for (int i = 0; i < kCases; ++i) VIGILO_RETURN_IF_ERROR(writer.AddCase(*json::Parse(CaseJson(i))));
  return writer.Finish();
}

Status Read(store::ObjectStore& store, const ObjectRef& root) {
  return ReadDataset(root, BudgetConfig::Defaults(), TestScratchDir(), StoreBytesFetch(SingleStore(store))).status();
}

std::map<std::string, std::string> Contents(const MemoryStore& store) {
  std::map<std::string, std::string> out;
  for (const std::string& key : store.Keys()) out[key] = *store.Peek(key);
  return out;
}

class DatasetFaultTest : public testing::Test {
 protected:
  void SetUp() override {
    FaultInjectingStore counted(clean_, FaultPlan());
    auto written = Pack(counted);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    root_ = written->manifest_ref;
    ASSERT_EQ(written->manifest.batches.level, 1);
    objects_ = Contents(clean_);
    ASSERT_EQ(objects_.size(), kObjects);
    // Each object is one create and one read back.
    ASSERT_EQ(counted.operations(), 2 * kObjects);
    ASSERT_TRUE(Read(clean_, root_).ok());
  }

  MemoryStore clean_;
  ObjectRef root_;
  std::map<std::string, std::string> objects_;  // what a complete pack stores
};

TEST_F(DatasetFaultTest, EveryFaultAtEveryPackOperationLeavesNoRootOrAVerifiedOneAndARerunCompletesIt) {
  const std::string manifest_key = Prefix() + "manifest.json";
  int fired = 0;
  for (uint64_t n = 0; n < 2 * kObjects; ++n) {
    for (FaultKind fault : kEveryFault) {
      SCOPED_TRACE("fault " + std::string(store::FaultKindName(fault)) + " at operation " + std::to_string(n));
      MemoryStore backing;
      std::optional<store::InjectedFault> injected;
      Result<WrittenDataset> first = [&] {
        FaultInjectingStore faulty(backing, FaultPlan().At(n, fault));
        auto result = Pack(faulty);
        if (!faulty.injected().empty()) injected = faulty.injected().front();
        return result;
      }();
      if (!injected) {  // the fault does not apply to this operation's kind
        ASSERT_TRUE(first.ok()) << first.status().ToString();
        EXPECT_EQ(Contents(backing), objects_);
        continue;
      }
      ++fired;
      // Only an identical racer lets the pack succeed; every other fault fails it.
      EXPECT_EQ(first.ok(), fault == FaultKind::kExistsRaceIdentical) << first.status().ToString();
      if (first.ok()) {
        EXPECT_EQ(first->manifest_ref, root_);
      }

      // Never a wrong object: everything stored is the complete pack's
      // bytes, except the other writer's object at the raced key.
      const std::string raced = fault == FaultKind::kExistsRaceDifferent ? injected->key : "";
      const std::map<std::string, std::string> after = Contents(backing);
      for (const auto& [key, bytes] : after) {
        ASSERT_EQ(objects_.count(key), 1u) << key;
        if (key == raced) {
          EXPECT_NE(bytes, objects_.at(key)) << key;
        } else {
          EXPECT_EQ(bytes, objects_.at(key)) << key;
        }
      }
      // No root, or a root whose every object verifies. (A racer's object at
      // the manifest key is not our root: our reference does not verify.)
      if (after.count(manifest_key) && manifest_key != raced) {
        EXPECT_EQ(after.size(), kObjects);
        Status read = Read(backing, root_);
        EXPECT_TRUE(read.ok()) << read.ToString();
      }

      // The rerun: a fresh process (wrapper) over the same backing store.
      FaultInjectingStore restarted(backing, FaultPlan());
      auto second = Pack(restarted);
      if (!raced.empty()) {
        // The key holds another writer's bytes: refused, and left untouched.
        EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists) << second.status().ToString();
        EXPECT_EQ(second.status().path(), raced);
        EXPECT_EQ(*backing.Peek(raced), after.at(raced));
        EXPECT_EQ(Read(backing, root_).code(),
                  raced == manifest_key ? StatusCode::kIntegrityError : StatusCode::kNotFound);
        continue;
      }
      ASSERT_TRUE(second.ok()) << second.status().ToString();
      EXPECT_EQ(second->manifest_ref, root_);
      EXPECT_EQ(Contents(backing), objects_);
      Status read = Read(backing, root_);
      EXPECT_TRUE(read.ok()) << read.ToString();
    }
  }
  // 8 creates take the 9 faults that apply to a create, 8 read-backs the 7 that apply to a Get.
  EXPECT_EQ(fired, 8 * 9 + 8 * 7);
}

TEST_F(DatasetFaultTest, ACorruptingBackendIsCaughtAtTheObjectAndLeavesNothingBehind) {
  MemoryStore backing;
  FaultInjectingStore faulty(backing, FaultPlan().On(store::StoreOp::kCreateIfAbsent, FaultKind::kCorruptStored, 1));
  auto written = Pack(faulty);
  ASSERT_EQ(faulty.injected().size(), 1u);
  const std::string key = faulty.injected().front().key;
  EXPECT_EQ(written.status().code(), StatusCode::kIntegrityError) << written.status().ToString();
  EXPECT_EQ(written.status().path(), key);
  EXPECT_EQ(written.status().message(), "the stored object differs from the bytes written");
  EXPECT_FALSE(backing.Peek(key).has_value());  // we created it, so we removed it
  EXPECT_EQ(backing.object_count(), 1u);        // the first batch, verified
}

// Reads through a wrapper that hands back a short or long body at each read
// in turn: the reader fails with IntegrityError naming that object.
TEST_F(DatasetFaultTest, ShortAndLongReadsAreIntegrityErrorsNamingTheObject) {
  FaultInjectingStore counted(clean_, FaultPlan());
  ASSERT_TRUE(Read(counted, root_).ok());
  const uint64_t reads = counted.operations();
  ASSERT_EQ(reads, kObjects);  // one Get per object
  for (FaultKind fault : {FaultKind::kShortRead, FaultKind::kLongRead}) {
    for (uint64_t n = 0; n < reads; ++n) {
      SCOPED_TRACE(std::string(store::FaultKindName(fault)) + " at read " + std::to_string(n));
      FaultInjectingStore faulty(clean_, FaultPlan().At(n, fault));
      Status s = Read(faulty, root_);
      ASSERT_EQ(faulty.injected().size(), 1u);
      const std::string key = faulty.injected().front().key;
      const uint64_t size = objects_.at(key).size();
      const uint64_t got = fault == FaultKind::kShortRead ? size / 2 : size + 1;
      EXPECT_EQ(s.code(), StatusCode::kIntegrityError) << s.ToString();
      EXPECT_EQ(s.path(), key);
      EXPECT_EQ(s.message(), "the store returned " + std::to_string(got) + " bytes of a " + std::to_string(size) +
                                 "-byte object");
    }
  }
}

// Every stored object in turn, changed in place (same size) or lengthened.
TEST_F(DatasetFaultTest, CorruptedStoredBytesAreIntegrityErrorsNamingTheObject) {
  for (const auto& [key, bytes] : objects_) {
    SCOPED_TRACE(key);
    std::string flipped = bytes;
    flipped[flipped.size() / 2] ^= 0x01;
    clean_.Overwrite(key, flipped);
    Status changed = Read(clean_, root_);
    EXPECT_EQ(changed.code(), StatusCode::kIntegrityError) << changed.ToString();
    EXPECT_EQ(changed.path(), key);
    EXPECT_NE(changed.message().find("BLAKE3 digest"), std::string_view::npos) << changed.ToString();

    clean_.Overwrite(key, bytes + "\n");
    Status longer = Read(clean_, root_);
    EXPECT_EQ(longer.code(), StatusCode::kIntegrityError) << longer.ToString();
    EXPECT_EQ(longer.path(), key);
    EXPECT_EQ(longer.message(), "object is " + std::to_string(bytes.size() + 1) + " bytes, expected " +
                                    std::to_string(bytes.size()));
    clean_.Overwrite(key, bytes);
  }
  EXPECT_TRUE(Read(clean_, root_).ok());
}

}  // namespace
}  // namespace vigilo::cases
