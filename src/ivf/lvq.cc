// LVQ encode/decode. Compiled with -ffp-contract=off (codec.cmake): decode
// must round the product before the sum, exactly as JavaScript's
// Math.fround(offset + Math.fround(scale * code)) does.
#include "vigilo/ivf/lvq.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace vigilo::ivf {
namespace {

Status CheckFinite(std::span<const float> v, const char* what) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      return InvalidArgument(std::string(what) + " element " + std::to_string(i) + " is not finite");
    }
  }
  return Status::Ok();
}

Status CheckCodeSize(Encoding e, size_t d, size_t code_size) {
  if (code_size != CodeBytes(e, d)) {
    return InvalidArgument("LVQ code of " + std::to_string(d) + " elements needs " +
                           std::to_string(CodeBytes(e, d)) + " bytes, got " + std::to_string(code_size));
  }
  return Status::Ok();
}

// code_i = clamp(lround((v_i − offset) / scale), 0, levels) (float
// subtraction, float division; lround rounds half away from zero in any
// rounding mode). Returns Σ (v_i − (offset + scale·code_i))² in double, the
// decode's float rounding included.
double Quantize(std::span<const float> v, LvqParams p, uint32_t levels, std::vector<uint32_t>& codes) {
  double error = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    // Clamping t before rounding equals clamping the rounded value (levels is
    // an integer) and keeps lround away from values it cannot represent.
    const float t = std::clamp((v[i] - p.offset) / p.scale, 0.0f, static_cast<float>(levels));
    codes[i] = static_cast<uint32_t>(std::lround(t));
    const float decoded = p.offset + p.scale * static_cast<float>(codes[i]);
    const double diff = static_cast<double>(v[i]) - static_cast<double>(decoded);
    error += diff * diff;
  }
  return error;
}

// Up to kRefineRounds least-squares refits (ivf-build-algorithms.md "LVQ
// encode"): given the codes, the (offset, scale) minimizing Σ (v_i − offset −
// scale·code_i)², rounded to float, then the codes again; a round is kept
// only if the error strictly drops, and the first that does not ends it.
constexpr int kRefineRounds = 4;

double Refine(std::span<const float> v, uint32_t levels, LvqParams& params, std::vector<uint32_t>& codes,
              double error) {
  std::vector<uint32_t> trial(codes.size());
  const auto n = static_cast<double>(v.size());
  for (int round = 0; round < kRefineRounds; ++round) {
    double sc = 0, sv = 0, scc = 0, scv = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      const auto c = static_cast<double>(codes[i]), x = static_cast<double>(v[i]);
      sc += c;
      sv += x;
      scc += c * c;
      scv += c * x;
    }
    const double den = n * scc - sc * sc;
    if (!(den > 0)) break;  // every code equal: nothing to fit
    const double scale = (n * scv - sc * sv) / den;
    const double offset = (sv - scale * sc) / n;
    const LvqParams next{static_cast<float>(offset), static_cast<float>(scale)};
    if (!(next.scale > 0) || !std::isfinite(next.scale) || !std::isfinite(next.offset)) break;
    const double next_error = Quantize(v, next, levels, trial);
    if (!(next_error < error)) break;
    params = next;
    error = next_error;
    codes.swap(trial);
  }
  return error;
}

}  // namespace

uint32_t LvqLevels(Encoding e) { return e == Encoding::kLvq4 ? 15u : 255u; }

Result<LvqParams> EncodeLvq(Encoding e, std::span<const float> v, std::span<uint8_t> code_out) {
  if (v.empty()) return InvalidArgument("cannot LVQ-encode an empty vector");
  VIGILO_RETURN_IF_ERROR(CheckCodeSize(e, v.size(), code_out.size()));
  VIGILO_RETURN_IF_ERROR(CheckFinite(v, "vector"));
  const auto [min_it, max_it] = std::minmax_element(v.begin(), v.end());
  const float lo = *min_it;
  const float range = *max_it - lo;
  if (!std::isfinite(range)) return InvalidArgument("vector value range max - min overflows float32");
  const uint32_t levels = LvqLevels(e);
  // A scale that underflows to 0 is treated as a constant vector.
  const float scale = range / static_cast<float>(levels);

  std::fill(code_out.begin(), code_out.end(), uint8_t{0});
  if (scale == 0.0f) return LvqParams{lo, 0.0f};
  std::vector<uint32_t> codes(v.size());
  LvqParams params{lo, scale};
  double error = Quantize(v, params, levels, codes);
  // LVQ4's 16 levels are coarse enough that a few outliers stretching
  // [min, max] cost real recall; least-squares refits fix that (LVQ8 gains
  // nothing measurable, so it keeps the plain min/max code).
  if (e == Encoding::kLvq4) error = Refine(v, levels, params, codes, error);
  (void)error;
  for (size_t i = 0; i < v.size(); ++i) {
    if (e == Encoding::kLvq8) {
      code_out[i] = static_cast<uint8_t>(codes[i]);
    } else {
      code_out[i / 2] = static_cast<uint8_t>(code_out[i / 2] | (codes[i] << ((i & 1) * 4)));
    }
  }
  return params;
}

Result<LvqVector> EncodeLvqVector(Encoding e, std::span<const float> v) {
  LvqVector out;
  out.code.resize(CodeBytes(e, v.size()));
  std::span<uint8_t> code(reinterpret_cast<uint8_t*>(out.code.data()), out.code.size());
  VIGILO_ASSIGN_OR_RETURN(out.params, EncodeLvq(e, v, code));
  return out;
}

Status DecodeLvq(Encoding e, LvqParams p, std::span<const uint8_t> code, std::span<float> out) {
  VIGILO_RETURN_IF_ERROR(CheckCodeSize(e, out.size(), code.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const float product = p.scale * static_cast<float>(LvqCodeAt(e, code.data(), i));
    out[i] = p.offset + product;
  }
  return Status::Ok();
}

Result<LvqParams> EncodeResidual(Encoding e, std::span<const float> x, std::span<const float> centroid_decoded,
                                 std::span<uint8_t> code_out) {
  if (x.size() != centroid_decoded.size()) {
    return InvalidArgument("residual: vector has " + std::to_string(x.size()) + " elements, centroid " +
                           std::to_string(centroid_decoded.size()));
  }
  VIGILO_RETURN_IF_ERROR(CheckFinite(x, "vector"));
  VIGILO_RETURN_IF_ERROR(CheckFinite(centroid_decoded, "centroid"));
  std::vector<float> residual(x.size());
  for (size_t i = 0; i < x.size(); ++i) residual[i] = x[i] - centroid_decoded[i];
  VIGILO_RETURN_IF_ERROR(CheckFinite(residual, "residual"));
  return EncodeLvq(e, residual, code_out);
}

Result<LvqVector> EncodeResidualVector(Encoding e, std::span<const float> x,
                                       std::span<const float> centroid_decoded) {
  LvqVector out;
  out.code.resize(CodeBytes(e, x.size()));
  std::span<uint8_t> code(reinterpret_cast<uint8_t*>(out.code.data()), out.code.size());
  VIGILO_ASSIGN_OR_RETURN(out.params, EncodeResidual(e, x, centroid_decoded, code));
  return out;
}

Status ReconstructResidual(Encoding e, LvqParams p, std::span<const uint8_t> code,
                           std::span<const float> centroid_decoded, std::span<float> out) {
  if (centroid_decoded.size() != out.size()) {
    return InvalidArgument("residual: centroid has " + std::to_string(centroid_decoded.size()) +
                           " elements, output " + std::to_string(out.size()));
  }
  VIGILO_RETURN_IF_ERROR(DecodeLvq(e, p, code, out));
  for (size_t i = 0; i < out.size(); ++i) out[i] = centroid_decoded[i] + out[i];
  return Status::Ok();
}

Result<LvqRows> EncodeLvqRows(Encoding e, std::span<const float> rows, size_t d) {
  if (d == 0 || rows.size() % d != 0) {
    return InvalidArgument("LVQ rows: " + std::to_string(rows.size()) + " values are not a whole number of rows of " +
                           std::to_string(d));
  }
  const size_t n = rows.size() / d;
  const size_t bytes = CodeBytes(e, d);
  LvqRows out;
  out.params.resize(n);
  out.codes.resize(n * bytes);
  out.decoded.resize(n * d);
  for (size_t r = 0; r < n; ++r) {
    std::span<uint8_t> code(out.codes.data() + r * bytes, bytes);
    auto params = EncodeLvq(e, rows.subspan(r * d, d), code);
    if (!params.ok()) {
      return Status(params.status().code(), "row " + std::to_string(r) + ": " + std::string(params.status().message()));
    }
    out.params[r] = *params;
    VIGILO_RETURN_IF_ERROR(DecodeLvq(e, out.params[r], code, std::span<float>(out.decoded.data() + r * d, d)));
  }
  return out;
}

Status NormalizeL2(std::span<float> v) {
  VIGILO_RETURN_IF_ERROR(CheckFinite(v, "vector"));
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * static_cast<double>(x);
  const double norm = std::sqrt(sum);
  if (norm == 0.0) return InvalidArgument("cosine metric: a zero vector cannot be normalized");
  for (float& x : v) x = static_cast<float>(static_cast<double>(x) / norm);
  return Status::Ok();
}

Status NormalizeL2Rows(std::span<float> rows, size_t d) {
  if (d == 0 || rows.size() % d != 0) {
    return InvalidArgument("normalize: " + std::to_string(rows.size()) + " values are not a whole number of rows of " +
                           std::to_string(d));
  }
  for (size_t r = 0; r < rows.size() / d; ++r) {
    Status s = NormalizeL2(rows.subspan(r * d, d));
    if (!s.ok()) return Status(s.code(), "vector " + std::to_string(r) + ": " + std::string(s.message()));
  }
  return Status::Ok();
}

}  // namespace vigilo::ivf
