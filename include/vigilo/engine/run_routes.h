// Where a published run's shards execute: control metadata, never object
// bytes (docs/architecture.md, "Shard routes").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vigilo/common/result.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/context.h"

namespace vigilo::engine {

// Moves shard `shard` of the published run `run` to `route` (with
// `expected_epoch`, a compare-and-set: `fenced` when another move came
// first). A shard the run's plan does not have (plans list only shards
// with planned work) is InvalidArgument naming the setting `shard`, decided
// from the plan manifest before anything is recorded; the control store's
// own refusals (no such run, a shard outside 0..127, a route that is a URL)
// come back unchanged. NotFound when there is no control state.
Result<control::ShardRoute> MoveRunShard(Context& context, const std::string& run, int32_t shard,
                                         const std::string& route, std::optional<uint64_t> expected_epoch);

}  // namespace vigilo::engine
