// CaseIdUniquenessCheck: proves that no two cases of a dataset share an id
// without holding a dataset-wide set (seed 004: "Detect duplicate IDs using a
// bounded external sort/spool"). Each (id, ordinal) pair is a 20-byte record
// sorted by ExternalSorter within external_sort_buffer_bytes of memory and
// ingestion_validation_spool_bytes of scratch disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "vigilo/cases/budget.h"
#include "vigilo/common/external_sort.h"
#include "vigilo/common/uuid.h"

namespace vigilo::cases {

class CaseIdUniquenessCheck {
 public:
  // Spills under `scratch_dir` (which must exist).
  static Result<CaseIdUniquenessCheck> Start(const BudgetConfig& budget, const std::filesystem::path& scratch_dir);

  // Cases in any order; ordinals need not be contiguous.
  Status Add(const Uuid& id, int32_t ordinal);

  // InvalidFormat at `$.cases[j].id`, where j is the first ordinal (in
  // submitted order) whose id an earlier case already has; the message names
  // the id, both ordinals and how many cases repeat an earlier id.
  // LimitExceeded when the sort exceeds its scratch quota.
  Status Finish();

  const ExternalSortStats& stats() const { return sorter_.stats(); }

 private:
  explicit CaseIdUniquenessCheck(ExternalSorter sorter) : sorter_(std::move(sorter)) {}
  ExternalSorter sorter_;
};

// The duplicate a Finish error names (nullopt for any other status): the id,
// the first ordinal that has it, the ordinal that repeats it, and the
// parenthesis counting the repeats ("(1 case repeats an earlier id)").
// JSON Lines ingestion with derived ids uses it to name the user's own
// values instead of the UUIDs derived from them.
struct DuplicateCaseId {
  Uuid id;
  int32_t first = 0;
  int32_t repeat = 0;
  std::string count;
};
std::optional<DuplicateCaseId> DuplicateCaseIdOf(const Status& status);

}  // namespace vigilo::cases
