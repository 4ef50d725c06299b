// UUIDs in their canonical lowercase text form (RFC 9562):
// xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"

namespace vigilo {

class Uuid {
 public:
  using Bytes = std::array<uint8_t, 16>;

  Uuid() = default;  // the nil UUID
  explicit Uuid(const Bytes& bytes) : bytes_(bytes) {}

  // Parses the canonical lowercase form; rejects uppercase, braces, missing
  // hyphens and the nil UUID (vigilo never uses nil as an identity).
  static Result<Uuid> Parse(std::string_view text);

  // A UUIDv8 (RFC 9562 section 5.8) from the first 16 bytes of `hash`: the
  // version nibble is set to 8 and the variant bits to 10.
  static Uuid V8FromHash(const std::array<uint8_t, 32>& hash);

  const Bytes& bytes() const { return bytes_; }
  int version() const { return bytes_[6] >> 4; }
  // True for the RFC 9562 variant (bits 10xx in byte 8).
  bool is_rfc_variant() const { return (bytes_[8] & 0xc0) == 0x80; }
  bool is_nil() const;

  std::string ToString() const;

  friend bool operator==(const Uuid&, const Uuid&) = default;

 private:
  Bytes bytes_{};
};

}  // namespace vigilo
