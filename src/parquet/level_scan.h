// Internal to the column reader: run-at-a-time scans of level streams for
// the common no-null pages, so they skip materialising one level per value.
// Each scan only answers "handled" for a well-formed stream; on anything
// else (a value that differs, a truncated or malformed stream) it returns
// false and the caller falls back to the per-value path, which reports the
// exact error. So the fast paths never change what is accepted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace vigilo::parquet::levels {

// Whether the hybrid stream holds at least n levels and the first n all
// equal `level`.
bool AllEqual(std::span<const uint8_t> stream, int bit_width, size_t n, uint16_t level);

// For repetition levels of a column with max_repetition_level 1 (bit width
// 1): counts the row starts (level 0) among the first n levels and reports
// whether level 0 comes first. False if the stream is malformed or short.
bool CountRowStarts(std::span<const uint8_t> stream, size_t n, size_t* rows, bool* first_starts_row);

// Writes out[k] = base + i for the k-th row start i among the first n
// levels. Only for a stream CountRowStarts accepted with the same n.
void WriteRowStarts(std::span<const uint8_t> stream, size_t n, uint64_t base, uint64_t* out);

}  // namespace vigilo::parquet::levels
