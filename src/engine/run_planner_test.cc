// engine::PlanRun over datasets ingested into a memory store: the plan's
// layout, activation, the worker read path over every chunk, replays,
// and faults at every store operation of a small plan.
#include "vigilo/engine/run_planner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "vigilo/cases/object_io.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/engine/dataset_ingest.h"
#include "vigilo/engine/run_read.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/memory_store.h"
#include "engine_test_support.h"

namespace vigilo::engine {
namespace {

using testing::kSecond;

// Case i: classification when i % 3 == 0, else generation; tagged "even"
// when i is even.
std::string DatasetJson(int cases) {
  std::string s = R"({"dataset_id":"plan-set","cases":[)";
  for (int i = 0; i < cases; ++i) {
    char id[40];
    std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
    if (i > 0) s += ",";
    bool classification = i % 3 == 0;
    std::string input = classification ? R"({"labels":["a","b"],"text":"t)" + std::to_string(i) + R"("})"
                                       : R"({"prompt":"q)" + std::to_string(i) + R"("})";
    s += std::string(R"({"id":")") + id + R"(","input":)" + input + "," +
         (classification ? R"("task_type":"classification")" : R"("task_type":"generation")") +
         (i % 2 == 0 ? R"(,"tags":["even"])" : "") + "}";
  }
  return s + "]}";
}

const char* kProfile = R"({
  "profile_id": "plan-profile",
  "profile_version": "1",
  "agent": {"name": "bot", "version": "2"},
  "evaluators": [{"ref": "exact@1"}, {"ref": "judge@2", "runnable": false}],
  "gates": [
    {"gate_id": "even-cases", "evaluators": ["judge@2"], "select": {"any_tags": ["even"]}},
    {"gate_id": "all", "evaluators": ["exact@1"]}
  ],
  "execution_plan": {"repetitions": 2},
  "chunk_size": 10,
  "shards": 3
})";

class PlanTest : public testing::EngineFixture {
 protected:
  cases::ObjectRef Ingest(int cases, uint64_t max_cases_per_batch = 7) {
    std::string path = (scratch_ / "in.json").string();
    std::ofstream(path, std::ios::binary) << DatasetJson(cases);
    IngestInput input;
    input.path = path;
    IngestOptions options;
    options.scratch_dir = scratch_ / "spool";
    options.budget.case_batch_max_cases = max_cases_per_batch;  // 7: batches straddle chunks
    WriteTarget target = Target(*memory_);
    auto r = IngestDataset(input, options, target);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r->root;
  }

  PlanRunOptions Options() {
    PlanRunOptions o;
    o.scratch_dir = scratch_ / "spool";
    o.lease_duration = 60 * kSecond;
    return o;
  }

  Result<PlanRunResult> Plan(const cases::ObjectRef& dataset, store::ObjectStore& store, const PlanRunOptions& o,
                             const char* profile_text = kProfile) {
    auto profile = ParseProfile(profile_text);
    EXPECT_TRUE(profile.ok()) << profile.status().ToString();
    if (!profile.ok()) return profile.status();
    WriteTarget target = Target(store);
    return PlanRun(dataset, Fetch(), *profile, o, target);
  }

  cases::ObjectBytesFetch Fetch() { return cases::StoreBytesFetch(cases::SingleStore(*memory_)); }

  std::unique_ptr<store::MemoryStore> memory_ = std::make_unique<store::MemoryStore>();
};

TEST_P(PlanTest, PlansChunksShardsAndGatesAndEveryChunkReadsBack) {
  cases::ObjectRef dataset = Ingest(95);
  auto r = Plan(dataset, *memory_, Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, PlanOutcome::kPublished);
  EXPECT_EQ(r->name, "plan-set.plan-profile");
  EXPECT_EQ(r->root_version, 1u);
  EXPECT_EQ(r->cases_read, 95u);
  // No profile groups: chunks of 10, the last holds 5.
  EXPECT_EQ(r->plan.chunk_count, 10);
  ASSERT_EQ(r->plan.shards.size(), 3u);  // chunk i on shard i mod 3
  EXPECT_EQ(r->plan.shards[0].chunk_count, 4);
  EXPECT_EQ(r->plan.shards[0].case_count, 35);  // chunks 0, 3, 6 and the 5-case chunk 9
  EXPECT_EQ(r->plan.shards[1].case_count, 30);
  EXPECT_EQ(r->plan.shards[2].case_count, 30);
  EXPECT_EQ(r->plan.dataset, dataset);

  // Activation, with every chunk's projection hash recomputed from the dataset.
  auto verified = VerifyRun(r->root, cases::BudgetConfig::Defaults(), scratch_ / "spool", Fetch(), true);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_EQ(verified->chunk_count, 10);
  EXPECT_EQ(verified->shard_count, 3u);

  // Gate counts: "all" counts every case of the shard, "even-cases" the even ordinals.
  auto shown = ShowRun(r->root, cases::BudgetConfig::Defaults(), Fetch());
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  const cases::Executability& e = shown->configuration.snapshot.executability;
  EXPECT_EQ(e.expected_execution_count, 95 * 2);
  EXPECT_EQ(e.expected_evaluator_execution_count, (95 + 48) * 2);  // each case: exact@1, even ones also judge@2
  EXPECT_EQ(e.unique_evaluator_ref_count, 2);
  EXPECT_EQ(e.runnable_evaluator_ref_count, 1);

  // The worker read path over every chunk: each case exactly once, in order.
  int32_t next = 0;
  for (int32_t i = 0; i < r->plan.chunk_count; ++i) {
    auto chunk = ReadRunChunk(r->root, cases::BudgetConfig::Defaults(), Fetch(), i,
                              [&](const cases::CaseRecord& record, std::string_view) {
                                EXPECT_EQ(record.case_ordinal, next);
                                ++next;
                                return Status::Ok();
                              });
    ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
    EXPECT_EQ(chunk->chunk.run_shard, i % 3);
  }
  EXPECT_EQ(next, 95);
}

TEST_P(PlanTest, AChunkClosesWhereTheProfileGroupChanges) {
  cases::ObjectRef dataset = Ingest(12);
  std::string profile = kProfile;
  profile.replace(profile.find(R"("chunk_size": 10)"), 16, R"("chunk_size": 10, "profile_groups": {"by": "task_type"})");
  auto r = Plan(dataset, *memory_, Options(), profile.c_str());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Task types by ordinal: c g g c g g c g g c g g -> 8 runs of one group.
  EXPECT_EQ(r->plan.chunk_count, 8);
  std::vector<std::pair<int32_t, int32_t>> ranges;
  for (int32_t i = 0; i < r->plan.chunk_count; ++i) {
    auto chunk = ReadRunChunk(r->root, cases::BudgetConfig::Defaults(), Fetch(), i,
                              [](const cases::CaseRecord&, std::string_view) { return Status::Ok(); });
    ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
    ranges.emplace_back(chunk->chunk.ordinal_start, chunk->chunk.ordinal_end);
    EXPECT_EQ(chunk->chunk.profile_group_id, chunk->chunk.ordinal_start % 3 == 0 ? "classification" : "generation");
  }
  EXPECT_EQ(ranges.front(), std::make_pair(0, 1));
  EXPECT_EQ(ranges[1], std::make_pair(1, 3));
}

// Issue 34: grouping by a field the cases are not sorted by makes many
// small chunks; the plan says so with the numbers and the fix.
TEST_P(PlanTest, ChunksAveragingUnderAQuarterOfChunkSizeAreWarnedAbout) {
  cases::ObjectRef dataset = Ingest(12);
  std::string grouped = kProfile;
  grouped.replace(grouped.find(R"("chunk_size": 10)"), 16,
                  R"("chunk_size": 10, "profile_groups": {"by": "task_type"})");
  auto r = Plan(dataset, *memory_, Options(), grouped.c_str());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->plan.chunk_count, 8);  // 12 cases, 1.5 per chunk: under 10 / 4
  auto profile = ParseProfile(grouped);
  ASSERT_TRUE(profile.ok());
  EXPECT_EQ(ChunkSizeWarning(*r, *profile),
            "12 cases made 8 chunks, 1.5 cases per chunk against a chunk_size of 10: a chunk closes wherever the "
            "profile group (task_type) changes, and the dataset's cases are not in task_type order. Workers pay per "
            "chunk; to get full chunks, sort the cases by task_type before ingesting the dataset, or plan with a "
            "profile without profile_groups");

  // Without groups the same cases fill their chunks: no warning.
  auto plain_profile = ParseProfile(kProfile);
  ASSERT_TRUE(plain_profile.ok());
  PlanRunOptions o = Options();
  o.name = "plain";
  auto plain = Plan(dataset, *memory_, o);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(ChunkSizeWarning(*plain, *plain_profile), "");
  // A quarter exactly is not under it: 10 cases in 4 chunks of chunk_size 10.
  PlanRunResult quarter;
  quarter.plan.chunk_count = 4;
  cases::RunPlanShard only;
  only.case_count = 10;
  only.chunk_count = 4;
  quarter.plan.shards.push_back(only);
  EXPECT_EQ(ChunkSizeWarning(quarter, *profile), "");
  quarter.plan.shards[0].case_count = 9;
  EXPECT_NE(ChunkSizeWarning(quarter, *profile), "");
}

// Issue 34: a worker lists its shard's chunks (what `run chunks --shard N` prints).
TEST_P(PlanTest, AShardListsItsChunksInOrder) {
  cases::ObjectRef dataset = Ingest(95);
  auto r = Plan(dataset, *memory_, Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int32_t> indexes;
  auto shard = ListShardChunks(r->root, cases::BudgetConfig::Defaults(), Fetch(), 0,
                               [&](const cases::RunChunk& c) {
                                 indexes.push_back(c.chunk_index);
                                 return Status::Ok();
                               });
  ASSERT_TRUE(shard.ok()) << shard.status().ToString();
  EXPECT_EQ(indexes, (std::vector<int32_t>{0, 3, 6, 9}));
  EXPECT_EQ(shard->case_count, 35);

  auto missing = ListShardChunks(r->root, cases::BudgetConfig::Defaults(), Fetch(), 5,
                                 [](const cases::RunChunk&) { return Status::Ok(); });
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.status().path(), "shard");
  EXPECT_EQ(missing.status().message(),
            "the run has no shard 5; its plan lists shards 0, 1, 2 (only shards with planned work are listed)");
}

TEST_P(PlanTest, PlanningAgainIsUnchangedAndOtherProfilesNeedReplace) {
  cases::ObjectRef dataset = Ingest(30);
  auto first = Plan(dataset, *memory_, Options());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  size_t objects = memory_->object_count();
  auto again = Plan(dataset, *memory_, Options());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, PlanOutcome::kUnchanged);
  EXPECT_EQ(again->root, first->root);
  EXPECT_EQ(memory_->object_count(), objects) << "the duplicate attempt's objects were deleted";

  std::string other = kProfile;
  other.replace(other.find(R"("repetitions": 2)"), 16, R"("repetitions": 5)");
  auto refused = Plan(dataset, *memory_, Options(), other.c_str());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kAlreadyExists);
  wall_.Advance(kSecond);
  PlanRunOptions replace = Options();
  replace.replace = true;
  auto replaced = Plan(dataset, *memory_, replace, other.c_str());
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(replaced->outcome, PlanOutcome::kReplaced);
  EXPECT_EQ(replaced->root_version, 2u);
  EXPECT_TRUE(replaced->resumed);
  EXPECT_EQ(replaced->objects_written, 0u) << "the refused run's objects are reused";
}

TEST_P(PlanTest, BadRequestsAreRefusedBeforeAnyAttempt) {
  cases::ObjectRef dataset = Ingest(5);
  PlanRunOptions o = Options();
  o.name = "../x";
  auto r = Plan(dataset, *memory_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().path(), "name");
  cases::ObjectRef not_a_dataset = dataset;
  not_a_dataset.schema = cases::StorageFormat::kCaseBatch;
  r = Plan(not_a_dataset, *memory_, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().path(), "dataset");
  auto attempts = control_->ListAttempts(control::Namespace::kRuns, "plan-set.plan-profile");
  ASSERT_TRUE(attempts.ok());
  EXPECT_TRUE(attempts->empty());
}

#ifdef NDEBUG
// A plan over 100,000 cases (release builds only): the chunk and shard
// totals, activation with every projection recomputed, and one chunk read.
TEST_P(PlanTest, OneHundredThousandCases) {
  cases::ObjectRef dataset = Ingest(100000, 100);
  std::string profile = kProfile;
  profile.replace(profile.find(R"("chunk_size": 10)"), 16, R"("chunk_size": 100)");
  auto r = Plan(dataset, *memory_, Options(), profile.c_str());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->plan.chunk_count, 1000);
  ASSERT_EQ(r->plan.shards.size(), 3u);
  EXPECT_EQ(r->plan.shards[0].chunk_count, 334);
  EXPECT_EQ(r->plan.shards[0].case_count + r->plan.shards[1].case_count + r->plan.shards[2].case_count, 100000);
  EXPECT_EQ(r->chunk_pages, 4u);  // 256 chunks per page
  auto verified = VerifyRun(r->root, cases::BudgetConfig::Defaults(), scratch_ / "spool", Fetch(), true);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  int32_t read = 0;
  auto chunk = ReadRunChunk(r->root, cases::BudgetConfig::Defaults(), Fetch(), 777,
                            [&](const cases::CaseRecord& record, std::string_view) {
                              EXPECT_EQ(record.case_ordinal, 77700 + read);
                              ++read;
                              return Status::Ok();
                            });
  ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
  EXPECT_EQ(read, 100);
}
#endif

// A fault at any store operation of a small plan leaves nothing published
// or a complete plan; a rerun then publishes, and cleanup leaves only the
// published attempts' keys (the dataset's and the plan's).
TEST_P(PlanTest, AFaultAtEveryStoreOperationThenARerunPublishes) {
  cases::ObjectRef dataset = Ingest(25);
  PlanRunOptions o = Options();
  uint64_t operations = 0;
  {
    // Count the plan's operations on a copy of the store.
    OpenControl("count");
    store::MemoryStore copy;
    for (const std::string& key : memory_->Keys()) {
      auto bytes = memory_->Peek(key);
      copy.Overwrite(key, *bytes);
    }
    store::FaultInjectingStore counting(copy, store::FaultPlan{});
    ASSERT_TRUE(Plan(dataset, counting, o).ok());
    operations = counting.operations();
  }
  ASSERT_GT(operations, 10u);
  const std::vector<std::string> dataset_keys = memory_->Keys();
  for (store::FaultKind kind : {store::FaultKind::kCrash, store::FaultKind::kCrashAfterEffect,
                                store::FaultKind::kAckLost, store::FaultKind::kCorruptStored,
                                store::FaultKind::kExistsRaceDifferent, store::FaultKind::kShortRead}) {
    for (uint64_t at = 0; at < operations; ++at) {
      SCOPED_TRACE(std::string(store::FaultKindName(kind)) + " at operation " + std::to_string(at));
      store::MemoryStore store;
      for (const std::string& key : dataset_keys) store.Overwrite(key, *memory_->Peek(key));
      OpenControl("fault-" + std::to_string(at) + "-" + std::string(store::FaultKindName(kind)));
      {
        store::FaultInjectingStore faulty(store, store::FaultPlan().At(at, kind));
        (void)Plan(dataset, faulty, o);
      }
      wall_.Advance(o.lease_duration + kSecond);
      auto rerun = Plan(dataset, store, o);
      ASSERT_TRUE(rerun.ok()) << rerun.status().ToString();
      auto verified = VerifyRun(rerun->root, cases::BudgetConfig::Defaults(), scratch_ / "spool",
                                cases::StoreBytesFetch(cases::SingleStore(store)), true);
      ASSERT_TRUE(verified.ok()) << verified.status().ToString();
      wall_.Advance(control::kDefaultAbandonSettle + kSecond);
      control::CleanupReport drained = control::DrainCleanup(*control_, "test-store", store, *governor_);
      ASSERT_TRUE(drained.status.ok()) << drained.status.ToString();
      auto root = control_->GetRoot(control::Namespace::kRuns, rerun->name);
      ASSERT_TRUE(root.ok() && root->has_value());
      auto attempt = control_->GetAttempt((*root)->attempt);
      ASSERT_TRUE(attempt.ok());
      std::set<std::string> allowed(dataset_keys.begin(), dataset_keys.end());
      for (const std::string& key : store.Keys()) {
        if (allowed.count(key) != 0) continue;
        EXPECT_EQ(key.rfind(attempt->key_prefix, 0), 0u) << key << " is not under " << attempt->key_prefix;
      }
    }
  }
}

VIGILO_OVER_CONTROL_BACKENDS(PlanTest);

}  // namespace
}  // namespace vigilo::engine
