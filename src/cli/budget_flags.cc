#include "budget_flags.h"

#include <cctype>
#include <limits>
#include <system_error>

#include "vigilo/common/checked.h"

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

Result<uint64_t> ParseCount(std::string_view text) {
  if (text.empty() || text.size() > 20) return InvalidArgument("expected a positive integer");
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return InvalidArgument("expected a positive integer, got '" + std::string(text) + "'");
    VIGILO_ASSIGN_OR_RETURN(v, CheckedMul<uint64_t>(v, 10));
    VIGILO_ASSIGN_OR_RETURN(v, CheckedAdd<uint64_t>(v, static_cast<uint64_t>(c - '0')));
  }
  return v;
}

Status Apply(const std::optional<std::string>& value, const char* flag, bool bytes, uint64_t* setting) {
  if (!value) return Status::Ok();
  Result<uint64_t> parsed = bytes ? ParseByteSize(*value) : ParseCount(*value);
  if (!parsed.ok()) return InvalidArgument(std::string(flag) + ": " + std::string(parsed.status().message()));
  *setting = *parsed;
  return Status::Ok();
}

}  // namespace

Result<uint64_t> ParseByteSize(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) return InvalidArgument("expected a byte size such as 4096, 64KiB or 16MiB, got '" + std::string(text) + "'");
  Result<uint64_t> number = ParseCount(text.substr(0, digits));
  if (!number.ok()) return InvalidArgument("byte size '" + std::string(text) + "' is too large");
  std::string unit(text.substr(digits));
  if (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  uint64_t scale = 1;
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else if (unit == "K" || unit == "KB" || unit == "KIB") {
    scale = uint64_t{1} << 10;
  } else if (unit == "M" || unit == "MB" || unit == "MIB") {
    scale = uint64_t{1} << 20;
  } else if (unit == "G" || unit == "GB" || unit == "GIB") {
    scale = uint64_t{1} << 30;
  } else if (unit == "T" || unit == "TB" || unit == "TIB") {
    scale = uint64_t{1} << 40;
  } else {
    return InvalidArgument("unknown unit in byte size '" + std::string(text) + "' (use KiB, MiB, GiB or TiB)");
  }
  Result<uint64_t> total = CheckedMul<uint64_t>(*number, scale);
  if (!total.ok()) return InvalidArgument("byte size '" + std::string(text) + "' is too large");
  return *total;
}

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
  cases::BudgetConfig budget = cases::BudgetConfig::Defaults();
  VIGILO_RETURN_IF_ERROR(Apply(flags.max_cases, "--max-cases", false, &budget.case_batch_max_cases));
  VIGILO_RETURN_IF_ERROR(Apply(flags.max_bytes, "--max-bytes", true, &budget.case_batch_max_bytes));
  VIGILO_RETURN_IF_ERROR(Apply(flags.resident_batches, "--resident-batches", false, &budget.resident_case_batches));
  VIGILO_RETURN_IF_ERROR(Apply(flags.staging_spool, "--staging-spool", true, &budget.staging_spool_bytes));
  VIGILO_RETURN_IF_ERROR(
      Apply(flags.validation_spool, "--validation-spool", true, &budget.ingestion_validation_spool_bytes));
  if (Status s = budget.Validate(); !s.ok()) {
    std::string flag = FlagForSetting(s.path());
    if (flag.empty()) return s;
    return InvalidArgument(flag + ": " + std::string(s.message()));
  }
  return budget;
}

std::filesystem::path ScratchDirFromFlags(const BudgetFlags& flags) {
  if (!flags.scratch.empty()) return flags.scratch;
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  return ec ? std::filesystem::path("/tmp") : tmp;
}

}  // namespace vigilo::cli
