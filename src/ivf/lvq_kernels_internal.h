// Private to the lvq_kernels*.cc files (and their test): what every path
// shares (the per-row combination in double, the normative slots and fold of
// the float dot W) and each path's row-group entry point. Every kernel file is
// compiled with -ffp-contract=off (kernels.cmake) and no path uses FMA, so
// every path computes W, and hence every distance, bit for bit the same.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "vigilo/ivf/lvq_kernels.h"

namespace vigilo::ivf::kernels_internal {

// One row's sums as a path computes them: dot = Σ weights_i·code_i in float32
// (the path's order); code_sum = Σ code_i and code_sq = Σ code_i² exactly
// (l2 only; d ≤ 65536 keeps them below 2^32: 65536·255² < 2^32).
struct RowSums {
  float dot = 0;
  uint32_t code_sum = 0;
  uint32_t code_sq = 0;
};

inline float CombineL2(const ListContext& ctx, float offset, float scale, const RowSums& s) {
  const double o = offset;
  const double sc = scale;
  const double d = static_cast<double>(ctx.dimension);
  // ‖r̂‖² = d·o² + 2·o·sc·Σc + sc²·Σc², then ‖q'‖² − 2(o·S + sc·W) + ‖r̂‖².
  const double r2 = o * (d * o + 2.0 * sc * s.code_sum) + sc * sc * s.code_sq;
  const double v = ctx.base - 2.0 * (o * ctx.weight_sum + sc * static_cast<double>(s.dot)) + r2;
  // Cancellation can leave a tiny negative value; the exact one is ≥ 0.
  return static_cast<float>(std::max(v, 0.0));
}

inline float CombineCosine(const ListContext& ctx, float offset, float scale, const RowSums& s) {
  const double v =
      ctx.base - (static_cast<double>(offset) * ctx.weight_sum + static_cast<double>(scale) * static_cast<double>(s.dot));
  return static_cast<float>(v);
}

// The normative order of W (docs/format/ivf-build-algorithms.md, "Scoring
// kernels"): four accumulators A0…A3 of 8 float lanes, all +0.0 at the start;
// element i's product w_i·c_i (rounded to float) is added to one slot, in
// increasing i:
//   LVQ8: A[(i/8) mod 4], lane i mod 8 (8 consecutive elements per vector);
//   LVQ4: with b = i/16 and p = i mod 16, A[2·(b mod 2) + (p mod 2)], lane
//         p/2 (a 16-block's even elements in one vector, its odd ones in the next).
// Then FoldAccumulators. A lane never holds −0.0 (it starts at +0.0 and
// round-to-nearest gives −0.0 only for (−0) + (−0)), so adding a +0.0
// product of a zero-padded element leaves it unchanged: SIMD paths may pad.
inline size_t SlotAccumulator(Encoding e, size_t i) {
  return e == Encoding::kLvq8 ? (i / 8) % 4 : 2 * ((i / 16) % 2) + (i % 2);
}
inline size_t SlotLane(Encoding e, size_t i) { return e == Encoding::kLvq8 ? i % 8 : (i % 16) / 2; }

// The fold of 8 lanes: (l_k + l_k+4), then (s0 + s2) + (s1 + s3).
inline float FoldLanes8(const float* lane) {
  const float s0 = lane[0] + lane[4];
  const float s1 = lane[1] + lane[5];
  const float s2 = lane[2] + lane[6];
  const float s3 = lane[3] + lane[7];
  return (s0 + s2) + (s1 + s3);
}

// W from the four accumulators: lanewise t_k = (A0_k + A1_k) + (A2_k + A3_k), then FoldLanes8(t).
inline float FoldAccumulators(const float (&a)[4][8]) {
  float t[8];
  for (size_t k = 0; k < 8; ++k) t[k] = (a[0][k] + a[1][k]) + (a[2][k] + a[3][k]);
  return FoldLanes8(t);
}

// Row-group entry points, one per path (ScoreRows' contract; ctx valid).
// CombineL2 or CombineCosine, chosen at compile time.
template <Metric kMetric>
float CombineRow(const ListContext& ctx, float offset, float scale, const RowSums& s) {
  return kMetric == Metric::kL2Squared ? CombineL2(ctx, offset, scale, s) : CombineCosine(ctx, offset, scale, s);
}

// The row loop of the scalar and portable paths: `row(code)` sums one row's
// code against the weights (and computes its code sums, which precomputed
// ones replace: they are equal). (The AVX2 path keeps its own loop so that its
// target-attributed row functions inline into it.)
template <Encoding kEnc, Metric kMetric, typename RowFn>
void ScoreEachRow(const ListContext& ctx, const RowBlock& rows, float* out, RowFn row) {
  for (size_t r = 0; r < rows.n; ++r) {
    RowSums s = row(rows.codes + r * rows.stride);
    if (rows.sums != nullptr) s = RowSums{s.dot, rows.sums[r].sum, rows.sums[r].squares};
    out[r] = CombineRow<kMetric>(ctx, rows.offsets[r], rows.scales[r], s);
  }
}

// Calls kernel.template operator()<E, M>() with the context's encoding and
// metric as compile-time constants (every path's entry point).
template <typename Kernel>
void DispatchEncodingMetric(const ListContext& ctx, Kernel&& kernel) {
  const bool l2 = ctx.metric == Metric::kL2Squared;
  if (ctx.encoding == Encoding::kLvq8) {
    if (l2) {
      kernel.template operator()<Encoding::kLvq8, Metric::kL2Squared>();
    } else {
      kernel.template operator()<Encoding::kLvq8, Metric::kCosine>();
    }
  } else {
    if (l2) {
      kernel.template operator()<Encoding::kLvq4, Metric::kL2Squared>();
    } else {
      kernel.template operator()<Encoding::kLvq4, Metric::kCosine>();
    }
  }
}

void ScoreRowsScalar(const ListContext& ctx, const RowBlock& rows, float* out);
void ScoreRowsPortable(const ListContext& ctx, const RowBlock& rows, float* out);
// Only called when Avx2Supported().
void ScoreRowsAvx2(const ListContext& ctx, const RowBlock& rows, float* out);
bool Avx2Supported();
// Only called when Avx512Supported() (AVX-512 F, BW, VL, VNNI; implies AVX2).
void ScoreRowsAvx512(const ListContext& ctx, const RowBlock& rows, float* out);
bool Avx512Supported();

// One row's sums on one path, by the same row function the row loop uses
// (for the tests, which compare W itself: a last-bit change of W is often
// invisible in the float distance). ctx valid; avx2 only when Avx2Supported().
RowSums RowSumsScalar(const ListContext& ctx, const uint8_t* code);
RowSums RowSumsPortable(const ListContext& ctx, const uint8_t* code);
RowSums RowSumsAvx2(const ListContext& ctx, const uint8_t* code);
RowSums RowSumsAvx512(const ListContext& ctx, const uint8_t* code);

// Paths that include AVX2 (the screen's AVX2 helpers serve both).
inline bool PathHasAvx2(KernelPath path) { return path == KernelPath::kAvx2 || path == KernelPath::kAvx512; }

// PrepareList's weights and double sums for four lists at once, list j for
// query qs[j] and decoded centroid cs[j] (l2: weights q − c, sum Σw, base
// Σw²; cosine: weights q, sum Σq, base 1 − Σq·c), each list in one lane of a
// register: every list's sums in the normative order, bit for bit
// PrepareList's. The inputs are checked on the way: false when an element of
// some qs[j] or cs[j] is NaN or ±Inf (the outputs are then meaningless).
// Only called when Avx2Supported().
bool PrepareLists4Avx2(bool l2, size_t d, const float* const* qs, const float* const* cs, float* const* weights,
                       double* sum, double* base);

// ComputeCodeSums of n LVQ8 rows with AVX2 (the same exact integers; only
// called when Avx2Supported()).
void CodeSumsLvq8Avx2(size_t dimension, size_t n, const uint8_t* codes, size_t stride, CodeSums* out);

}  // namespace vigilo::ivf::kernels_internal
