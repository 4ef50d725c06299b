// Bit unpacking and the RLE/bit-packed hybrid encoding (Parquet Encodings.md,
// "RLE"), used for repetition/definition levels, dictionary indices and RLE
// booleans. Sans-IO and allocation-free: callers pass the output buffer.
//
// Every run is checked against the bytes present; a stream that ends before
// `count` values is kParseError, and error offsets are relative to the start
// of the given bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "vigilo/common/result.h"

namespace vigilo::parquet {

// Bits needed for values 0..max_value (0 for max_value 0).
int BitWidthFor(uint64_t max_value);

// Unpacks `count` little-endian, LSB-first values of `bit_width` bits (0..64
// for uint64_t, 0..32 for uint32_t) starting at bit 0 of `bytes`, which must
// hold at least ceil(count * bit_width / 8) bytes (checked by the caller).
void UnpackBits(std::span<const uint8_t> bytes, int bit_width, size_t count, uint32_t* out);
void UnpackBits(std::span<const uint8_t> bytes, int bit_width, size_t count, uint64_t* out);
// From bit `first_bit` on, into 16-bit values (bit_width 0..16).
void UnpackBits(std::span<const uint8_t> bytes, uint64_t first_bit, int bit_width, size_t count, uint16_t* out);

// Decodes a hybrid stream without a length prefix.
class RleBitPackedDecoder {
 public:
  // bit_width must be 0..32 (checked by the caller).
  RleBitPackedDecoder(std::span<const uint8_t> bytes, int bit_width) : bytes_(bytes), bit_width_(bit_width) {}

  // Decodes exactly out.size() values; kParseError if the stream ends first.
  Status Decode(std::span<uint32_t> out);
  Status Decode(std::span<uint16_t> out);
  Status Decode(std::span<uint8_t> out);

  // Run-at-a-time decoding, for callers that exploit runs (the column
  // reader's level fast paths): takes the next piece, at most `max` (> 0)
  // values, of the current run, without unpacking it. An RLE piece is
  // `value` repeated `count` times; a bit-packed piece's values are bits
  // [first_bit, first_bit + count * bit_width) of `packed` (checked to be
  // present; UnpackBits reads them). A stream that ends is kParseError, as
  // in Decode; pieces and Decode calls may be mixed.
  struct Span {
    bool rle = false;
    uint32_t value = 0;  // RLE only
    size_t count = 0;
    std::span<const uint8_t> packed;
    uint64_t first_bit = 0;
  };
  Status NextSpan(size_t max, Span* span);

  size_t offset() const { return pos_; }  // bytes consumed so far

 private:
  template <typename T>
  Status DecodeInto(std::span<T> out);
  Status NextRun();

  std::span<const uint8_t> bytes_;
  int bit_width_;
  size_t pos_ = 0;
  // The current run: an RLE run repeats `rle_value`; a bit-packed run reads
  // values from `packed_` starting at value index `packed_next_`.
  bool is_rle_ = true;
  uint64_t run_left_ = 0;
  uint32_t rle_value_ = 0;
  std::span<const uint8_t> packed_;
  uint64_t packed_next_ = 0;
};

// The hybrid stream of one page's levels: with `length_prefixed` (data page
// v1) the u32 little-endian length is checked and stripped; *consumed
// receives the bytes used (prefix included; for v2 the whole span).
Status LevelStream(std::span<const uint8_t> bytes, bool length_prefixed, std::span<const uint8_t>* stream,
                   size_t* consumed);

// Definition or repetition levels of one data page (0..max_level each).
// With `length_prefixed` (data page v1) the stream starts with its byte
// length as u32 little-endian; *consumed receives the bytes used (prefix
// included; for v2 pages the whole given span). A level above max_level is
// kInvalidFormat.
Status DecodeLevels(std::span<const uint8_t> bytes, bool length_prefixed, int16_t max_level,
                    std::span<uint16_t> out, size_t* consumed);

}  // namespace vigilo::parquet
