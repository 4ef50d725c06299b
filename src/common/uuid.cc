#include "vigilo/common/uuid.h"

#include "vigilo/common/hex.h"

namespace vigilo {

Result<Uuid> Uuid::Parse(std::string_view text) {
  if (text.size() != 36) {
    return InvalidFormat("UUID must be 36 characters, got " + std::to_string(text.size()));
  }
  Bytes bytes{};
  size_t out = 0;
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return InvalidFormat("UUID must have '-' at position " + std::to_string(i));
      ++i;
      continue;
    }
    auto byte = HexDecodeLower(text.substr(i, 2));
    if (!byte.ok()) {
      return InvalidFormat("UUID must be lowercase hex digits and hyphens (8-4-4-4-12)");
    }
    bytes[out++] = (*byte)[0];
    i += 2;
  }
  Uuid uuid(bytes);
  if (uuid.is_nil()) return InvalidFormat("the nil UUID is not allowed");
  return uuid;
}

Uuid Uuid::V8FromHash(const std::array<uint8_t, 32>& hash) {
  Bytes bytes{};
  for (size_t i = 0; i < 16; ++i) bytes[i] = hash[i];
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x80);
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);
  return Uuid(bytes);
}

bool Uuid::is_nil() const {
  for (uint8_t b : bytes_) {
    if (b != 0) return false;
  }
  return true;
}

std::string Uuid::ToString() const {
  std::string hex = HexEncode(bytes_);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) +
         "-" + hex.substr(20);
}

}  // namespace vigilo
