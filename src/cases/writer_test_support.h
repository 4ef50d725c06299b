// Test helpers for DatasetWriter/ReadDataset: a budget from explicit batch
// and index limits, and one scratch directory per test process.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/scratch_test_support.h"
#include "vigilo/cases/budget.h"
#include "vigilo/cases/case_batch.h"
#include "vigilo/cases/ordinal_index.h"

namespace vigilo::cases {

inline BudgetConfig WriterBudget(BatchLimits batch = {}, IndexLimits index = {}) {
  BudgetConfig b = BudgetConfig::Defaults();
  b.case_batch_max_cases = batch.max_cases;
  b.case_batch_max_bytes = batch.max_bytes;
  b.page_max_entries = index.max_entries;
  b.page_max_bytes = index.max_page_bytes;
  b.index_max_height = static_cast<uint64_t>(index.max_height);
  return b;
}

// TMPDIR/vigilo-cases-test_<pid>, removed when the test process exits.
inline const std::filesystem::path& TestScratchDir() {
  static const std::filesystem::path dir = test_support::ProcessScratchDir("vigilo-cases-test");
  return dir;
}

}  // namespace vigilo::cases
