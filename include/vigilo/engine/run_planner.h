// Run planning (issue 21): a published dataset plus an evaluation profile
// becomes an immutable run plan — execution chunks over logical shards,
// the run-chunks index, gate-count chains, the run configuration and the
// run-plan manifest — written in one bounded pass over the dataset's cases
// (one case decoded at a time), verified as activation verifies it, and
// published under a name in the control store's `runs` namespace exactly as
// datasets are (an attempt in the ledger, keys recorded before creates, a
// lease-fenced root). docs/format/case-storage-runs.md, "Run planning".
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/cases/run_plan.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/run_profile.h"
#include "vigilo/engine/write_target.h"
#include "vigilo/store/clock.h"

namespace vigilo::engine {

struct PlanProgress {
  std::string phase;  // "planning", "verifying", "publishing"
  uint64_t cases = 0;
  uint64_t total_cases = 0;
};

struct PlanRunOptions {
  std::string name;  // the run's root name; empty: "<dataset_id>.<profile_id>"
  bool replace = false;
  cases::BudgetConfig budget = cases::BudgetConfig::Defaults();
  std::filesystem::path scratch_dir;
  store::Micros lease_duration = store::Micros{300} * 1'000'000;
  std::function<void(const PlanProgress&)> progress;
  const store::CancelToken* cancel = nullptr;
};

using PlanOutcome = RootOutcome;

struct PlanRunResult : PublicationReport {  // root: the run-plan manifest reference
  cases::RunPlanManifest plan;
  uint64_t cases_read = 0;
  uint64_t chunk_pages = 0;
  uint64_t gate_pages = 0;
};

// `dataset_root` is a published dataset manifest reference and
// `dataset_fetch` reads its objects (the plan only references them).
Result<PlanRunResult> PlanRun(const cases::ObjectRef& dataset_root, const cases::ObjectBytesFetch& dataset_fetch,
                              const EvaluationProfile& profile, const PlanRunOptions& options,
                              const WriteTarget& target);

// Issue 34: a chunk closes wherever the profile group changes, so cases not
// sorted by their group make many small chunks (4,342 for 5,000 cases in
// the trial) and nothing said so. When a plan's chunks average under a
// quarter of `chunk_size` (and it has more than one chunk), the warning to
// show, with the numbers and the fix (sort the cases by the grouping
// field, or plan without groups); "" otherwise.
std::string ChunkSizeWarning(const PlanRunResult& result, const EvaluationProfile& profile);

}  // namespace vigilo::engine
