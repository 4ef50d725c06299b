// WebAssembly build only (docs/format/wasm.md), force-included into the JSON
// lexer: emscripten 3.1.6's libc++ has no floating-point std::from_chars.
// This overload gives the libstdc++ behaviour the lexer relies on: the
// correctly rounded value (musl's strtod rounds correctly), subnormals
// accepted, and result_out_of_range (value untouched) for an overflow or a
// nonzero decimal that rounds to zero. The lexer has checked the JSON number
// grammar before it calls, so the text is a plain decimal number.
#pragma once

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <system_error>

namespace std {

inline from_chars_result from_chars(const char* first, const char* last, double& value) {
  const std::string text(first, last);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  const ptrdiff_t used = end - text.c_str();
  if (used == 0) return {first, errc::invalid_argument};
  bool nonzero_digit = false;
  for (ptrdiff_t i = 0; i < used; ++i) {
    const char c = text[static_cast<size_t>(i)];
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') nonzero_digit = true;
  }
  if (std::isinf(v) || (v == 0 && nonzero_digit)) return {first + used, errc::result_out_of_range};
  value = v;
  return {first + used, errc{}};
}

}  // namespace std
