// Reading run plans back: show, activation (verify, with and without the
// case pass) catching each kind of tampering, and the worker's chunk read
// fetching only the batches its range touches. Plans are assembled by hand
// with the format builders over a real dataset (the planner is not needed).
#include "vigilo/engine/run_read.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "../cases/store_test_support.h"
#include "../cases/writer_test_support.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/cases/gate_counts.h"
#include "vigilo/cases/typed_case.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/engine/dataset_read.h"

namespace vigilo::engine {
namespace {

using cases::test::TestStore;

json::Value J(std::string_view text) {
  auto v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return *v;
}

std::string CaseJson(int i) {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i + 1);
  return std::string(R"({"tags": ["t)") + std::to_string(i % 3) + R"("], "id": ")" + id +
         R"(", "input": {"prompt": "question )" + std::to_string(i) + R"("}})";
}

const Uuid& RunId() {
  static const Uuid id = *Uuid::Parse("6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f");
  return id;
}

struct ChunkSpec {
  int32_t shard;
  int32_t start;
  int32_t end;
};

// What a test may change in an otherwise consistent plan.
struct PlanOptions {
  // Chunk pages (each a list of chunks); the shards' records are computed
  // from `shard_pages` when set (a page swapped behind the plan's back).
  std::vector<std::vector<ChunkSpec>> pages;
  std::vector<std::vector<ChunkSpec>> shard_pages;
  std::map<int32_t, std::string> projection_override;  // chunk index -> hash
  int32_t gate_exact_delta = 0;  // shard 0's "exact" gate plans its case count plus this
  int32_t gate_entry_delta = 0;  // added to the descriptor's entry_count
  std::string configuration_dataset_hash;  // nonempty: the snapshot names another dataset hash
};

// 23 cases, 4 per batch (batches [0,4) ... [20,23)), 3 entries per dataset
// index page; a run of 5 chunks of up to 5 cases on shards 0 and 3, two
// chunks per page, two entries per run-chunks index page (two levels).
class RunReadTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string doc = R"({"dataset_id": "geo", "dataset_version": "v1", "cases": [)";
    for (int i = 0; i < 23; ++i) doc += (i ? ", " : "") + CaseJson(i);
    doc += "]}";
    auto parsed = json::Parse(doc);
    ASSERT_TRUE(parsed.ok());
    auto sf = cases::DatasetSourceFields::FromDocument(*parsed);
    ASSERT_TRUE(sf.ok()) << sf.status().ToString();
    auto writer = cases::DatasetWriter::Start(
        std::move(*sf), cases::WriterBudget(cases::BatchLimits{4, 1 << 20}, cases::IndexLimits{3, 1 << 20, 8}),
        cases::TestScratchDir(), "datasets/geo/a/g1/", store_.Sink());
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (const json::Value& c : parsed->as_object().Find("cases")->as_array()) ASSERT_TRUE(writer->AddCase(c).ok());
    auto written = writer->Finish();
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    dataset_ = *written;
    auto all = ReadDatasetCases(dataset_.manifest_ref, cases::BudgetConfig::Defaults(), store_.BytesFetch(), 0, 23,
                                [&](const cases::CaseRecord& record, std::string_view line) {
                                  lines_.emplace_back(line);
                                  projected_.push_back(cases::ProjectedCase{
                                      record.case_ordinal, cases::ValidateCase(record.source)->id, record.case_hash});
                                  return Status::Ok();
                                });
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    ASSERT_EQ(lines_.size(), 23u);
  }

  static std::vector<std::vector<ChunkSpec>> DefaultPages() {
    return {{{0, 0, 5}, {3, 5, 10}}, {{0, 10, 15}, {3, 15, 20}}, {{0, 20, 23}}};
  }

  std::string Projection(int32_t start, int32_t end) {
    return *cases::ComputeCaseProjectionHash(
        std::span<const cases::ProjectedCase>(projected_.data() + start, static_cast<size_t>(end - start)));
  }

  std::vector<cases::RunChunkPage> Pages(const std::vector<std::vector<ChunkSpec>>& specs, const PlanOptions& o) {
    std::vector<cases::RunChunkPage> pages;
    int32_t index = 0;
    for (const auto& spec : specs) {
      cases::RunChunkPage page;
      page.run_id = RunId();
      page.chunk_index_start = index;
      for (const ChunkSpec& c : spec) {
        auto hash = o.projection_override.find(index);
        page.chunks.push_back(cases::RunChunk{index, cases::DeriveChunkId(RunId(), index), c.shard, c.start, c.end,
                                              c.shard == 0 ? "default" : "long-context",
                                              hash != o.projection_override.end() ? hash->second
                                                                                  : Projection(c.start, c.end)});
        ++index;
      }
      page.chunk_index_end = index;
      pages.push_back(std::move(page));
    }
    return pages;
  }

  // Writes a complete plan under a fresh prefix and returns its root.
  cases::ObjectRef Build(PlanOptions o = {}) {
    if (o.pages.empty()) o.pages = DefaultPages();
    prefix_ = "runs/r/g" + std::to_string(++generation_) + "/";
    page_keys_.clear();
    std::vector<cases::RunChunkPage> pages = Pages(o.pages, o);
    std::vector<cases::RunChunkPage> planned = o.shard_pages.empty() ? pages : Pages(o.shard_pages, o);

    cases::OrdinalIndexBuilder index(cases::IndexKind::kRunChunks, prefix_ + "index/", {2, 1 << 20, 8},
                                     store_.Sink());
    for (const cases::RunChunkPage& p : pages) {
      page_keys_.push_back(prefix_ + "chunks/" + std::to_string(p.chunk_index_start) + ".json");
      cases::ObjectRef ref = store_.Put(page_keys_.back(), cases::StorageFormat::kRunChunks, *p.Encode());
      EXPECT_TRUE(index.Add(cases::IndexEntry{p.chunk_index_start, p.chunk_index_end, ref}).ok());
    }
    cases::RunConfiguration configuration;
    cases::RunSnapshot& s = configuration.snapshot;
    const cases::DatasetManifest& m = dataset_.manifest;
    s.profile = J(R"({"agent":"echo@1","name":"smoke"})");
    s.agent = J(R"("echo@1")");
    s.dataset_ref = cases::RunDatasetRef{m.dataset_id, m.dataset_version, m.dataset_version_id,
                                         o.configuration_dataset_hash.empty() ? m.dataset_hash
                                                                              : o.configuration_dataset_hash,
                                         m.case_count};
    s.dataset_version_id = m.dataset_version_id;
    s.profile_version_id = *Uuid::Parse("3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b");
    s.profile_hash = *cases::CanonicalJsonHash(s.profile);
    s.dataset_hash = s.dataset_ref.dataset_hash;
    s.aggregation_policy_hash = std::string(64, 'a');
    s.execution_plan = J(R"({"repeats":1})");
    s.execution_plan_hash = *cases::CanonicalJsonHash(s.execution_plan);
    s.chunk_size = 5;
    s.executability = cases::Executability{23, 23, 1, 1};

    cases::RunPlanManifest plan;
    plan.run_id = RunId();
    plan.dataset = dataset_.manifest_ref;
    plan.configuration = store_.Put(prefix_ + "configuration.json", cases::StorageFormat::kRunConfiguration,
                                    *configuration.Encode());
    plan.profile_hash = s.profile_hash;
    plan.aggregation_policy_hash = s.aggregation_policy_hash;
    plan.execution_plan_hash = s.execution_plan_hash;
    plan.chunk_count = pages.back().chunk_index_end;
    plan.chunks = *index.Finish();
    std::map<int32_t, cases::PlannedChunkHasher> hashers;
    for (const cases::RunChunkPage& p : planned) {
      for (const cases::RunChunk& c : p.chunks) {
        EXPECT_TRUE(hashers.try_emplace(c.run_shard, c.run_shard).first->second.Add(c).ok());
      }
    }
    for (auto& [shard, h] : hashers) {
      const int32_t case_count = static_cast<int32_t>(h.case_count());
      cases::GateCountDescriptor gates;
      if (shard == 0) {
        // The builder is given room for a tampered count; the reader holds it to the shard's.
        gates = *cases::BuildGateCountChain(0, case_count + 100, {{"exact", case_count + o.gate_exact_delta}, {"tag:t0", 5}},
                                            prefix_ + "gates/000/", {}, store_.Sink());
        gates.entry_count += o.gate_entry_delta;
      }
      plan.shards.push_back(cases::RunPlanShard{shard, case_count, h.chunk_count(), h.FinishHex(), gates});
    }
    EXPECT_TRUE(plan.Validate().ok()) << plan.Validate().ToString();
    plan_ = plan;
    configuration_ = configuration;
    return store_.Put(prefix_ + "plan.json", cases::StorageFormat::kRunPlanManifest, *plan.Encode());
  }

  // Every byte stored under `prefix`.
  uint64_t BytesUnder(const std::string& prefix) {
    uint64_t total = 0;
    for (const std::string& key : store_.memory.Keys()) {
      if (key.rfind(prefix, 0) == 0) total += store_.Object(key).size();
    }
    return total;
  }

  Result<RunVerifySummary> Verify(const cases::ObjectRef& root, bool with_cases) {
    return VerifyRun(root, cases::BudgetConfig::Defaults(), cases::TestScratchDir(), store_.BytesFetch(), with_cases);
  }

  struct ChunkRead {
    Result<ChunkReadSummary> result;
    std::vector<std::string> lines;
    int batch_fetches = 0;
  };
  ChunkRead ReadChunk(const cases::ObjectRef& root, int32_t index) {
    ChunkRead out{InvalidArgument("unset"), {}, 0};
    cases::ObjectBytesFetch inner = store_.BytesFetch();
    cases::ObjectBytesFetch counting = [&](const cases::ObjectRef& ref, uint64_t max) {
      if (ref.key.find("/batches/") != std::string::npos) ++out.batch_fetches;
      return inner(ref, max);
    };
    out.result = ReadRunChunk(root, cases::BudgetConfig::Defaults(), counting, index,
                              [&](const cases::CaseRecord& record, std::string_view line) {
                                EXPECT_EQ(line, lines_[static_cast<size_t>(record.case_ordinal)]);
                                out.lines.emplace_back(line);
                                return Status::Ok();
                              });
    return out;
  }

  TestStore store_;
  cases::WrittenDataset dataset_;
  std::vector<std::string> lines_;
  std::vector<cases::ProjectedCase> projected_;
  std::string prefix_;
  std::vector<std::string> page_keys_;
  int generation_ = 0;
  cases::RunPlanManifest plan_;
  cases::RunConfiguration configuration_;
};

TEST_F(RunReadTest, ShowReadsTheRootConfigurationAndDatasetManifestOnly) {
  cases::ObjectRef root = Build();
  store_.fetches = 0;
  auto overview = ShowRun(root, cases::BudgetConfig::Defaults(), store_.BytesFetch());
  ASSERT_TRUE(overview.ok()) << overview.status().ToString();
  EXPECT_EQ(store_.fetches, 3);
  EXPECT_EQ(overview->plan.ToJson(), plan_.ToJson());
  EXPECT_EQ(overview->configuration.ToJson(), configuration_.ToJson());
  EXPECT_EQ(overview->dataset.ToJson(), dataset_.manifest.ToJson());

  cases::ObjectRef not_a_run = dataset_.manifest_ref;
  auto wrong = ShowRun(not_a_run, cases::BudgetConfig::Defaults(), store_.BytesFetch());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(wrong.status().message(), "the root reference must name a vigilo/run-plan-manifest/v1 object");
}

TEST_F(RunReadTest, VerifyAcceptsAConsistentPlan) {
  cases::ObjectRef root = Build();
  auto summary = Verify(root, false);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->chunk_count, 5);
  EXPECT_EQ(summary->chunk_page_count, 3u);
  EXPECT_EQ(summary->index_page_count, 3u);  // a root over two leaf pages
  EXPECT_EQ(summary->gate_page_count, 1u);
  EXPECT_EQ(summary->shard_count, 2u);
  EXPECT_FALSE(summary->cases_checked);
  // Every run object once, and the dataset's manifest.
  EXPECT_EQ(summary->bytes_fetched, BytesUnder(prefix_) + dataset_.manifest_ref.byte_count);

  auto with_cases = Verify(root, true);
  ASSERT_TRUE(with_cases.ok()) << with_cases.status().ToString();
  EXPECT_TRUE(with_cases->cases_checked);
  EXPECT_EQ(with_cases->chunk_page_count, 3u);
  EXPECT_EQ(with_cases->index_page_count, 3u);
  // ... and the whole dataset, its manifest a second time.
  EXPECT_EQ(with_cases->bytes_fetched,
            BytesUnder(prefix_) + dataset_.manifest_ref.byte_count + BytesUnder("datasets/"));
}

TEST_F(RunReadTest, VerifyCatchesAPageOfOtherRangesBehindTheIndex) {
  PlanOptions o;
  o.pages = DefaultPages();
  o.pages[1] = {{0, 10, 15}, {3, 15, 19}};  // a valid page; the next one starts at 20
  o.shard_pages = DefaultPages();          // the shard records describe the original pages
  cases::ObjectRef root = Build(o);
  for (bool with_cases : {false, true}) {
    SCOPED_TRACE(with_cases);
    auto r = Verify(root, with_cases);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat) << r.status().ToString();
    EXPECT_EQ(r.status().path(), page_keys_[2] + ": $.chunks[0].ordinal_start");
  }
}

TEST_F(RunReadTest, VerifyCatchesAShardHashOverOtherChunks) {
  PlanOptions o;
  o.pages = DefaultPages();
  o.pages[1] = {{3, 10, 15}, {0, 15, 20}};  // same coverage and per-shard counts, the shards swapped
  o.shard_pages = DefaultPages();
  cases::ObjectRef root = Build(o);
  auto r = Verify(root, false);
  EXPECT_EQ(r.status().code(), StatusCode::kIntegrityError) << r.status().ToString();
  EXPECT_EQ(r.status().path(), prefix_ + "plan.json: $.shards[0].planned_chunk_hash");
  // A chunk over chunk_size (5) cases.
  o.pages[1] = {{0, 10, 14}, {3, 14, 20}};
  r = Verify(Build(o), false);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat) << r.status().ToString();
  EXPECT_EQ(r.status().path(), page_keys_[1] + ": $.chunks[1].ordinal_end");
}

TEST_F(RunReadTest, VerifyCatchesAGatePageWithAWrongCount) {
  PlanOptions over;
  over.gate_exact_delta = 1;  // 14 planned cases on a shard of 13
  auto r = Verify(Build(over), false);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat) << r.status().ToString();
  EXPECT_EQ(r.status().path().rfind(prefix_ + "plan.json: $.shards[0].gate_counts: ", 0), 0u) << r.status().ToString();
  EXPECT_NE(r.status().path().find("$.entries[0].planned_count"), std::string::npos) << r.status().ToString();
  PlanOptions wrong_total;
  wrong_total.gate_entry_delta = 1;
  r = Verify(Build(wrong_total), false);
  EXPECT_EQ(r.status().code(), StatusCode::kIntegrityError) << r.status().ToString();
  EXPECT_EQ(r.status().path().rfind(prefix_ + "plan.json: $.shards[0].gate_counts: ", 0), 0u) << r.status().ToString();
}

TEST_F(RunReadTest, VerifyCatchesAConfigurationDisagreeingWithTheDataset) {
  PlanOptions o;
  o.configuration_dataset_hash = std::string(64, 'e');
  auto r = Verify(Build(o), false);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat) << r.status().ToString();
  EXPECT_EQ(r.status().path(), prefix_ + "configuration.json: $.snapshot.dataset_ref.dataset_hash");
}

TEST_F(RunReadTest, OnlyTheCasePassCatchesAProjectionOfOtherCases) {
  PlanOptions o;
  o.projection_override[3] = Projection(0, 5);  // chunk 3 holds [15,20)
  cases::ObjectRef root = Build(o);
  ASSERT_TRUE(Verify(root, false).ok());  // the plan is consistent with itself
  auto r = Verify(root, true);
  EXPECT_EQ(r.status().code(), StatusCode::kIntegrityError) << r.status().ToString();
  EXPECT_EQ(r.status().path(), page_keys_[1] + ": $.chunks[1].case_projection_hash");
  // The worker checks the same hash.
  ChunkRead read = ReadChunk(root, 3);
  EXPECT_EQ(read.result.status().code(), StatusCode::kIntegrityError) << read.result.status().ToString();
  EXPECT_EQ(read.result.status().path(), page_keys_[1] + ": $.chunks[1].case_projection_hash");
  EXPECT_TRUE(ReadChunk(root, 2).result.ok());
}

TEST_F(RunReadTest, AChunkReadYieldsExactlyItsRecordsFromTheBatchesItTouches) {
  cases::ObjectRef root = Build();
  struct Expect {
    int32_t index;
    int32_t start, end;
    int batches;
  };
  // Batches are [0,4) [4,8) [8,12) [12,16) [16,20) [20,23).
  for (Expect e : {Expect{0, 0, 5, 2}, Expect{1, 5, 10, 2}, Expect{2, 10, 15, 2}, Expect{3, 15, 20, 2},
                   Expect{4, 20, 23, 1}}) {
    SCOPED_TRACE(e.index);
    ChunkRead read = ReadChunk(root, e.index);
    ASSERT_TRUE(read.result.ok()) << read.result.status().ToString();
    EXPECT_EQ(read.result->chunk.chunk_index, e.index);
    EXPECT_EQ(read.result->chunk.ordinal_start, e.start);
    EXPECT_EQ(read.result->chunk.ordinal_end, e.end);
    EXPECT_EQ(read.result->chunk.chunk_id, cases::DeriveChunkId(RunId(), e.index));
    EXPECT_EQ(read.result->batches_fetched, static_cast<uint64_t>(e.batches));
    EXPECT_EQ(read.batch_fetches, e.batches);
    EXPECT_GT(read.result->bytes_fetched, dataset_.manifest_ref.byte_count);
    ASSERT_EQ(read.lines.size(), static_cast<size_t>(e.end - e.start));
    for (int32_t i = e.start; i < e.end; ++i) EXPECT_EQ(read.lines[static_cast<size_t>(i - e.start)], lines_[static_cast<size_t>(i)]);
  }
}

TEST_F(RunReadTest, ReadingEveryChunkReproducesEachCaseOnce) {
  cases::ObjectRef root = Build();
  std::vector<std::string> all;
  for (int32_t i = 0; i < 5; ++i) {
    ChunkRead read = ReadChunk(root, i);
    ASSERT_TRUE(read.result.ok()) << read.result.status().ToString();
    all.insert(all.end(), read.lines.begin(), read.lines.end());
  }
  EXPECT_EQ(all, lines_);
}

TEST_F(RunReadTest, ATamperedBatchFailsTheChunksThatTouchIt) {
  cases::ObjectRef root = Build();
  std::string key = "datasets/geo/a/g1/batches/0000000012-0000000016.jsonl";
  ASSERT_TRUE(store_.Has(key));
  std::string bytes = store_.Object(key);
  bytes[bytes.size() - 3] ^= 1;
  store_.memory.Overwrite(key, bytes);
  for (int32_t index : {2, 3}) {
    ChunkRead read = ReadChunk(root, index);
    EXPECT_EQ(read.result.status().code(), StatusCode::kIntegrityError) << read.result.status().ToString();
    EXPECT_EQ(read.result.status().path(), key);
  }
  EXPECT_TRUE(ReadChunk(root, 1).result.ok());
  auto r = Verify(root, true);
  EXPECT_EQ(r.status().code(), StatusCode::kIntegrityError) << r.status().ToString();
  EXPECT_EQ(r.status().path(), key);
}

TEST_F(RunReadTest, AChunkIndexOutsideTheRunIsAnInvalidArgument) {
  cases::ObjectRef root = Build();
  for (int32_t index : {-1, 5}) {
    ChunkRead read = ReadChunk(root, index);
    EXPECT_EQ(read.result.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(read.result.status().message(),
              "chunk index " + std::to_string(index) + " is outside [0, 5) of a run of 5 chunks");
    EXPECT_TRUE(read.lines.empty());
    EXPECT_EQ(read.batch_fetches, 0);
  }
}

// --- locators for runs -------------------------------------------------------------------

TEST_F(RunReadTest, RunLocatorsTakeRunPlanReferencesOnly) {
  cases::ObjectRef root = Build();
  std::string text = *json::ToCanonical(root.ToJson());
  auto located = ParseRootLocator(text, control::Namespace::kRuns);
  ASSERT_TRUE(located.ok()) << located.status().ToString();
  EXPECT_EQ(located->ref, root);
  auto resolved = ResolveRoot(*located, nullptr, control::Namespace::kRuns);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->root, root);

  auto dataset_ref = ParseRootLocator(*json::ToCanonical(dataset_.manifest_ref.ToJson()), control::Namespace::kRuns);
  EXPECT_EQ(dataset_ref.status().ToString(),
            "invalid_argument: <reference>: the reference names a vigilo/dataset-manifest/v1 object, not a "
            "vigilo/run-plan-manifest/v1 root");
  auto run_as_dataset = ParseDatasetLocator(text);
  EXPECT_EQ(run_as_dataset.status().ToString(),
            "invalid_argument: <reference>: the reference names a vigilo/run-plan-manifest/v1 object, not a "
            "vigilo/dataset-manifest/v1 root");
  auto bad_name = ParseRootLocator("a b", control::Namespace::kRuns);
  EXPECT_EQ(bad_name.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad_name.status().message().rfind("\"a b\" is not a run name (", 0), 0u) << bad_name.status().ToString();
  EXPECT_EQ(ParseRootLocator("", control::Namespace::kRuns).status().message(),
            "a run name or reference is required");
  auto no_control = ResolveRoot(*ParseRootLocator("nightly", control::Namespace::kRuns), nullptr,
                                control::Namespace::kRuns);
  EXPECT_EQ(no_control.status().message(), "a run name needs the control store");
}

}  // namespace
}  // namespace vigilo::engine
