// What every engine read path does with an object reference: the byte cap
// checked before the request, then the exact size and BLAKE3
// (ObjectRef::Verify), counting the objects and bytes fetched.
#pragma once

#include <cstdint>
#include <string>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/cases/ordinal_index.h"

namespace vigilo::engine {

inline cases::IndexLimits IndexLimitsOf(const cases::BudgetConfig& budget) {
  return cases::IndexLimits{budget.page_max_entries, budget.page_max_bytes,
                            static_cast<int32_t>(budget.index_max_height)};
}

class VerifiedFetcher {
 public:
  explicit VerifiedFetcher(const cases::ObjectBytesFetch& fetch) : fetch_(fetch) {}

  Result<cases::VerifiedObject> Fetch(const cases::ObjectRef& ref, uint64_t max_bytes) {
    VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject object, cases::FetchVerified(fetch_, ref, max_bytes));
    ++objects;
    bytes_fetched += ref.byte_count;
    return object;
  }

  // An ObjectFetch (for the format library's walkers) with one byte cap.
  cases::ObjectFetch Capped(uint64_t max_bytes) {
    return [this, max_bytes](const cases::ObjectRef& ref) { return Fetch(ref, max_bytes); };
  }

  uint64_t objects = 0;
  uint64_t bytes_fetched = 0;

 private:
  const cases::ObjectBytesFetch& fetch_;
};

}  // namespace vigilo::engine
