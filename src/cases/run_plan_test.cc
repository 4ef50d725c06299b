#include "vigilo/cases/run_plan.h"

#include <gtest/gtest.h>

#include "runs_test_support.h"
#include "vigilo/common/hex.h"

namespace vigilo::cases {
namespace {

using runs_test::Canon;
using runs_test::Chunk;
using runs_test::HashOf;
using runs_test::IsError;
using runs_test::J;
using test::TestStore;
using runs_test::RunId;
using runs_test::With;

RunConfiguration Configuration(int32_t chunk_size = 100) {
  RunConfiguration c;
  RunSnapshot& s = c.snapshot;
  s.profile = J(R"({"agent":"echo@1","name":"smoke"})");
  s.agent = J(R"("echo@1")");
  s.dataset_ref = RunDatasetRef{"geo", std::nullopt, *Uuid::Parse("0b6e4a2c-9d8f-8c1b-8e3a-5f6a7b8c9d0e"),
                                std::string(64, 'd'), 250};
  s.dataset_version_id = s.dataset_ref.dataset_version_id;
  s.profile_version_id = *Uuid::Parse("3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b");
  s.profile_hash = *CanonicalJsonHash(s.profile);
  s.dataset_hash = s.dataset_ref.dataset_hash;
  s.aggregation_policy_hash = std::string(64, 'a');
  s.execution_plan = J(R"({"repeats":1})");
  s.execution_plan_hash = *CanonicalJsonHash(s.execution_plan);
  s.chunk_size = chunk_size;
  s.executability = Executability{250, 250, 1, 1};
  return c;
}

// 250 cases in three chunks: [0,100) on shard 0, [100,200) on shard 5,
// [200,250) on shard 0; pages {0,1} and {2}; shard 0 has two gates.
struct PlanFixture {
  TestStore store;
  RunConfiguration configuration = Configuration();
  std::vector<RunChunkPage> pages;
  RunPlanManifest plan;

  PlanFixture() {
    RunChunkPage a;
    a.run_id = RunId();
    a.chunk_index_start = 0;
    a.chunk_index_end = 2;
    a.chunks = {Chunk(0, 0, 0, 100), Chunk(1, 5, 100, 200, "long-context")};
    RunChunkPage b;
    b.run_id = RunId();
    b.chunk_index_start = 2;
    b.chunk_index_end = 3;
    b.chunks = {Chunk(2, 0, 200, 250)};
    pages = {a, b};
    OrdinalIndexBuilder index(IndexKind::kRunChunks, "runs/r/index/", {}, store.Sink());
    for (const RunChunkPage& p : pages) {
      ObjectRef ref = store.Put("runs/r/chunks/" + std::to_string(p.chunk_index_start) + ".json", StorageFormat::kRunChunks,
                                *p.Encode());
      EXPECT_TRUE(index.Add(IndexEntry{p.chunk_index_start, p.chunk_index_end, ref}).ok());
    }
    plan.run_id = RunId();
    plan.dataset = store.Put("datasets/geo/manifest.json", StorageFormat::kDatasetManifest, "{\"stand-in\":1}");
    plan.configuration = store.Put("runs/r/configuration.json", StorageFormat::kRunConfiguration, *configuration.Encode());
    plan.profile_hash = configuration.snapshot.profile_hash;
    plan.aggregation_policy_hash = configuration.snapshot.aggregation_policy_hash;
    plan.execution_plan_hash = configuration.snapshot.execution_plan_hash;
    plan.chunk_count = 3;
    plan.chunks = *index.Finish();
    PlannedChunkHasher h0(0), h5(5);
    EXPECT_TRUE(h0.Add(a.chunks[0]).ok());
    EXPECT_TRUE(h5.Add(a.chunks[1]).ok());
    EXPECT_TRUE(h0.Add(b.chunks[0]).ok());
    GateCountDescriptor gates = *BuildGateCountChain(0, 150, {{"exact", 150}, {"tag:geo", 20}}, "runs/r/gates/000/", {},
                                                     store.Sink());
    plan.shards = {RunPlanShard{0, 150, 2, h0.FinishHex(), gates},
                   RunPlanShard{5, 100, 1, h5.FinishHex(), GateCountDescriptor{}}};
  }
  json::Value Json() const { return plan.ToJson(); }
};

Status FromJsonStatus(const json::Value& v) { return RunPlanManifest::FromJson(v).status(); }

TEST(RunPlanManifestTest, EncodesCanonicallyAndRoundTrips) {
  PlanFixture fx;
  ASSERT_TRUE(fx.plan.ValidateWithin({}).ok()) << fx.plan.ValidateWithin({}).ToString();
  std::string bytes = *fx.plan.Encode();
  EXPECT_EQ(bytes.rfind("{\"aggregation_policy_hash\":\"aaaa", 0), 0u);
  auto back = RunPlanManifest::Decode(runs_test::Verified(bytes, StorageFormat::kRunPlanManifest));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToJson(), fx.plan.ToJson());
  EXPECT_EQ(*back->Encode(), bytes);
  EXPECT_EQ(back->planned_case_count(), 250);
  EXPECT_EQ(back->FindShard(5)->chunk_count, 1);
  EXPECT_EQ(back->FindShard(4), nullptr);
}

TEST(RunPlanManifestTest, RequiresExactlyTheFieldsAtEveryLevel) {
  PlanFixture fx;
  for (std::string_view f : {"schema", "run_id", "dataset", "profile_hash", "aggregation_policy_hash",
                             "execution_plan_hash", "configuration", "chunk_count", "chunks", "shards"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), f, std::nullopt)), StatusCode::kInvalidFormat, "$." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "progress", J("{}"))), StatusCode::kInvalidFormat, "$.progress"));
  for (std::string_view f : {"run_shard", "case_count", "chunk_count", "planned_chunk_hash", "gate_counts"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[1]." + std::string(f), std::nullopt)),
                        StatusCode::kInvalidFormat, "$.shards[1]." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[1].owner", json::Value("w1"))), StatusCode::kInvalidFormat,
                      "$.shards[1].owner"));
  for (std::string_view f : {"first", "page_count", "entry_count"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[0].gate_counts." + std::string(f), std::nullopt)),
                        StatusCode::kInvalidFormat, "$.shards[0].gate_counts." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[0].gate_counts.pages", J("[]"))), StatusCode::kInvalidFormat,
                      "$.shards[0].gate_counts.pages"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "chunks.kind", json::Value("run-chunks"))), StatusCode::kInvalidFormat,
                      "$.chunks.kind"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "dataset.bucket", json::Value("b"))), StatusCode::kInvalidFormat,
                      "$.dataset.bucket"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards", J("{}"))), StatusCode::kInvalidFormat, "$.shards"));
}

TEST(RunPlanManifestTest, RejectsUnknownAndForeignSchemas) {
  PlanFixture fx;
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "schema", json::Value("vigilo/run-plan-manifest/v2"))),
                      StatusCode::kInvalidFormat, "$.schema"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "schema", json::Value("vigilo/dataset-manifest/v1"))),
                      StatusCode::kInvalidFormat, "$.schema"));
  std::string bytes = *fx.plan.Encode();
  EXPECT_EQ(RunPlanManifest::Decode(runs_test::Verified(bytes + "\n", StorageFormat::kRunPlanManifest)).status().code(),
            StatusCode::kNotCanonical);
  EXPECT_TRUE(IsError(RunPlanManifest::Decode(runs_test::Verified(bytes, StorageFormat::kRunChunks, "m.json")).status(),
                      StatusCode::kInvalidFormat, "m.json"));
}

TEST(RunPlanManifestTest, ReferencesNameTheirFormats) {
  PlanFixture fx;
  json::Value config_ref = fx.plan.configuration.ToJson();
  json::Value dataset_ref = fx.plan.dataset.ToJson();
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "dataset", config_ref)), StatusCode::kInvalidFormat, "$.dataset.schema"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "configuration", dataset_ref)), StatusCode::kInvalidFormat,
                      "$.configuration.schema"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "dataset.digest", json::Value("00"))), StatusCode::kInvalidFormat,
                      "$.dataset.digest"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "configuration.byte_count", json::Value::Int(0))),
                      StatusCode::kOutOfRange, "$.configuration.byte_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "chunks.object", fx.plan.configuration.ToJson())),
                      StatusCode::kInvalidFormat, "$.chunks.object.schema"));
  RunPlanManifest m = fx.plan;
  m.dataset.schema = StorageFormat::kCaseBatch;
  EXPECT_TRUE(IsError(m.Validate(), StatusCode::kInvalidFormat, "$.dataset.schema"));
}

TEST(RunPlanManifestTest, IdsAndHashForms) {
  PlanFixture fx;
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "run_id", json::Value("R"))), StatusCode::kInvalidFormat, "$.run_id"));
  for (std::string_view f : {"profile_hash", "aggregation_policy_hash", "execution_plan_hash"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), f, json::Value(std::string(64, 'F')))), StatusCode::kInvalidFormat,
                        "$." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[0].planned_chunk_hash", json::Value(std::string(62, 'a')))),
                      StatusCode::kInvalidFormat, "$.shards[0].planned_chunk_hash"));
  RunPlanManifest m = fx.plan;
  m.run_id = Uuid();
  EXPECT_TRUE(IsError(m.Validate(), StatusCode::kInvalidFormat, "$.run_id"));
}

TEST(RunPlanManifestTest, ChunkCountAndChunkIndexCoverage) {
  PlanFixture fx;
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "chunk_count", json::Value::Int(0))), StatusCode::kOutOfRange,
                      "$.chunk_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "chunk_count", json::Value::Int(2147483648))), StatusCode::kOutOfRange,
                      "$.chunk_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "chunk_count", json::Value::Int(4))), StatusCode::kInvalidFormat,
                      "$.chunks.range_end"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "chunks.range_start", json::Value::Int(1))), StatusCode::kInvalidFormat,
                      "$.chunks.range_start"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "chunks.level", json::Value::Int(8))), StatusCode::kLimitExceeded,
                      "$.chunks.level"));
  // Shard chunk totals equal the root count.
  json::Value more = With(With(fx.Json(), "chunk_count", json::Value::Int(4)), "chunks.range_end", json::Value::Int(4));
  EXPECT_TRUE(IsError(FromJsonStatus(more), StatusCode::kInvalidFormat, "$.chunk_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[1].chunk_count", json::Value::Int(2))),
                      StatusCode::kInvalidFormat, "$.chunk_count"));
}

TEST(RunPlanManifestTest, ShardsAreAtMost128StrictlyOrdered) {
  PlanFixture fx;
  json::Value swapped = fx.Json();
  std::swap(swapped.as_object().Find("shards")->as_array()[0], swapped.as_object().Find("shards")->as_array()[1]);
  EXPECT_TRUE(IsError(FromJsonStatus(swapped), StatusCode::kInvalidFormat, "$.shards[1].run_shard"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[1].run_shard", json::Value::Int(0))), StatusCode::kInvalidFormat,
                      "$.shards[1].run_shard"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[1].run_shard", json::Value::Int(128))), StatusCode::kOutOfRange,
                      "$.shards[1].run_shard"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards", J("[]"))), StatusCode::kInvalidFormat, "$.shards"));
  json::Value many = fx.Json();
  json::Array& shards = many.as_object().Find("shards")->as_array();
  while (shards.size() < 129) shards.push_back(shards[1]);
  EXPECT_TRUE(IsError(FromJsonStatus(many), StatusCode::kInvalidFormat, "$.shards"));
  RunPlanManifest m = fx.plan;
  m.shards.assign(129, m.shards[1]);
  EXPECT_TRUE(IsError(m.Validate(), StatusCode::kInvalidFormat, "$.shards"));
}

TEST(RunPlanManifestTest, ShardCountsAreInt32BoundedAndConsistent) {
  PlanFixture fx;
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[0].case_count", json::Value::Int(0))), StatusCode::kOutOfRange,
                      "$.shards[0].case_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[0].case_count", json::Value::Int(2147483648))),
                      StatusCode::kOutOfRange, "$.shards[0].case_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[0].chunk_count", json::Value::Int(-1))), StatusCode::kOutOfRange,
                      "$.shards[0].chunk_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[1].case_count", json::Value::Double(100.0))),
                      StatusCode::kInvalidFormat, "$.shards[1].case_count"));
  // Every chunk holds 1..100 cases.
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[1].case_count", json::Value::Int(101))),
                      StatusCode::kInvalidFormat, "$.shards[1].case_count"));
  json::Value few = With(With(fx.Json(), "shards[0].case_count", json::Value::Int(1)), "shards[0].gate_counts",
                         GateCountDescriptor{}.ToJson());
  EXPECT_TRUE(IsError(FromJsonStatus(few), StatusCode::kInvalidFormat, "$.shards[0].chunk_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(fx.Json(), "shards[0].gate_counts.entry_count", json::Value::Int(0))),
                      StatusCode::kInvalidFormat, "$.shards[0].gate_counts.first"));
  // Checked totals.
  RunPlanManifest m = fx.plan;
  m.shards = {RunPlanShard{0, 2147483647, 2147483647, HashOf(1), {}}, RunPlanShard{1, 1, 1, HashOf(2), {}}};
  EXPECT_TRUE(IsError(m.Validate(), StatusCode::kOutOfRange, "$.shards[1].chunk_count"));
  m.shards = {RunPlanShard{0, 2147483647, 21474837, HashOf(1), {}}, RunPlanShard{1, 1, 1, HashOf(2), {}}};
  m.chunk_count = 21474838;
  m.chunks.range_end = 21474838;
  EXPECT_TRUE(IsError(m.Validate(), StatusCode::kOutOfRange, "$.shards[1].case_count"));
  m.shards.pop_back();
  m.chunk_count = 21474837;
  m.chunks.range_end = 21474837;
  EXPECT_TRUE(m.Validate().ok()) << m.Validate().ToString();  // the largest representable plan
  m.shards[0].case_count = 0;
  EXPECT_TRUE(IsError(m.Validate(), StatusCode::kOutOfRange, "$.shards[0].case_count"));
}

TEST(RunPlanManifestTest, RootFitsItsBudgetWith128Shards) {
  PlanFixture fx;
  RunPlanManifest m = fx.plan;
  m.shards.clear();
  ObjectRef gate_page =
      ObjectRef::ForBytes("primary", "runs/" + RunId().ToString() + "/attempts/" + RunId().ToString() + "/g1/gates/127/000000.json",
                          StorageFormat::kGateCounts, "x", std::string(64, 'r'));
  for (int32_t s = 0; s < 128; ++s) {
    m.shards.push_back(RunPlanShard{s, 2147483647 / 128, 2147483647 / 128 / 100 + 1, HashOf(s),
                                    GateCountDescriptor{gate_page, 2147483647 / 128, 2147483647 / 128}});
  }
  m.chunk_count = 128 * (2147483647 / 128 / 100 + 1);
  m.chunks.range_end = m.chunk_count;
  ASSERT_TRUE(m.ValidateWithin({}).ok()) << m.ValidateWithin({}).ToString();
  std::string bytes = *m.Encode();
  EXPECT_LT(bytes.size(), 256u << 10);
  RunPlanLimits limits;
  limits.max_root_bytes = bytes.size() - 1;
  EXPECT_TRUE(IsError(m.ValidateWithin(limits), StatusCode::kLimitExceeded, "$"));
  EXPECT_TRUE(IsError(RunPlanManifest::Decode(runs_test::Verified(bytes, StorageFormat::kRunPlanManifest, "m.json"), limits)
                          .status(),
                      StatusCode::kLimitExceeded, "m.json"));
  limits.max_root_bytes = bytes.size();
  EXPECT_TRUE(RunPlanManifest::Decode(runs_test::Verified(bytes, StorageFormat::kRunPlanManifest), limits).ok());
  std::string bad = Canon(With(m.ToJson(), "shards[127].case_count", json::Value::Int(0)));
  EXPECT_TRUE(IsError(RunPlanManifest::Decode(runs_test::Verified(bad, StorageFormat::kRunPlanManifest, "m.json")).status(),
                      StatusCode::kOutOfRange, "m.json: $.shards[127].case_count"));
}

TEST(PlannedChunkHasherTest, PinsTheEncoding) {
  RunChunk c = Chunk(2, 5, 200, 250, "g");
  PlannedChunkHasher h(5);
  ASSERT_TRUE(h.Add(c).ok());
  Blake3Hasher expect = Blake3Hasher::DeriveKey("vigilo 2026-12-02 planned chunks v1");
  auto le = [&](uint32_t v) {
    const uint8_t b[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
                          static_cast<uint8_t>(v >> 24)};
    expect.Update(std::span<const uint8_t>(b, 4));
  };
  le(5);
  le(2);
  expect.Update(std::span<const uint8_t>(c.chunk_id.bytes()));
  le(200);
  le(250);
  le(1);
  expect.Update("g");
  expect.Update(std::span<const uint8_t>(*HexDecodeLower(c.case_projection_hash)));
  le(1);
  EXPECT_EQ(h.FinishHex(), HexEncode(expect.Finalize()));
  EXPECT_EQ(h.chunk_count(), 1);
  EXPECT_EQ(h.case_count(), 50);
  EXPECT_NE(h.FinishHex(), PlannedChunkHasher(5).FinishHex());
  PlannedChunkHasher other_group(5);
  ASSERT_TRUE(other_group.Add(Chunk(2, 5, 200, 250, "h")).ok());
  EXPECT_NE(other_group.FinishHex(), h.FinishHex());
}

TEST(PlannedChunkHasherTest, RejectsForeignShardsAndDisorder) {
  PlannedChunkHasher h(5);
  EXPECT_EQ(h.Add(Chunk(0, 4, 0, 10)).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(h.Add(Chunk(3, 5, 0, 10)).ok());
  EXPECT_EQ(h.Add(Chunk(3, 5, 10, 20)).code(), StatusCode::kInvalidArgument);
  RunChunk bad = Chunk(4, 5, 0, 10);
  bad.case_projection_hash = "zz";
  EXPECT_EQ(h.Add(bad).code(), StatusCode::kInvalidArgument);
}

TEST(RunPlanChunkCheckerTest, VerifiesExactCoverageAndShardHashes) {
  PlanFixture fx;
  RunPlanChunkChecker ok(fx.plan, 100);
  for (const RunChunkPage& p : fx.pages) ASSERT_TRUE(ok.AddPage(p).ok());
  EXPECT_TRUE(ok.Finish().ok());
  // The pages round-trip through the index: every leaf is a verified chunk page.
  for (int32_t chunk : {0, 1, 2}) {
    auto leaf = LookupOrdinal(fx.plan.chunks, IndexKind::kRunChunks, chunk, {}, fx.store.Fetch());
    ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
    auto page = RunChunkPage::Decode(*fx.store.Fetch()(leaf->object));
    ASSERT_TRUE(page.ok());
    EXPECT_TRUE(*page == fx.pages[chunk < 2 ? 0 : 1]);
  }
}

TEST(RunPlanChunkCheckerTest, RejectsEveryCoverageAndHashMismatch) {
  PlanFixture fx;
  auto run = [&](const RunPlanManifest& plan, std::vector<RunChunkPage> pages, int32_t chunk_size = 100) {
    RunPlanChunkChecker c(plan, chunk_size);
    for (const RunChunkPage& p : pages) VIGILO_RETURN_IF_ERROR(c.AddPage(p));
    return c.Finish();
  };
  RunPlanManifest tampered = fx.plan;
  tampered.shards[0].planned_chunk_hash = HashOf(9);
  EXPECT_TRUE(IsError(run(tampered, fx.pages), StatusCode::kIntegrityError, "$.shards[0].planned_chunk_hash"));
  EXPECT_TRUE(IsError(run(fx.plan, {fx.pages[0]}), StatusCode::kInvalidFormat, "$.chunk_count"));
  EXPECT_TRUE(IsError(run(fx.plan, {fx.pages[1], fx.pages[0]}), StatusCode::kInvalidFormat, "$.chunk_index_start"));
  EXPECT_TRUE(IsError(run(fx.plan, fx.pages, 99), StatusCode::kInvalidFormat, "$.chunks[0].ordinal_end"));
  std::vector<RunChunkPage> gap = fx.pages;
  gap[1].chunks[0].ordinal_start = 201;
  EXPECT_TRUE(IsError(run(fx.plan, gap), StatusCode::kInvalidFormat, "$.chunks[0].ordinal_start"));
  std::vector<RunChunkPage> unlisted = fx.pages;
  unlisted[0].chunks[1].run_shard = 7;
  EXPECT_TRUE(IsError(run(fx.plan, unlisted), StatusCode::kInvalidFormat, "$.chunks[1].run_shard"));
  std::vector<RunChunkPage> other_run = fx.pages;
  Uuid other = *Uuid::Parse("00000000-0000-4000-8000-0000000000aa");
  other_run[0].run_id = other;
  for (RunChunk& c : other_run[0].chunks) c.chunk_id = DeriveChunkId(other, c.chunk_index);
  EXPECT_TRUE(IsError(run(fx.plan, other_run), StatusCode::kInvalidFormat, "$.run_id"));
  RunPlanManifest moved = fx.plan;
  moved.shards[0].chunk_count = 1;
  moved.shards[1].chunk_count = 2;
  EXPECT_TRUE(IsError(run(moved, fx.pages), StatusCode::kInvalidFormat, "$.shards[0].chunk_count"));
  RunPlanManifest recounted = fx.plan;
  recounted.shards[0].case_count = 149;
  recounted.shards[1].case_count = 101;
  EXPECT_TRUE(IsError(run(recounted, fx.pages), StatusCode::kInvalidFormat, "$.shards[0].case_count"));
  RunPlanManifest fewer = fx.plan;
  fewer.shards[0].case_count = 149;
  EXPECT_TRUE(IsError(run(fewer, fx.pages), StatusCode::kInvalidFormat, "$.shards"));
  // A page past the declared chunk count.
  RunPlanManifest short_plan = fx.plan;
  short_plan.chunk_count = 1;
  EXPECT_TRUE(IsError(run(short_plan, fx.pages), StatusCode::kInvalidFormat, "$.chunk_index_end"));
}

TEST(RunPlanAgreementTest, ConfigurationAgreesWithTheRoot) {
  PlanFixture fx;
  EXPECT_TRUE(CheckConfigurationAgreement(fx.plan, fx.configuration).ok());
  for (std::string field : {"profile_hash", "aggregation_policy_hash", "execution_plan_hash"}) {
    RunPlanManifest m = fx.plan;
    (field == "profile_hash" ? m.profile_hash : field == "aggregation_policy_hash" ? m.aggregation_policy_hash
                                                                                    : m.execution_plan_hash) = HashOf(3);
    EXPECT_TRUE(IsError(CheckConfigurationAgreement(m, fx.configuration), StatusCode::kInvalidFormat, "$." + field));
  }
  RunConfiguration bigger = Configuration();
  bigger.snapshot.dataset_ref.case_count = 251;
  EXPECT_TRUE(IsError(CheckConfigurationAgreement(fx.plan, bigger), StatusCode::kInvalidFormat, "$.shards"));
  EXPECT_TRUE(IsError(CheckConfigurationAgreement(fx.plan, Configuration(50)), StatusCode::kInvalidFormat,
                      "$.shards[0].case_count"));
}

TEST(RunPlanAgreementTest, SnapshotDatasetIsTheDatasetManifest) {
  RunConfiguration c = Configuration();
  DatasetManifest d;
  d.dataset_id = "geo";
  d.dataset_version = std::nullopt;
  d.dataset_version_id = c.snapshot.dataset_version_id;
  d.dataset_hash = c.snapshot.dataset_hash;
  d.case_count = 250;
  EXPECT_TRUE(CheckDatasetAgreement(c, d).ok());
  const std::string p = "$.snapshot.dataset_ref.";
  DatasetManifest x = d;
  x.dataset_id = "geo2";
  EXPECT_TRUE(IsError(CheckDatasetAgreement(c, x), StatusCode::kInvalidFormat, p + "dataset_id"));
  x = d;
  x.dataset_version = "v1";
  EXPECT_TRUE(IsError(CheckDatasetAgreement(c, x), StatusCode::kInvalidFormat, p + "dataset_version"));
  x = d;
  x.dataset_version_id = *Uuid::Parse("00000000-0000-4000-8000-0000000000bb");
  EXPECT_TRUE(IsError(CheckDatasetAgreement(c, x), StatusCode::kInvalidFormat, p + "dataset_version_id"));
  x = d;
  x.dataset_hash = std::string(64, 'e');
  EXPECT_TRUE(IsError(CheckDatasetAgreement(c, x), StatusCode::kInvalidFormat, p + "dataset_hash"));
  x = d;
  x.case_count = 249;
  EXPECT_TRUE(IsError(CheckDatasetAgreement(c, x), StatusCode::kInvalidFormat, p + "case_count"));
}

TEST(RunPlanAgreementTest, GateChainsOfEveryShard) {
  PlanFixture fx;
  GateCountChainValidator validator({}, fx.store.Fetch());
  EXPECT_TRUE(ValidateGateCountChains(fx.plan, validator).ok());
  RunPlanManifest m = fx.plan;
  m.shards[0].gate_counts.entry_count = 3;
  Status s = ValidateGateCountChains(m, validator);
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError);
  EXPECT_EQ(s.path().rfind("$.shards[0].gate_counts: ", 0), 0u) << s.ToString();
  m = fx.plan;
  m.shards[0].case_count = 149;  // "exact" plans 150
  s = ValidateGateCountChains(m, validator);
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat);
  EXPECT_NE(s.path().find("$.entries[0].planned_count"), std::string_view::npos) << s.ToString();
}

}  // namespace
}  // namespace vigilo::cases
