// The AVX-512 screen (lvq_screen_internal.h). Rows of d ≤ 2048: 64 raw code
// bytes a step against the two int8 halves of the 16-bit weights
// (ScreenContext::q_lo, q_hi) by VNNI's vpdpbusd, Σq·c = 256·Σhi·c + Σlo·c
// exactly, no widening of the codes; Σc by vpdpbusd against ones and Σc² =
// Σc·(c − 128) + 128·Σc (SplitDots). Longer rows: 32 code bytes widened to
// int16 lanes and multiplied by q with vpdpwssd (exact int32 pair sums),
// widened to 64 bits every 2048 elements; Σc and Σc² by vpdpwssd against ones
// and the codes (Row). The last d mod 64 (or 32) elements are one masked step
// (codes past d read as 0, weights zero-padded), so no byte past the row is
// read and every d takes the same loop. The integers are those of the
// portable and AVX2 screens (exact sums), and BoundRows8 makes the portable
// BoundRows' operations in the same order 8 rows wide, so the bounds are bit
// for bit the other paths'. Contexts of 8-bit weights (the centroid ranking's
// from d = 256) take one vpdpbusd per step against q8. Several contexts (a
// row group's queries) go in tiles of 4 rows × 4 contexts: each 32-element
// step of a row widened once, then one vpdpwssd per context (Fashion-MNIST
// batched at nprobe 8: 63 → 54 µs a query against the AVX2 tiles this path
// used before). Only the VIGILO_AVX512 functions use AVX-512, and only after
// kernels_internal::Avx512Supported().
#include "lvq_kernels_internal.h"
#include "lvq_screen_internal.h"

#if defined(__x86_64__) && !defined(VIGILO_KERNELS_NO_AVX2) && !defined(VIGILO_KERNELS_NO_AVX512)
// GCC 12's AVX-512 headers build some results from _mm512_undefined_*()
// (a self-initialized variable), which -Wuninitialized reports at -O3 in
// every caller: a false positive of the headers, silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)  // clang has no -Wmaybe-uninitialized (the fuzz build)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <type_traits>

#include "lvq_screen_reduce_avx2.h"

#define VIGILO_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

namespace vigilo::ivf::screen {
namespace {

using reduce::Reduce4;
using reduce::Reduce4Wide;

constexpr size_t kChunk = 2048;     // elements per int32 accumulator before widening
constexpr size_t kSmallMax = 2048;  // rows up to this go four at a time in int32
constexpr size_t kAhead = 4;        // rows prefetched ahead one at a time (four at a time: PrefetchFourRows)

// A loop of kStep-element steps: the elements in whole steps, then the
// tail's mask (d mod kStep lanes; 0 when there is none).
template <size_t kStep, class Mask>
struct StepMasks {
  size_t whole = 0;
  Mask tail = 0;
};

template <size_t kStep, class Mask>
inline StepMasks<kStep, Mask> MakeStepMasks(size_t d) {
  static_assert(kStep <= 64);
  StepMasks<kStep, Mask> m;
  m.whole = d / kStep * kStep;
  const size_t tail = d - m.whole;
  m.tail = tail == 0 ? 0 : static_cast<Mask>((~uint64_t{0}) >> (64 - tail));
  return m;
}

// 32-element steps (codes widened to 16-bit lanes).
using Masks = StepMasks<32, __mmask32>;
inline Masks MakeMasks(size_t d) { return MakeStepMasks<32, __mmask32>(d); }

VIGILO_AVX512 inline __m512i Codes(const uint8_t* p) {
  return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
VIGILO_AVX512 inline __m512i CodesMasked(__mmask32 k, const uint8_t* p) {
  return _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(k, p));
}

// 16 int32 lanes → 8 (pairs added in int32: each pair's sum stays below 2^31 by the chunk limit).
VIGILO_AVX512 inline __m256i Half(__m512i v) {
  return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
}

struct Sums {
  int64_t dot = 0;
  uint32_t code_sum = 0, code_sq = 0;
};

// One row of any d: int32 lanes widened to int64 every kChunk elements.
template <bool kSums>
VIGILO_AVX512 inline Sums Row(const ScreenContext& ctx, const Masks& m, const uint8_t* code) {
  const int16_t* q = ctx.q.data();
  const __m512i zero = _mm512_setzero_si512();
  const __m512i ones = _mm512_set1_epi16(1);
  __m512i dot64 = zero, sum = zero, sq = zero;
  auto add = [&](__m512i& acc, __m512i c, __m512i w) VIGILO_AVX512 {
    acc = _mm512_dpwssd_epi32(acc, c, w);
    if constexpr (kSums) {
      sum = _mm512_dpwssd_epi32(sum, c, ones);
      sq = _mm512_dpwssd_epi32(sq, c, c);
    }
  };
  auto widen_add = [&](__m512i acc) VIGILO_AVX512 {
    dot64 = _mm512_add_epi64(dot64, _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc)),
                                                     _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc, 1))));
  };
  for (size_t i = 0; i < m.whole;) {
    const size_t end = std::min(m.whole, i + kChunk);
    __m512i acc = zero;
    for (; i < end; i += 32) add(acc, Codes(code + i), _mm512_loadu_si512(q + i));
    widen_add(acc);
  }
  if (m.tail != 0) {
    __m512i acc = zero;
    add(acc, CodesMasked(m.tail, code + m.whole), _mm512_maskz_loadu_epi16(m.tail, q + m.whole));
    widen_add(acc);
  }
  Sums s;
  s.dot = _mm512_reduce_add_epi64(dot64);
  if constexpr (kSums) {
    s.code_sum = static_cast<uint32_t>(_mm512_reduce_add_epi32(sum));
    s.code_sq = static_cast<uint32_t>(_mm512_reduce_add_epi32(sq));
  }
  return s;
}

// 64-element steps on raw code bytes (vpdpbusd: unsigned bytes × int8).
using Masks8 = StepMasks<64, __mmask64>;
inline Masks8 MakeMasks8(size_t d) { return MakeStepMasks<64, __mmask64>(d); }

// kRows rows of d ≤ kSmallMax side by side at the 16-bit weights' precision
// without widening the codes: Σq·c = 256·Σhi·c + Σlo·c from two vpdpbusd per
// 64 elements against the split weights (ScreenContext::q_lo, q_hi); with
// kSums, Σc by vpdpbusd against ones and Σc² = Σc·(c − 128) + 128·Σc, the
// first by vpdpbusd of the codes against themselves with the top bit
// flipped (c XOR 128 read as int8 is c − 128). Each int32 lane takes 4
// products a step, |c·lo| ≤ 255·128: far below 2^31 at d ≤ 2048. Each
// accumulator is folded to 8 int32 lanes; Σc² is folded from Σc·(c − 128)
// and Σc lane by lane (each folded lane's Σc² ≤ 8·255²·(d/64 + 1) fits int32).
template <size_t kRows, bool kSums, bool kNarrow>
VIGILO_AVX512 inline void SplitDots(const ScreenContext& ctx, const Masks8& m, const uint8_t* code, size_t stride,
                                    __m256i (&lo)[kRows], __m256i (&hi)[kRows], __m256i (&sum)[kRows],
                                    __m256i (&sq)[kRows]) {
  const int8_t* q_lo = ctx.q_lo.data();
  const int8_t* q_hi = ctx.q_hi.data();
  const __m512i zero = _mm512_setzero_si512();
  const __m512i ones = _mm512_set1_epi8(1), flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i a_lo[kRows], a_hi[kRows], s1[kRows], s2[kRows];
  for (size_t r = 0; r < kRows; ++r) a_lo[r] = a_hi[r] = s1[r] = s2[r] = zero;
  auto add = [&](size_t r, __m512i c, __m512i w_lo, __m512i w_hi) VIGILO_AVX512 {
    a_lo[r] = _mm512_dpbusd_epi32(a_lo[r], c, w_lo);
    a_hi[r] = _mm512_dpbusd_epi32(a_hi[r], c, w_hi);
    if constexpr (kSums) {
      s1[r] = _mm512_dpbusd_epi32(s1[r], c, ones);
      s2[r] = _mm512_dpbusd_epi32(s2[r], c, _mm512_xor_si512(c, flip));
    }
  };
  for (size_t i = 0; i < m.whole; i += 64) {
    const __m512i w_lo = _mm512_loadu_si512(q_lo + i), w_hi = _mm512_loadu_si512(q_hi + i);
    for (size_t r = 0; r < kRows; ++r) add(r, _mm512_loadu_si512(code + r * stride + i), w_lo, w_hi);
  }
  if (m.tail != 0) {  // q_lo and q_hi are zero-padded to 64; masked codes read as 0
    const __m512i w_lo = _mm512_loadu_si512(q_lo + m.whole), w_hi = _mm512_loadu_si512(q_hi + m.whole);
    for (size_t r = 0; r < kRows; ++r) add(r, _mm512_maskz_loadu_epi8(m.tail, code + r * stride + m.whole), w_lo, w_hi);
  }
  for (size_t r = 0; r < kRows; ++r) {
    if constexpr (kNarrow) {  // the whole Σq·c within int32: one accumulator
      lo[r] = Half(_mm512_add_epi32(a_lo[r], _mm512_slli_epi32(a_hi[r], 8)));
      hi[r] = _mm256_setzero_si256();
    } else {
      lo[r] = Half(a_lo[r]);
      hi[r] = Half(a_hi[r]);
    }
    if constexpr (kSums) {
      sum[r] = Half(s1[r]);
      sq[r] = _mm256_add_epi32(Half(s2[r]), _mm256_slli_epi32(sum[r], 7));
    } else {
      sum[r] = sq[r] = _mm256_setzero_si256();
    }
  }
}

// BoundRows 8 rows at a time: the portable loop's operations in its order
// (no FMA: separate multiplies and adds, -ffp-contract=off), so the same bounds.
template <Metric kMetric>
VIGILO_AVX512 inline void BoundRows8(const ScreenContext& ctx, size_t n, const float* offsets, const float* scales,
                                     const double* dots, const double* code_sum, const double* code_sq, float* lower,
                                     float* upper) {
  const __m512d base = _mm512_set1_pd(ctx.base), weight_sum = _mm512_set1_pd(ctx.weight_sum);
  const __m512d step = _mm512_set1_pd(ctx.step), e = _mm512_set1_pd(ctx.dot_error);
  const __m512d abs_base = _mm512_abs_pd(base);
  const __m512d d = _mm512_set1_pd(static_cast<double>(ctx.dimension));
  const __m512d two = _mm512_set1_pd(2.0), zero = _mm512_setzero_pd();
  const __m512d slack_factor = _mm512_set1_pd(0x1p-40), too_large = _mm512_set1_pd(kScreenTooLarge);
  const __m512d inf = _mm512_set1_pd(__builtin_inf()), neg_inf = _mm512_set1_pd(-__builtin_inf());
  size_t r = 0;
  for (; r + 8 <= n; r += 8) {
    const __m512d o = _mm512_cvtps_pd(_mm256_loadu_ps(offsets + r));
    const __m512d sc = _mm512_cvtps_pd(_mm256_loadu_ps(scales + r));
    const __m512d wa = _mm512_mul_pd(step, _mm512_loadu_pd(dots + r));
    const __m512d asc = _mm512_abs_pd(sc);
    const __m512d awa = _mm512_abs_pd(wa);
    const __m512d os = _mm512_mul_pd(o, weight_sum);
    const __m512d aos = _mm512_abs_pd(os);
    __m512d v, dev, magnitude;
    if constexpr (kMetric == Metric::kL2Squared) {
      const __m512d sum = _mm512_loadu_pd(code_sum + r), sq = _mm512_loadu_pd(code_sq + r);
      const __m512d sc2 = _mm512_mul_pd(sc, sc);
      const __m512d r2 = _mm512_add_pd(
          _mm512_mul_pd(o, _mm512_add_pd(_mm512_mul_pd(d, o), _mm512_mul_pd(_mm512_mul_pd(two, sc), sum))),
          _mm512_mul_pd(sc2, sq));
      v = _mm512_add_pd(_mm512_sub_pd(base, _mm512_mul_pd(two, _mm512_add_pd(os, _mm512_mul_pd(sc, wa)))), r2);
      dev = _mm512_mul_pd(_mm512_mul_pd(two, asc), e);
      const __m512d ao = _mm512_abs_pd(o);
      magnitude =
          _mm512_add_pd(abs_base, _mm512_mul_pd(two, _mm512_add_pd(aos, _mm512_mul_pd(asc, _mm512_add_pd(awa, e)))));
      magnitude = _mm512_add_pd(
          magnitude,
          _mm512_mul_pd(ao, _mm512_add_pd(_mm512_mul_pd(d, ao), _mm512_mul_pd(_mm512_mul_pd(two, asc), sum))));
      magnitude = _mm512_add_pd(_mm512_add_pd(magnitude, _mm512_mul_pd(sc2, sq)), dev);
    } else {
      v = _mm512_sub_pd(base, _mm512_add_pd(os, _mm512_mul_pd(sc, wa)));
      dev = _mm512_mul_pd(asc, e);
      magnitude =
          _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(abs_base, aos), _mm512_mul_pd(asc, _mm512_add_pd(awa, e))), dev);
    }
    const __m512d slack = _mm512_mul_pd(magnitude, slack_factor);
    __m512d lo = _mm512_sub_pd(_mm512_sub_pd(v, dev), slack);
    __m512d hi = _mm512_add_pd(_mm512_add_pd(v, dev), slack);
    if constexpr (kMetric == Metric::kL2Squared) hi = _mm512_max_pd(hi, zero);  // NaN → 0, as the portable ?:
    const __mmask8 proven = _mm512_cmp_pd_mask(_mm512_sub_pd(v, v), zero, _CMP_EQ_OQ) &
                            _mm512_cmp_pd_mask(magnitude, too_large, _CMP_LT_OQ);
    lo = _mm512_mask_blend_pd(proven, neg_inf, lo);
    hi = _mm512_mask_blend_pd(proven, inf, hi);
    _mm256_storeu_ps(lower + r, _mm512_cvtpd_ps(lo));
    _mm256_storeu_ps(upper + r, _mm512_cvtpd_ps(hi));
  }
  BoundRows<kMetric>(ctx, n - r, offsets + r, scales + r, dots + r, code_sum + r, code_sq + r, lower + r, upper + r);
}

VIGILO_AVX512 inline void Prefetch(const ScreenContext& ctx, const uint8_t* row) {
  for (size_t at = 0; at < ctx.dimension; at += 64) _mm_prefetch(reinterpret_cast<const char*>(row + at), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(row + ctx.dimension - 1), _MM_HINT_T0);
}

// Rows of d > kSmallMax, one at a time, 16-bit codes (Row).
template <Metric kMetric, bool kSums>
VIGILO_AVX512 void LongRows(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  double dots[kBoundBatch], sums[kBoundBatch], squares[kBoundBatch];
  const Masks masks = MakeMasks(ctx.dimension);
  for (size_t first = 0; first < rows.n; first += kBoundBatch) {
    const size_t n = std::min(kBoundBatch, rows.n - first);
    for (size_t r = 0; r < n; ++r) {
      if (first + r + kAhead < rows.n) Prefetch(ctx, rows.codes + (first + r + kAhead) * rows.stride);
      const Sums s = Row<kSums>(ctx, masks, rows.codes + (first + r) * rows.stride);
      dots[r] = static_cast<double>(s.dot);
      if constexpr (kSums) {
        sums[r] = s.code_sum;
        squares[r] = s.code_sq;
      }
    }
    if constexpr (!kSums && kMetric == Metric::kL2Squared) TakeSums(rows, first, n, sums, squares);
    BoundRows8<kMetric>(ctx, n, rows.offsets + first, rows.scales + first, dots, sums, squares, lower + first,
                        upper + first);
  }
}

// 256·hi + lo for four rows, exact in double (|Σ| < 2^40).
inline void Combine(const double* lo, const double* hi, double* out) {
  for (size_t k = 0; k < 4; ++k) out[k] = 256.0 * hi[k] + lo[k];
}

// Rows of d ≤ kSmallMax by SplitDots: four at a time where Rows8 does (rows
// in cache, or d ≤ kFourRowsMax), else one at a time.
template <Metric kMetric, bool kSums>
VIGILO_AVX512 void Rows(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  if (ctx.dimension > kSmallMax || ctx.q_lo.empty()) {
    LongRows<kMetric, kSums>(ctx, rows, lower, upper);
    return;
  }
  double dots[kBoundBatch], sums[kBoundBatch], squares[kBoundBatch];
  double lo[4], hi[4];
  const Masks8 masks = MakeMasks8(ctx.dimension);
  const bool four = rows.cached || ctx.dimension <= kFourRowsMax;
  const bool narrow = ctx.dimension <= 256;  // |Σq·c| ≤ 256·32639·255 < 2^31
  for (size_t first = 0; first < rows.n; first += kBoundBatch) {
    const size_t n = std::min(kBoundBatch, rows.n - first);
    size_t r = 0;
    if (four) {
      for (; r + 4 <= n; r += 4) {
        PrefetchFourRows(rows, first + r);
        __m256i l[4], h[4], s[4], q[4];
        if (narrow) {
          SplitDots<4, kSums, true>(ctx, masks, rows.codes + (first + r) * rows.stride, rows.stride, l, h, s, q);
          Reduce4(l[0], l[1], l[2], l[3], dots + r);
        } else {
          SplitDots<4, kSums, false>(ctx, masks, rows.codes + (first + r) * rows.stride, rows.stride, l, h, s, q);
          Reduce4(l[0], l[1], l[2], l[3], lo);
          Reduce4(h[0], h[1], h[2], h[3], hi);
          Combine(lo, hi, dots + r);
        }
        if constexpr (kSums) {
          Reduce4(s[0], s[1], s[2], s[3], sums + r);
          Reduce4(q[0], q[1], q[2], q[3], squares + r);
        }
      }
    }
    for (; r < n; ++r) {
      if (first + r + kAhead < rows.n) Prefetch(ctx, rows.codes + (first + r + kAhead) * rows.stride);
      __m256i l[1], h[1], s[1], q[1];
      SplitDots<1, kSums, false>(ctx, masks, rows.codes + (first + r) * rows.stride, rows.stride, l, h, s, q);
      alignas(32) double out[4];
      Reduce4(l[0], h[0], s[0], q[0], out);
      dots[r] = 256.0 * out[1] + out[0];
      if constexpr (kSums) {
        sums[r] = out[2];
        squares[r] = out[3];
      }
    }
    if constexpr (!kSums && kMetric == Metric::kL2Squared) TakeSums(rows, first, n, sums, squares);
    BoundRows8<kMetric>(ctx, n, rows.offsets + first, rows.scales + first, dots, sums, squares, lower + first,
                        upper + first);
  }
}

// --- Contexts of 8-bit weights (ScreenContext::q8). ---
// vpdpbusd multiplies 64 raw code bytes (unsigned) by 64 int8 weights and
// adds each four products into an int32 lane: no widening of the codes, twice
// the products of vpdpwssd per instruction. A row's whole |Σq·c| is at most
// 65536·255·127 < 2^31, so int32 lanes hold every partial sum at any d, and
// the four rows are reduced in int32. The last d mod 64 elements are one
// masked step. Rows of l2 without precomputed sums get their Σc and Σc² in
// the same pass (Dots8<…, true>) up to kSmallMax, beyond it from the 16-bit
// weights' loop (q holds the same integers).

inline bool Eight(const ScreenContext& ctx, const RowBlock& rows) {
  return !ctx.q8.empty() &&
         (ctx.metric == Metric::kCosine || rows.sums != nullptr || ctx.dimension <= kSmallMax);
}

// kRows rows' dots, each folded to 8 int32 lanes; with kSums also their Σc
// (vpdpbusd against ones) and Σc² (= Σc·(c − 128) + 128·Σc, as SplitDots),
// folded likewise (d ≤ kSmallMax: a folded lane's Σc² ≤ 8·255²·(d/64 + 1) <
// 2^31), else zero.
template <size_t kRows, bool kSums>
VIGILO_AVX512 inline void Dots8(const ScreenContext& ctx, const Masks8& m, const uint8_t* code, size_t stride,
                                __m256i (&dot)[kRows], __m256i (&sum)[kRows], __m256i (&sq)[kRows]) {
  const int8_t* q = ctx.q8.data();
  const __m512i ones = _mm512_set1_epi8(1), flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i acc[kRows], s1[kRows], s2[kRows];
  for (size_t r = 0; r < kRows; ++r) acc[r] = s1[r] = s2[r] = _mm512_setzero_si512();
  auto add = [&](size_t r, __m512i c, __m512i w) VIGILO_AVX512 {
    acc[r] = _mm512_dpbusd_epi32(acc[r], c, w);
    if constexpr (kSums) {
      s1[r] = _mm512_dpbusd_epi32(s1[r], c, ones);
      s2[r] = _mm512_dpbusd_epi32(s2[r], c, _mm512_xor_si512(c, flip));
    }
  };
  for (size_t i = 0; i < m.whole; i += 64) {
    const __m512i w = _mm512_loadu_si512(q + i);
    for (size_t r = 0; r < kRows; ++r) add(r, _mm512_loadu_si512(code + r * stride + i), w);
  }
  if (m.tail != 0) {
    const __m512i w = _mm512_loadu_si512(q + m.whole);  // q8 is zero-padded to 64; masked codes read as 0
    for (size_t r = 0; r < kRows; ++r) add(r, _mm512_maskz_loadu_epi8(m.tail, code + r * stride + m.whole), w);
  }
  for (size_t r = 0; r < kRows; ++r) {
    dot[r] = Half(acc[r]);
    if constexpr (kSums) {
      sum[r] = Half(s1[r]);
      sq[r] = _mm256_add_epi32(Half(s2[r]), _mm256_slli_epi32(sum[r], 7));
    } else {
      sum[r] = sq[r] = _mm256_setzero_si256();
    }
  }
}

// With kSums (l2 without precomputed sums), each row's Σc and Σc² come from
// the same pass over its codes (Dots8).
template <Metric kMetric, bool kSums = false>
VIGILO_AVX512 void Rows8(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  double dots[kBoundBatch], sums[kBoundBatch], squares[kBoundBatch];
  const Masks8 masks = MakeMasks8(ctx.dimension);
  const bool four = rows.cached || ctx.dimension <= kFourRowsMax;  // as in Rows
  const __m256i zero = _mm256_setzero_si256();
  for (size_t first = 0; first < rows.n; first += kBoundBatch) {
    const size_t n = std::min(kBoundBatch, rows.n - first);
    size_t r = 0;
    if (four) {
      for (; r + 4 <= n; r += 4) {
        PrefetchFourRows(rows, first + r);
        const uint8_t* codes = rows.codes + (first + r) * rows.stride;
        __m256i dot[4], sum[4], sq[4];
        Dots8<4, kSums>(ctx, masks, codes, rows.stride, dot, sum, sq);
        Reduce4(dot[0], dot[1], dot[2], dot[3], dots + r);
        if constexpr (kSums) {
          Reduce4(sum[0], sum[1], sum[2], sum[3], sums + r);
          Reduce4(sq[0], sq[1], sq[2], sq[3], squares + r);
        }
      }
    }
    for (; r < n; ++r) {
      if (first + r + kAhead < rows.n) Prefetch(ctx, rows.codes + (first + r + kAhead) * rows.stride);
      const uint8_t* codes = rows.codes + (first + r) * rows.stride;
      __m256i dot[1], sum[1], sq[1];
      Dots8<1, kSums>(ctx, masks, codes, rows.stride, dot, sum, sq);
      alignas(32) double out[4];
      Reduce4(dot[0], sum[0], sq[0], zero, out);
      dots[r] = out[0];
      if constexpr (kSums) {
        sums[r] = out[1];
        squares[r] = out[2];
      }
    }
    if constexpr (kMetric == Metric::kL2Squared && !kSums) TakeSums(rows, first, n, sums, squares);
    BoundRows8<kMetric>(ctx, n, rows.offsets + first, rows.scales + first, dots, sums, squares, lower + first,
                        upper + first);
  }
}

// --- Several contexts (queries) against the same rows. ---
// A tile of kRows rows × kQueries contexts: each 32-element step of a row is
// widened once, then multiplied by every context's weights. The int32 lanes
// take 2 products per step (so int32 holds a row's sum at d ≤ kSmallMax) and the sums
// are exact integers, so the bounds are those of the one-context screen.
constexpr size_t kTileRows = 4, kTileQueries = 4;

template <size_t kRows, size_t kQueries>
VIGILO_AVX512 inline void MultiTile(const ScreenContext* const* ctx, const Masks& m, const uint8_t* code, size_t stride,
                                    __m256i (&dot)[kRows][kTileQueries]) {
  const __m512i zero = _mm512_setzero_si512();
  __m512i acc[kRows][kQueries];
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < kQueries; ++j) acc[r][j] = zero;
  }
  auto step = [&](const __m512i (&c)[kRows], size_t at, __mmask32 mask) VIGILO_AVX512 {
    for (size_t j = 0; j < kQueries; ++j) {
      const __m512i w = _mm512_maskz_loadu_epi16(mask, ctx[j]->q.data() + at);
      for (size_t r = 0; r < kRows; ++r) acc[r][j] = _mm512_dpwssd_epi32(acc[r][j], c[r], w);
    }
  };
  for (size_t i = 0; i < m.whole; i += 32) {
    __m512i c[kRows];
    for (size_t r = 0; r < kRows; ++r) c[r] = Codes(code + r * stride + i);
    step(c, i, ~__mmask32{0});
  }
  if (m.tail != 0) {
    __m512i c[kRows];
    for (size_t r = 0; r < kRows; ++r) c[r] = CodesMasked(m.tail, code + r * stride + m.whole);
    step(c, m.whole, m.tail);
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < kTileQueries; ++j) dot[r][j] = j < kQueries ? Half(acc[r][j]) : _mm256_setzero_si256();
  }
}

// The same tile for contexts of 8-bit weights (Eight8, below): 64 raw code
// bytes a step, one vpdpbusd per row and context.
template <size_t kRows, size_t kQueries>
VIGILO_AVX512 inline void MultiTile8(const ScreenContext* const* ctx, const Masks8& m, const uint8_t* code,
                                     size_t stride, __m256i (&dot)[kRows][kTileQueries]) {
  const int8_t* q[kQueries];
  for (size_t j = 0; j < kQueries; ++j) q[j] = ctx[j]->q8.data();
  const __m512i zero = _mm512_setzero_si512();
  __m512i acc[kRows][kQueries];
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < kQueries; ++j) acc[r][j] = zero;
  }
  for (size_t i = 0; i < m.whole; i += 64) {
    __m512i c[kRows];
    for (size_t r = 0; r < kRows; ++r) c[r] = _mm512_loadu_si512(code + r * stride + i);
    for (size_t j = 0; j < kQueries; ++j) {
      const __m512i w = _mm512_loadu_si512(q[j] + i);
      for (size_t r = 0; r < kRows; ++r) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], c[r], w);
    }
  }
  if (m.tail != 0) {
    __m512i c[kRows];
    for (size_t r = 0; r < kRows; ++r) c[r] = _mm512_maskz_loadu_epi8(m.tail, code + r * stride + m.whole);
    for (size_t j = 0; j < kQueries; ++j) {
      const __m512i w = _mm512_loadu_si512(q[j] + m.whole);  // q8 is zero-padded to 64
      for (size_t r = 0; r < kRows; ++r) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], c[r], w);
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < kTileQueries; ++j) dot[r][j] = j < kQueries ? Half(acc[r][j]) : _mm256_setzero_si256();
  }
}

// kQueries contexts over n ≤ kBoundBatch rows: dots[j][r], row r's dot for context j.
template <size_t kQueries, bool kEight>
VIGILO_AVX512 void MultiDots(const ScreenContext* const* ctx, const uint8_t* codes, size_t stride, size_t n,
                             double (*dots)[kBoundBatch]) {
  const Masks masks = MakeMasks(ctx[0]->dimension);
  const Masks8 masks8 = MakeMasks8(ctx[0]->dimension);
  // A row's whole Σq·c below 2^31 (as in Rows; 8-bit weights at any d).
  const bool narrow = kEight || ctx[0]->dimension <= 256;
  auto tile = [&](auto rows, const uint8_t* code, auto& acc) VIGILO_AVX512 {
    if constexpr (kEight) {
      MultiTile8<decltype(rows)::value, kQueries>(ctx, masks8, code, stride, acc);
    } else {
      MultiTile<decltype(rows)::value, kQueries>(ctx, masks, code, stride, acc);
    }
  };
  alignas(32) double out[kTileQueries];
  auto reduce = [&](const __m256i (&acc)[kTileQueries], size_t r) VIGILO_AVX512 {
    if (narrow) {
      Reduce4(acc[0], acc[1], acc[2], acc[3], out);
    } else {
      Reduce4Wide(acc, out);
    }
    for (size_t j = 0; j < kQueries; ++j) dots[j][r] = out[j];
  };
  size_t r = 0;
  for (; r + kTileRows <= n; r += kTileRows) {
    __m256i acc[kTileRows][kTileQueries];
    tile(std::integral_constant<size_t, kTileRows>{}, codes + r * stride, acc);
    for (size_t k = 0; k < kTileRows; ++k) reduce(acc[k], r + k);
  }
  for (; r < n; ++r) {
    __m256i acc[1][kTileQueries];
    tile(std::integral_constant<size_t, 1>{}, codes + r * stride, acc);
    reduce(acc[0], r);
  }
}

template <Metric kMetric, bool kEight>
void MultiRows(const ScreenContext* const* ctx, size_t m, const RowBlock& rows, float* const* lower,
               float* const* upper) {
  static_assert(kTileQueries == 4);  // Reduce4's four accumulators
  auto dots = [](const ScreenContext* const* tile, size_t count, const uint8_t* codes, size_t stride, size_t n,
                 double(*out)[kBoundBatch]) VIGILO_AVX512 {
    switch (count) {
      case 1: MultiDots<1, kEight>(tile, codes, stride, n, out); break;
      case 2: MultiDots<2, kEight>(tile, codes, stride, n, out); break;
      case 3: MultiDots<3, kEight>(tile, codes, stride, n, out); break;
      default: MultiDots<4, kEight>(tile, codes, stride, n, out); break;
    }
  };
  const size_t d = ctx[0]->dimension;
  auto sums = [d](size_t n, const uint8_t* codes, size_t stride, CodeSums* out) {
    kernels_internal::CodeSumsLvq8Avx2(d, n, codes, stride, out);
  };
  MultiRowsWith<kMetric, kTileQueries>(ctx, m, rows, lower, upper, dots, sums, BoundRows8<kMetric>);
}

}  // namespace

void ScreenRowsAvx512Multi(const ScreenContext* const* contexts, size_t m, const RowBlock& rows, float* const* lower,
                           float* const* upper) {
  if (m == 0) return;
  const size_t d = contexts[0]->dimension;
  bool eight = true;  // every context's weights in 8 bits (else all go as 16: q holds the same integers)
  for (size_t j = 0; j < m; ++j) eight &= Eight(*contexts[j], rows);
  const bool cosine = contexts[0]->metric == Metric::kCosine;
  if (eight) {
    if (cosine) {
      MultiRows<Metric::kCosine, true>(contexts, m, rows, lower, upper);
    } else {
      MultiRows<Metric::kL2Squared, true>(contexts, m, rows, lower, upper);
    }
  } else if (d > kSmallMax) {  // beyond the 16-bit tiles' int32 limit: context by context
    for (size_t j = 0; j < m; ++j) ScreenRowsAvx512(*contexts[j], rows, lower[j], upper[j]);
  } else if (cosine) {
    MultiRows<Metric::kCosine, false>(contexts, m, rows, lower, upper);
  } else {
    MultiRows<Metric::kL2Squared, false>(contexts, m, rows, lower, upper);
  }
}

void ScreenRowsAvx512(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  if (Eight(ctx, rows)) {
    if (ctx.metric == Metric::kCosine) {
      Rows8<Metric::kCosine>(ctx, rows, lower, upper);
    } else if (rows.sums == nullptr) {
      Rows8<Metric::kL2Squared, true>(ctx, rows, lower, upper);
    } else {
      Rows8<Metric::kL2Squared>(ctx, rows, lower, upper);
    }
    return;
  }
  if (ctx.metric == Metric::kCosine) {
    Rows<Metric::kCosine, false>(ctx, rows, lower, upper);
  } else if (rows.sums == nullptr) {
    Rows<Metric::kL2Squared, true>(ctx, rows, lower, upper);
  } else {
    Rows<Metric::kL2Squared, false>(ctx, rows, lower, upper);
  }
}

}  // namespace vigilo::ivf::screen

#else

namespace vigilo::ivf::screen {

void ScreenRowsAvx512(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  ScreenRowsPortable(ctx, rows, lower, upper);
}

void ScreenRowsAvx512Multi(const ScreenContext* const* contexts, size_t m, const RowBlock& rows, float* const* lower,
                           float* const* upper) {
  for (size_t j = 0; j < m; ++j) ScreenRowsPortable(*contexts[j], rows, lower[j], upper[j]);
}

}  // namespace vigilo::ivf::screen

#endif
