#include "levels_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

namespace vigilo::parquet {
namespace {

// Loads 8 bytes at `byte` (zero-filled past the end of `bytes`).
inline uint64_t Load64(std::span<const uint8_t> bytes, size_t byte) {
  uint64_t word = 0;
  if (byte + 8 <= bytes.size()) {
    std::memcpy(&word, bytes.data() + byte, 8);
  } else if (byte < bytes.size()) {
    std::memcpy(&word, bytes.data() + byte, bytes.size() - byte);
  }
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
  return word;
}

template <typename T>
void Unpack(std::span<const uint8_t> bytes, uint64_t first_bit, int bit_width, size_t count, T* out) {
  if (bit_width == 0) {
    std::fill(out, out + count, T{0});
    return;
  }
  const uint64_t mask = bit_width == 64 ? ~uint64_t{0} : (uint64_t{1} << bit_width) - 1;
  const auto width = static_cast<uint64_t>(bit_width);
  // Fast path: a whole unaligned 8-byte load is in bounds; values of up to 56
  // bits are within one load (shift <= 7).
  size_t i = 0;
  if (bit_width <= 56 && bytes.size() >= 8) {
    // Values whose 8-byte load stays in bounds: those starting at or before
    // the last bit of byte size - 8. Counted once so the loop has no check.
    uint64_t last_bit = (uint64_t{bytes.size()} - 8) * 8 + 7;
    size_t safe = 0;
    if (first_bit <= last_bit) safe = static_cast<size_t>(std::min<uint64_t>(count, (last_bit - first_bit) / width + 1));
    for (; i < safe; ++i) {
      uint64_t bit = first_bit + i * width;
      size_t byte = bit >> 3;
      uint64_t word;
      std::memcpy(&word, bytes.data() + byte, 8);
      if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
      out[i] = static_cast<T>((word >> (bit & 7)) & mask);
    }
  }
  for (; i < count; ++i) {
    uint64_t bit = first_bit + i * width;
    size_t byte = bit >> 3;
    unsigned shift = static_cast<unsigned>(bit & 7);
    uint64_t v = Load64(bytes, byte) >> shift;
    if (shift != 0 && bit_width + shift > 64) v |= Load64(bytes, byte + 8) << (64 - shift);
    out[i] = static_cast<T>(v & mask);
  }
}

}  // namespace

int BitWidthFor(uint64_t max_value) { return max_value == 0 ? 0 : 64 - std::countl_zero(max_value); }

void UnpackBits(std::span<const uint8_t> bytes, int bit_width, size_t count, uint32_t* out) {
  Unpack(bytes, 0, bit_width, count, out);
}
void UnpackBits(std::span<const uint8_t> bytes, int bit_width, size_t count, uint64_t* out) {
  Unpack(bytes, 0, bit_width, count, out);
}
void UnpackBits(std::span<const uint8_t> bytes, uint64_t first_bit, int bit_width, size_t count, uint16_t* out) {
  Unpack(bytes, first_bit, bit_width, count, out);
}

Status RleBitPackedDecoder::NextRun() {
  // ULEB128 run header (at most 5 bytes for the 32-bit headers writers use;
  // we accept up to 9 so a 63-bit count is representable but capped below).
  uint64_t header = 0;
  int shift = 0;
  size_t start = pos_;
  while (true) {
    if (pos_ >= bytes_.size()) return ParseError("RLE/bit-packed stream ends inside a run header").WithOffset(start);
    uint8_t b = bytes_[pos_++];
    header |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) break;
    shift += 7;
    if (shift > 56) return ParseError("RLE/bit-packed run header is too long").WithOffset(start);
  }
  if (header & 1) {
    // Bit-packed: header >> 1 groups of 8 values, bit_width bytes per group.
    // A final run may be cut short of its padding; values are checked as read.
    // Capped so the products below cannot overflow; no page holds 2^32 groups.
    uint64_t groups = std::min<uint64_t>(header >> 1, uint64_t{1} << 32);
    uint64_t declared = groups * static_cast<uint64_t>(bit_width_);
    uint64_t avail = std::min<uint64_t>(declared, bytes_.size() - pos_);
    is_rle_ = false;
    run_left_ = groups * 8;
    packed_ = bytes_.subspan(pos_, avail);
    packed_next_ = 0;
    pos_ += avail;
  } else {
    size_t value_bytes = (static_cast<size_t>(bit_width_) + 7) / 8;
    if (bytes_.size() - pos_ < value_bytes) {
      return ParseError("RLE/bit-packed stream ends inside a run value").WithOffset(pos_);
    }
    uint32_t v = 0;
    for (size_t k = 0; k < value_bytes; ++k) v |= static_cast<uint32_t>(bytes_[pos_ + k]) << (8 * k);
    if (bit_width_ < 32 && (v >> bit_width_) != 0) {
      return ParseError("RLE run value " + std::to_string(v) + " does not fit " + std::to_string(bit_width_) +
                        " bits")
          .WithOffset(pos_);
    }
    pos_ += value_bytes;
    is_rle_ = true;
    run_left_ = header >> 1;
    rle_value_ = v;
  }
  return Status::Ok();
}

template <typename T>
Status RleBitPackedDecoder::DecodeInto(std::span<T> out) {
  size_t done = 0;
  while (done < out.size()) {
    if (run_left_ == 0) {
      VIGILO_RETURN_IF_ERROR(NextRun());
      continue;
    }
    size_t take = static_cast<size_t>(std::min<uint64_t>(run_left_, out.size() - done));
    if (is_rle_) {
      std::fill(out.data() + done, out.data() + done + take, static_cast<T>(rle_value_));
    } else {
      uint64_t first_bit = packed_next_ * static_cast<uint64_t>(bit_width_);
      uint64_t end_bit = first_bit + take * static_cast<uint64_t>(bit_width_);
      if ((end_bit + 7) / 8 > packed_.size()) {
        return ParseError("bit-packed run is truncated").WithOffset(pos_);
      }
      Unpack(packed_, first_bit, bit_width_, take, out.data() + done);
      packed_next_ += take;
    }
    run_left_ -= take;
    done += take;
  }
  return Status::Ok();
}

Status RleBitPackedDecoder::Decode(std::span<uint32_t> out) { return DecodeInto(out); }
Status RleBitPackedDecoder::Decode(std::span<uint16_t> out) { return DecodeInto(out); }
Status RleBitPackedDecoder::Decode(std::span<uint8_t> out) { return DecodeInto(out); }

Status RleBitPackedDecoder::NextSpan(size_t max, Span* span) {
  while (run_left_ == 0) VIGILO_RETURN_IF_ERROR(NextRun());
  size_t take = static_cast<size_t>(std::min<uint64_t>(run_left_, max));
  span->rle = is_rle_;
  span->count = take;
  if (is_rle_) {
    span->value = rle_value_;
  } else {
    uint64_t first_bit = packed_next_ * static_cast<uint64_t>(bit_width_);
    uint64_t end_bit = first_bit + take * static_cast<uint64_t>(bit_width_);
    if ((end_bit + 7) / 8 > packed_.size()) return ParseError("bit-packed run is truncated").WithOffset(pos_);
    span->packed = packed_;
    span->first_bit = first_bit;
    packed_next_ += take;
  }
  run_left_ -= take;
  return Status::Ok();
}

Status LevelStream(std::span<const uint8_t> bytes, bool length_prefixed, std::span<const uint8_t>* stream,
                   size_t* consumed) {
  if (!length_prefixed) {
    *stream = bytes;
    *consumed = bytes.size();
    return Status::Ok();
  }
  if (bytes.size() < 4) return ParseError("levels length prefix is truncated").WithOffset(0);
  uint32_t n = static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
               static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
  if (n > bytes.size() - 4) {
    return ParseError("levels length " + std::to_string(n) + " exceeds the " + std::to_string(bytes.size() - 4) +
                      " bytes left in the page")
        .WithOffset(0);
  }
  *stream = bytes.subspan(4, n);
  *consumed = 4 + size_t{n};
  return Status::Ok();
}

Status DecodeLevels(std::span<const uint8_t> bytes, bool length_prefixed, int16_t max_level,
                    std::span<uint16_t> out, size_t* consumed) {
  std::span<const uint8_t> stream;
  VIGILO_RETURN_IF_ERROR(LevelStream(bytes, length_prefixed, &stream, consumed));
  size_t start = length_prefixed ? 4 : 0;
  int width = BitWidthFor(static_cast<uint64_t>(max_level));
  RleBitPackedDecoder decoder(stream, width);
  Status st = decoder.Decode(out);
  if (!st.ok()) return st.offset() ? std::move(st).WithOffset(start + *st.offset()) : st;
  // With a bit width from max_level only values up to 2^width - 1 fit;
  // check the exact bound.
  auto max = static_cast<uint16_t>(max_level);
  if ((uint32_t{1} << width) - 1 != max) {
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] > max) {
        return InvalidFormat("level " + std::to_string(out[i]) + " exceeds the maximum " + std::to_string(max) +
                             " (value " + std::to_string(i) + ")");
      }
    }
  }
  return Status::Ok();
}

}  // namespace vigilo::parquet
