#include "vigilo/common/setting_checks.h"

#include <utility>

namespace vigilo {

std::string ByteCountText(uint64_t n) {
  std::string text = std::to_string(n) + " bytes";
  const std::pair<uint64_t, const char*> units[] = {
      {uint64_t{1} << 40, "TiB"}, {uint64_t{1} << 30, "GiB"}, {uint64_t{1} << 20, "MiB"}, {uint64_t{1} << 10, "KiB"}};
  for (const auto& [unit, name] : units) {
    if (n >= unit && n % unit == 0) return text + " (" + std::to_string(n / unit) + " " + name + ")";
  }
  return text;
}

std::string MillisecondsText(std::chrono::milliseconds d) { return std::to_string(d.count()) + " ms"; }

Status InvalidSetting(std::string_view field, const std::string& message) {
  return InvalidArgument(std::string(field) + " " + message).WithPath(std::string(field));
}

Status CheckCount(std::string_view field, uint64_t value, uint64_t lo, uint64_t hi) {
  if (value >= lo && value <= hi) return Status::Ok();
  return InvalidSetting(field, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                                   ", got " + std::to_string(value));
}

Status CheckBytes(std::string_view field, uint64_t value, uint64_t lo, uint64_t hi) {
  if (value >= lo && value <= hi) return Status::Ok();
  return InvalidSetting(field, "must be between " + ByteCountText(lo) + " and " + ByteCountText(hi) + ", got " +
                                   ByteCountText(value));
}

Status CheckDuration(std::string_view field, std::chrono::milliseconds value, std::chrono::milliseconds lo,
                     std::chrono::milliseconds hi) {
  if (value >= lo && value <= hi) return Status::Ok();
  return InvalidSetting(field, "must be between " + MillisecondsText(lo) + " and " + MillisecondsText(hi) +
                                   ", got " + MillisecondsText(value));
}

}  // namespace vigilo
