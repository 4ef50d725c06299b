#include "vigilo/cases/run_chunks.h"

#include <gtest/gtest.h>

#include "runs_test_support.h"
#include "vigilo/cases/identity.h"
#include "vigilo/common/hex.h"

namespace vigilo::cases {
namespace {

using runs_test::Canon;
using runs_test::Chunk;
using runs_test::IsError;
using runs_test::J;
using runs_test::Page;
using runs_test::RunId;
using runs_test::With;

Status FromJsonStatus(const json::Value& v) { return RunChunkPage::FromJson(v).status(); }
json::Value PageJson() { return Page(5, 3, 200).ToJson(); }

TEST(RunChunkPageTest, EncodesCanonicallyAndRoundTrips) {
  RunChunkPage page = Page(5, 3, 200);
  std::string bytes = *page.Encode();
  EXPECT_EQ(bytes.rfind("{\"chunk_index_end\":8,\"chunk_index_start\":5,\"chunks\":[{\"case_", 0), 0u);
  EXPECT_NE(bytes.find("\"run_id\":\"6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f\",\"schema\":\"vigilo/run-chunks/v1\"}"),
            std::string::npos);
  auto back = RunChunkPage::Decode(runs_test::Verified(bytes, StorageFormat::kRunChunks));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == page);
  EXPECT_EQ(*back->Encode(), bytes);
}

TEST(RunChunkPageTest, ChunkIdsAreDerivedUuidV8) {
  Uuid a = DeriveChunkId(RunId(), 0);
  EXPECT_EQ(a, DeriveChunkId(RunId(), 0));
  EXPECT_NE(a, DeriveChunkId(RunId(), 1));
  EXPECT_NE(a, DeriveChunkId(*Uuid::Parse("00000000-0000-4000-8000-000000000001"), 0));
  EXPECT_EQ(a.version(), 8);
  EXPECT_TRUE(a.is_rfc_variant());
  // Pinned so the derivation cannot drift silently.
  Blake3Hasher h = Blake3Hasher::DeriveKey("vigilo 2026-12-02 run chunk id v1");
  h.Update(std::span<const uint8_t>(RunId().bytes()));
  const uint8_t seven[4] = {7, 0, 0, 0};
  h.Update(std::span<const uint8_t>(seven, 4));
  EXPECT_EQ(DeriveChunkId(RunId(), 7), Uuid::V8FromHash(h.Finalize()));
}

TEST(RunChunkPageTest, RequiresExactlyTheRootFields) {
  for (std::string_view f : {"schema", "run_id", "chunk_index_start", "chunk_index_end", "chunks"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), f, std::nullopt)), StatusCode::kInvalidFormat, "$." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "shard", json::Value::Int(1))), StatusCode::kInvalidFormat, "$.shard"));
  EXPECT_TRUE(IsError(FromJsonStatus(J("[]")), StatusCode::kInvalidFormat, "$"));
}

TEST(RunChunkPageTest, RequiresExactlyTheChunkFields) {
  for (std::string_view f : {"chunk_index", "chunk_id", "run_shard", "ordinal_start", "ordinal_end", "profile_group_id",
                             "case_projection_hash"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[1]." + std::string(f), std::nullopt)),
                        StatusCode::kInvalidFormat, "$.chunks[1]." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[2].cases", J("[]"))), StatusCode::kInvalidFormat,
                      "$.chunks[2].cases"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[0]", J("7"))), StatusCode::kInvalidFormat, "$.chunks[0]"));
}

TEST(RunChunkPageTest, RejectsUnknownAndForeignSchemas) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "schema", json::Value("vigilo/run-chunks/v2"))),
                      StatusCode::kInvalidFormat, "$.schema"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "schema", json::Value("vigilo/gate-counts/v1"))),
                      StatusCode::kInvalidFormat, "$.schema"));
  // The reference must name the same format as the bytes.
  std::string bytes = *Page(0, 1).Encode();
  Status s = RunChunkPage::Decode(runs_test::Verified(bytes, StorageFormat::kGateCounts, "k.json")).status();
  EXPECT_TRUE(IsError(s, StatusCode::kInvalidFormat, "k.json"));
}

TEST(RunChunkPageTest, RejectsNonCanonicalDuplicateAndOversizedBytes) {
  std::string bytes = *Page(0, 2).Encode();
  EXPECT_EQ(RunChunkPage::Decode(runs_test::Verified(bytes + "\n", StorageFormat::kRunChunks)).status().code(),
            StatusCode::kNotCanonical);
  std::string spaced = " " + bytes;
  EXPECT_EQ(RunChunkPage::Decode(runs_test::Verified(spaced, StorageFormat::kRunChunks)).status().code(),
            StatusCode::kNotCanonical);
  std::string dup = "{\"chunk_index_end\":1,\"chunk_index_end\":1}";
  EXPECT_EQ(RunChunkPage::Decode(runs_test::Verified(dup, StorageFormat::kRunChunks)).status().code(),
            StatusCode::kParseError);
  std::string bad_utf8 = bytes;
  bad_utf8.replace(bad_utf8.find("default"), 1, "\xff");
  EXPECT_EQ(RunChunkPage::Decode(runs_test::Verified(bad_utf8, StorageFormat::kRunChunks)).status().code(),
            StatusCode::kParseError);
  RunPlanLimits small;
  small.max_page_bytes = bytes.size() - 1;
  EXPECT_TRUE(IsError(RunChunkPage::Decode(runs_test::Verified(bytes, StorageFormat::kRunChunks, "p.json"), small).status(),
                      StatusCode::kLimitExceeded, "p.json"));
  small = {};
  small.max_page_entries = 1;
  EXPECT_TRUE(IsError(RunChunkPage::Decode(runs_test::Verified(bytes, StorageFormat::kRunChunks, "p.json"), small).status(),
                      StatusCode::kLimitExceeded, "p.json: $.chunks"));
  small.max_page_entries = 2;
  EXPECT_TRUE(RunChunkPage::Decode(runs_test::Verified(bytes, StorageFormat::kRunChunks), small).ok());
}

TEST(RunChunkPageTest, RejectsBadRunAndChunkIds) {
  for (std::string_view id : {"6F1C2D3E-4B5A-4C7D-8E9F-0A1B2C3D4E5F", "00000000-0000-0000-0000-000000000000", "run-1"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "run_id", json::Value(id))), StatusCode::kInvalidFormat, "$.run_id"));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[0].chunk_id", json::Value("x"))), StatusCode::kInvalidFormat,
                      "$.chunks[0].chunk_id"));
  // A well-formed UUID that is not the derived one.
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[1].chunk_id", json::Value(DeriveChunkId(RunId(), 0).ToString()))),
                      StatusCode::kInvalidFormat, "$.chunks[1].chunk_id"));
  RunChunkPage nil = Page(0, 1);
  nil.run_id = Uuid();
  EXPECT_TRUE(IsError(nil.Validate(), StatusCode::kInvalidFormat, "$.run_id"));
}

TEST(RunChunkPageTest, ChunkIndexesAreConsecutiveCoveringTheRange) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunk_index_start", json::Value::Int(-1))), StatusCode::kOutOfRange,
                      "$.chunk_index_start"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunk_index_end", json::Value::Int(2147483648))),
                      StatusCode::kOutOfRange, "$.chunk_index_end"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunk_index_start", json::Value::Double(5.0))),
                      StatusCode::kInvalidFormat, "$.chunk_index_start"));
  // Declared range and chunk count disagree.
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunk_index_end", json::Value::Int(9))), StatusCode::kInvalidFormat,
                      "$.chunks"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[2]", std::nullopt)), StatusCode::kInvalidFormat, "$.chunks"));
  // An empty page.
  json::Value empty = With(With(PageJson(), "chunks", J("[]")), "chunk_index_end", json::Value::Int(5));
  EXPECT_TRUE(IsError(FromJsonStatus(empty), StatusCode::kInvalidFormat, "$.chunk_index_end"));
  // Out of order or skipped indexes.
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[1].chunk_index", json::Value::Int(7))),
                      StatusCode::kInvalidFormat, "$.chunks[1].chunk_index"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[0].chunk_index", json::Value::Int(4))),
                      StatusCode::kInvalidFormat, "$.chunks[0].chunk_index"));
  RunChunkPage negative = Page(0, 1);
  negative.chunk_index_start = -1;
  EXPECT_TRUE(IsError(negative.Validate(), StatusCode::kOutOfRange, "$.chunk_index_start"));
}

TEST(RunChunkPageTest, CaseRangesAreAdjacentPositiveAndAtMost100) {
  // Page(5, 3, 200): [200,210) [210,220) [220,230).
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[1].ordinal_start", json::Value::Int(211))),
                      StatusCode::kInvalidFormat, "$.chunks[1].ordinal_start"));  // gap
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[1].ordinal_start", json::Value::Int(209))),
                      StatusCode::kInvalidFormat, "$.chunks[1].ordinal_start"));  // overlap
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[2].ordinal_end", json::Value::Int(220))),
                      StatusCode::kInvalidFormat, "$.chunks[2].ordinal_end"));  // empty chunk
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[2].ordinal_end", json::Value::Int(321))),
                      StatusCode::kInvalidFormat, "$.chunks[2].ordinal_end"));  // 101 cases
  EXPECT_TRUE(FromJsonStatus(With(PageJson(), "chunks[2].ordinal_end", json::Value::Int(320))).ok());  // 100 cases
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[2].ordinal_end", json::Value::Int(2147483648))),
                      StatusCode::kOutOfRange, "$.chunks[2].ordinal_end"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[0].ordinal_start", json::Value::Int(-1))),
                      StatusCode::kOutOfRange, "$.chunks[0].ordinal_start"));
  // The last representable case: [2^31 - 2, 2^31 - 1).
  RunChunkPage top;
  top.run_id = RunId();
  top.chunk_index_start = 2147483646;
  top.chunk_index_end = 2147483647;
  top.chunks = {Chunk(2147483646, 0, 2147483646, 2147483647)};
  ASSERT_TRUE(top.Validate().ok()) << top.Validate().ToString();
  EXPECT_TRUE(RunChunkPage::FromJson(top.ToJson()).ok());
  RunChunkPage negative = Page(0, 1);
  negative.chunks[0].ordinal_start = -5;
  EXPECT_TRUE(IsError(negative.Validate(), StatusCode::kOutOfRange, "$.chunks[0].ordinal_start"));
}

TEST(RunChunkPageTest, RunShardsAre0To127) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[0].run_shard", json::Value::Int(128))),
                      StatusCode::kOutOfRange, "$.chunks[0].run_shard"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[0].run_shard", json::Value::Int(-1))),
                      StatusCode::kOutOfRange, "$.chunks[0].run_shard"));
  EXPECT_TRUE(FromJsonStatus(With(PageJson(), "chunks[0].run_shard", json::Value::Int(127))).ok());
  RunChunkPage page = Page(0, 1);
  page.chunks[0].run_shard = 128;
  EXPECT_TRUE(IsError(page.Validate(), StatusCode::kOutOfRange, "$.chunks[0].run_shard"));
}

TEST(RunChunkPageTest, ProfileGroupIdsAreNonemptyAndAtMost1024Utf8Bytes) {
  auto with_group = [](std::string group) {
    return FromJsonStatus(With(PageJson(), "chunks[1].profile_group_id", json::Value(std::move(group))));
  };
  EXPECT_TRUE(IsError(with_group(""), StatusCode::kInvalidFormat, "$.chunks[1].profile_group_id"));
  EXPECT_TRUE(IsError(with_group(std::string(1025, 'g')), StatusCode::kInvalidFormat, "$.chunks[1].profile_group_id"));
  EXPECT_TRUE(with_group(std::string(1024, 'g')).ok());
  std::string e_acute;
  for (int i = 0; i < 512; ++i) e_acute += "\xc3\xa9";  // 512 characters, 1,024 bytes
  EXPECT_TRUE(with_group(e_acute).ok());
  EXPECT_TRUE(IsError(with_group(e_acute + "x"), StatusCode::kInvalidFormat, "$.chunks[1].profile_group_id"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[1].profile_group_id", json::Value::Int(3))),
                      StatusCode::kInvalidFormat, "$.chunks[1].profile_group_id"));
  RunChunkPage page = Page(0, 1);
  page.chunks[0].profile_group_id = "\xff";
  EXPECT_TRUE(IsError(page.Validate(), StatusCode::kInvalidFormat, "$.chunks[0].profile_group_id"));
}

TEST(RunChunkPageTest, CaseProjectionHashIs64LowercaseHex) {
  for (std::string h : {std::string(64, 'A'), std::string(63, 'a'), std::string(65, 'a'), std::string(64, 'g')}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(PageJson(), "chunks[0].case_projection_hash", json::Value(h))),
                        StatusCode::kInvalidFormat, "$.chunks[0].case_projection_hash"));
  }
}

TEST(RunChunkPageTest, ValidateWithinAppliesTheEntryLimit) {
  RunChunkPage page = Page(0, 257, 0, 1);
  EXPECT_TRUE(page.Validate().ok());
  EXPECT_TRUE(IsError(page.ValidateWithin({}), StatusCode::kLimitExceeded, "$.chunks"));
  page = Page(0, 256, 0, 1);
  EXPECT_TRUE(page.ValidateWithin({}).ok());
}

std::vector<ProjectedCase> Cases(int32_t start, int32_t n) {
  std::vector<ProjectedCase> out;
  for (int32_t i = 0; i < n; ++i) {
    ProjectedCase c;
    c.case_ordinal = start + i;
    Uuid::Bytes b{};
    b[15] = static_cast<uint8_t>(i + 1);
    b[6] = 0x40;
    b[8] = 0x80;
    c.id = Uuid(b);
    c.case_hash.fill(static_cast<uint8_t>(i));
    out.push_back(c);
  }
  return out;
}

TEST(CaseProjectionTest, UsesTheUpdateProjectionHashEncoding) {
  std::vector<ProjectedCase> cases = Cases(40, 3);
  ProjectionHasher h;
  for (const ProjectedCase& c : cases) h.Update(c.case_ordinal, c.id, c.case_hash);
  auto hex = ComputeCaseProjectionHash(cases);
  ASSERT_TRUE(hex.ok());
  EXPECT_EQ(*hex, HexEncode(h.Finish()));
  EXPECT_NE(*hex, *ComputeCaseProjectionHash(Cases(41, 3)));
}

TEST(CaseProjectionTest, RejectsEmptyOversizedAndUnorderedInput) {
  EXPECT_EQ(ComputeCaseProjectionHash({}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ComputeCaseProjectionHash(Cases(0, 100)).ok());
  EXPECT_EQ(ComputeCaseProjectionHash(Cases(0, 101)).status().code(), StatusCode::kInvalidArgument);
  std::vector<ProjectedCase> swapped = Cases(0, 3);
  std::swap(swapped[0], swapped[1]);
  EXPECT_EQ(ComputeCaseProjectionHash(swapped).status().code(), StatusCode::kInvalidArgument);
  std::vector<ProjectedCase> negative = Cases(-1, 2);
  EXPECT_EQ(ComputeCaseProjectionHash(negative).status().code(), StatusCode::kInvalidArgument);
}

TEST(CaseProjectionTest, CheckCaseProjectionMatchesTheChunk) {
  std::vector<ProjectedCase> cases = Cases(10, 5);
  RunChunk chunk = Chunk(0, 0, 10, 15);
  chunk.case_projection_hash = *ComputeCaseProjectionHash(cases);
  EXPECT_TRUE(CheckCaseProjection(chunk, cases).ok());
  EXPECT_TRUE(IsError(CheckCaseProjection(chunk, Cases(10, 4)), StatusCode::kInvalidFormat, ".ordinal_end"));
  EXPECT_TRUE(IsError(CheckCaseProjection(chunk, Cases(11, 5)), StatusCode::kInvalidFormat, ".ordinal_start"));
  std::vector<ProjectedCase> changed = cases;
  changed[2].case_hash[0] ^= 1;
  EXPECT_TRUE(IsError(CheckCaseProjection(chunk, changed), StatusCode::kIntegrityError, ".case_projection_hash"));
}

TEST(RunPlanLimitsTest, DefaultsAndCeilings) {
  RunPlanLimits limits;
  EXPECT_TRUE(limits.Validate().ok());
  RunPlanLimits from = RunPlanLimits::From(BudgetConfig::Defaults());
  EXPECT_EQ(from.max_page_entries, 256u);
  EXPECT_EQ(from.max_page_bytes, 1u << 20);
  EXPECT_EQ(from.max_root_bytes, 256u << 10);
  EXPECT_EQ(from.max_configuration_bytes, 8u << 20);
  limits.max_page_entries = 0;
  EXPECT_TRUE(IsError(limits.Validate(), StatusCode::kInvalidArgument, "max_page_entries"));
  limits = {};
  limits.max_page_entries = 4097;
  EXPECT_TRUE(IsError(limits.Validate(), StatusCode::kInvalidArgument, "max_page_entries"));
  limits = {};
  limits.max_page_bytes = 255;
  EXPECT_TRUE(IsError(limits.Validate(), StatusCode::kInvalidArgument, "max_page_bytes"));
  limits = {};
  limits.max_root_bytes = (1u << 20) + 1;
  EXPECT_TRUE(IsError(limits.Validate(), StatusCode::kInvalidArgument, "max_root_bytes"));
  limits = {};
  limits.max_configuration_bytes = (64u << 20) + 1;
  EXPECT_TRUE(IsError(limits.Validate(), StatusCode::kInvalidArgument, "max_configuration_bytes"));
}

}  // namespace
}  // namespace vigilo::cases
