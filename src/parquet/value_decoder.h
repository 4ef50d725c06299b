// Internal to the column reader: the memory budget and the value decoders for
// each encoding. Each decoder appends exactly `count` values to a
// ColumnValues, reports how many bytes it consumed, and returns offsets
// relative to the start of the bytes it was given.
#pragma once

#include <cstddef>
#include <compare>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
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

// Makes room for `n` elements, charging any capacity growth first (doubling
// when the budget allows, else growing exactly).
template <typename T>
Status Reserve(std::vector<T>& v, size_t n, Budget& budget) {
  if (n > v.capacity()) {
    if (n > SIZE_MAX / 2 / sizeof(T)) return LimitExceeded("decoding the column chunk exceeds the memory budget");
    size_t cap = std::max(n, v.capacity() * 2);
    if (!budget.Charge((cap - v.capacity()) * sizeof(T)).ok()) {
      cap = n;
      VIGILO_RETURN_IF_ERROR(budget.Charge((cap - v.capacity()) * sizeof(T)));
    }
    v.reserve(cap);
  }
  return Status::Ok();
}

// Resizes `v` to `n` elements (new ones zero), charging growth as Reserve.
template <typename T>
Status Grow(std::vector<T>& v, size_t n, Budget& budget) {
  VIGILO_RETURN_IF_ERROR(Reserve(v, n, budget));
  v.resize(n);
  return Status::Ok();
}

// As Grow, new elements set to `fill` (one pass, not zero then fill).
template <typename T>
Status GrowFill(std::vector<T>& v, size_t n, T fill, Budget& budget) {
  VIGILO_RETURN_IF_ERROR(Reserve(v, n, budget));
  v.resize(n, fill);
  return Status::Ok();
}

// Scratch that is reused across pages: grows to at least `n` elements and
// never shrinks, so a page smaller than the last one costs no re-zeroing.
// Callers use the first n elements.
template <typename T>
Result<std::span<T>> Scratch(std::vector<T>& v, size_t n, Budget& budget) {
  if (v.size() < n) VIGILO_RETURN_IF_ERROR(Grow(v, n, budget));
  return std::span<T>(v.data(), n);
}

// A reusable byte buffer for decompressed pages: growth is charged like
// Reserve, but the bytes are never zeroed (decompression overwrites all of
// them) and never copied on growth (the old contents are dead).
class PageBuffer {
 public:
  Result<std::span<uint8_t>> Get(size_t n, Budget& budget) {
    if (n > capacity_) {
      size_t cap = std::max(n, capacity_ <= SIZE_MAX / 2 ? capacity_ * 2 : n);
      if (!budget.Charge(cap - capacity_).ok()) {
        cap = n;
        VIGILO_RETURN_IF_ERROR(budget.Charge(cap - capacity_));
      }
      data_.reset(new uint8_t[cap]);  // default-initialised: not zeroed
      capacity_ = cap;
    }
    return std::span<uint8_t>(data_.get(), n);
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

// A random-access iterator over gen(0), gen(1), ...: vector::insert from a
// pair of these constructs each new element once, in place, where
// Grow-then-write would first zero it.
template <typename T, typename Gen>
class GenIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = T;
  GenIterator(const Gen* gen, size_t i) : gen_(gen), i_(i) {}
  T operator*() const { return (*gen_)(i_); }
  T operator[](difference_type k) const { return (*gen_)(i_ + static_cast<size_t>(k)); }
  GenIterator& operator++() { ++i_; return *this; }
  GenIterator operator++(int) { GenIterator t = *this; ++i_; return t; }
  GenIterator& operator--() { --i_; return *this; }
  GenIterator& operator+=(difference_type k) { i_ += static_cast<size_t>(k); return *this; }
  GenIterator operator+(difference_type k) const { return GenIterator(gen_, i_ + static_cast<size_t>(k)); }
  difference_type operator-(const GenIterator& o) const { return static_cast<difference_type>(i_ - o.i_); }
  bool operator==(const GenIterator& o) const { return i_ == o.i_; }
  auto operator<=>(const GenIterator& o) const { return i_ <=> o.i_; }

 private:
  const Gen* gen_;
  size_t i_;
};

// Appends gen(0) .. gen(count - 1) to `v`, charging growth as Reserve.
template <typename T, typename Gen>
Status AppendGenerated(std::vector<T>& v, size_t count, Budget& budget, const Gen& gen) {
  VIGILO_RETURN_IF_ERROR(Reserve(v, v.size() + count, budget));
  v.insert(v.end(), GenIterator<T, Gen>(&gen, 0), GenIterator<T, Gen>(&gen, count));
  return Status::Ok();
}

// Appends `count` little-endian T values stored back to back at `src`
// (any alignment), charging growth as Reserve.
template <typename T>
Status AppendRaw(std::vector<T>& v, const uint8_t* src, size_t count, Budget& budget) {
  VIGILO_RETURN_IF_ERROR(Reserve(v, v.size() + count, budget));
  if (reinterpret_cast<uintptr_t>(src) % alignof(T) == 0) {
    // Aligned: a typed pointer range, which insert copies with one memmove
    // (for a trivially copyable T it copies bytes, never reading through T).
    const T* typed = reinterpret_cast<const T*>(src);
    v.insert(v.end(), typed, typed + count);
    return Status::Ok();
  }
  // Unaligned: bounce through an aligned stack buffer that stays in L1; two
  // memcpys there beat an element-by-element loop.
  constexpr size_t kBounce = 4096 / sizeof(T);
  T bounce[kBounce];
  for (size_t done = 0; done < count;) {
    size_t n = std::min(kBounce, count - done);
    std::memcpy(bounce, src + done * sizeof(T), n * sizeof(T));
    v.insert(v.end(), bounce, bounce + n);
    done += n;
  }
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
