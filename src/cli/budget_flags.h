// The case-storage budget overrides a command takes (seed 004 "Resource
// Budgets"): each flag sets one BudgetConfig setting, the result is
// validated before any I/O, and an invalid value is reported under the flag
// the user typed, with the setting's accepted range.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>

#include "vigilo/cases/budget.h"
#include "vigilo/common/result.h"
#include "vigilo/engine/budget_overrides.h"

namespace vigilo::cli {

struct BudgetFlags {
  std::optional<std::string> max_cases;         // case_batch_max_cases
  std::optional<std::string> max_bytes;         // case_batch_max_bytes
  std::optional<std::string> resident_batches;  // resident_case_batches
  std::optional<std::string> staging_spool;     // staging_spool_bytes
  std::optional<std::string> validation_spool;  // ingestion_validation_spool_bytes
  std::string scratch;
};

// Writers: --max-cases --max-bytes --staging-spool --validation-spool --scratch.
void AddWriterBudgetFlags(CLI::App* command, BudgetFlags* flags);
// Readers: --resident-batches --staging-spool --validation-spool --scratch.
void AddReaderBudgetFlags(CLI::App* command, BudgetFlags* flags);

// Defaults plus the overrides, validated (engine::BudgetFromOverrides). A
// byte value is an integer with an optional KiB/MiB/GiB suffix ("16MiB").
// An error is InvalidArgument naming the flag ("--max-bytes: ...").
Result<cases::BudgetConfig> BudgetFromFlags(const BudgetFlags& flags);

// "--resident-batches" for "resident_case_batches", etc.: the flag that sets
// a BudgetConfig setting, or "" when no flag does.
std::string FlagForSetting(std::string_view setting);

// Where spools and the duplicate-ID sort go: --scratch, else $TMPDIR, else /tmp.
std::filesystem::path ScratchDirFromFlags(const BudgetFlags& flags);

// "123", "64KiB", "16MiB", "1GiB": the engine's parser (budget_overrides.h).
using engine::ParseByteSize;

}  // namespace vigilo::cli
