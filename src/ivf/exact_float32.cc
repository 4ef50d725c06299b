#include "exact_float32.h"

#include <cmath>
#include <cstdint>

namespace vigilo::ivf {

Result<float> DecodeExactFloat32(const json::Value& v, const std::string& path, std::string_view what) {
  if (!v.is_number()) return InvalidFormat("expected a number, got " + std::string(json::KindName(v.kind()))).WithPath(path);
  const json::Number& n = v.as_number();
  double d = n.AsDouble();
  bool exact = true;
  if (n.kind() == json::Number::Kind::kU64) {
    exact = d < 18446744073709551616.0 && static_cast<uint64_t>(d) == n.u64();
  } else if (n.kind() == json::Number::Kind::kI64) {
    exact = d >= -9223372036854775808.0 && static_cast<int64_t>(d) == n.i64();
  }
  if (!exact || !std::isfinite(d) || std::fabs(d) > 3.4028234663852886e38 ||
      static_cast<double>(static_cast<float>(d)) != d) {
    return InvalidFormat(std::string(what) + " must be a number a float32 holds exactly").WithPath(path);
  }
  return static_cast<float>(d);
}

}  // namespace vigilo::ivf
