#include "vigilo/cases/run_chunks.h"

#include "vigilo/cases/fields.h"
#include "vigilo/cases/identity.h"
#include "vigilo/common/checked.h"
#include "vigilo/common/hex.h"
#include "vigilo/common/utf8.h"
#include "vigilo/hash/blake3.h"

namespace vigilo::cases {
namespace {

constexpr std::string_view kChunkIdContext = "vigilo 2026-12-02 run chunk id v1";

std::string Index(std::string_view field, size_t i) { return "$." + std::string(field) + "[" + std::to_string(i) + "]"; }

Status CheckSetting(uint64_t value, uint64_t min, uint64_t max, std::string_view name) {
  if (value >= min && value <= max) return Status::Ok();
  return InvalidArgument(std::string(name) + " must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                         "], got " + std::to_string(value))
      .WithPath(std::string(name));
}

Result<Uuid> UuidField(const Fields& f, std::string_view name) {
  VIGILO_ASSIGN_OR_RETURN(std::string text, f.String(name));
  auto uuid = Uuid::Parse(text);
  if (!uuid.ok()) return uuid.status().WithPath(f.PathOf(name));
  return *uuid;
}

// Rules of one chunk, paths relative to the chunk ("." + field).
Status ValidateChunk(const RunChunk& c, const Uuid& run_id) {
  if (c.chunk_id != DeriveChunkId(run_id, c.chunk_index)) {
    return InvalidFormat("chunk_id must be the ID derived from run_id and chunk_index (" +
                         DeriveChunkId(run_id, c.chunk_index).ToString() + ")")
        .WithPath(".chunk_id");
  }
  if (Status s = ValidateRunShard(c.run_shard); !s.ok()) return s.WithPath(".run_shard");
  if (c.ordinal_start < 0) return OutOfRange("ordinal_start must be non-negative").WithPath(".ordinal_start");
  if (c.ordinal_end <= c.ordinal_start) {
    return InvalidFormat("ordinal_end must be greater than ordinal_start: a chunk has at least one case")
        .WithPath(".ordinal_end");
  }
  VIGILO_ASSIGN_OR_RETURN(int32_t count, CheckedSub<int32_t>(c.ordinal_end, c.ordinal_start));
  if (count > kMaxChunkCases) {
    return InvalidFormat("a chunk holds at most 100 cases; [" + std::to_string(c.ordinal_start) + ", " +
                         std::to_string(c.ordinal_end) + ") holds " + std::to_string(count))
        .WithPath(".ordinal_end");
  }
  if (Status s = ValidateRunIdentifier(c.profile_group_id, "profile_group_id"); !s.ok()) {
    return s.WithPath(".profile_group_id");
  }
  if (Status s = ValidateHashHex(c.case_projection_hash, "case_projection_hash"); !s.ok()) {
    return s.WithPath(".case_projection_hash");
  }
  return Status::Ok();
}

}  // namespace

RunPlanLimits RunPlanLimits::From(const BudgetConfig& budget) {
  return RunPlanLimits{budget.page_max_entries, budget.page_max_bytes, budget.root_manifest_max_bytes,
                       budget.run_configuration_max_bytes};
}

Status RunPlanLimits::Validate() const {
  using namespace budget_bounds;
  VIGILO_RETURN_IF_ERROR(CheckSetting(max_page_entries, kMinPageEntries, kMaxPageEntries, "max_page_entries"));
  VIGILO_RETURN_IF_ERROR(CheckSetting(max_page_bytes, kMinPageBytes, kMaxPageBytes, "max_page_bytes"));
  VIGILO_RETURN_IF_ERROR(CheckSetting(max_root_bytes, kMinRootBytes, kMaxRootBytes, "max_root_bytes"));
  return CheckSetting(max_configuration_bytes, kMinSourceOrConfigurationBytes, kMaxSourceOrConfigurationBytes,
                      "max_configuration_bytes");
}

Status ValidateRunShard(int64_t run_shard) {
  if (run_shard >= 0 && run_shard < kRunShardCount) return Status::Ok();
  return OutOfRange("run_shard must be in [0, 127], got " + std::to_string(run_shard));
}

Status ValidateRunIdentifier(std::string_view id, std::string_view what) {
  if (id.empty()) return InvalidFormat(std::string(what) + " must be nonempty");
  if (id.size() > kMaxRunIdentifierBytes) {
    return InvalidFormat(std::string(what) + " is " + std::to_string(id.size()) +
                         " bytes; the limit is 1024 UTF-8 bytes");
  }
  if (!IsValidUtf8(id)) return InvalidFormat(std::string(what) + " is not valid UTF-8");
  return Status::Ok();
}

Status ValidateHashHex(std::string_view hex, std::string_view what) {
  if (IsLowerHex(hex, 64)) return Status::Ok();
  return InvalidFormat(std::string(what) + " must be 64 lowercase hex characters");
}

Uuid DeriveChunkId(const Uuid& run_id, int32_t chunk_index) {
  Blake3Hasher h = Blake3Hasher::DeriveKey(kChunkIdContext);
  h.Update(std::span<const uint8_t>(run_id.bytes()));
  uint32_t index = static_cast<uint32_t>(chunk_index);
  uint8_t le[4] = {static_cast<uint8_t>(index), static_cast<uint8_t>(index >> 8), static_cast<uint8_t>(index >> 16),
                   static_cast<uint8_t>(index >> 24)};
  h.Update(std::span<const uint8_t>(le, 4));
  return Uuid::V8FromHash(h.Finalize());
}

Result<RunChunk> RunChunk::FromJson(const json::Value& value, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"case_projection_hash", "chunk_id", "chunk_index", "ordinal_end",
                                          "ordinal_start", "profile_group_id", "run_shard"}));
  RunChunk c;
  VIGILO_ASSIGN_OR_RETURN(int64_t index, f.Int("chunk_index", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(c.chunk_id, UuidField(f, "chunk_id"));
  VIGILO_ASSIGN_OR_RETURN(int64_t shard, f.Int("run_shard", 0, kRunShardCount - 1));
  VIGILO_ASSIGN_OR_RETURN(int64_t start, f.Int("ordinal_start", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t end, f.Int("ordinal_end", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(c.profile_group_id, f.String("profile_group_id"));
  VIGILO_ASSIGN_OR_RETURN(c.case_projection_hash, f.String("case_projection_hash"));
  c.chunk_index = static_cast<int32_t>(index);
  c.run_shard = static_cast<int32_t>(shard);
  c.ordinal_start = static_cast<int32_t>(start);
  c.ordinal_end = static_cast<int32_t>(end);
  return c;
}

json::Value RunChunk::ToJson() const {
  json::Object o;
  o.Set("case_projection_hash", json::Value(case_projection_hash));
  o.Set("chunk_id", json::Value(chunk_id.ToString()));
  o.Set("chunk_index", json::Value::Int(chunk_index));
  o.Set("ordinal_end", json::Value::Int(ordinal_end));
  o.Set("ordinal_start", json::Value::Int(ordinal_start));
  o.Set("profile_group_id", json::Value(profile_group_id));
  o.Set("run_shard", json::Value::Int(run_shard));
  return json::Value(std::move(o));
}

Result<RunChunkPage> RunChunkPage::FromJson(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, "$"));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"chunk_index_end", "chunk_index_start", "chunks", "run_id", "schema"}));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(f, StorageFormat::kRunChunks));
  RunChunkPage page;
  VIGILO_ASSIGN_OR_RETURN(page.run_id, UuidField(f, "run_id"));
  VIGILO_ASSIGN_OR_RETURN(int64_t start, f.Int("chunk_index_start", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t end, f.Int("chunk_index_end", 0, kMaxInt32));
  page.chunk_index_start = static_cast<int32_t>(start);
  page.chunk_index_end = static_cast<int32_t>(end);
  VIGILO_ASSIGN_OR_RETURN(const json::Array* chunks, f.Array("chunks"));
  // The declared range bounds the work before any chunk is decoded.
  if (end > start && chunks->size() != static_cast<uint64_t>(end - start)) {
    return InvalidFormat("chunks has " + std::to_string(chunks->size()) + " entries; [chunk_index_start, " +
                         "chunk_index_end) declares " + std::to_string(end - start))
        .WithPath("$.chunks");
  }
  page.chunks.reserve(chunks->size());
  for (size_t i = 0; i < chunks->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(RunChunk c, RunChunk::FromJson((*chunks)[i], Index("chunks", i)));
    page.chunks.push_back(std::move(c));
  }
  VIGILO_RETURN_IF_ERROR(page.Validate());
  return page;
}

Result<RunChunkPage> RunChunkPage::Decode(const VerifiedObject& object, const RunPlanLimits& limits) {
  if (object.bytes().size() > limits.max_page_bytes) {
    return LimitExceeded("run-chunk page is " + std::to_string(object.bytes().size()) + " bytes; the limit is " +
                         std::to_string(limits.max_page_bytes))
        .WithPath(object.ref().key);
  }
  VIGILO_ASSIGN_OR_RETURN(json::Value value, DecodeDocumentJson(object, StorageFormat::kRunChunks));
  auto page = FromJson(value);
  if (!page.ok()) return std::move(page).take_status().PrependPath(object.ref().key + ": ");
  if (Status s = page->ValidateWithin(limits); !s.ok()) return std::move(s).PrependPath(object.ref().key + ": ");
  return page;
}

Status RunChunkPage::Validate() const {
  if (run_id.is_nil()) return InvalidFormat("run_id must be a non-nil UUID").WithPath("$.run_id");
  if (chunk_index_start < 0) return OutOfRange("chunk_index_start must be non-negative").WithPath("$.chunk_index_start");
  if (chunk_index_end <= chunk_index_start) {
    return InvalidFormat("chunk_index_end must be greater than chunk_index_start: a page holds at least one chunk")
        .WithPath("$.chunk_index_end");
  }
  VIGILO_ASSIGN_OR_RETURN(int32_t declared, CheckedSub<int32_t>(chunk_index_end, chunk_index_start));
  if (chunks.size() != static_cast<uint64_t>(declared)) {
    return InvalidFormat("chunks has " + std::to_string(chunks.size()) + " entries; the index range declares " +
                         std::to_string(declared))
        .WithPath("$.chunks");
  }
  for (size_t i = 0; i < chunks.size(); ++i) {
    const RunChunk& c = chunks[i];
    std::string path = Index("chunks", i);
    int64_t expected_index = int64_t{chunk_index_start} + static_cast<int64_t>(i);
    if (c.chunk_index != expected_index) {
      return InvalidFormat("chunk_index " + std::to_string(c.chunk_index) + " where " +
                           std::to_string(expected_index) + " is next (chunk indexes must be consecutive)")
          .WithPath(path + ".chunk_index");
    }
    if (i > 0 && c.ordinal_start != chunks[i - 1].ordinal_end) {
      return InvalidFormat(std::string(c.ordinal_start < chunks[i - 1].ordinal_end ? "case range overlaps"
                                                                                   : "gap between case ranges") +
                           ": ordinal_start " + std::to_string(c.ordinal_start) + " where the previous chunk ends at " +
                           std::to_string(chunks[i - 1].ordinal_end))
          .WithPath(path + ".ordinal_start");
    }
    if (Status s = ValidateChunk(c, run_id); !s.ok()) return std::move(s).PrependPath(path);
  }
  return Status::Ok();
}

Status RunChunkPage::ValidateWithin(const RunPlanLimits& limits) const {
  VIGILO_RETURN_IF_ERROR(Validate());
  if (chunks.size() > limits.max_page_entries) {
    return LimitExceeded("run-chunk page has " + std::to_string(chunks.size()) + " chunks; the limit is " +
                         std::to_string(limits.max_page_entries))
        .WithPath("$.chunks");
  }
  return Status::Ok();
}

json::Value RunChunkPage::ToJson() const {
  json::Array items;
  items.reserve(chunks.size());
  for (const RunChunk& c : chunks) items.push_back(c.ToJson());
  json::Object o;
  o.Set("chunk_index_end", json::Value::Int(chunk_index_end));
  o.Set("chunk_index_start", json::Value::Int(chunk_index_start));
  o.Set("chunks", json::Value(std::move(items)));
  o.Set("run_id", json::Value(run_id.ToString()));
  o.Set("schema", json::Value(std::string(StorageFormatId(StorageFormat::kRunChunks))));
  return json::Value(std::move(o));
}

Result<std::string> ComputeCaseProjectionHash(std::span<const ProjectedCase> cases) {
  if (cases.empty()) return InvalidArgument("a chunk projects at least one case");
  if (cases.size() > static_cast<size_t>(kMaxChunkCases)) {
    return InvalidArgument("a chunk projects at most 100 cases, got " + std::to_string(cases.size()));
  }
  ProjectionHasher hasher;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (i > 0 && int64_t{cases[i].case_ordinal} != int64_t{cases[i - 1].case_ordinal} + 1) {
      return InvalidArgument("projected cases must have consecutive increasing ordinals; case " + std::to_string(i) +
                             " has ordinal " + std::to_string(cases[i].case_ordinal));
    }
    if (cases[i].case_ordinal < 0) return InvalidArgument("case ordinals are non-negative");
    hasher.Update(cases[i].case_ordinal, cases[i].id, cases[i].case_hash);
  }
  return HexEncode(hasher.Finish());
}

Status CheckCaseProjection(const RunChunk& chunk, std::span<const ProjectedCase> cases) {
  int64_t expected = int64_t{chunk.ordinal_end} - chunk.ordinal_start;
  if (static_cast<int64_t>(cases.size()) != expected) {
    return InvalidFormat("chunk " + std::to_string(chunk.chunk_index) + " is assigned " + std::to_string(expected) +
                         " cases, got " + std::to_string(cases.size()))
        .WithPath(".ordinal_end");
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    if (int64_t{cases[i].case_ordinal} != int64_t{chunk.ordinal_start} + static_cast<int64_t>(i)) {
      return InvalidFormat("case ordinal " + std::to_string(cases[i].case_ordinal) + " is not the chunk's ordinal " +
                           std::to_string(int64_t{chunk.ordinal_start} + static_cast<int64_t>(i)))
          .WithPath(".ordinal_start");
    }
  }
  auto hash = ComputeCaseProjectionHash(cases);
  if (!hash.ok()) return InvalidFormat(std::string(hash.status().message())).WithPath(".ordinal_end");
  if (*hash != chunk.case_projection_hash) {
    return IntegrityError("case_projection_hash " + chunk.case_projection_hash +
                          " does not match the assigned cases' projection " + *hash)
        .WithPath(".case_projection_hash");
  }
  return Status::Ok();
}

}  // namespace vigilo::cases
