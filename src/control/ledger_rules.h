// The rules every control-store backend applies the same way, kept out of
// the backends so that SQLite and (later) PostgreSQL cannot drift apart:
// argument validation before any transaction, and the fencing decisions a
// backend makes on the attempt row it read inside its transaction.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "vigilo/control/control_store.h"

namespace vigilo::control::rules {

Status ValidateSpec(const AttemptSpec& spec);
Status ValidateOwner(std::string_view owner);
Status ValidateLeaseDuration(Micros duration);
// A settle time or a cleanup claim: 0 (claims: more than 0) to 24 hours, so
// that now + it cannot overflow.
Status ValidateDelay(Micros delay, Micros at_least, std::string_view what);
Status ValidateStoreId(std::string_view store);
// A root reference: a canonical JSON object of at most kMaxRootValueBytes.
Status ValidateRootValue(std::string_view value, std::string_view what);
// Each key a valid logical key strictly under `prefix`.
Status ValidateRecordedKeys(std::string_view prefix, std::span<const std::string> keys);

// May the holder of `lease` change `row` at wall time `now`? Fenced when
// another writer took the attempt over (a different epoch), when it is no
// longer active, or when the lease has expired.
Status CheckFence(const AttemptRecord& row, const Lease& lease, Micros now);
// May a new writer take `row` over (ResumeAttempt, AbandonExpired) at `now`?
// AlreadyExists once published, Fenced once abandoned, Unavailable while
// the lease is held.
Status CheckTakeover(const AttemptRecord& row, Micros now, std::string_view action);

// "datasets/geo", as errors name a root.
std::string RootPath(Namespace ns, std::string_view name);

Lease LeaseOf(const AttemptRecord& row);

}  // namespace vigilo::control::rules
