// Scalar reference distance kernels (the SIMD kernels must match them up to
// float summation order). Metrics, with x̂ the decoded vector:
//   l2_squared = Σ (q_i - x̂_i)²      cosine = 1 - q̂·x̂  (q̂ already normalized)
// x̂_i is decoded exactly as DecodeLvq / ReconstructResidual do (float32);
// the terms are then accumulated in double in element order and the result
// rounded to float.
//
// Preconditions (asserted, not checked in release builds: these are the hot
// path): q, x and centroid have the same size d and the code holds
// CodeBytes(e, d) bytes.
#pragma once

#include <cstdint>
#include <span>

#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/types.h"

namespace vigilo::ivf {

// float–float.
float L2SquaredFloat(std::span<const float> q, std::span<const float> x);
float DotFloat(std::span<const float> q, std::span<const float> x);
float FloatDistance(Metric m, std::span<const float> q, std::span<const float> x);

// Query vs a plain LVQ-coded vector.
float L2SquaredLvq(Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code);
float DotLvq(Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code);

// Query vs a residual-coded vector x̂ = ĉ + r̂ (centroid_decoded = ĉ).
float L2SquaredLvqResidual(Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code,
                           std::span<const float> centroid_decoded);
float DotLvqResidual(Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code,
                     std::span<const float> centroid_decoded);

// Metric dispatch; an empty centroid_decoded means a plain (non-residual) code.
float LvqDistance(Metric m, Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code,
                  std::span<const float> centroid_decoded = {});

}  // namespace vigilo::ivf
