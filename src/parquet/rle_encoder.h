// The RLE/bit-packed hybrid encoder (Parquet Encodings.md, "RLE"): the
// encoding of definition and repetition levels and of dictionary indices.
//
// Runs of 8 or more equal values become RLE runs; everything else is packed
// in groups of 8 values, LSB first. Only the last bit-packed group may be
// padded (with zero bits): readers stop after the count the page declares.
// The output depends only on the input values, so it is deterministic.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vigilo::parquet {

// Bits needed to store every value in [0, max_value] (0 for max_value 0).
int BitWidth(uint64_t max_value);

// Appends the hybrid encoding of `values` (each < 2^bit_width, bit_width in
// [0, 32]) to *out, without any length prefix. Values wider than bit_width
// are a caller bug; they are masked.
void RleEncode(std::span<const uint32_t> values, int bit_width, std::vector<uint8_t>* out);
void RleEncode(std::span<const uint8_t> values, int bit_width, std::vector<uint8_t>* out);

// Data page v1 levels: a 4-byte little-endian length, then RleEncode.
void RleEncodeWithLength(std::span<const uint8_t> values, int bit_width, std::vector<uint8_t>* out);

}  // namespace vigilo::parquet
