// Internal: finds the next byte that ends a run of plain JSON string content.
// The parser and the writer stop at the same bytes: '"', '\\' and U+0000..U+001F
// (plus, for the streaming tokenizer, any non-ASCII byte, which it validates
// itself). SSE2 scans 16 bytes per step on x86-64; elsewhere (WASM) a table.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vigilo::json::internal {

inline bool IsSpecialByte(unsigned char c, bool stop_at_non_ascii) {
  return c < 0x20 || c == '"' || c == '\\' || (stop_at_non_ascii && c >= 0x80);
}

// Index of the first special byte in p[0..n), or n if there is none.
inline size_t FindSpecialByte(const char* p, size_t n, bool stop_at_non_ascii) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i max_control = _mm_set1_epi8(0x1f);
  for (; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash));
    hit = _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_min_epu8(x, max_control), x));  // x <= 0x1f
    int mask = _mm_movemask_epi8(hit);
    if (stop_at_non_ascii) mask |= _mm_movemask_epi8(x);  // high bit set
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < n; ++i) {
    if (IsSpecialByte(static_cast<unsigned char>(p[i]), stop_at_non_ascii)) return i;
  }
  return n;
}

}  // namespace vigilo::json::internal
