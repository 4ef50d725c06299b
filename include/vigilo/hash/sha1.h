// SHA-1 over OpenSSL's EVP interface, for name-based UUIDs (UUIDv5, RFC 9562
// section 5.5) only. SHA-1 is not collision-resistant: nothing in vigilo uses
// it as an integrity or identity hash of content (those are BLAKE3/SHA-256).
//
// Error policy as in sha256.h: an OpenSSL failure (allocation, a provider
// configuration without SHA-1) is reported as a Status (kInternal), never an
// abort.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"

namespace vigilo {

inline constexpr size_t kSha1DigestSize = 20;

// One-shot SHA-1 of the concatenation of `parts` (UUIDv5 hashes namespace
// bytes followed by the name, without copying them together).
Result<std::array<uint8_t, kSha1DigestSize>> Sha1(std::span<const std::string_view> parts);
Result<std::array<uint8_t, kSha1DigestSize>> Sha1(std::string_view data);
// Lowercase hex of the 20-byte digest (40 characters).
Result<std::string> Sha1Hex(std::string_view data);

}  // namespace vigilo
