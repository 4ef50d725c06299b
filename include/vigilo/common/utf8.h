// Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vigilo {

inline constexpr size_t kUtf8Valid = static_cast<size_t>(-1);

// Returns kUtf8Valid, or the byte offset of the first byte of the first
// invalid sequence. Uses simdjson's SIMD validator for the common valid case.
size_t FindInvalidUtf8(std::string_view bytes);

inline bool IsValidUtf8(std::string_view bytes) { return FindInvalidUtf8(bytes) == kUtf8Valid; }

// Length of the valid UTF-8 sequence that starts at bytes[i], or 0 if the
// sequence there is invalid or truncated.
size_t Utf8SequenceLength(std::string_view bytes, size_t i);

// Offset of the first control character (C0 U+0000..U+001F, DEL U+007F, or
// C1 U+0080..U+009F, which UTF-8 encodes as C2 80..C2 9F), or kUtf8Valid if
// there is none. `bytes` should be valid UTF-8.
size_t FindControlCharacter(std::string_view bytes);

}  // namespace vigilo
