#include "vigilo/engine/run_read.h"

#include "verified_fetch.h"

#include <optional>
#include <utility>
#include <vector>

#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/gate_counts.h"
#include "vigilo/cases/ordinal_index.h"
#include "vigilo/cases/typed_case.h"
#include "vigilo/engine/dataset_read.h"

namespace vigilo::engine {
namespace {

using Fetcher = VerifiedFetcher;

// The run-plan root, decoded within the run budgets (every reader starts here).
Result<cases::RunPlanManifest> LoadPlan(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                        Fetcher& fetcher) {
  VIGILO_RETURN_IF_ERROR(budget.Validate());
  if (root.schema != cases::StorageFormat::kRunPlanManifest) {
    return InvalidArgument("the root reference must name a vigilo/run-plan-manifest/v1 object");
  }
  const cases::RunPlanLimits limits = cases::RunPlanLimits::From(budget);
  VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject object, fetcher.Fetch(root, limits.max_root_bytes));
  VIGILO_ASSIGN_OR_RETURN(cases::RunPlanManifest plan, cases::RunPlanManifest::Decode(object, limits));
  // The format checks the index height against the seed's default; a smaller
  // configured height applies to this reader too.
  if (Status s = plan.chunks.Validate(IndexLimitsOf(budget)); !s.ok()) {
    return std::move(s).PrependPath(root.key + ": $.chunks");
  }
  return plan;
}

Result<cases::RunConfiguration> LoadConfiguration(const cases::RunPlanManifest& plan,
                                                  const cases::BudgetConfig& budget, Fetcher& fetcher) {
  const cases::RunPlanLimits limits = cases::RunPlanLimits::From(budget);
  VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject object,
                          fetcher.Fetch(plan.configuration, limits.max_configuration_bytes));
  return cases::RunConfiguration::Decode(object, limits);
}

Result<cases::DatasetManifest> LoadDatasetManifest(const cases::RunPlanManifest& plan,
                                                   const cases::BudgetConfig& budget, Fetcher& fetcher) {
  VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject object, fetcher.Fetch(plan.dataset, budget.root_manifest_max_bytes));
  return cases::DatasetManifest::Decode(object);
}

// Cross-object errors name the object they were found in.
Status In(Status s, const std::string& key) {
  if (s.ok()) return s;
  if (s.path().empty()) return std::move(s).WithPath(key);
  return std::move(s).PrependPath(key + ": ");
}

// CheckCaseProjection's relative path (".case_projection_hash") placed at
// the chunk inside its page: "<page key>: $.chunks[i].case_projection_hash".
Status AtChunk(Status s, const std::string& page_key, size_t position) {
  if (s.ok()) return s;
  return Status(s.code(), std::string(s.message()))
      .WithPath(page_key + ": $.chunks[" + std::to_string(position) + "]" + std::string(s.path()));
}

// A run-chunk page fetched for its index leaf: of this run and covering
// exactly the leaf's chunk indexes.
Result<cases::RunChunkPage> FetchChunkPage(const cases::IndexEntry& leaf, const cases::RunPlanManifest& plan,
                                           const cases::RunPlanLimits& limits, Fetcher& fetcher) {
  VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject object, fetcher.Fetch(leaf.object, limits.max_page_bytes));
  VIGILO_ASSIGN_OR_RETURN(cases::RunChunkPage page, cases::RunChunkPage::Decode(object, limits));
  if (page.run_id != plan.run_id) {
    return InvalidFormat("run-chunk page of run " + page.run_id.ToString() + ", not " + plan.run_id.ToString())
        .WithPath(leaf.object.key + ": $.run_id");
  }
  if (page.chunk_index_start != leaf.range_start || page.chunk_index_end != leaf.range_end) {
    return InvalidFormat("run-chunk page covers chunks [" + std::to_string(page.chunk_index_start) + ", " +
                         std::to_string(page.chunk_index_end) + "); its index entry says [" +
                         std::to_string(leaf.range_start) + ", " + std::to_string(leaf.range_end) + ")")
        .WithPath(leaf.object.key);
  }
  return page;
}

// The run-chunk pages in chunk order, walking the run-chunks index depth
// first with one page per level in memory (an explicit stack, so a caller
// can pull pages from inside another reader's callback).
class ChunkPageCursor {
 public:
  ChunkPageCursor(const cases::RunPlanManifest& plan, const cases::BudgetConfig& budget, Fetcher& fetcher)
      : plan_(plan), index_limits_(IndexLimitsOf(budget)), limits_(cases::RunPlanLimits::From(budget)),
        fetcher_(fetcher) {}

  // The next page, or nullopt after the last.
  Result<std::optional<cases::RunChunkPage>> Next() {
    VIGILO_ASSIGN_OR_RETURN(std::optional<cases::IndexEntry> leaf, NextLeaf());
    if (!leaf) return std::optional<cases::RunChunkPage>();
    VIGILO_ASSIGN_OR_RETURN(cases::RunChunkPage page, FetchChunkPage(*leaf, plan_, limits_, fetcher_));
    ++chunk_pages;
    key_ = leaf->object.key;
    return std::optional<cases::RunChunkPage>(std::move(page));
  }
  // The key of the page Next() returned last (coverage errors name it).
  const std::string& key() const { return key_; }

  uint64_t index_pages = 0;
  uint64_t chunk_pages = 0;

 private:
  struct Frame {
    cases::OrdinalIndexPage page;
    size_t next = 0;
  };

  Status Push(const cases::IndexEntry& expected, int32_t level) {
    VIGILO_ASSIGN_OR_RETURN(cases::OrdinalIndexPage page,
                            cases::FetchChildPage(expected, level, cases::IndexKind::kRunChunks, index_limits_,
                                                  fetcher_.Capped(index_limits_.max_page_bytes)));
    ++index_pages;
    stack_.push_back(Frame{std::move(page), 0});
    return Status::Ok();
  }

  Result<std::optional<cases::IndexEntry>> NextLeaf() {
    if (!started_) {
      started_ = true;
      const cases::IndexRootDescriptor& root = plan_.chunks;
      VIGILO_RETURN_IF_ERROR(Push(cases::IndexEntry{root.range_start, root.range_end, root.object}, root.level));
    }
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      if (top.next == top.page.entries.size()) {
        stack_.pop_back();
        continue;
      }
      cases::IndexEntry entry = top.page.entries[top.next++];
      if (top.page.level == 0) return std::optional<cases::IndexEntry>(std::move(entry));
      VIGILO_RETURN_IF_ERROR(Push(entry, top.page.level - 1));
    }
    return std::optional<cases::IndexEntry>();
  }

  const cases::RunPlanManifest& plan_;
  cases::IndexLimits index_limits_;
  cases::RunPlanLimits limits_;
  Fetcher& fetcher_;
  std::vector<Frame> stack_;
  bool started_ = false;
  std::string key_;
};

// Feeds every page to the coverage checker, its errors located in the page.
Status CheckCoverage(ChunkPageCursor& cursor, const cases::RunChunkPage& page, cases::RunPlanChunkChecker& coverage) {
  return In(coverage.AddPage(page), cursor.key());
}

cases::ProjectedCase Project(const cases::CaseRecord& record, const cases::TypedCase& typed) {
  return cases::ProjectedCase{record.case_ordinal, typed.id, record.case_hash};
}

// Gathers the dataset's cases (ordinal order, from ReadDataset) into the
// plan's chunks (pulled page by page from the cursor, each page given to the
// coverage checker first) and checks each chunk's projection hash once its
// last case has arrived. Memory: one chunk page and at most 100 projections.
class ProjectionChecker {
 public:
  ProjectionChecker(ChunkPageCursor& cursor, cases::RunPlanChunkChecker& coverage)
      : cursor_(cursor), coverage_(coverage) {}

  Status Add(const cases::CaseRecord& record) {
    while (!current_ || record.case_ordinal >= current_->ordinal_end) {
      if (current_) VIGILO_RETURN_IF_ERROR(FinishChunk());
      VIGILO_ASSIGN_OR_RETURN(bool more, Advance());
      if (!more) {
        return IntegrityError("case ordinal " + std::to_string(record.case_ordinal) +
                              " is past the last chunk of the run");
      }
    }
    VIGILO_ASSIGN_OR_RETURN(cases::TypedCase typed, cases::ValidateCase(record.source));
    cases_.push_back(Project(record, typed));
    return Status::Ok();
  }

  // After the last case: the last chunk's hash, then the pages no case
  // reached go to the coverage checker (which reports chunks past the
  // planned cases).
  Status Finish() {
    if (current_) VIGILO_RETURN_IF_ERROR(FinishChunk());
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(std::optional<cases::RunChunkPage> page, cursor_.Next());
      if (!page) return Status::Ok();
      VIGILO_RETURN_IF_ERROR(CheckCoverage(cursor_, *page, coverage_));
    }
  }

 private:
  // Moves to the next chunk, fetching the next page when this one is done.
  Result<bool> Advance() {
    if (page_ && next_ < page_->chunks.size()) {
      current_ = &page_->chunks[next_++];
      return true;
    }
    VIGILO_ASSIGN_OR_RETURN(std::optional<cases::RunChunkPage> page, cursor_.Next());
    if (!page) {
      current_ = nullptr;
      return false;
    }
    VIGILO_RETURN_IF_ERROR(CheckCoverage(cursor_, *page, coverage_));
    page_ = std::move(page);
    current_ = &page_->chunks[0];
    next_ = 1;
    return true;
  }

  Status FinishChunk() {
    Status s = cases::CheckCaseProjection(*current_, cases_);
    cases_.clear();
    current_ = nullptr;
    return AtChunk(std::move(s), cursor_.key(), next_ - 1);
  }

  ChunkPageCursor& cursor_;
  cases::RunPlanChunkChecker& coverage_;
  std::optional<cases::RunChunkPage> page_;
  size_t next_ = 0;
  const cases::RunChunk* current_ = nullptr;
  std::vector<cases::ProjectedCase> cases_;
};

}  // namespace

Result<cases::RunPlanManifest> ReadRunPlan(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                           const cases::ObjectBytesFetch& fetch) {
  Fetcher fetcher(fetch);
  return LoadPlan(root, budget, fetcher);
}

Result<RunOverview> ShowRun(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                            const cases::ObjectBytesFetch& fetch) {
  Fetcher fetcher(fetch);
  RunOverview overview;
  VIGILO_ASSIGN_OR_RETURN(overview.plan, LoadPlan(root, budget, fetcher));
  VIGILO_ASSIGN_OR_RETURN(overview.configuration, LoadConfiguration(overview.plan, budget, fetcher));
  VIGILO_ASSIGN_OR_RETURN(overview.dataset, LoadDatasetManifest(overview.plan, budget, fetcher));
  return overview;
}

Result<RunVerifySummary> VerifyRun(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                   const std::filesystem::path& scratch_dir, const cases::ObjectBytesFetch& fetch,
                                   bool cases) {
  Fetcher fetcher(fetch);
  VIGILO_ASSIGN_OR_RETURN(cases::RunPlanManifest plan, LoadPlan(root, budget, fetcher));
  VIGILO_ASSIGN_OR_RETURN(cases::RunConfiguration configuration, LoadConfiguration(plan, budget, fetcher));
  VIGILO_RETURN_IF_ERROR(In(cases::CheckConfigurationAgreement(plan, configuration), root.key));
  VIGILO_ASSIGN_OR_RETURN(cases::DatasetManifest dataset, LoadDatasetManifest(plan, budget, fetcher));
  VIGILO_RETURN_IF_ERROR(In(cases::CheckDatasetAgreement(configuration, dataset), plan.configuration.key));

  RunVerifySummary summary;
  summary.chunk_count = plan.chunk_count;
  summary.shard_count = plan.shards.size();
  const cases::RunPlanLimits limits = cases::RunPlanLimits::From(budget);
  cases::GateCountChainValidator gates(limits, fetcher.Capped(limits.max_page_bytes));
  VIGILO_RETURN_IF_ERROR(In(cases::ValidateGateCountChains(plan, gates), root.key));
  for (const cases::RunPlanShard& shard : plan.shards) {
    summary.gate_page_count += static_cast<uint64_t>(shard.gate_counts.page_count);
  }

  ChunkPageCursor cursor(plan, budget, fetcher);
  cases::RunPlanChunkChecker coverage(plan, configuration.snapshot.chunk_size);
  uint64_t dataset_bytes = 0;
  if (cases) {
    // One pass over the dataset (verified in full, as `dataset verify` does),
    // the chunk pages pulled alongside it.
    ProjectionChecker projections(cursor, coverage);
    auto read = cases::ReadDataset(plan.dataset, budget, scratch_dir, fetch,
                                   [&](const cases::CaseRecord& record) { return projections.Add(record); });
    VIGILO_RETURN_IF_ERROR(read.status());
    VIGILO_RETURN_IF_ERROR(projections.Finish());
    dataset_bytes = read->object_bytes;
    summary.cases_checked = true;
  } else {
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(std::optional<cases::RunChunkPage> page, cursor.Next());
      if (!page) break;
      VIGILO_RETURN_IF_ERROR(CheckCoverage(cursor, *page, coverage));
    }
  }
  VIGILO_RETURN_IF_ERROR(In(coverage.Finish(), root.key));
  summary.chunk_page_count = cursor.chunk_pages;
  summary.index_page_count = cursor.index_pages;
  summary.bytes_fetched = fetcher.bytes_fetched + dataset_bytes;
  return summary;
}

Result<ChunkReadSummary> ReadRunChunk(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                      const cases::ObjectBytesFetch& fetch, int32_t chunk_index,
                                      const std::function<Status(const cases::CaseRecord& record,
                                                                 std::string_view line)>& on_record) {
  Fetcher fetcher(fetch);
  VIGILO_ASSIGN_OR_RETURN(cases::RunPlanManifest plan, LoadPlan(root, budget, fetcher));
  if (chunk_index < 0 || chunk_index >= plan.chunk_count) {
    return InvalidArgument("chunk index " + std::to_string(chunk_index) + " is outside [0, " +
                           std::to_string(plan.chunk_count) + ") of a run of " + std::to_string(plan.chunk_count) +
                           " chunks");
  }
  const cases::IndexLimits index_limits = IndexLimitsOf(budget);
  VIGILO_ASSIGN_OR_RETURN(cases::IndexEntry leaf,
                          cases::LookupOrdinal(plan.chunks, cases::IndexKind::kRunChunks, chunk_index, index_limits,
                                               fetcher.Capped(index_limits.max_page_bytes)));
  VIGILO_ASSIGN_OR_RETURN(cases::RunChunkPage page,
                          FetchChunkPage(leaf, plan, cases::RunPlanLimits::From(budget), fetcher));
  ChunkReadSummary summary;
  summary.chunk = page.chunks[static_cast<size_t>(chunk_index - page.chunk_index_start)];
  const cases::RunChunk& chunk = summary.chunk;
  const size_t position = static_cast<size_t>(chunk_index - page.chunk_index_start);

  std::vector<cases::ProjectedCase> projected;
  projected.reserve(static_cast<size_t>(chunk.case_count()));
  auto read = ReadDatasetCases(plan.dataset, budget, fetch, chunk.ordinal_start, chunk.ordinal_end,
                               [&](const cases::CaseRecord& record, std::string_view line) -> Status {
                                 VIGILO_ASSIGN_OR_RETURN(cases::TypedCase typed, cases::ValidateCase(record.source));
                                 projected.push_back(Project(record, typed));
                                 return on_record(record, line);
                               });
  // A range past the dataset's end is the plan's fault, not the caller's.
  if (!read.ok() && read.status().code() == StatusCode::kInvalidArgument) {
    return InvalidFormat("the chunk's cases [" + std::to_string(chunk.ordinal_start) + ", " +
                         std::to_string(chunk.ordinal_end) + ") are not in the dataset: " +
                         std::string(read.status().message()))
        .WithPath(leaf.object.key + ": $.chunks[" + std::to_string(position) + "]");
  }
  VIGILO_RETURN_IF_ERROR(read.status());
  VIGILO_RETURN_IF_ERROR(AtChunk(cases::CheckCaseProjection(chunk, projected), leaf.object.key, position));
  summary.batches_fetched = read->batches_fetched;
  summary.bytes_fetched = fetcher.bytes_fetched + read->bytes_fetched;
  return summary;
}

Result<cases::RunPlanShard> ListShardChunks(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                            const cases::ObjectBytesFetch& fetch, int32_t shard,
                                            const std::function<Status(const cases::RunChunk& chunk)>& on_chunk) {
  Fetcher fetcher(fetch);
  VIGILO_ASSIGN_OR_RETURN(cases::RunPlanManifest plan, LoadPlan(root, budget, fetcher));
  const cases::RunPlanShard* entry = nullptr;
  std::string listed;
  for (const cases::RunPlanShard& s : plan.shards) {
    if (s.run_shard == shard) entry = &s;
    listed += (listed.empty() ? "" : ", ") + std::to_string(s.run_shard);
  }
  if (entry == nullptr) {
    return InvalidArgument("the run has no shard " + std::to_string(shard) + "; its plan lists shard" +
                           (plan.shards.size() == 1 ? " " : "s ") + listed +
                           " (only shards with planned work are listed)")
        .WithPath("shard");
  }
  ChunkPageCursor cursor(plan, budget, fetcher);
  int64_t found = 0;
  int64_t cases_found = 0;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<cases::RunChunkPage> page, cursor.Next());
    if (!page) break;
    for (const cases::RunChunk& chunk : page->chunks) {
      if (chunk.run_shard != shard) continue;
      ++found;
      cases_found += chunk.case_count();
      VIGILO_RETURN_IF_ERROR(on_chunk(chunk));
    }
  }
  if (found != entry->chunk_count || cases_found != entry->case_count) {
    return IntegrityError("the run-chunk pages hold " + std::to_string(found) + " chunks of " +
                          std::to_string(cases_found) + " cases for shard " + std::to_string(shard) +
                          "; the plan says " + std::to_string(entry->chunk_count) + " chunks of " +
                          std::to_string(entry->case_count) + " cases")
        .WithPath(root.key + ": $.shards");
  }
  return *entry;
}

}  // namespace vigilo::engine
