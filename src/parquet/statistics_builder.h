// Exact min/max/null_count statistics for one column chunk or page, in the
// orders parquet.thrift defines for TYPE_DEFINED_ORDER:
//
//   BOOLEAN false < true; INT32/INT64 signed; FLOAT/DOUBLE numerically with
//   NaN ignored (a chunk of only NaN has no min/max), and a zero extreme
//   written as -0.0 for min and +0.0 for max, as the spec requires;
//   BYTE_ARRAY/FIXED_LEN_BYTE_ARRAY lexicographically by unsigned bytes.
//
// Build() fills both min_value/max_value and the deprecated min/max. The
// deprecated fields were defined by parquet-mr's signed comparison, so for
// byte arrays they hold the min/max under signed-byte order (the same values
// whenever every byte is ASCII); for the other types both pairs are equal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet {

class StatisticsBuilder {
 public:
  explicit StatisticsBuilder(Type type) : type_(type) {}

  Type type() const { return type_; }
  bool has_min_max() const { return has_; }
  int64_t null_count() const { return null_count_; }

  void AddNulls(int64_t n) { null_count_ += n; }
  void AddBoolean(bool v) { AddInteger(v ? 1 : 0); }
  void AddInteger(int64_t v);  // BOOLEAN, INT32, INT64
  void AddFloating(double v);  // FLOAT (widened exactly), DOUBLE
  void AddBytes(std::string_view v);  // BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY
  void Merge(const StatisticsBuilder& other);
  void Reset();

  // null_count always; the min/max pairs and is_*_exact only when a non-null
  // (non-NaN) value was seen and, for byte arrays, when the min and the max
  // each fit in max_value_bytes (a min/max is never truncated: an inexact
  // bound is no use to a reader that prunes by it). Values are PLAIN-encoded.
  Statistics Build(size_t max_value_bytes = SIZE_MAX) const;

 private:
  Type type_;
  int64_t null_count_ = 0;
  bool has_ = false;
  int64_t imin_ = 0, imax_ = 0;
  double dmin_ = 0, dmax_ = 0;
  std::string smin_, smax_;                // unsigned-byte order
  std::string legacy_smin_, legacy_smax_;  // signed-byte order
};

// Byte-string orders used above.
bool LessUnsigned(std::string_view a, std::string_view b);
bool LessSigned(std::string_view a, std::string_view b);

}  // namespace vigilo::parquet
