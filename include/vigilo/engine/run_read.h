// Reading published run plans back (issue 21): activation (`run verify`),
// a summary (`run show`), and the worker read path (`run chunk`): one
// execution chunk resolved through the run-chunks index, its ordinal range
// through the dataset's batch index, only the batches it touches fetched
// and verified, only the records in its range admitted, and the chunk's
// case projection hash recomputed and compared. Memory stays bounded
// whatever the dataset size: one case decoded at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/case_batch.h"
#include "vigilo/cases/dataset.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/cases/run_chunks.h"
#include "vigilo/cases/run_configuration.h"
#include "vigilo/cases/run_plan.h"
#include "vigilo/common/result.h"

namespace vigilo::engine {

// `run show`: the verified root, its configuration and the dataset manifest
// it names (no chunk pages, no batches). Each object is digest-verified and
// strictly decoded; their agreement is `run verify`'s (so show still works
// on a plan that fails activation).
struct RunOverview {
  cases::RunPlanManifest plan;
  cases::RunConfiguration configuration;
  cases::DatasetManifest dataset;
};
Result<RunOverview> ShowRun(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                            const cases::ObjectBytesFetch& fetch);

// The run-plan root alone, verified and decoded within the run budgets (what
// every run reader starts with; `run move` reads its shard list).
Result<cases::RunPlanManifest> ReadRunPlan(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                           const cases::ObjectBytesFetch& fetch);

// `run verify` (activation, seed 004): the root, the configuration and its
// agreement with the root and with the dataset manifest, every run-chunk
// page through the index in chunk order (cases::RunPlanChunkChecker: exact
// coverage of the dataset's ordinals, per-shard chunk/case counts and
// planned_chunk_hash), every shard's gate-count chain (page/entry counts,
// order, acyclicity). With `cases` also every chunk's case_projection_hash
// recomputed from the dataset's batches (one pass over the dataset, which is
// itself verified as `dataset verify` does).
// Errors name where they were found: "<root key>: $.shards[0]..." for the
// root's agreement and totals, "<configuration key>: $.snapshot.dataset_ref.x"
// for the dataset agreement, "<page key>: $.chunks[i].field" for a chunk
// page (coverage, chunk_size, case_projection_hash).
struct RunVerifySummary {
  int32_t chunk_count = 0;
  uint64_t chunk_page_count = 0;
  uint64_t index_page_count = 0;
  uint64_t gate_page_count = 0;
  uint64_t shard_count = 0;
  bool cases_checked = false;
  uint64_t bytes_fetched = 0;
};
Result<RunVerifySummary> VerifyRun(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                   const std::filesystem::path& scratch_dir, const cases::ObjectBytesFetch& fetch,
                                   bool cases);

// `run chunk --index N`: the worker read path. `on_record` gets each
// assigned record (ordinal order) and its canonical line; the projection
// hash is compared after the last one (IntegrityError, naming the chunk).
// InvalidArgument for an index outside [0, chunk_count).
struct ChunkReadSummary {
  cases::RunChunk chunk;
  uint64_t batches_fetched = 0;
  uint64_t bytes_fetched = 0;  // every object fetched for this chunk
};
Result<ChunkReadSummary> ReadRunChunk(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                      const cases::ObjectBytesFetch& fetch, int32_t chunk_index,
                                      const std::function<Status(const cases::CaseRecord& record,
                                                                 std::string_view line)>& on_record);

// `run chunks --shard N` (issue 34): the chunks a worker of one shard runs,
// in chunk order, each as its run-chunk page holds it (index, id, ordinal
// range, profile group), read through the run-chunks index with every page
// verified. A shard the plan does not list (plans list only shards with
// planned work) is InvalidArgument naming the setting `shard` and the
// shards the plan has, decided from the root before any page is read. The
// chunks found must be the shard's chunk_count (IntegrityError otherwise).
// Returns the shard's entry of the plan.
Result<cases::RunPlanShard> ListShardChunks(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                            const cases::ObjectBytesFetch& fetch, int32_t shard,
                                            const std::function<Status(const cases::RunChunk& chunk)>& on_chunk);

}  // namespace vigilo::engine
