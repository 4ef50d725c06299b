#include "vigilo/engine/budget_overrides.h"

#include <cctype>

#include "vigilo/common/checked.h"

namespace vigilo::engine {
namespace {

struct OverrideSetting {
  std::string_view name;
  std::string_view setting;
};
constexpr OverrideSetting kOverrides[] = {
    {"max_cases", "case_batch_max_cases"},
    {"max_bytes", "case_batch_max_bytes"},
    {"resident_batches", "resident_case_batches"},
    {"staging_spool", "staging_spool_bytes"},
    {"validation_spool", "ingestion_validation_spool_bytes"},
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

Status Apply(const std::optional<std::string>& value, std::string_view name, bool bytes, uint64_t* setting) {
  if (!value) return Status::Ok();
  Result<uint64_t> parsed = bytes ? ParseByteSize(*value) : ParseCount(*value);
  if (!parsed.ok()) return InvalidArgument(std::string(parsed.status().message())).WithPath(std::string(name));
  *setting = *parsed;
  return Status::Ok();
}

}  // namespace

Result<uint64_t> ParseByteSize(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) {
    return InvalidArgument("expected a byte size such as 4096, 64KiB or 16MiB, got '" + std::string(text) + "'");
  }
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

std::string_view OverrideForSetting(std::string_view setting) {
  for (const OverrideSetting& o : kOverrides) {
    if (setting == o.setting) return o.name;
  }
  return "";
}

Result<cases::BudgetConfig> BudgetFromOverrides(const BudgetOverrides& o) {
  cases::BudgetConfig budget = cases::BudgetConfig::Defaults();
  VIGILO_RETURN_IF_ERROR(Apply(o.max_cases, "max_cases", false, &budget.case_batch_max_cases));
  VIGILO_RETURN_IF_ERROR(Apply(o.max_bytes, "max_bytes", true, &budget.case_batch_max_bytes));
  VIGILO_RETURN_IF_ERROR(Apply(o.resident_batches, "resident_batches", false, &budget.resident_case_batches));
  VIGILO_RETURN_IF_ERROR(Apply(o.staging_spool, "staging_spool", true, &budget.staging_spool_bytes));
  VIGILO_RETURN_IF_ERROR(
      Apply(o.validation_spool, "validation_spool", true, &budget.ingestion_validation_spool_bytes));
  if (Status s = budget.Validate(); !s.ok()) {
    std::string_view name = OverrideForSetting(s.path());
    if (name.empty()) return s;
    return InvalidArgument(std::string(s.message())).WithPath(std::string(name));
  }
  return budget;
}

}  // namespace vigilo::engine
