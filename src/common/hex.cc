#include "vigilo/common/hex.h"

namespace vigilo {
namespace {
constexpr char kDigits[] = "0123456789abcdef";

int LowerHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

std::string HexEncode(std::span<const uint8_t> bytes) {
  std::string out(bytes.size() * 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

Result<std::vector<uint8_t>> HexDecodeLower(std::string_view hex) {
  if (hex.size() % 2 != 0) return InvalidFormat("hex string has odd length " + std::to_string(hex.size()));
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = LowerHexValue(hex[2 * i]);
    int lo = LowerHexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      size_t bad = hi < 0 ? 2 * i : 2 * i + 1;
      return InvalidFormat("not a lowercase hex digit at position " + std::to_string(bad));
    }
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

bool IsLowerHex(std::string_view s, size_t n_chars) {
  if (s.size() != n_chars) return false;
  for (char c : s) {
    if (LowerHexValue(c) < 0) return false;
  }
  return true;
}

}  // namespace vigilo
