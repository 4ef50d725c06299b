// Checked integer arithmetic. Every size, count and offset that comes from
// untrusted bytes or configuration goes through these: overflow is a Status,
// never undefined behaviour or a silent wrap.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "vigilo/common/result.h"

namespace vigilo {

// Largest integer a JavaScript number holds exactly (2^53 - 1). Publication
// manifests bound ntotal, row positions, row counts and object sizes by it.
inline constexpr int64_t kMaxSafeInteger = 9007199254740991;
// Case storage ordinals and chunk counts are signed 32-bit.
inline constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();

template <typename T>
Result<T> CheckedAdd(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T out;
  if (__builtin_add_overflow(a, b, &out)) return OutOfRange("integer overflow in addition");
  return out;
}

template <typename T>
Result<T> CheckedSub(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T out;
  if (__builtin_sub_overflow(a, b, &out)) return OutOfRange("integer overflow in subtraction");
  return out;
}

template <typename T>
Result<T> CheckedMul(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T out;
  if (__builtin_mul_overflow(a, b, &out)) return OutOfRange("integer overflow in multiplication");
  return out;
}

// Converts between integer types; fails if the value does not fit.
template <typename To, typename From>
Result<To> CheckedCast(From v) {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
  To out;
  if (__builtin_add_overflow(v, From{0}, &out)) {
    return OutOfRange("integer " + std::to_string(v) + " does not fit the target type");
  }
  return out;
}

// True if 0 <= v <= kMaxSafeInteger.
constexpr bool IsSafeNonNegative(int64_t v) { return v >= 0 && v <= kMaxSafeInteger; }
constexpr bool IsSafeNonNegative(uint64_t v) { return v <= static_cast<uint64_t>(kMaxSafeInteger); }

}  // namespace vigilo
