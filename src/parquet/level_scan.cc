#include "level_scan.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "levels_reader.h"

namespace vigilo::parquet::levels {
bool AllEqual(std::span<const uint8_t> stream, int bit_width, size_t n, uint16_t level) {
  RleBitPackedDecoder decoder(stream, bit_width);
  // Bit-packed values are unpacked into a small stack buffer, RLE runs
  // compared whole.
  constexpr size_t kPiece = 512;
  uint16_t scratch[kPiece];
  for (size_t at = 0; at < n;) {
    RleBitPackedDecoder::Span span;
    if (!decoder.NextSpan(n - at, &span).ok()) return false;
    if (span.rle) {
      if (span.value != level) return false;
    } else {
      for (size_t j = 0; j < span.count; j += kPiece) {
        size_t c = std::min(kPiece, span.count - j);
        UnpackBits(span.packed, span.first_bit + j * static_cast<uint64_t>(bit_width), bit_width, c, scratch);
        uint16_t diff = 0;
        for (size_t i = 0; i < c; ++i) diff |= static_cast<uint16_t>(scratch[i] ^ level);
        if (diff != 0) return false;
      }
    }
    at += span.count;
  }
  return true;
}

namespace {

// Bits [bit, bit + n) of `bytes`, LSB first, n <= 56; the caller has
// checked that they are present (bytes past the end are not read).
uint64_t Bits(std::span<const uint8_t> bytes, uint64_t bit, unsigned n) {
  auto byte = static_cast<size_t>(bit >> 3);
  uint64_t w = 0;
  std::memcpy(&w, bytes.data() + byte, std::min<size_t>(8, bytes.size() - byte));
  return (w >> (bit & 7)) & ((uint64_t{1} << n) - 1);
}

// Set bits of x. std::popcount is a libgcc call without -mpopcnt (the
// release build targets baseline x86-64); this SWAR count inlines.
inline size_t PopCount(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555u;
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return static_cast<size_t>((x * 0x0101010101010101u) >> 56);
}

// Repetition levels have bit width 1: in a bit-packed span, row starts are
// its zero bits, scanned 56 at a time.
constexpr unsigned kWindow = 56;

// Calls on_zeros(zero_mask, index_of_bit_0) for each window of a packed span.
template <typename F>
void ForEachZeroMask(const RleBitPackedDecoder::Span& span, size_t at, F on_zeros) {
  for (size_t j = 0; j < span.count; j += kWindow) {
    auto n = static_cast<unsigned>(std::min<size_t>(kWindow, span.count - j));
    uint64_t mask = (uint64_t{1} << n) - 1;
    on_zeros(~Bits(span.packed, span.first_bit + j, n) & mask, at + j);
  }
}

}  // namespace

bool CountRowStarts(std::span<const uint8_t> stream, size_t n, size_t* rows, bool* first_starts_row) {
  RleBitPackedDecoder decoder(stream, 1);
  size_t zeros = 0;
  bool first = false;
  for (size_t at = 0; at < n;) {
    RleBitPackedDecoder::Span span;
    if (!decoder.NextSpan(n - at, &span).ok()) return false;
    if (span.rle) {
      if (at == 0) first = span.value == 0;
      if (span.value == 0) zeros += span.count;
    } else {
      if (at == 0) first = (Bits(span.packed, span.first_bit, 1) == 0);
      ForEachZeroMask(span, at, [&](uint64_t z, size_t) { zeros += PopCount(z); });
    }
    at += span.count;
  }
  *rows = zeros;
  *first_starts_row = first;
  return true;
}

void WriteRowStarts(std::span<const uint8_t> stream, size_t n, uint64_t base, uint64_t* out) {
  RleBitPackedDecoder decoder(stream, 1);
  size_t k = 0;
  for (size_t at = 0; at < n;) {
    RleBitPackedDecoder::Span span;
    if (!decoder.NextSpan(n - at, &span).ok()) return;  // CountRowStarts accepted the stream
    if (span.rle) {
      if (span.value == 0) {
        for (size_t i = 0; i < span.count; ++i) out[k++] = base + at + i;
      }
    } else {
      ForEachZeroMask(span, at, [&](uint64_t z, size_t first) {
        while (z != 0) {
          out[k++] = base + first + static_cast<size_t>(std::countr_zero(z));
          z &= z - 1;
        }
      });
    }
    at += span.count;
  }
}

}  // namespace vigilo::parquet::levels
