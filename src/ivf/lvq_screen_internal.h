// Screening of LVQ8 rows (docs/format/ivf-build-algorithms.md, "Screening"):
// a fast integer pass that brackets each row's normative distance between a
// proven lower and upper bound, so that the reader scores exactly (with the
// normative kernels) only the rows the bounds cannot rule out. The bounds
// decide nothing but which rows are scored exactly: every result is still a
// normative distance, so results are bit for bit those of scoring every row.
//
// Per (query, list) the weights w are quantized once to int16, q_i =
// round(w_i / s), s = max|w| / kMaxWeight; a row's integer dot Wi = Σ q_i·c_i is
// exact, and |W − s·Wi| ≤ E for the normative float dot W of every LVQ8 code
// (E from the quantization residues and the float accumulation's error bound).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vigilo/ivf/lvq_kernels.h"

namespace vigilo::ivf::screen {

// The 16-bit weights' limit: 127·257, so that every q_i splits into two
// int8 halves, q_i = 256·hi + lo (ScreenContext::q_lo, q_hi), which the
// AVX-512 path multiplies with raw code bytes (vpdpbusd).
constexpr int32_t kMaxWeight = 32639;

struct ScreenContext {
  // False when no bound is given (LVQ4, an all-zero or too-large weight
  // vector): every row then gets (−inf, +inf).
  bool usable = false;
  Metric metric = Metric::kL2Squared;
  size_t dimension = 0;
  std::vector<int16_t> q;  // the quantized weights, zero-padded to a multiple of 16
  // The AVX2 layout of q's whole 32-element blocks: each block's 16 even
  // elements, then its 16 odd ones (matching a block's code bytes read as
  // 16-bit lanes: low bytes, high bytes).
  std::vector<int16_t> q_split;
  // The AVX2 tail: the last 16 elements' weights, zero where an element
  // belongs to the whole 16-blocks before them (d ≥ 16 only).
  int16_t q_tail[16] = {};
  int16_t tail_mask[16] = {};       // −1 where q_tail's element is a tail element, else 0
  // A context of 8-bit weights (ScreenWeights::k8): |q_i| ≤ 127, held here
  // as bytes too, zero-padded to a multiple of 64, for the AVX-512 path's
  // vpdpbusd (64 raw code bytes a step, no widening). The other paths use q:
  // the same integers.
  std::vector<int8_t> q8;
  // q split into int8 halves, q_i = 256·q_hi[i] + q_lo[i] (lo within
  // −128..127, so |hi| ≤ 127 for |q_i| ≤ kMaxWeight), zero-padded to a
  // multiple of 64: the AVX-512 path's vpdpbusd takes 64 raw code bytes a
  // step against each half, the exact Σq·c = 256·Σhi·c + Σlo·c without
  // widening the codes.
  std::vector<int8_t> q_lo, q_hi;
  double step = 0;                  // s
  double dot_error = 0;             // E: |W − s·Wi| ≤ E for every code
  double weight_sum = 0, base = 0;  // the ListContext's
};

// The weights' quantization: 16 bits (q_i within ±kMaxWeight, tight bounds) or 8
// bits (within ±127: bounds about 250 times wider, found twice as fast by
// vpdpbusd; the centroid ranking's, where a looser bound costs a few more
// centroids scored exactly).
enum class ScreenWeights { k16, k8 };

// The weights a query screens a list's postings with: 8 bits for l2 up to
// d = 256, where the screen is bound by its instructions (each 64 codes of a
// row take three vpdpbusd instead of four on AVX-512: the dot against one
// set of weights instead of their two halves, Σc and Σc²); 16 otherwise:
// the cosine screen and long rows wait on memory, and 8-bit bounds only let
// more rows through to be scored exactly. The same on every path, so every
// reader screens with the same bounds (docs/format/ivf-build-algorithms.md,
// "8-bit weights").
inline ScreenWeights PostingsScreenWeights(Metric metric, size_t dimension) {
  return metric == Metric::kL2Squared && dimension <= 256 ? ScreenWeights::k8 : ScreenWeights::k16;
}

// From a prepared ListContext (PrepareList's). ctx.encoding must be LVQ8 for
// the context to be usable; any other gives usable = false.
void PrepareScreen(const ListContext& ctx, ScreenContext& out, ScreenWeights weights = ScreenWeights::k16);

// PrepareScreen's result for ctx, given `same`, a context PrepareScreen made
// from a ListContext with ctx's weights, metric and encoding (cosine: every
// list of one query weighs by the query itself). The quantization depends on
// the weights alone, so it is copied rather than recomputed: bit for bit
// what PrepareScreen(ctx) makes. The caller vouches for the equal weights.
void PrepareScreenSharing(const ListContext& ctx, const ScreenContext& same, ScreenContext& out);

// For every row r of the block: lower[r] ≤ ScoreBlock's distance ≤ upper[r]
// (floats, −inf / +inf when the row's bound is not proven: a non-finite or
// overflowing row, or an unusable context). A finite upper[r] also proves the
// normative distance finite. rows.sums, when set, must be the rows' exact
// code sums (as for ScoreBlock). Uses the dispatched kernel path's screen:
// AVX-512 for kAvx512, AVX2 for kAvx2, else the portable one.
void ScreenBlock(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper);
// The same on an explicit path (kScalar screens as kPortable); InvalidArgument
// for a path this CPU lacks.
Status ScreenBlockWith(KernelPath path, const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper);

// The same for m contexts at once (a row group probed by several queries):
// contexts[j]'s bounds go to lower[j][r], upper[j][r], bit for bit those of
// ScreenBlock(*contexts[j], rows, …). The usable contexts should share one
// dimension and metric (those that do not are screened one by one). The
// AVX2 and AVX-512 paths load each row's codes once for several contexts;
// the portable one screens context by context.
void ScreenBlockMulti(const ScreenContext* const* contexts, size_t m, const RowBlock& rows, float* const* lower,
                      float* const* upper);
// The same on an explicit path (kScalar screens as kPortable); InvalidArgument
// for a path this CPU lacks.
Status ScreenBlockMultiWith(KernelPath path, const ScreenContext* const* contexts, size_t m, const RowBlock& rows,
                            float* const* lower, float* const* upper);


// Internal: the paths' shared parts. A path computes each row's exact
// integer sums (Σq_i·c_i, and for l2 without precomputed sums Σc_i, Σc_i²)
// for up to kBoundBatch rows, then BoundRows turns them into bounds.
constexpr size_t kBoundBatch = 64;
// The SIMD screens read four rows side by side (one weight load for four
// rows) only up to this d; longer rows go one at a time. Four long rows
// read in step are four memory streams a row apart, which the hardware
// prefetcher follows badly: at d = 784 the AVX-512 screen streamed rows from
// DRAM at 0.31 (l2) and 0.36 (cosine) of the read ceiling four at a time,
// 0.74 and 0.82 one at a time (bench/ivf_kernels, AMD EPYC), and a
// Fashion-MNIST query at nprobe 8 took 90–96 µs against 107–109. At d = 100
// four at a time is faster (0.71 against 0.41 for l2). Rows in cache
// (RowBlock::cached: the centroids) go four at a time at any d ≤ 2048: the
// Fashion-MNIST ranking (980 centroids, d = 784) then takes about 10 µs less
// a query (one at a time at nprobe 1: 60.6 → 51.0 µs).
constexpr size_t kFourRowsMax = 256;
// The four-row loops' prefetch (rows of d ≤ kFourRowsMax read from memory):
// every cache line of the codes of the four rows kFourAhead ahead (at a
// block's first four rows, of the kFourAhead rows after them), and the
// offsets and scales kValuesAhead rows ahead (a line holds 16 rows' worth of
// each). Measured at d = 100 on AMD EPYC against three prefetches a row,
// four rows ahead: the AVX-512 screen streams 256 MB at 160–169 M rows/s
// (l2) and 191–212 M (cosine) instead of 136–145 and 150–170, in cache at
// 182–186 and 349–363 M instead of 174 and 283 (fewer instructions), and
// lists of 64 and 256 rows at random places within the host's noise; a wink
// query at nprobe 64 took 180 µs instead of 196 (docs/format/
// ivf-build-algorithms.md, "Screening"). Offsets and scales already in
// cache (a decoded row group's) make their prefetches cheap no-ops; read in
// place from a response they are the third and fourth stream.
constexpr size_t kFourAhead = 16, kValuesAhead = 128;
inline void PrefetchFourRows(const RowBlock& rows, size_t r) {
  const size_t from = r == 0 ? 4 : r + kFourAhead;
  if (from < rows.n) {
    const size_t count = r == 0 ? kFourAhead : 4;
    const size_t end = from + count < rows.n ? from + count : rows.n;
    const uintptr_t last = reinterpret_cast<uintptr_t>(rows.codes + end * rows.stride);
    for (uintptr_t line = reinterpret_cast<uintptr_t>(rows.codes + from * rows.stride) & ~uintptr_t{63}; line < last;
         line += 64) {
      __builtin_prefetch(reinterpret_cast<const void*>(line));
    }
  }
  // The first of every 16 rows among the four kValuesAhead ahead.
  for (size_t at = (r + kValuesAhead + 15) / 16 * 16; at < r + kValuesAhead + 4 && at < rows.n; at += 16) {
    __builtin_prefetch(rows.offsets + at);
    __builtin_prefetch(rows.scales + at);
  }
}

constexpr double kScreenTooLarge = 0x1.fffffep125;  // FLT_MAX / 4: beyond it a bound proves nothing

// The precomputed code sums (rows.sums) of rows [first, first + n), as doubles.
inline void TakeSums(const RowBlock& rows, size_t first, size_t n, double* sums, double* squares) {
  for (size_t k = 0; k < n; ++k) {
    sums[k] = rows.sums[first + k].sum;
    squares[k] = rows.sums[first + k].squares;
  }
}

// lower/upper of rows [0, n) from their sums (code_sum, code_sq: l2 only).
// The proof is the doc's; in short, with W_a = s·Wi the computed value v
// differs from the normative one by at most dev = m·|scale|·E (m = 2 for l2,
// 1 for cosine) plus the double roundings of both combinations, which are
// far below 2^-40 of the magnitude (the sum of the absolute values of every
// intermediate term). Written without branches so that it vectorizes.
// dots, code_sum and code_sq hold exact integers (|Σq·c| < 2^40, sums < 2^32) as doubles.
template <Metric kMetric>
inline void BoundRows(const ScreenContext& ctx, size_t n, const float* offsets, const float* scales, const double* dots,
                      const double* code_sum, const double* code_sq, float* lower, float* upper) {
  const double base = ctx.base, weight_sum = ctx.weight_sum, step = ctx.step, e = ctx.dot_error;
  const double abs_base = base < 0 ? -base : base;
  const double d = static_cast<double>(ctx.dimension);
  constexpr float kInf = __builtin_inff();
  // (Scalars hoisted; the loop has no call and no branch.)
  for (size_t r = 0; r < n; ++r) {
    const double o = offsets[r];
    const double sc = scales[r];
    const double wa = step * dots[r];
    const double asc = sc < 0 ? -sc : sc;
    const double awa = wa < 0 ? -wa : wa;
    const double os = o * weight_sum;
    const double aos = os < 0 ? -os : os;
    double v, dev, magnitude;
    if constexpr (kMetric == Metric::kL2Squared) {
      // CombineL2's very expression (the same double r2), with W_a for W.
      const double sum = code_sum[r], sq = code_sq[r];
      const double r2 = o * (d * o + 2.0 * sc * sum) + sc * sc * sq;
      v = base - 2.0 * (os + sc * wa) + r2;
      dev = 2.0 * asc * e;
      const double ao = o < 0 ? -o : o;
      magnitude = abs_base + 2.0 * (aos + asc * (awa + e)) + ao * (d * ao + 2.0 * asc * sum) + sc * sc * sq + dev;
    } else {
      v = base - (os + sc * wa);
      dev = asc * e;
      magnitude = abs_base + aos + asc * (awa + e) + dev;
    }
    const double slack = magnitude * 0x1p-40;
    const double lo = v - dev - slack;
    double hi = v + dev + slack;
    if constexpr (kMetric == Metric::kL2Squared) hi = hi > 0.0 ? hi : 0.0;  // the clamp only raises the distance
    // v − v is 0 only for a finite v; the comparison is false for NaN too.
    const bool proven = (v - v == 0.0) & (magnitude < kScreenTooLarge);
    lower[r] = proven ? static_cast<float>(lo) : -kInf;
    upper[r] = proven ? static_cast<float>(hi) : kInf;
  }
}

// PrepareScreen's two passes over the weights, written to vectorize (8
// independent lanes; the bound allows for any order of these double sums).
// Element i goes to lane i mod 8, the last d mod 8 elements to lanes 0, 1, …,
// and the lanes are summed in order: the AVX2 forms keep this to the bit.
struct WeightStats {
  double max = 0, sum = 0;  // max |w_i|, Σ|w_i|
};
constexpr size_t kWeightLanes = 8;
// One element into a lane: its |w| into the lane's max and sum.
inline void MeasureInto(float w, double& max_lane, double& sum_lane) {
  const double a = w < 0 ? -double{w} : double{w};
  max_lane = a > max_lane ? a : max_lane;
  sum_lane += a;
}
inline WeightStats FinishMeasure(const double* max_lane, const double* sum_lane) {
  WeightStats out;
  for (size_t k = 0; k < kWeightLanes; ++k) {
    out.max = max_lane[k] > out.max ? max_lane[k] : out.max;
    out.sum += sum_lane[k];
  }
  return out;
}
inline WeightStats MeasureWeights(const float* w, size_t d) {
  double max_lane[kWeightLanes] = {}, sum_lane[kWeightLanes] = {};
  size_t i = 0;
  for (; i + kWeightLanes <= d; i += kWeightLanes) {
    for (size_t k = 0; k < kWeightLanes; ++k) MeasureInto(w[i + k], max_lane[k], sum_lane[k]);
  }
  for (size_t k = 0; i < d; ++i, ++k) MeasureInto(w[i], max_lane[k], sum_lane[k]);
  return FinishMeasure(max_lane, sum_lane);
}
// q_i = w_i·inverse rounded to an integer (the magic constant: |x| < 2^51,
// no library call) and clamped to ±kMaxWeight; |w_i − step·q_i| into the lane.
inline void QuantizeInto(float w, double inverse, double step, int16_t& q, double& e_lane) {
  constexpr double kRound = 0x1.8p52, kMax = kMaxWeight;
  double r = (w * inverse + kRound) - kRound;
  r = r > kMax ? kMax : r;
  r = r < -kMax ? -kMax : r;
  q = static_cast<int16_t>(static_cast<int32_t>(r));
  const double e = w - step * r;
  e_lane += e < 0 ? -e : e;
}
inline double SumLanes(const double* lanes) {
  double sum = 0;
  for (size_t k = 0; k < kWeightLanes; ++k) sum += lanes[k];
  return sum;
}
// Quantizes w into q; returns Σ|w_i − step·q_i|.
inline double QuantizeWeights(const float* w, size_t d, double inverse, double step, int16_t* q) {
  double e_lane[kWeightLanes] = {};
  size_t i = 0;
  for (; i + kWeightLanes <= d; i += kWeightLanes) {
    for (size_t k = 0; k < kWeightLanes; ++k) QuantizeInto(w[i + k], inverse, step, q[i + k], e_lane[k]);
  }
  for (size_t k = 0; i < d; ++i, ++k) QuantizeInto(w[i], inverse, step, q[i], e_lane[k]);
  return SumLanes(e_lane);
}
// The same two compiled for AVX2 (only when kernels_internal::Avx2Supported()).
WeightStats MeasureWeightsAvx2(const float* w, size_t d);
double QuantizeWeightsAvx2(const float* w, size_t d, double inverse, double step, int16_t* q);

void ScreenRowsPortable(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper);
// Only when kernels_internal::Avx2Supported().
void ScreenRowsAvx2(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper);
// Only when kernels_internal::Avx512Supported(): the same bounds, bit for bit.
void ScreenRowsAvx512(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper);
// ScreenRowsAvx2 and ScreenRowsAvx512 for m ≤ kMultiBatch usable contexts of
// one dimension and metric, each row's codes loaded once for several contexts.
constexpr size_t kMultiBatch = 16;
void ScreenRowsAvx2Multi(const ScreenContext* const* contexts, size_t m, const RowBlock& rows, float* const* lower,
                         float* const* upper);
void ScreenRowsAvx512Multi(const ScreenContext* const* contexts, size_t m, const RowBlock& rows, float* const* lower,
                           float* const* upper);

// The multi screens' shared loop, kBoundBatch rows at a time: the next
// batch's rows prefetched, the rows' l2 code sums taken once for every
// context (rows.sums, else code_sums(n, codes, stride, out)), then the
// contexts in tiles of up to kTile: dots(tile, count, codes, stride, n, dots)
// sets dots[k][r] to row r's exact Σq·c for the tile's context k, and
// bound(ctx, n, offsets, scales, dots, sums, squares, lower, upper) is the
// path's BoundRows.
template <Metric kMetric, size_t kTile, class Dots, class Sums, class Bound>
void MultiRowsWith(const ScreenContext* const* ctx, size_t m, const RowBlock& rows, float* const* lower,
                   float* const* upper, Dots dots_of, Sums code_sums, Bound bound) {
  double dots[kTile][kBoundBatch], sums[kBoundBatch], squares[kBoundBatch];
  CodeSums own[kBoundBatch];
  const size_t d = ctx[0]->dimension;
  for (size_t first = 0; first < rows.n; first += kBoundBatch) {
    const size_t n = rows.n - first < kBoundBatch ? rows.n - first : kBoundBatch;
    const uint8_t* codes = rows.codes + first * rows.stride;
    for (size_t r = 0; r < n && first + n + r < rows.n; ++r) {  // the next batch
      const uint8_t* row = codes + (n + r) * rows.stride;
      for (size_t at = 0; at < d; at += 64) __builtin_prefetch(row + at);
      __builtin_prefetch(row + d - 1);
    }
    if constexpr (kMetric == Metric::kL2Squared) {
      const CodeSums* s = rows.sums != nullptr ? rows.sums + first : own;
      if (rows.sums == nullptr) code_sums(n, codes, rows.stride, own);
      for (size_t k = 0; k < n; ++k) {
        sums[k] = s[k].sum;
        squares[k] = s[k].squares;
      }
    }
    for (size_t j = 0; j < m; j += kTile) {
      const size_t count = m - j < kTile ? m - j : kTile;
      dots_of(ctx + j, count, codes, rows.stride, n, dots);
      for (size_t k = 0; k < count; ++k) {
        bound(*ctx[j + k], n, rows.offsets + first, rows.scales + first, dots[k], sums, squares,
              lower[j + k] + first, upper[j + k] + first);
      }
    }
  }
}

}  // namespace vigilo::ivf::screen
