#include "rle_encoder.h"

#include <cstddef>

namespace vigilo::parquet {
namespace {

void PutVarint(uint64_t v, std::vector<uint8_t>* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

// Length of the run of values equal to values[i] starting at i.
template <typename T>
size_t RunAt(std::span<const T> values, size_t i) {
  size_t j = i + 1;
  while (j < values.size() && values[j] == values[i]) ++j;
  return j - i;
}

template <typename T>
void Encode(std::span<const T> values, int bit_width, std::vector<uint8_t>* out) {
  const uint64_t mask = bit_width >= 32 ? 0xffffffffu : (uint64_t{1} << bit_width) - 1;
  const size_t value_bytes = static_cast<size_t>((bit_width + 7) / 8);
  size_t i = 0;
  while (i < values.size()) {
    size_t run = RunAt(values, i);
    if (run >= 8) {
      PutVarint(uint64_t{run} << 1, out);
      uint64_t v = values[i] & mask;
      for (size_t b = 0; b < value_bytes; ++b) out->push_back(static_cast<uint8_t>(v >> (8 * b)));
      i += run;
      continue;
    }
    // Bit-packed groups of 8 until a long run starts at a group boundary.
    size_t end = i;
    do {
      end += 8;
    } while (end < values.size() && RunAt(values, end) < 8);
    size_t groups = (end - i) / 8;
    PutVarint(uint64_t{groups} << 1 | 1, out);
    uint64_t acc = 0;
    int bits = 0;
    for (size_t k = i; k < end; ++k) {
      uint64_t v = k < values.size() ? (values[k] & mask) : 0;  // zero padding in the last group
      acc |= v << bits;
      bits += bit_width;
      while (bits >= 8) {
        out->push_back(static_cast<uint8_t>(acc));
        acc >>= 8;
        bits -= 8;
      }
    }
    // 8 values of bit_width bits always fill whole bytes.
    i = end;
  }
}

}  // namespace

int BitWidth(uint64_t max_value) {
  int w = 0;
  while (max_value != 0) {
    ++w;
    max_value >>= 1;
  }
  return w;
}

void RleEncode(std::span<const uint32_t> values, int bit_width, std::vector<uint8_t>* out) {
  Encode(values, bit_width, out);
}

void RleEncode(std::span<const uint8_t> values, int bit_width, std::vector<uint8_t>* out) {
  Encode(values, bit_width, out);
}

void RleEncodeWithLength(std::span<const uint8_t> values, int bit_width, std::vector<uint8_t>* out) {
  size_t at = out->size();
  out->resize(at + 4);
  Encode(values, bit_width, out);
  // Callers bound page sizes to int32 before encoding, so this fits.
  auto length = static_cast<uint32_t>(out->size() - at - 4);
  for (size_t b = 0; b < 4; ++b) (*out)[at + b] = static_cast<uint8_t>(length >> (8 * b));
}

}  // namespace vigilo::parquet
