#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet {

LogicalType LogicalType::Simple(Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

LogicalType LogicalType::Decimal(int32_t scale, int32_t precision) {
  LogicalType t = Simple(Kind::kDecimal);
  t.scale = scale;
  t.precision = precision;
  return t;
}

LogicalType LogicalType::Time(bool is_adjusted_to_utc, TimeUnit unit) {
  LogicalType t = Simple(Kind::kTime);
  t.is_adjusted_to_utc = is_adjusted_to_utc;
  t.unit = unit;
  return t;
}

LogicalType LogicalType::Timestamp(bool is_adjusted_to_utc, TimeUnit unit) {
  LogicalType t = Time(is_adjusted_to_utc, unit);
  t.kind = Kind::kTimestamp;
  return t;
}

LogicalType LogicalType::Integer(int8_t bit_width, bool is_signed) {
  LogicalType t = Simple(Kind::kInteger);
  t.bit_width = bit_width;
  t.is_signed = is_signed;
  return t;
}

}  // namespace vigilo::parquet
