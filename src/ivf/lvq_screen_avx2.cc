// The AVX2 screen (lvq_screen_internal.h): 32 code bytes read as 16-bit
// lanes and split into their low (even) and high (odd) bytes by a mask and a
// shift, then multiplied by the int16 weights in that order
// (ScreenContext::q_split) with vpmaddwd (exact int32 pair sums; vpmaddubsw
// is not usable: it saturates). A lane takes at most 256 products per 2048
// elements, which keeps it below 2^31 (256·32767·255 = 2,139,029,760);
// then it is widened to 64 bits. Σc by vpsadbw, Σc² by vpmaddwd of the codes
// with themselves (exact: d ≤ 65536). A d that is not a multiple of 16 ends
// with the row's last 16 bytes against ScreenContext::q_tail (zero where
// those elements were already summed), so no byte past the row is read.
// Several contexts (a row group's queries) go in tiles of 2 rows × 4
// contexts: each block of codes loaded and split once for the four.
// Like lvq_kernels_avx2.cc, only the VIGILO_AVX2 functions use AVX2, and
// only after Avx2Supported(). x86-64 only (elsewhere the portable screen).
#include "lvq_kernels_internal.h"
#include "lvq_screen_internal.h"

#if defined(__x86_64__) && !defined(VIGILO_KERNELS_NO_AVX2)
#include <immintrin.h>

#include <algorithm>

#include "lvq_screen_reduce_avx2.h"

#define VIGILO_AVX2 __attribute__((target("avx2")))

namespace vigilo::ivf::screen {
namespace {

using reduce::Reduce4;
using reduce::Reduce4Wide;
using reduce::Widen64;

constexpr size_t kChunk = 2048;
constexpr size_t kAhead = 4;  // rows

VIGILO_AVX2 inline int64_t Sum64(__m256i v) {
  const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  return _mm_cvtsi128_si64(_mm_add_epi64(x, _mm_unpackhi_epi64(x, x)));
}

VIGILO_AVX2 inline uint32_t Sum32(__m256i v) {
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  uint32_t s = 0;
  for (int32_t x : lanes) s += static_cast<uint32_t>(x);
  return s;
}

struct Sums {
  int64_t dot = 0;
  uint32_t code_sum = 0, code_sq = 0;
};

// One row. Steps of 32 elements (two 16-element halves; a lane takes 4
// products per step, so 64 steps = 2048 elements before widening), then at
// most one 16-element step, then the masked tail.
template <bool kSums>
VIGILO_AVX2 inline Sums Row(const ScreenContext& ctx, const uint8_t* code) {
  const size_t d = ctx.dimension;
  const int16_t* q = ctx.q.data();
  const size_t whole32 = d / 32 * 32;
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i low_bytes = _mm256_set1_epi16(0x00FF);
  const int16_t* qs = ctx.q_split.data();
  __m256i dot = zero, sad = zero, sum = zero, sq = zero;
  size_t i = 0;
  while (i < whole32) {
    const size_t end = std::min(whole32, i + kChunk);
    __m256i acc = zero;
    for (; i < end; i += 32) {
      // The 32 bytes as 16-bit lanes: the even elements are the low bytes,
      // the odd ones the high bytes (no cross-lane shuffle), against q_split.
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(code + i));
      const __m256i c0 = _mm256_and_si256(b, low_bytes);
      const __m256i c1 = _mm256_srli_epi16(b, 8);
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(c0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + i))));
      acc = _mm256_add_epi32(acc,
                             _mm256_madd_epi16(c1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + i + 16))));
      if constexpr (kSums) {
        sad = _mm256_add_epi64(sad, _mm256_sad_epu8(b, zero));
        sq = _mm256_add_epi32(sq, _mm256_add_epi32(_mm256_madd_epi16(c0, c0), _mm256_madd_epi16(c1, c1)));
      }
    }
    dot = _mm256_add_epi64(dot, Widen64(acc));
  }
  Sums s;
  if (d >= 16) {
    if (d - whole32 >= 16) {  // one 16-element step
      const __m256i c = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + whole32)));
      dot = _mm256_add_epi64(
          dot, Widen64(_mm256_madd_epi16(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + whole32)))));
      if constexpr (kSums) {
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(c, ones));
        sq = _mm256_add_epi32(sq, _mm256_madd_epi16(c, c));
      }
    }
    if (d % 16 != 0) {  // the row's last 16 bytes, those already summed weighted and masked by 0
      __m256i c = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + d - 16)));
      dot = _mm256_add_epi64(
          dot, Widen64(_mm256_madd_epi16(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ctx.q_tail)))));
      if constexpr (kSums) {
        c = _mm256_and_si256(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ctx.tail_mask)));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(c, ones));
        sq = _mm256_add_epi32(sq, _mm256_madd_epi16(c, c));
      }
    }
  } else {  // d < 16: element by element
    for (size_t k = 0; k < d; ++k) {
      s.dot += int64_t{q[k]} * code[k];
      if constexpr (kSums) {
        s.code_sum += code[k];
        s.code_sq += uint32_t{code[k]} * code[k];
      }
    }
  }
  s.dot += Sum64(dot);
  if constexpr (kSums) {
    s.code_sum += static_cast<uint32_t>(Sum64(sad)) + Sum32(sum);
    s.code_sq += Sum32(sq);
  }
  return s;
}

// BoundRows four rows at a time: the same operations in the same order (no
// FMA), so the same bounds; the compiler leaves the portable loop scalar.
template <Metric kMetric>
VIGILO_AVX2 inline void BoundRows4(const ScreenContext& ctx, size_t n, const float* offsets, const float* scales,
                                   const double* dots, const double* code_sum, const double* code_sq, float* lower,
                                   float* upper) {
  const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
  const __m256d base = _mm256_set1_pd(ctx.base), weight_sum = _mm256_set1_pd(ctx.weight_sum);
  const __m256d step = _mm256_set1_pd(ctx.step), e = _mm256_set1_pd(ctx.dot_error);
  const __m256d abs_base = _mm256_and_pd(base, abs_mask);
  const __m256d d = _mm256_set1_pd(static_cast<double>(ctx.dimension));
  const __m256d two = _mm256_set1_pd(2.0), zero = _mm256_setzero_pd();
  const __m256d slack_factor = _mm256_set1_pd(0x1p-40), too_large = _mm256_set1_pd(kScreenTooLarge);
  const __m256d inf = _mm256_set1_pd(__builtin_inf()), neg_inf = _mm256_set1_pd(-__builtin_inf());
  size_t r = 0;
  for (; r + 4 <= n; r += 4) {
    const __m256d o = _mm256_cvtps_pd(_mm_loadu_ps(offsets + r));
    const __m256d sc = _mm256_cvtps_pd(_mm_loadu_ps(scales + r));
    const __m256d wa = _mm256_mul_pd(step, _mm256_loadu_pd(dots + r));
    const __m256d asc = _mm256_and_pd(sc, abs_mask);
    const __m256d awa = _mm256_and_pd(wa, abs_mask);
    const __m256d os = _mm256_mul_pd(o, weight_sum);
    const __m256d aos = _mm256_and_pd(os, abs_mask);
    __m256d v, dev, magnitude;
    if constexpr (kMetric == Metric::kL2Squared) {
      const __m256d sum = _mm256_loadu_pd(code_sum + r), sq = _mm256_loadu_pd(code_sq + r);
      const __m256d sc2 = _mm256_mul_pd(sc, sc);
      const __m256d r2 = _mm256_add_pd(
          _mm256_mul_pd(o, _mm256_add_pd(_mm256_mul_pd(d, o), _mm256_mul_pd(_mm256_mul_pd(two, sc), sum))),
          _mm256_mul_pd(sc2, sq));
      v = _mm256_add_pd(_mm256_sub_pd(base, _mm256_mul_pd(two, _mm256_add_pd(os, _mm256_mul_pd(sc, wa)))), r2);
      dev = _mm256_mul_pd(_mm256_mul_pd(two, asc), e);
      const __m256d ao = _mm256_and_pd(o, abs_mask);
      magnitude =
          _mm256_add_pd(abs_base, _mm256_mul_pd(two, _mm256_add_pd(aos, _mm256_mul_pd(asc, _mm256_add_pd(awa, e)))));
      magnitude = _mm256_add_pd(
          magnitude,
          _mm256_mul_pd(ao, _mm256_add_pd(_mm256_mul_pd(d, ao), _mm256_mul_pd(_mm256_mul_pd(two, asc), sum))));
      magnitude = _mm256_add_pd(_mm256_add_pd(magnitude, _mm256_mul_pd(sc2, sq)), dev);
    } else {
      v = _mm256_sub_pd(base, _mm256_add_pd(os, _mm256_mul_pd(sc, wa)));
      dev = _mm256_mul_pd(asc, e);
      magnitude =
          _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(abs_base, aos), _mm256_mul_pd(asc, _mm256_add_pd(awa, e))), dev);
    }
    const __m256d slack = _mm256_mul_pd(magnitude, slack_factor);
    __m256d lo = _mm256_sub_pd(_mm256_sub_pd(v, dev), slack);
    __m256d hi = _mm256_add_pd(_mm256_add_pd(v, dev), slack);
    if constexpr (kMetric == Metric::kL2Squared) hi = _mm256_max_pd(hi, zero);
    const __m256d proven = _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(v, v), zero, _CMP_EQ_OQ),
                                         _mm256_cmp_pd(magnitude, too_large, _CMP_LT_OQ));
    lo = _mm256_blendv_pd(neg_inf, lo, proven);
    hi = _mm256_blendv_pd(inf, hi, proven);
    _mm_storeu_ps(lower + r, _mm256_cvtpd_ps(lo));
    _mm_storeu_ps(upper + r, _mm256_cvtpd_ps(hi));
  }
  BoundRows<kMetric>(ctx, n - r, offsets + r, scales + r, dots + r, code_sum + r, code_sq + r, lower + r, upper + r);
}

// Rows of 16 ≤ d ≤ 2048 go four at a time in int32 lanes: a lane takes at
// most 256 products |q_i·c_i| ≤ 32767·255 (2 per 16 elements), so it stays
// below 2^31; Σc and Σc² of the whole row stay below 2^31 too (2048·255²),
// and the four dot products are reduced in int64 (Reduce4Wide). The tail's
// zero-weighted overlap adds 0.
constexpr size_t kSmallMax = 2048;

// Four rows side by side: the weights are loaded once per step for all four.
template <bool kSums>
VIGILO_AVX2 inline void Small4(const ScreenContext& ctx, const uint8_t* code, size_t stride, __m256i (&dot)[4],
                               __m256i (&sum)[4], __m256i (&sq)[4]) {
  const size_t d = ctx.dimension;
  const size_t whole32 = d / 32 * 32;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i low_bytes = _mm256_set1_epi16(0x00FF);
  const __m256i ones = _mm256_set1_epi16(1);
  const int16_t* qs = ctx.q_split.data();
  for (size_t k = 0; k < 4; ++k) dot[k] = sum[k] = sq[k] = zero;
  for (size_t i = 0; i < whole32; i += 32) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + i));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + i + 16));
    for (size_t k = 0; k < 4; ++k) {
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(code + k * stride + i));
      const __m256i c0 = _mm256_and_si256(b, low_bytes);
      const __m256i c1 = _mm256_srli_epi16(b, 8);
      dot[k] = _mm256_add_epi32(dot[k], _mm256_add_epi32(_mm256_madd_epi16(c0, w0), _mm256_madd_epi16(c1, w1)));
      if constexpr (kSums) {
        sum[k] = _mm256_add_epi32(sum[k], _mm256_sad_epu8(b, zero));  // 64-bit lanes whose high halves are 0
        sq[k] = _mm256_add_epi32(sq[k], _mm256_add_epi32(_mm256_madd_epi16(c0, c0), _mm256_madd_epi16(c1, c1)));
      }
    }
  }
  auto step16 = [&](size_t at, const int16_t* w, const __m256i mask) VIGILO_AVX2 {
    const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    for (size_t k = 0; k < 4; ++k) {
      __m256i c = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + k * stride + at)));
      dot[k] = _mm256_add_epi32(dot[k], _mm256_madd_epi16(c, wv));
      if constexpr (kSums) {
        c = _mm256_and_si256(c, mask);
        sum[k] = _mm256_add_epi32(sum[k], _mm256_madd_epi16(c, ones));
        sq[k] = _mm256_add_epi32(sq[k], _mm256_madd_epi16(c, c));
      }
    }
  };
  if (d - whole32 >= 16) step16(whole32, ctx.q.data() + whole32, _mm256_set1_epi16(-1));
  if (d % 16 != 0) {
    step16(d - 16, ctx.q_tail, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ctx.tail_mask)));
  }
}

VIGILO_AVX2 inline void Prefetch(const ScreenContext& ctx, const uint8_t* row) {
  for (size_t at = 0; at < ctx.dimension; at += 64) _mm_prefetch(reinterpret_cast<const char*>(row + at), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(row + ctx.dimension - 1), _MM_HINT_T0);
}

template <Metric kMetric, bool kSums>
VIGILO_AVX2 void Rows(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  double dots[kBoundBatch], sums[kBoundBatch], squares[kBoundBatch];
  const bool small = ctx.dimension >= 16 && ctx.dimension <= std::min(kSmallMax, rows.cached ? kSmallMax : kFourRowsMax);
  // d ≤ 256: a row's whole Σq·c is below 256·32767·255 < 2^31, so the four
  // rows are reduced in int32.
  const bool narrow = ctx.dimension <= 256;
  for (size_t first = 0; first < rows.n; first += kBoundBatch) {
    const size_t n = std::min(kBoundBatch, rows.n - first);
    size_t r = 0;
    if (small) {
      for (; r + 4 <= n; r += 4) {
        // Postings rows come straight from memory (often freshly mapped
        // pages, which the hardware prefetcher does not cross): ask for rows
        // ahead while these are summed.
        PrefetchFourRows(rows, first + r);
        __m256i dot[4], sum[4], sq[4];
        Small4<kSums>(ctx, rows.codes + (first + r) * rows.stride, rows.stride, dot, sum, sq);
        if (narrow) {
          Reduce4(dot[0], dot[1], dot[2], dot[3], dots + r);
        } else {
          Reduce4Wide(dot, dots + r);
        }
        if constexpr (kSums) {
          Reduce4(sum[0], sum[1], sum[2], sum[3], sums + r);
          Reduce4(sq[0], sq[1], sq[2], sq[3], squares + r);
        }
      }
    }
    for (; r < n; ++r) {
      if (first + r + kAhead < rows.n) Prefetch(ctx, rows.codes + (first + r + kAhead) * rows.stride);
      const Sums s = Row<kSums>(ctx, rows.codes + (first + r) * rows.stride);
      dots[r] = static_cast<double>(s.dot);
      if constexpr (kSums) {
        sums[r] = s.code_sum;
        squares[r] = s.code_sq;
      }
    }
    if constexpr (!kSums && kMetric == Metric::kL2Squared) TakeSums(rows, first, n, sums, squares);
    BoundRows4<kMetric>(ctx, n, rows.offsets + first, rows.scales + first, dots, sums, squares, lower + first,
                        upper + first);
  }
}

// --- Several contexts (queries) against the same rows. ---
// A tile of kRows rows × kQueries contexts: each 32-byte step of a row is
// loaded and split once, then multiplied by every context's weights. The
// int32 lanes take the same products as Small4's (in another order: integer
// sums, exact below 2^31), so the integers, hence the bounds, are the same.
constexpr size_t kTileRows = 2, kTileQueries = 4;
constexpr size_t kReduced = 4;  // Reduce4's four accumulators (those past a tile's contexts stay 0)
static_assert(kTileQueries <= kReduced);

template <size_t kRows, size_t kQueries>
VIGILO_AVX2 inline void MultiTile(const ScreenContext* const* ctx, const uint8_t* code, size_t stride,
                                  __m256i (&dot)[kRows][kReduced]) {
  const size_t d = ctx[0]->dimension;
  const size_t whole32 = d / 32 * 32;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i low_bytes = _mm256_set1_epi16(0x00FF);
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < kReduced; ++j) dot[r][j] = zero;
  }
  for (size_t i = 0; i < whole32; i += 32) {
    __m256i c0[kRows], c1[kRows];
    for (size_t r = 0; r < kRows; ++r) {
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(code + r * stride + i));
      c0[r] = _mm256_and_si256(b, low_bytes);
      c1[r] = _mm256_srli_epi16(b, 8);
    }
    for (size_t j = 0; j < kQueries; ++j) {
      const int16_t* qs = ctx[j]->q_split.data() + i;
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + 16));
      for (size_t r = 0; r < kRows; ++r) {
        dot[r][j] =
            _mm256_add_epi32(dot[r][j], _mm256_add_epi32(_mm256_madd_epi16(c0[r], w0), _mm256_madd_epi16(c1[r], w1)));
      }
    }
  }
  // The 16-element step and the tail, against each context's q and q_tail.
  auto step16 = [&](size_t at, bool tail) VIGILO_AVX2 {
    __m256i c[kRows];
    for (size_t r = 0; r < kRows; ++r) {
      c[r] = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + r * stride + at)));
    }
    for (size_t j = 0; j < kQueries; ++j) {
      const int16_t* w = tail ? ctx[j]->q_tail : ctx[j]->q.data() + at;
      const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
      for (size_t r = 0; r < kRows; ++r) dot[r][j] = _mm256_add_epi32(dot[r][j], _mm256_madd_epi16(c[r], wv));
    }
  };
  if (d - whole32 >= 16) step16(whole32, false);
  if (d % 16 != 0) step16(d - 16, true);
}

// kQueries contexts over n ≤ kBoundBatch rows: every row's dot for each
// context, dots[j][r].
template <size_t kQueries>
VIGILO_AVX2 void MultiDots(const ScreenContext* const* ctx, const uint8_t* codes, size_t stride, size_t n,
                           double (*dots)[kBoundBatch]) {
  const bool narrow = ctx[0]->dimension <= 256;  // a row's whole Σq·c below 2^31 (as in Rows)
  alignas(32) double out[kReduced];
  auto reduce = [&](const __m256i(&acc)[kReduced], size_t r) VIGILO_AVX2 {
    if (narrow) {
      Reduce4(acc[0], acc[1], acc[2], acc[3], out);
    } else {
      Reduce4Wide(acc, out);
    }
    for (size_t j = 0; j < kQueries; ++j) dots[j][r] = out[j];
  };
  size_t r = 0;
  for (; r + kTileRows <= n; r += kTileRows) {
    __m256i acc[kTileRows][kReduced];
    MultiTile<kTileRows, kQueries>(ctx, codes + r * stride, stride, acc);
    for (size_t k = 0; k < kTileRows; ++k) reduce(acc[k], r + k);
  }
  for (; r < n; ++r) {
    __m256i acc[1][kReduced];
    MultiTile<1, kQueries>(ctx, codes + r * stride, stride, acc);
    reduce(acc[0], r);
  }
}

template <Metric kMetric>
void MultiRows(const ScreenContext* const* ctx, size_t m, const RowBlock& rows, float* const* lower,
               float* const* upper) {
  auto dots = [](const ScreenContext* const* tile, size_t count, const uint8_t* codes, size_t stride, size_t n,
                 double(*out)[kBoundBatch]) VIGILO_AVX2 {
    switch (count) {
      case 1: MultiDots<1>(tile, codes, stride, n, out); break;
      case 2: MultiDots<std::min<size_t>(2, kTileQueries)>(tile, codes, stride, n, out); break;
      case 3: MultiDots<std::min<size_t>(3, kTileQueries)>(tile, codes, stride, n, out); break;
      default: MultiDots<kTileQueries>(tile, codes, stride, n, out); break;
    }
  };
  const size_t d = ctx[0]->dimension;
  auto sums = [d](size_t n, const uint8_t* codes, size_t stride, CodeSums* out) {
    kernels_internal::CodeSumsLvq8Avx2(d, n, codes, stride, out);
  };
  MultiRowsWith<kMetric, kTileQueries>(ctx, m, rows, lower, upper, dots, sums, BoundRows4<kMetric>);
}

}  // namespace

// MeasureWeights and QuantizeWeights with AVX2, bit for bit the portable
// ones (which the compiler keeps scalar): the same eight lanes (element i in
// lane i mod 8, two registers of four), the same tail (the last d mod 8
// elements into lanes 0, 1, …), the lanes then summed in order. So every path
// prepares the same screen context as WASM does, and the two registers'
// chains of adds run side by side.
VIGILO_AVX2 WeightStats MeasureWeightsAvx2(const float* w, size_t d) {
  const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
  __m256d max[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()}, sum[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  size_t i = 0;
  for (; i + 8 <= d; i += 8) {
    for (size_t h = 0; h < 2; ++h) {
      const __m256d a = _mm256_and_pd(_mm256_cvtps_pd(_mm_loadu_ps(w + i + 4 * h)), abs_mask);
      max[h] = _mm256_max_pd(max[h], a);
      sum[h] = _mm256_add_pd(sum[h], a);
    }
  }
  alignas(32) double max_lane[kWeightLanes], sum_lane[kWeightLanes];
  for (size_t h = 0; h < 2; ++h) {
    _mm256_store_pd(max_lane + 4 * h, max[h]);
    _mm256_store_pd(sum_lane + 4 * h, sum[h]);
  }
  for (size_t k = 0; i < d; ++i, ++k) MeasureInto(w[i], max_lane[k], sum_lane[k]);
  return FinishMeasure(max_lane, sum_lane);
}

VIGILO_AVX2 double QuantizeWeightsAvx2(const float* w, size_t d, double inverse, double step, int16_t* q) {
  const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
  const __m256d inv = _mm256_set1_pd(inverse), s = _mm256_set1_pd(step);
  const __m256d hi = _mm256_set1_pd(kMaxWeight), lo = _mm256_set1_pd(-kMaxWeight);
  __m256d err[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  size_t i = 0;
  for (; i + 8 <= d; i += 8) {
    __m128i r32[2];
    for (size_t h = 0; h < 2; ++h) {
      const __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(w + i + 4 * h));
      __m256d r = _mm256_round_pd(_mm256_mul_pd(x, inv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      r = _mm256_min_pd(_mm256_max_pd(r, lo), hi);
      r32[h] = _mm256_cvtpd_epi32(r);
      err[h] = _mm256_add_pd(err[h], _mm256_and_pd(_mm256_sub_pd(x, _mm256_mul_pd(s, r)), abs_mask));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm_packs_epi32(r32[0], r32[1]));
  }
  alignas(32) double e_lane[kWeightLanes];
  _mm256_store_pd(e_lane, err[0]);
  _mm256_store_pd(e_lane + 4, err[1]);
  for (size_t k = 0; i < d; ++i, ++k) QuantizeInto(w[i], inverse, step, q[i], e_lane[k]);
  return SumLanes(e_lane);
}

// Σc by vpsadbw, Σc² by vpmaddwd (lanes stay below 2^31 for d ≤ 65536:
// 4096 steps of at most 2·255² per lane); d < 32 element by element, the
// last d mod 32 elements from the row's last 32 bytes with the ones already
// counted masked off.

void ScreenRowsAvx2(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  if (ctx.metric == Metric::kCosine) {
    Rows<Metric::kCosine, false>(ctx, rows, lower, upper);
  } else if (rows.sums == nullptr) {
    Rows<Metric::kL2Squared, true>(ctx, rows, lower, upper);
  } else {
    Rows<Metric::kL2Squared, false>(ctx, rows, lower, upper);
  }
}

void ScreenRowsAvx2Multi(const ScreenContext* const* contexts, size_t m, const RowBlock& rows, float* const* lower,
                         float* const* upper) {
  if (m == 0) return;
  const size_t d = contexts[0]->dimension;
  if (d < 16 || d > kSmallMax) {  // outside the tiles' range: context by context
    for (size_t j = 0; j < m; ++j) ScreenRowsAvx2(*contexts[j], rows, lower[j], upper[j]);
  } else if (contexts[0]->metric == Metric::kCosine) {
    MultiRows<Metric::kCosine>(contexts, m, rows, lower, upper);
  } else {
    MultiRows<Metric::kL2Squared>(contexts, m, rows, lower, upper);
  }
}

}  // namespace vigilo::ivf::screen

#else

namespace vigilo::ivf::screen {

void ScreenRowsAvx2(const ScreenContext& ctx, const RowBlock& rows, float* lower, float* upper) {
  ScreenRowsPortable(ctx, rows, lower, upper);
}

void ScreenRowsAvx2Multi(const ScreenContext* const* contexts, size_t m, const RowBlock& rows, float* const* lower,
                         float* const* upper) {
  for (size_t j = 0; j < m; ++j) ScreenRowsPortable(*contexts[j], rows, lower[j], upper[j]);
}

WeightStats MeasureWeightsAvx2(const float* w, size_t d) { return MeasureWeights(w, d); }

double QuantizeWeightsAvx2(const float* w, size_t d, double inverse, double step, int16_t* q) {
  return QuantizeWeights(w, d, inverse, step, q);
}

}  // namespace vigilo::ivf::screen

#endif
