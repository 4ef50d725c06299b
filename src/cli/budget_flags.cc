#include "budget_flags.h"

#include <algorithm>
#include <iterator>
#include <system_error>

namespace vigilo::cli {
namespace {

struct FlagSetting {
  const char* flag;
  const char* setting;
};
constexpr FlagSetting kFlags[] = {
    {"--max-cases", "case_batch_max_cases"},
    {"--max-bytes", "case_batch_max_bytes"},
    {"--resident-batches", "resident_case_batches"},
    {"--staging-spool", "staging_spool_bytes"},
    {"--validation-spool", "ingestion_validation_spool_bytes"},
};

}  // namespace

void AddWriterBudgetFlags(CLI::App* command, BudgetFlags* flags) {
  command->add_option("--max-cases", flags->max_cases, "Cases per batch (default 100, at most 65536)")->type_name("N");
  command->add_option("--max-bytes", flags->max_bytes, "Encoded bytes per batch (default 8MiB, 256 bytes to 64MiB)")
      ->type_name("BYTES");
  command->add_option("--staging-spool", flags->staging_spool,
                      "Memory for batches being uploaded (default 256MiB, at most 4GiB)")
      ->type_name("BYTES");
  command->add_option("--validation-spool", flags->validation_spool,
                      "Disk quota for the stdin copy and the duplicate-ID sort (default 8GiB)")
      ->type_name("BYTES");
  command->add_option("--scratch", flags->scratch, "Directory for spool files (default: $TMPDIR, else /tmp)")
      ->type_name("DIR");
}

void AddReaderBudgetFlags(CLI::App* command, BudgetFlags* flags) {
  command->add_option("--resident-batches", flags->resident_batches,
                      "Verified batches held at once (default 4, at most 16)")
      ->type_name("N");
  command->add_option("--staging-spool", flags->staging_spool,
                      "Memory for one fetched batch and those held (default 256MiB, at most 4GiB)")
      ->type_name("BYTES");
  command->add_option("--validation-spool", flags->validation_spool,
                      "Disk quota for the duplicate-ID sort (default 8GiB)")
      ->type_name("BYTES");
  command->add_option("--scratch", flags->scratch, "Directory for spool files (default: $TMPDIR, else /tmp)")
      ->type_name("DIR");
}

std::string FlagForSetting(std::string_view setting) {
  for (const FlagSetting& f : kFlags) {
    if (setting == f.setting) return f.flag;
  }
  return "";
}

Result<cases::BudgetConfig> BudgetFromFlags(const BudgetFlags& flags) {
  // The engine parses and validates (the Python module's keywords go the
  // same way); a value's error names the override, rendered here as its flag.
  Result<cases::BudgetConfig> budget = engine::BudgetFromOverrides(engine::BudgetOverrides{
      flags.max_cases, flags.max_bytes, flags.resident_batches, flags.staging_spool, flags.validation_spool});
  if (budget.ok()) return budget;
  const Status& s = budget.status();
  std::string flag = "--" + std::string(s.path());
  for (char& c : flag) c = c == '_' ? '-' : c;
  const bool is_flag =
      std::any_of(std::begin(kFlags), std::end(kFlags), [&flag](const FlagSetting& f) { return flag == f.flag; });
  if (!is_flag) return budget;  // a rule no flag sets keeps its setting's path
  return InvalidArgument(flag + ": " + std::string(s.message()));
}

std::filesystem::path ScratchDirFromFlags(const BudgetFlags& flags) {
  if (!flags.scratch.empty()) return flags.scratch;
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  return ec ? std::filesystem::path("/tmp") : tmp;
}

}  // namespace vigilo::cli
