// WebAssembly build only (docs/format/wasm.md), force-included into the JSON
// writer: emscripten 3.1.6's libc++ has no floating-point std::to_chars. The
// writer asks for the shortest round-trip digits in scientific form; this
// overload finds them as the fewest significant digits whose correctly
// rounded printf form reads back as the same double (musl's printf and
// strtod are exact). It matches Ryu except where a shortest string that
// round-trips is not the correctly rounded one — never for the values the
// read core writes today (its JSON output is payload values; the smoke test
// compares query results, which are not formatted here).
#pragma once

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace std {

inline to_chars_result to_chars(char* first, char* last, double value, chars_format format) {
  char buf[40];
  int n = 0;
  for (int precision = 0; precision <= 17; ++precision) {
    n = std::snprintf(buf, sizeof buf, "%.*e", precision, value);
    if (format != chars_format::scientific || std::strtod(buf, nullptr) == value) break;
  }
  if (n < 0 || n > last - first) return {last, errc::value_too_large};
  std::memcpy(first, buf, static_cast<size_t>(n));
  return {first + n, errc{}};
}

}  // namespace std
