// Internal to the column reader: the memory budget and the value decoders for
// each encoding. Each decoder appends exactly `count` values to a
// ColumnValues, reports how many bytes it consumed, and returns offsets
// relative to the start of the bytes it was given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/parquet/column_reader.h"

namespace vigilo::parquet::decode {

// Bytes still allowed for buffers; charges are by capacity.
class Budget {
 public:
  explicit Budget(uint64_t bytes) : left_(bytes) {}
  Status Charge(uint64_t bytes) {
    if (bytes > left_) return LimitExceeded("decoding the column chunk exceeds the memory budget");
    left_ -= bytes;
    return Status::Ok();
  }

 private:
  uint64_t left_;
};

// Resizes `v` to `n` elements, charging any capacity growth first (doubling
// when the budget allows, else growing exactly).
template <typename T>
Status Grow(std::vector<T>& v, size_t n, Budget& budget) {
  if (n > v.capacity()) {
    if (n > SIZE_MAX / 2 / sizeof(T)) return LimitExceeded("decoding the column chunk exceeds the memory budget");
    size_t cap = std::max(n, v.capacity() * 2);
    if (!budget.Charge((cap - v.capacity()) * sizeof(T)).ok()) {
      cap = n;
      VIGILO_RETURN_IF_ERROR(budget.Charge((cap - v.capacity()) * sizeof(T)));
    }
    v.reserve(cap);
  }
  v.resize(n);
  return Status::Ok();
}

// Bytes per value of a fixed-width physical type (0 for BYTE_ARRAY).
size_t FixedWidth(Type type, int32_t type_length);

// PLAIN values (also the dictionary page's encoding).
Status DecodePlain(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget, size_t* consumed);

// RLE-encoded BOOLEAN values: a u32 length prefix, then a width-1 hybrid stream.
Status DecodeRleBooleans(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget,
                         size_t* consumed);

// Dictionary indices (a bit-width byte, then a hybrid stream) looked up in
// `dictionary`; `indices` is reusable scratch.
Status DecodeDictionaryIndices(std::span<const uint8_t> data, size_t count, const ColumnValues& dictionary,
                               std::vector<uint32_t>& indices, ColumnValues* out, Budget& budget, size_t* consumed);

// DELTA_BINARY_PACKED for INT32/INT64 columns.
Status DecodeDeltaBinaryPacked(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget,
                               size_t* consumed);

// DELTA_BINARY_PACKED into a plain vector (used for byte-array lengths),
// replacing its contents with exactly `count` values.
Status DecodeDeltaInt32s(std::span<const uint8_t> data, size_t count, std::vector<int32_t>& out, Budget& budget,
                         size_t* consumed);

Status DecodeDeltaLengthByteArray(std::span<const uint8_t> data, size_t count, std::vector<int32_t>& lengths,
                                  ColumnValues* out, Budget& budget, size_t* consumed);

Status DecodeDeltaByteArray(std::span<const uint8_t> data, size_t count, std::vector<int32_t>& prefixes,
                            std::vector<int32_t>& suffixes, ColumnValues* out, Budget& budget, size_t* consumed);

Status DecodeByteStreamSplit(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget,
                             size_t* consumed);

// Parquet's name for an encoding ("RLE_DICTIONARY"), or "encoding N".
std::string EncodingName(Encoding encoding);
std::string TypeName(Type type);

}  // namespace vigilo::parquet::decode
