// The case-storage budget overrides an operator may set (seed 004,
// "Resource Budgets"), as text: what the CLI's --max-cases, --max-bytes,
// --resident-batches, --staging-spool and --validation-spool flags and the
// Python module's keywords of the same names hand over. One parser and one
// validation for every edge, so a bad value reads the same wherever it was
// typed; each edge names the override its own way (a flag, a keyword).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/cases/budget.h"
#include "vigilo/common/result.h"

namespace vigilo::engine {

struct BudgetOverrides {
  std::optional<std::string> max_cases;         // case_batch_max_cases (a count)
  std::optional<std::string> max_bytes;         // case_batch_max_bytes (a byte size)
  std::optional<std::string> resident_batches;  // resident_case_batches (a count)
  std::optional<std::string> staging_spool;     // staging_spool_bytes (a byte size)
  std::optional<std::string> validation_spool;  // ingestion_validation_spool_bytes (a byte size)
};

// Defaults plus the overrides, validated (BudgetConfig::Validate) before any
// I/O. An error is InvalidArgument whose path is the override's name
// ("max_bytes") when one override can fix it, with the accepted range or
// relationship in the message; a rule no override sets keeps its setting's
// path ("external_sort_buffer_bytes").
Result<cases::BudgetConfig> BudgetFromOverrides(const BudgetOverrides& overrides);

// "max_bytes" for "case_batch_max_bytes", etc.: the override that sets a
// BudgetConfig setting, or "" when none does.
std::string_view OverrideForSetting(std::string_view setting);

// "123", "64KiB", "16MiB", "1GiB" (also K/M/G/T, KB/MB/GB/TB meaning the
// binary units, and a space before the unit). InvalidArgument otherwise.
Result<uint64_t> ParseByteSize(std::string_view text);

}  // namespace vigilo::engine
