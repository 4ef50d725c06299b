// Lowercase hexadecimal encoding. Digests in vigilo formats are always
// lowercase; decoding therefore rejects uppercase unless asked not to.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"

namespace vigilo {

std::string HexEncode(std::span<const uint8_t> bytes);

// Decodes lowercase hex; rejects odd length, uppercase and non-hex characters.
Result<std::vector<uint8_t>> HexDecodeLower(std::string_view hex);

// True if `s` is exactly `n_chars` lowercase hex digits.
bool IsLowerHex(std::string_view s, size_t n_chars);

}  // namespace vigilo
