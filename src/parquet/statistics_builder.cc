#include "statistics_builder.h"

#include <cmath>
#include <cstring>

namespace vigilo::parquet {
namespace {

template <typename T>
std::string LittleEndian(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));  // x86-64 and aarch64 are little-endian
  return out;
}

}  // namespace

bool LessUnsigned(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);  // memcmp compares as unsigned char
  return c < 0 || (c == 0 && a.size() < b.size());
}

bool LessSigned(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) {
    auto x = static_cast<signed char>(a[i]);
    auto y = static_cast<signed char>(b[i]);
    if (x != y) return x < y;
  }
  return a.size() < b.size();
}

void StatisticsBuilder::AddInteger(int64_t v) {
  if (!has_) {
    imin_ = imax_ = v;
    has_ = true;
    return;
  }
  if (v < imin_) imin_ = v;
  if (v > imax_) imax_ = v;
}

void StatisticsBuilder::AddFloating(double v) {
  if (std::isnan(v)) return;
  if (!has_) {
    dmin_ = dmax_ = v;
    has_ = true;
    return;
  }
  if (v < dmin_) dmin_ = v;
  if (v > dmax_) dmax_ = v;
}

void StatisticsBuilder::AddBytes(std::string_view v) {
  if (!has_) {
    smin_ = smax_ = legacy_smin_ = legacy_smax_ = std::string(v);
    has_ = true;
    return;
  }
  if (LessUnsigned(v, smin_)) smin_.assign(v);
  if (LessUnsigned(smax_, v)) smax_.assign(v);
  if (LessSigned(v, legacy_smin_)) legacy_smin_.assign(v);
  if (LessSigned(legacy_smax_, v)) legacy_smax_.assign(v);
}

void StatisticsBuilder::Merge(const StatisticsBuilder& other) {
  null_count_ += other.null_count_;
  if (!other.has_) return;
  switch (type_) {
    case Type::kFloat:
    case Type::kDouble:
      AddFloating(other.dmin_);
      AddFloating(other.dmax_);
      return;
    case Type::kByteArray:
    case Type::kFixedLenByteArray:
      if (!has_) {
        smin_ = other.smin_;
        smax_ = other.smax_;
        legacy_smin_ = other.legacy_smin_;
        legacy_smax_ = other.legacy_smax_;
        has_ = true;
        return;
      }
      if (LessUnsigned(other.smin_, smin_)) smin_ = other.smin_;
      if (LessUnsigned(smax_, other.smax_)) smax_ = other.smax_;
      if (LessSigned(other.legacy_smin_, legacy_smin_)) legacy_smin_ = other.legacy_smin_;
      if (LessSigned(legacy_smax_, other.legacy_smax_)) legacy_smax_ = other.legacy_smax_;
      return;
    default:
      AddInteger(other.imin_);
      AddInteger(other.imax_);
      return;
  }
}

void StatisticsBuilder::Reset() {
  null_count_ = 0;
  has_ = false;
  smin_.clear();
  smax_.clear();
  legacy_smin_.clear();
  legacy_smax_.clear();
}

Statistics StatisticsBuilder::Build(size_t max_value_bytes) const {
  Statistics s;
  s.null_count = null_count_;
  if (!has_) return s;
  std::string lo, hi, legacy_lo, legacy_hi;
  switch (type_) {
    case Type::kBoolean:
      lo = std::string(1, static_cast<char>(imin_));
      hi = std::string(1, static_cast<char>(imax_));
      break;
    case Type::kInt32:
      lo = LittleEndian(static_cast<int32_t>(imin_));
      hi = LittleEndian(static_cast<int32_t>(imax_));
      break;
    case Type::kInt64:
      lo = LittleEndian(imin_);
      hi = LittleEndian(imax_);
      break;
    case Type::kFloat:
    case Type::kDouble: {
      // A zero extreme may stand for either sign: widen it (spec rule).
      double dlo = dmin_ == 0.0 ? -0.0 : dmin_;
      double dhi = dmax_ == 0.0 ? 0.0 : dmax_;
      if (type_ == Type::kFloat) {
        lo = LittleEndian(static_cast<float>(dlo));
        hi = LittleEndian(static_cast<float>(dhi));
      } else {
        lo = LittleEndian(dlo);
        hi = LittleEndian(dhi);
      }
      break;
    }
    default:
      lo = smin_;
      hi = smax_;
      legacy_lo = legacy_smin_;
      legacy_hi = legacy_smax_;
      break;
  }
  bool bytes = type_ == Type::kByteArray || type_ == Type::kFixedLenByteArray;
  if (bytes && (lo.size() > max_value_bytes || hi.size() > max_value_bytes)) return s;
  s.min = bytes ? legacy_lo : lo;
  s.max = bytes ? legacy_hi : hi;
  s.min_value = std::move(lo);
  s.max_value = std::move(hi);
  s.is_min_value_exact = true;
  s.is_max_value_exact = true;
  return s;
}

}  // namespace vigilo::parquet
