// Draining the cleanup work the control ledger records (the keys of
// abandoned upload attempts), from one store or from every store with work
// due: what `vigilo store cleanup` runs, and what a binding calls.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/engine/context.h"
#include "vigilo/store/clock.h"

namespace vigilo::engine {

// One report per store drained, in the ledger's order (a store that could
// not be opened or drained has its error in the report; the others still
// run). `store_spec` given: that store only. No control state yet: nothing
// is due (an empty list). `cancel` stops between and during deletes; what
// is not deleted stays recorded for the next drain.
Result<std::vector<control::CleanupReport>> DrainDueCleanup(Context& context, const std::optional<std::string>& store_spec,
                                                           const store::CancelToken* cancel);

}  // namespace vigilo::engine
