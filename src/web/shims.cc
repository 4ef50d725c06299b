// WebAssembly build only: CRC-32 (the zlib.h shim) and UTF-8 validation (the
// simdjson.h shim), so the read core builds without downloading zlib or
// simdjson sources (docs/format/wasm.md).
#include <array>
#include <cstdint>
#include <string_view>

#include "shim/simdjson.h"
#include "shim/zlib.h"
#include "vigilo/common/utf8.h"

namespace {

// The reflected CRC-32 of zlib (polynomial 0xEDB88320), one table lookup per byte.
constexpr std::array<uint32_t, 256> kCrcTable = [] {
  std::array<uint32_t, 256> t{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[n] = c;
  }
  return t;
}();

}  // namespace

extern "C" uLong crc32(uLong crc, const Bytef* buf, uInt len) {
  if (buf == nullptr) return 0;  // zlib's "initial value" call
  uint32_t c = static_cast<uint32_t>(crc) ^ 0xFFFFFFFFu;
  for (uInt i = 0; i < len; ++i) c = kCrcTable[(c ^ buf[i]) & 0xFFu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

namespace simdjson {

bool validate_utf8(const char* buf, size_t len) noexcept {
  const std::string_view s(buf, len);
  for (size_t i = 0; i < len;) {
    const size_t n = vigilo::Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace simdjson
