// Range checks for configurable settings (budgets, governor limits), so that
// every layer words a bad override the same way: InvalidArgument at the
// setting's name, "NAME must be between LO and HI, got V" with units.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "vigilo/common/status.h"

namespace vigilo {

// "67108864 bytes (64 MiB)": the exact number, plus the unit a person reads.
std::string ByteCountText(uint64_t n);
// "250 ms".
std::string MillisecondsText(std::chrono::milliseconds d);

// InvalidArgument("FIELD MESSAGE") with FIELD as the path.
Status InvalidSetting(std::string_view field, const std::string& message);

Status CheckCount(std::string_view field, uint64_t value, uint64_t lo, uint64_t hi);
Status CheckBytes(std::string_view field, uint64_t value, uint64_t lo, uint64_t hi);
Status CheckDuration(std::string_view field, std::chrono::milliseconds value, std::chrono::milliseconds lo,
                     std::chrono::milliseconds hi);

}  // namespace vigilo
