#include "vigilo/engine/run_routes.h"

#include <algorithm>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/run_plan.h"
#include "vigilo/engine/roots.h"
#include "vigilo/engine/run_read.h"

namespace vigilo::engine {
namespace {

// The run shards the published plan of `run` lists, when `run` is published.
Result<std::optional<std::vector<int32_t>>> PlannedShards(Context& context, control::ControlStore& control,
                                                          const std::string& run) {
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> record, control.GetRoot(control::Namespace::kRuns, run));
  if (!record) return std::optional<std::vector<int32_t>>();
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened,
                          OpenPublishedRoot(context, RootLocator{.ref = std::nullopt, .name = run}, "",
                                            control::Namespace::kRuns));
  VIGILO_ASSIGN_OR_RETURN(cases::RunPlanManifest plan,
                          ReadRunPlan(opened.resolved.root, cases::BudgetConfig::Defaults(), opened.fetch));
  std::vector<int32_t> shards;
  for (const cases::RunPlanShard& s : plan.shards) shards.push_back(s.run_shard);
  return std::optional<std::vector<int32_t>>(std::move(shards));
}

std::string ShardList(const std::vector<int32_t>& shards) {
  std::string out;
  for (size_t i = 0; i < shards.size() && i < 16; ++i) out += (i ? ", " : "") + std::to_string(shards[i]);
  if (shards.size() > 16) out += ", …";
  return out;
}

}  // namespace

Result<control::ShardRoute> MoveRunShard(Context& context, const std::string& run, int32_t shard,
                                         const std::string& route, std::optional<uint64_t> expected_epoch) {
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, context.ExistingControl());
  if (shard >= 0 && shard <= 127) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<std::vector<int32_t>> planned, PlannedShards(context, *control, run));
    if (planned && std::find(planned->begin(), planned->end(), shard) == planned->end()) {
      return InvalidArgument("run '" + run + "' has no shard " + std::to_string(shard) + ": its plan lists shards " +
                             ShardList(*planned) + " (shards without planned work are not listed)")
          .WithPath("shard");
    }
  }
  return control->MoveShard(run, shard, route, expected_epoch);
}

}  // namespace vigilo::engine
