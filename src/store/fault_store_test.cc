#include "vigilo/store/fault_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "vigilo/store/memory_store.h"

namespace vigilo::store {
namespace {

std::span<const uint8_t> B(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

void ExpectStatus(const Status& s, StatusCode code, std::string_view message) {
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_EQ(s.message(), message) << s.ToString();
}

std::string GetAll(ObjectStore& store, std::string_view key) {
  Result<Bytes> r = store.Get(key);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::string(r->view()) : std::string();
}

// Streams `parts` into a new object through `store`, returning Commit's result
// (or the first failing Append's status).
Result<CreateResult> Stream(ObjectStore& store, std::string_view key, const std::vector<std::string>& parts) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> w, store.BeginCreate(key));
  for (const std::string& part : parts) VIGILO_RETURN_IF_ERROR(w->Append(B(part)));
  return w->Commit();
}

TEST(FaultStoreTest, WithoutFaultsEveryCallPassesThroughAndIsNumbered) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan());
  EXPECT_EQ(&store.capabilities(), &inner.capabilities());
  Result<CreateResult> created = store.CreateIfAbsent("a", B("alpha"));  // 0
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(GetAll(store, "a"), "alpha");  // 1
  Result<ObjectInfo> info = store.Head("a");  // 2
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->size, 5u);
  ASSERT_TRUE(Stream(store, "b", {"be", "ta"}).ok());  // 3 BeginCreate, 4-5 Append, 6 Commit
  EXPECT_EQ(inner.Peek("b"), "beta");
  EXPECT_TRUE(store.Delete("a").ok());  // 7
  EXPECT_EQ(store.operations(), 8u);
  EXPECT_EQ(store.faults_injected(), 0u);
  EXPECT_FALSE(store.crashed());
  EXPECT_EQ(inner.Keys(), std::vector<std::string>{"b"});
  // The inner store's own errors pass through unchanged.
  ExpectStatus(store.Get("missing").status(), StatusCode::kNotFound, "no such object");
  ExpectStatus(store.CreateIfAbsent("b", B("other")).status(), StatusCode::kAlreadyExists,
               "object already exists with different bytes");
}

TEST(FaultStoreTest, CapabilitiesAreTheInnerStores) {
  MemoryStore inner(Capabilities{.writable = false,
                                 .conditional_create = false,
                                 .read_after_create = true,
                                 .single_ranges = false,
                                 .revisions = true});
  FaultInjectingStore store(inner, FaultPlan());
  EXPECT_FALSE(store.capabilities().writable);
  EXPECT_FALSE(store.capabilities().conditional_create);
  EXPECT_TRUE(store.capabilities().read_after_create);
  EXPECT_FALSE(store.capabilities().single_ranges);
  EXPECT_TRUE(store.capabilities().revisions);
  EXPECT_EQ(store.operations(), 0u);  // capabilities() is not an operation
}

TEST(FaultStoreTest, TransientCreateHasNoEffectAndARetrySucceeds) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan().At(0, FaultKind::kTransient));
  ExpectStatus(store.CreateIfAbsent("k", B("v")).status(), StatusCode::kUnavailable, "injected transient failure");
  EXPECT_EQ(inner.object_count(), 0u);
  Result<CreateResult> retry = store.CreateIfAbsent("k", B("v"));
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(inner.Peek("k"), "v");
  EXPECT_EQ(store.injected(), (std::vector<InjectedFault>{{0, StoreOp::kCreateIfAbsent, FaultKind::kTransient, "k"}}));
}

TEST(FaultStoreTest, TimeoutOnGetAndDelete) {
  MemoryStore inner;
  ASSERT_TRUE(inner.CreateIfAbsent("k", B("v")).ok());
  FaultInjectingStore store(inner, FaultPlan().On(StoreOp::kGet, FaultKind::kTimeout).On(StoreOp::kDelete,
                                                                                         FaultKind::kTimeout));
  ExpectStatus(store.Get("k").status(), StatusCode::kDeadlineExceeded, "injected timeout");
  EXPECT_EQ(GetAll(store, "k"), "v");
  ExpectStatus(store.Delete("k"), StatusCode::kDeadlineExceeded, "injected timeout");
  EXPECT_EQ(inner.Peek("k"), "v");  // no effect
  EXPECT_TRUE(store.Delete("k").ok());
  EXPECT_EQ(inner.object_count(), 0u);
}

TEST(FaultStoreTest, AckLostCreateTookEffectAndTheRetryIsIdentical) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan().On(StoreOp::kCreateIfAbsent, FaultKind::kAckLost));
  ExpectStatus(store.CreateIfAbsent("k", B("payload")).status(), StatusCode::kUnavailable,
               "injected lost acknowledgement");
  EXPECT_EQ(inner.Peek("k"), "payload");
  Result<CreateResult> retry = store.CreateIfAbsent("k", B("payload"));
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(retry->size, 7u);
}

TEST(FaultStoreTest, AckLostCommitAndDeleteTookEffect) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan()
                                       .On(StoreOp::kCommit, FaultKind::kAckLost)
                                       .On(StoreOp::kDelete, FaultKind::kAckLost));
  ExpectStatus(Stream(store, "k", {"str", "eam"}).status(), StatusCode::kUnavailable, "injected lost acknowledgement");
  EXPECT_EQ(inner.Peek("k"), "stream");
  Result<CreateResult> retry = Stream(store, "k", {"stream"});
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry->outcome, CreateOutcome::kAlreadyIdentical);

  ExpectStatus(store.Delete("k"), StatusCode::kUnavailable, "injected lost acknowledgement");
  EXPECT_EQ(inner.object_count(), 0u);
  EXPECT_TRUE(store.Delete("k").ok());  // deleting a missing key is OK
}

TEST(FaultStoreTest, ShortAndLongReadsAreNotHidden) {
  MemoryStore inner;
  ASSERT_TRUE(inner.CreateIfAbsent("k", B("0123456789")).ok());
  FaultInjectingStore store(inner, FaultPlan()
                                       .At(0, FaultKind::kShortRead)
                                       .At(1, FaultKind::kShortRead)
                                       .At(2, FaultKind::kLongRead));
  EXPECT_EQ(GetAll(store, "k"), "01234");
  GetOptions ranged;
  ranged.range = ByteRange{2, 5};
  Result<Bytes> part = store.Get("k", ranged);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(part->view(), "23");
  EXPECT_EQ(GetAll(store, "k"), std::string("0123456789\0", 11));
  EXPECT_EQ(GetAll(store, "k"), "0123456789");
  EXPECT_EQ(store.faults_injected(), 3u);
}

TEST(FaultStoreTest, ShortReadPassesTheInnerErrorThrough) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan().On(StoreOp::kGet, FaultKind::kShortRead));
  ExpectStatus(store.Get("missing").status(), StatusCode::kNotFound, "no such object");
}

TEST(FaultStoreTest, TornAppendLeavesNothingVisible) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan().On(StoreOp::kAppend, FaultKind::kTornWrite, /*skip=*/1));
  Result<std::unique_ptr<ObjectWriter>> w = store.BeginCreate("k");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(B("hello ")).ok());
  EXPECT_EQ((*w)->size(), 6u);
  ExpectStatus((*w)->Append(B("world!")), StatusCode::kIoError, "injected torn write");
  // The writer stays failed: a later Append or Commit fails the same way.
  ExpectStatus((*w)->Append(B("more")), StatusCode::kIoError, "injected torn write");
  ExpectStatus((*w)->Commit().status(), StatusCode::kIoError, "injected torn write");
  EXPECT_EQ(inner.object_count(), 0u);
  EXPECT_EQ(store.operations(), 5u);
  EXPECT_EQ(store.faults_injected(), 1u);  // calls on a failed writer are numbered but cannot fault
  // A fresh attempt succeeds.
  ASSERT_TRUE(Stream(store, "k", {"hello ", "world!"}).ok());
  EXPECT_EQ(inner.Peek("k"), "hello world!");
}

TEST(FaultStoreTest, TornCreateAndCommitStoreNothing) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan()
                                       .On(StoreOp::kCreateIfAbsent, FaultKind::kTornWrite)
                                       .On(StoreOp::kCommit, FaultKind::kTornWrite));
  ExpectStatus(store.CreateIfAbsent("a", B("bytes")).status(), StatusCode::kIoError, "injected torn write");
  ExpectStatus(Stream(store, "b", {"bytes"}).status(), StatusCode::kIoError, "injected torn write");
  EXPECT_EQ(inner.object_count(), 0u);
}

TEST(FaultStoreTest, CorruptStoredLiesToTheCallerOnCreate) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan().On(StoreOp::kCreateIfAbsent, FaultKind::kCorruptStored, 0, 2));
  Result<CreateResult> created = store.CreateIfAbsent("k", B("hello"));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(created->size, 5u);
  EXPECT_EQ(inner.Peek("k"), "\x97" "ello");  // 'h' (0x68) inverted
  // An empty object becomes one zero byte, still reported as 0 bytes.
  Result<CreateResult> empty = store.CreateIfAbsent("e", {});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size, 0u);
  EXPECT_EQ(inner.Peek("e"), std::string(1, '\0'));
  // Verification catches it: a replay of the real bytes is refused.
  ExpectStatus(store.CreateIfAbsent("k", B("hello")).status(), StatusCode::kAlreadyExists,
               "object already exists with different bytes");
}

TEST(FaultStoreTest, CorruptStoredOnCommit) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan().On(StoreOp::kCommit, FaultKind::kCorruptStored));
  Result<std::unique_ptr<ObjectWriter>> w = store.BeginCreate("k");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(B("ab")).ok());
  ASSERT_TRUE((*w)->Append(B("cd")).ok());
  Result<CreateResult> committed = (*w)->Commit();
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(committed->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(committed->size, 4u);
  EXPECT_EQ(inner.Peek("k"), "\x9e" "bcd");  // 'a' (0x61) inverted
  ExpectStatus((*w)->Commit().status(), StatusCode::kInternal, "object writer already committed");
}

TEST(FaultStoreTest, ExistsRaceWithIdenticalBytes) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan()
                                       .On(StoreOp::kCreateIfAbsent, FaultKind::kExistsRaceIdentical)
                                       .On(StoreOp::kCommit, FaultKind::kExistsRaceIdentical));
  Result<CreateResult> created = store.CreateIfAbsent("a", B("same"));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(inner.Peek("a"), "same");
  Result<CreateResult> streamed = Stream(store, "b", {"sa", "me"});
  ASSERT_TRUE(streamed.ok());
  EXPECT_EQ(streamed->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(inner.Peek("b"), "same");
}

TEST(FaultStoreTest, ExistsRaceWithOtherBytesIsAlreadyExistsAndTheWinnerStays) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan()
                                       .On(StoreOp::kCreateIfAbsent, FaultKind::kExistsRaceDifferent)
                                       .On(StoreOp::kCommit, FaultKind::kExistsRaceDifferent));
  ExpectStatus(store.CreateIfAbsent("a", B("mine")).status(), StatusCode::kAlreadyExists,
               "object already exists with different bytes");
  EXPECT_EQ(inner.Peek("a"), "\x92" "ine");  // 'm' (0x6d) inverted: the other writer's bytes
  ExpectStatus(Stream(store, "b", {"mi", "ne"}).status(), StatusCode::kAlreadyExists,
               "object already exists with different bytes");
  EXPECT_EQ(inner.Peek("b"), "\x92" "ine");
}

TEST(FaultStoreTest, CrashFailsEveryLaterCallAndARestartResumesOverTheSameStore) {
  MemoryStore inner;
  std::vector<std::string> seen;
  {
    FaultInjectingStore process(inner, FaultPlan().At(4, FaultKind::kCrash));
    ASSERT_TRUE(process.CreateIfAbsent("done", B("1")).ok());  // 0
    Result<std::unique_ptr<ObjectWriter>> open = process.BeginCreate("open");  // 1
    ASSERT_TRUE(open.ok());
    ASSERT_TRUE((*open)->Append(B("partial")).ok());  // 2
    EXPECT_EQ(GetAll(process, "done"), "1");  // 3
    Status crash = process.CreateIfAbsent("never", B("x")).status();  // 4: the crash, before any effect
    EXPECT_TRUE(IsInjectedCrash(crash));
    ExpectStatus(crash, StatusCode::kCancelled, "injected crash");
    EXPECT_TRUE(process.crashed());
    // Everything afterwards fails the same way, the open writer included.
    EXPECT_TRUE(IsInjectedCrash(process.Get("done").status()));
    EXPECT_TRUE(IsInjectedCrash(process.Head("done").status()));
    EXPECT_TRUE(IsInjectedCrash(process.Delete("done")));
    EXPECT_TRUE(IsInjectedCrash(process.BeginCreate("x").status()));
    EXPECT_TRUE(IsInjectedCrash((*open)->Append(B("more"))));
    EXPECT_TRUE(IsInjectedCrash((*open)->Commit().status()));
    EXPECT_EQ(process.operations(), 11u);
    EXPECT_EQ(process.faults_injected(), 1u);
  }
  EXPECT_EQ(inner.Keys(), std::vector<std::string>{"done"});
  // The restarted process sees what the crashed one created and carries on.
  FaultInjectingStore restarted(inner, FaultPlan());
  EXPECT_EQ(GetAll(restarted, "done"), "1");
  ASSERT_TRUE(Stream(restarted, "open", {"whole"}).ok());
  EXPECT_EQ(inner.Keys(), (std::vector<std::string>{"done", "open"}));
}

TEST(FaultStoreTest, CrashAfterEffectLeavesTheObjectForTheRestartedProcess) {
  MemoryStore inner;
  {
    FaultInjectingStore process(inner, FaultPlan().On(StoreOp::kCreateIfAbsent, FaultKind::kCrashAfterEffect));
    EXPECT_TRUE(IsInjectedCrash(process.CreateIfAbsent("k", B("v")).status()));
    EXPECT_TRUE(IsInjectedCrash(process.Get("k").status()));
  }
  EXPECT_EQ(inner.Peek("k"), "v");
  FaultInjectingStore restarted(inner, FaultPlan());
  Result<CreateResult> replay = restarted.CreateIfAbsent("k", B("v"));
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->outcome, CreateOutcome::kAlreadyIdentical);
}

TEST(FaultStoreTest, CrashAtCommitAbandonsTheWriter) {
  MemoryStore inner;
  FaultInjectingStore process(inner, FaultPlan().On(StoreOp::kCommit, FaultKind::kCrash));
  EXPECT_TRUE(IsInjectedCrash(Stream(process, "k", {"a", "b"}).status()));
  EXPECT_EQ(inner.object_count(), 0u);
}

TEST(FaultStoreTest, AWriterMayOutliveItsCrashedWrapper) {
  auto inner = std::make_shared<MemoryStore>();
  std::unique_ptr<ObjectWriter> orphan;
  {
    FaultInjectingStore process(std::shared_ptr<ObjectStore>(inner), FaultPlan().At(2, FaultKind::kCrash));
    Result<std::unique_ptr<ObjectWriter>> w = process.BeginCreate("k");  // 0
    ASSERT_TRUE(w.ok());
    orphan = std::move(*w);
    ASSERT_TRUE(orphan->Append(B("abc")).ok());  // 1
    EXPECT_TRUE(IsInjectedCrash(process.Head("k").status()));  // 2
  }
  EXPECT_TRUE(IsInjectedCrash(orphan->Commit().status()));
  EXPECT_EQ(inner->object_count(), 0u);
}

TEST(FaultStoreTest, FaultsOnBeginCreateAndHead) {
  MemoryStore inner;
  ASSERT_TRUE(inner.CreateIfAbsent("k", B("v")).ok());
  FaultInjectingStore store(inner, FaultPlan()
                                       .On(StoreOp::kBeginCreate, FaultKind::kTransient)
                                       .On(StoreOp::kHead, FaultKind::kAckLost));
  ExpectStatus(store.BeginCreate("n").status(), StatusCode::kUnavailable, "injected transient failure");
  ExpectStatus(store.Head("k").status(), StatusCode::kUnavailable, "injected lost acknowledgement");
  EXPECT_EQ(inner.object_count(), 1u);
}

TEST(FaultStoreTest, RulesMatchByKeySkipAndTimes) {
  MemoryStore inner;
  ASSERT_TRUE(inner.CreateIfAbsent("a", B("A")).ok());
  ASSERT_TRUE(inner.CreateIfAbsent("b", B("B")).ok());
  FaultInjectingStore store(inner, FaultPlan().OnKey("b", StoreOp::kGet, FaultKind::kTransient, /*skip=*/1,
                                                     /*times=*/2));
  std::string outcomes;
  for (int i = 0; i < 5; ++i) {
    outcomes += store.Get("a").ok() ? 'a' : 'x';
    outcomes += store.Get("b").ok() ? 'b' : 'x';
  }
  EXPECT_EQ(outcomes, "abaxaxabab");
  EXPECT_EQ(store.injected(), (std::vector<InjectedFault>{{3, StoreOp::kGet, FaultKind::kTransient, "b"},
                                                          {5, StoreOp::kGet, FaultKind::kTransient, "b"}}));
}

TEST(FaultStoreTest, TimesZeroFiresOnEveryMatch) {
  MemoryStore inner;
  FaultInjectingStore store(inner, FaultPlan().On(StoreOp::kHead, FaultKind::kTimeout, 0, 0));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(store.Head("k").status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(store.faults_injected(), 4u);
}

TEST(FaultStoreTest, TheFirstMatchingRuleWinsAndInapplicableRulesNeverFire) {
  MemoryStore inner;
  ASSERT_TRUE(inner.CreateIfAbsent("k", B("v")).ok());
  FaultInjectingStore store(inner, FaultPlan()
                                       .At(0, FaultKind::kShortRead)  // op 0 is a Head: never fires
                                       .At(1, FaultKind::kTimeout)
                                       .At(1, FaultKind::kTransient));
  EXPECT_TRUE(store.Head("k").ok());
  ExpectStatus(store.Get("k").status(), StatusCode::kDeadlineExceeded, "injected timeout");
  EXPECT_EQ(GetAll(store, "k"), "v");
  EXPECT_EQ(store.injected(), (std::vector<InjectedFault>{{1, StoreOp::kGet, FaultKind::kTimeout, "k"}}));
  EXPECT_FALSE(FaultAppliesTo(FaultKind::kShortRead, StoreOp::kHead));
  EXPECT_FALSE(FaultAppliesTo(FaultKind::kCorruptStored, StoreOp::kAppend));
  EXPECT_TRUE(FaultAppliesTo(FaultKind::kTornWrite, StoreOp::kAppend));
  EXPECT_TRUE(FaultAppliesTo(FaultKind::kCrash, StoreOp::kDelete));
}

TEST(FaultStoreTest, ConcurrentCallsAreEachNumberedOnce) {
  MemoryStore inner;
  ASSERT_TRUE(inner.CreateIfAbsent("k", B("v")).ok());
  FaultInjectingStore store(inner, FaultPlan().On(StoreOp::kGet, FaultKind::kTransient, /*skip=*/0, /*times=*/25));
  constexpr int kThreads = 4;
  constexpr int kCalls = 100;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        if (!store.Get("k").ok()) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(store.operations(), static_cast<uint64_t>(kThreads * kCalls));
  EXPECT_EQ(failures.load(), 25);
  std::vector<InjectedFault> injected = store.injected();
  ASSERT_EQ(injected.size(), 25u);
  for (size_t i = 1; i < injected.size(); ++i) EXPECT_LT(injected[i - 1].operation, injected[i].operation);
}

}  // namespace
}  // namespace vigilo::store
