// The screening context, the bound, the portable row loop and the dispatch
// (lvq_screen_internal.h; the proof is docs/format/ivf-build-algorithms.md,
// "Screening"). Compiled with -ffp-contract=off like the kernels: the bound's
// slack assumes every double operation is rounded once.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "lvq_kernels_internal.h"
#include "lvq_screen_internal.h"

namespace vigilo::ivf::screen {
namespace {

constexpr double kUnit = 0x1p-24;  // float32's unit roundoff
constexpr int32_t kMaxQ = kMaxWeight, kMaxQ8 = 127;
constexpr double kTooLarge = kScreenTooLarge;
static_assert(kScreenTooLarge == double{FLT_MAX} / 4);

// Rows of at most 256 elements keep an int32 sum of products |q_i·c_i| ≤
// 32639·255 below 2^31 (256·32639·255 = 2,130,673,920).
constexpr size_t kPortableChunk = 256;

int64_t DotPortable(const ScreenContext& ctx, const uint8_t* code) {
  const size_t d = ctx.dimension;
  const int16_t* q = ctx.q.data();
  int64_t dot = 0;
  for (size_t start = 0; start < d; start += kPortableChunk) {
    const size_t end = std::min(d, start + kPortableChunk);
    int32_t acc = 0;
    for (size_t i = start; i < end; ++i) acc += int32_t{q[i]} * int32_t{code[i]};
    dot += acc;
  }
  return dot;
}

// q_i = 256·hi_i + lo_i with lo_i = q_i's low byte read as int8 (so q_i − lo_i
// is a multiple of 256; |q_i| ≤ 127·257 keeps hi_i within ±127).
void SplitWeights(const int16_t* q, size_t d, std::vector<int8_t>& lo, std::vector<int8_t>& hi) {
  lo.assign((d + 63) / 64 * 64, 0);
  hi.assign(lo.size(), 0);
  int8_t* l = lo.data();
  int8_t* h = hi.data();
  for (size_t i = 0; i < d; ++i) {
    const int8_t low = static_cast<int8_t>(q[i]);
    l[i] = low;
    h[i] = static_cast<int8_t>((q[i] - low) >> 8);
  }
}

void Unbounded(float& lower, float& upper) {
  lower = -std::numeric_limits<float>::infinity();
  upper = std::numeric_limits<float>::infinity();
}

}  // namespace

void PrepareScreen(const ListContext& ctx, ScreenContext& out, ScreenWeights weights) {
  const size_t d = ctx.dimension;
  out.usable = false;
  out.q8.clear();
  out.metric = ctx.metric;
  out.dimension = d;
  out.weight_sum = ctx.weight_sum;
  out.base = ctx.base;
  if (ctx.encoding != Encoding::kLvq8 || d == 0 || ctx.weights.size() != d) return;
  // The AVX2 helpers make the portable ones' values bit for bit, so every
  // path (WASM included) screens with one context.
  const bool avx2 = kernels_internal::PathHasAvx2(DispatchedKernelPath());
  const float* w = ctx.weights.data();
  const WeightStats stats = avx2 ? MeasureWeightsAvx2(w, d) : MeasureWeights(w, d);
  const double max_w = stats.max, sum_w = stats.sum;
  // Every partial sum of the float dot is at most (1 + γ)·255·Σ|w|: this
  // keeps it (and the bound's arithmetic) far from float32 overflow.
  if (!(2.0 * 255.0 * sum_w < kTooLarge)) return;
  // Any integers q_i serve (the residues e_i = w_i − s·q_i are what the
  // bound counts); near-nearest ones keep it tight. w·(1/s) is within a few
  // ulps of w/s, so |q_i| ≤ kMaxWeight after the clamp (and ≤ 127 for 8 bits:
  // |w_i·(1/s)| ≤ 127·(1 + 3·2^-53) rounds to at most 127).
  const bool eight = weights == ScreenWeights::k8;
  const double step = max_w / (eight ? kMaxQ8 : kMaxQ);
  const double inverse = step > 0 ? 1.0 / step : 0.0;
  out.step = step;
  out.q.assign((d + 15) / 16 * 16, 0);
  int16_t* q = out.q.data();
  const double sum_e = avx2 ? QuantizeWeightsAvx2(w, d, inverse, step, q) : QuantizeWeights(w, d, inverse, step, q);
  if (eight) {
    out.q8.resize((d + 63) / 64 * 64, 0);
    for (size_t i = 0; i < d; ++i) out.q8[i] = static_cast<int8_t>(q[i]);
  }
  // Only the AVX-512 screen reads the split weights (it screens with q when they are missing).
  if (DispatchedKernelPath() == KernelPath::kAvx512) {
    SplitWeights(q, d, out.q_lo, out.q_hi);
  } else {
    out.q_lo.clear();
    out.q_hi.clear();
  }
  // The AVX2 layout of each whole 32-element block: its 16 even elements, then its 16 odd ones.
  out.q_split.resize(d / 32 * 32);
  for (size_t b = 0; b + 32 <= d; b += 32) {
    for (size_t j = 0; j < 16; ++j) {
      out.q_split[b + j] = q[b + 2 * j];
      out.q_split[b + 16 + j] = q[b + 2 * j + 1];
    }
  }
  std::fill(std::begin(out.q_tail), std::end(out.q_tail), int16_t{0});
  std::fill(std::begin(out.tail_mask), std::end(out.tail_mask), int16_t{0});
  const size_t whole16 = d / 16 * 16;
  if (d >= 16 && whole16 < d) {
    for (size_t j = 0; j < 16; ++j) {
      const size_t i = d - 16 + j;
      if (i >= whole16) {
        out.q_tail[j] = out.q[i];
        out.tail_mask[j] = -1;
      }
    }
  }
  // The float dot's chain: one product rounding, ⌈d/32⌉ adds into its lane,
  // 2 accumulator adds and 3 fold adds; h = ⌈d/32⌉ + 8 counts generously.
  const double h = static_cast<double>((d + 31) / 32 + 8);
  const double gamma = h * kUnit / (1.0 - h * kUnit);
  const double dd = static_cast<double>(d);
  // 255·Σ|e_i| (quantization; + the rounding of each computed e_i) +
  // γ_h·255·Σ|w_i| (float accumulation) + underflow's absolute errors, all
  // times (1 + 2^-30) for the rounding of these sums themselves.
  out.dot_error =
      (255.0 * (sum_e + gamma * sum_w + 0x1p-50 * dd * max_w) + (2.0 * dd + 64.0) * 0x1p-149) * (1.0 + 0x1p-30);
  out.usable = true;
}

void PrepareScreenSharing(const ListContext& ctx, const ScreenContext& same, ScreenContext& out) {
  out = same;  // the vectors' capacity is reused
  out.weight_sum = ctx.weight_sum;
  out.base = ctx.base;
}

void ScreenRowsPortable(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  const bool l2 = ctx.metric == Metric::kL2Squared;
  double dots[kBoundBatch], sums[kBoundBatch], squares[kBoundBatch];
  for (size_t first = 0; first < rows.n; first += kBoundBatch) {
    const size_t n = std::min(kBoundBatch, rows.n - first);
    for (size_t r = 0; r < n; ++r) {
      const uint8_t* code = rows.codes + (first + r) * rows.stride;
      dots[r] = static_cast<double>(DotPortable(ctx, code));
      if (!l2) continue;
      if (rows.sums != nullptr) {
        sums[r] = rows.sums[first + r].sum;
        squares[r] = rows.sums[first + r].squares;
      } else {
        uint32_t sum = 0, sq = 0;
        for (size_t i = 0; i < ctx.dimension; ++i) {
          sum += code[i];
          sq += uint32_t{code[i]} * code[i];
        }
        sums[r] = sum;
        squares[r] = sq;  // exact as doubles
      }
    }
    if (l2) {
      BoundRows<Metric::kL2Squared>(ctx, n, rows.offsets + first, rows.scales + first, dots, sums, squares,
                                    lower + first, upper + first);
    } else {
      BoundRows<Metric::kCosine>(ctx, n, rows.offsets + first, rows.scales + first, dots, sums, squares, lower + first,
                                 upper + first);
    }
  }
}

namespace {

void Screen(KernelPath path, const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  if (!ctx.usable) {
    for (size_t r = 0; r < rows.n; ++r) Unbounded(lower[r], upper[r]);
    return;
  }
  if (path == KernelPath::kAvx512) {
    ScreenRowsAvx512(ctx, rows, lower, upper);
  } else if (path == KernelPath::kAvx2) {
    ScreenRowsAvx2(ctx, rows, lower, upper);
  } else {
    ScreenRowsPortable(ctx, rows, lower, upper);
  }
}

// The usable contexts of the first one's dimension and metric go to the
// path's multi screen kMultiBatch at a time (the same integers, hence the
// same bounds); every other context is screened alone (the portable path
// screens them all alone: the same bounds).
void ScreenMulti(KernelPath path, const ScreenContext* const* contexts, size_t m, const RowBlock& rows,
                 float* const* lower, float* const* upper) {
  const auto multi = path == KernelPath::kAvx512 ? ScreenRowsAvx512Multi : ScreenRowsAvx2Multi;
  const ScreenContext* batch[kMultiBatch];
  float* batch_lower[kMultiBatch];
  float* batch_upper[kMultiBatch];
  size_t in_batch = 0;
  const ScreenContext* first = nullptr;
  for (size_t j = 0; j < m; ++j) {
    const ScreenContext& ctx = *contexts[j];
    if (!kernels_internal::PathHasAvx2(path) || !ctx.usable) {
      Screen(path, ctx, rows, lower[j], upper[j]);
      continue;
    }
    if (first == nullptr) first = &ctx;
    if (ctx.dimension != first->dimension || ctx.metric != first->metric) {
      Screen(path, ctx, rows, lower[j], upper[j]);
      continue;
    }
    batch[in_batch] = &ctx;
    batch_lower[in_batch] = lower[j];
    batch_upper[in_batch] = upper[j];
    if (++in_batch == kMultiBatch) {
      multi(batch, in_batch, rows, batch_lower, batch_upper);
      in_batch = 0;
    }
  }
  if (in_batch == 1) {
    Screen(path, *batch[0], rows, batch_lower[0], batch_upper[0]);  // one context: its own four-row tiles
  } else if (in_batch > 1) {
    multi(batch, in_batch, rows, batch_lower, batch_upper);
  }
}

}  // namespace

void ScreenBlockMulti(const ScreenContext* const* contexts, size_t m, const RowBlock& rows, float* const* lower,
                      float* const* upper) {
  ScreenMulti(DispatchedKernelPath(), contexts, m, rows, lower, upper);
}

Status ScreenBlockMultiWith(KernelPath path, const ScreenContext* const* contexts, size_t m, const RowBlock& rows,
                            float* const* lower, float* const* upper) {
  if (!KernelPathAvailable(path)) {
    return InvalidArgument("screening: the " + std::string(KernelPathName(path)) +
                           " kernel is not supported by this CPU");
  }
  ScreenMulti(path, contexts, m, rows, lower, upper);
  return Status::Ok();
}

void ScreenBlock(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  Screen(DispatchedKernelPath(), ctx, rows, lower, upper);
}

Status ScreenBlockWith(KernelPath path, const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  if (!KernelPathAvailable(path)) {
    return InvalidArgument("screening: the " + std::string(KernelPathName(path)) +
                           " kernel is not supported by this CPU");
  }
  Screen(path, ctx, rows, lower, upper);
  return Status::Ok();
}

}  // namespace vigilo::ivf::screen
