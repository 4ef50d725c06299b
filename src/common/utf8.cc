#include "vigilo/common/utf8.h"

#include <simdjson.h>

namespace vigilo {

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t n = s.size();
  uint8_t b0 = p[i];
  if (b0 < 0x80) return 1;
  auto cont = [&](size_t k) { return i + k < n && (p[i + k] & 0xc0) == 0x80; };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    uint8_t b1 = p[i + 1];
    if (b0 == 0xe0 && b1 < 0xa0) return 0;   // overlong
    if (b0 == 0xed && b1 >= 0xa0) return 0;  // surrogate
    return 3;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    uint8_t b1 = p[i + 1];
    if (b0 == 0xf0 && b1 < 0x90) return 0;   // overlong
    if (b0 == 0xf4 && b1 >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;  // continuation byte, 0xc0/0xc1 or 0xf5..0xff
}

size_t FindControlCharacter(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<uint8_t>(s[i]);
    bool c1 = c == 0xc2 && i + 1 < s.size() && static_cast<uint8_t>(s[i + 1]) >= 0x80 &&
              static_cast<uint8_t>(s[i + 1]) <= 0x9f;
    if (c < 0x20 || c == 0x7f || c1) return i;
  }
  return kUtf8Valid;
}

size_t FindInvalidUtf8(std::string_view bytes) {
  if (simdjson::validate_utf8(bytes.data(), bytes.size())) return kUtf8Valid;
  // Slow path only to locate the error.
  for (size_t i = 0; i < bytes.size();) {
    size_t len = Utf8SequenceLength(bytes, i);
    if (len == 0) return i;
    i += len;
  }
  return kUtf8Valid;  // unreachable unless the two validators disagree
}

}  // namespace vigilo
