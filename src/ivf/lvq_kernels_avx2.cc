// The AVX2 path (no FMA). Only the functions marked VIGILO_AVX2 use AVX2:
// the file is compiled for the baseline ISA, so nothing else here (and no
// inline function another file might share) can reach a CPU without it; the
// dispatcher calls in only after Avx2Supported().
//
// W in the normative order (lvq_kernels_internal.h), which is this loop's:
// four independent 8-lane accumulators a0…a3, each product rounded (a
// separate _mm256_mul_ps; the target has no "fma", so nothing can fuse),
// then added. LVQ8: 32 consecutive elements per step, 8 per accumulator;
// then up to three whole 8-blocks into a0, a1, a2; then the partial block,
// zero-padded, into the next one. LVQ4: per 32 elements two 16-blocks of 8
// bytes, each split into even nibbles (a0 / a2) and odd ones (a1 / a3)
// against ListContext::weights_split, so nibbles are never re-interleaved;
// then one whole 16-block into a0, a1; then the partial block (an odd d's
// last high nibble masked off), zero-padded, into the next pair. Fold:
// (a0 + a1) + (a2 + a3), then 256 → 128 → 64 → 32 bits; LVQ8 rows eight at
// a time, the last step for eight rows at once (FoldLanes8), which also says
// why LVQ8's first products can be the accumulators. The partial block's
// bytes are the last 8 bytes of the row shifted down (no read past the row)
// unless the row is shorter than 8 bytes. The code sums are exact integers
// (LVQ8: SAD for Σc, 16-bit madd for Σc²; LVQ4: 32-bit lanes, madd for Σc²).
#include "lvq_kernels_internal.h"

// VIGILO_KERNELS_NO_AVX2 builds the non-x86 stub on x86 too (to check it compiles).
#if (defined(__x86_64__) || defined(__i386__)) && !defined(VIGILO_KERNELS_NO_AVX2)
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "lvq_fold_avx2.h"

#define VIGILO_AVX2 __attribute__((target("avx2")))

namespace vigilo::ivf::kernels_internal {
namespace {

using fold::FoldLanes;
using fold::FoldLanes8;
using fold::FoldLanesLvq8;
using fold::Sum8;

VIGILO_AVX2 inline __m256i Load8(const uint8_t* p) {  // 8 bytes → 8 int32 lanes
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

VIGILO_AVX2 inline __m256 Product(__m256i c, const float* w) {
  return _mm256_mul_ps(_mm256_cvtepi32_ps(c), _mm256_loadu_ps(w));
}

// The fold of the normative order: t = (a0 + a1) + (a2 + a3), then lanes (k, k+4), (k, k+2), (0, 1).
VIGILO_AVX2 inline __m256 FoldT(__m256 a0, __m256 a1, __m256 a2, __m256 a3) {
  return _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
}

VIGILO_AVX2 inline float Fold(__m256 a0, __m256 a1, __m256 a2, __m256 a3) { return FoldLanes(FoldT(a0, a1, a2, a3)); }

VIGILO_AVX2 inline uint64_t HorizontalSumI32(__m256i v) {
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  uint64_t sum = 0;
  for (int32_t x : lanes) sum += static_cast<uint32_t>(x);
  return sum;
}

VIGILO_AVX2 inline uint64_t HorizontalSumU64(__m256i v) {
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

// What depends only on d (and the weights): computed once per row group.
struct Plan {
  size_t main_end = 0;    // end of the 32-element steps
  size_t blocks = 0;      // LVQ8: whole 8-blocks after it (0…3); LVQ4: whole 16-blocks (0…1)
  size_t partial = 0;     // elements of the partial block (LVQ8 0…7, LVQ4 0…15), at `start`
  size_t start = 0;
  size_t bytes = 0;       // the partial block's code bytes
  size_t row_bytes = 0;
  unsigned shift = 0;     // 8·(8 − bytes): the block from the row's last 8 bytes
  uint64_t mask = 0;      // its valid bits (an odd d's last high nibble cleared)
  __m256 w_partial;       // LVQ8: the partial block's weights, zero-padded
};

VIGILO_AVX2 Plan MakePlan(Encoding e, const ListContext& ctx) {
  const size_t d = ctx.dimension;
  Plan p;
  p.main_end = d / 32 * 32;
  const size_t block = e == Encoding::kLvq8 ? 8 : 16;
  p.blocks = (d - p.main_end) / block;
  p.start = p.main_end + p.blocks * block;
  p.partial = d - p.start;
  p.row_bytes = e == Encoding::kLvq8 ? d : (d + 1) / 2;
  p.bytes = e == Encoding::kLvq8 ? p.partial : (p.partial + 1) / 2;
  p.shift = static_cast<unsigned>(8 * (8 - p.bytes));
  p.mask = p.bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * p.bytes)) - 1;
  if (e == Encoding::kLvq4 && d % 2 == 1) p.mask &= ~(uint64_t{0xF0} << (8 * (p.bytes - 1)));
  alignas(32) float w[8] = {};
  if (e == Encoding::kLvq8) {
    for (size_t k = 0; k < p.partial; ++k) w[k] = ctx.weights[p.start + k];
  }
  p.w_partial = _mm256_load_ps(w);
  return p;
}

// The partial block's code bytes, zero-padded, without reading past the row.
inline uint64_t PartialBytes(const Plan& p, const uint8_t* code) {
  uint64_t u = 0;
  if (p.row_bytes >= 8) {
    std::memcpy(&u, code + p.row_bytes - 8, 8);
    u >>= p.shift;
  } else {
    for (size_t k = 0; k < p.bytes; ++k) u |= uint64_t{code[p.row_bytes - p.bytes + k]} << (8 * k);  // the block ends the row
  }
  return u & p.mask;
}

template <bool kSums>
VIGILO_AVX2 inline void Block8(__m256& acc, __m256i c, __m256 w, __m256i& sum, __m256i& sq) {
  acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_cvtepi32_ps(c), w));
  if constexpr (kSums) {
    sum = _mm256_add_epi32(sum, c);
    sq = _mm256_add_epi32(sq, _mm256_madd_epi16(c, c));  // (c, 0)·(c, 0) per 32-bit lane
  }
}

// One row's t (FoldT) and, kSums, its code sums as int32 lanes (Σc, Σc²).
// Σc (in 64-bit lanes) and Σc² (in 32-bit lanes) of 32 code bytes; lane
// order does not matter for exact sums: unpack against zero in place.
VIGILO_AVX2 inline void Sums32(const uint8_t* p, __m256i& sum64, __m256i& sq) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  sum64 = _mm256_add_epi64(sum64, _mm256_sad_epu8(b, zero));
  const __m256i lo = _mm256_unpacklo_epi8(b, zero);
  const __m256i hi = _mm256_unpackhi_epi8(b, zero);
  sq = _mm256_add_epi32(sq, _mm256_add_epi32(_mm256_madd_epi16(lo, lo), _mm256_madd_epi16(hi, hi)));
}

template <bool kSums>
VIGILO_AVX2 inline __m256 RowLvq8T(const float* w, const Plan& plan, const uint8_t* code, __m256i& code_sum,
                                   __m256i& code_sq) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  const __m256i zero = _mm256_setzero_si256();
  __m256i sum64 = zero, sum32 = zero, sq = zero;
  size_t i = 0;
  if (plan.main_end != 0) {  // the first products are the accumulators (FoldLanes8 on why that is exact)
    a0 = Product(Load8(code), w);
    a1 = Product(Load8(code + 8), w + 8);
    a2 = Product(Load8(code + 16), w + 16);
    a3 = Product(Load8(code + 24), w + 24);
    if constexpr (kSums) Sums32(code, sum64, sq);
    i = 32;
  }
  for (; i < plan.main_end; i += 32) {
    const uint8_t* p = code + i;
    a0 = _mm256_add_ps(a0, Product(Load8(p), w + i));
    a1 = _mm256_add_ps(a1, Product(Load8(p + 8), w + i + 8));
    a2 = _mm256_add_ps(a2, Product(Load8(p + 16), w + i + 16));
    a3 = _mm256_add_ps(a3, Product(Load8(p + 24), w + i + 24));
    if constexpr (kSums) Sums32(p, sum64, sq);
  }
  if (plan.blocks >= 1) {
    Block8<kSums>(a0, Load8(code + i), _mm256_loadu_ps(w + i), sum32, sq);
    if (plan.blocks >= 2) {
      Block8<kSums>(a1, Load8(code + i + 8), _mm256_loadu_ps(w + i + 8), sum32, sq);
      if (plan.blocks >= 3) Block8<kSums>(a2, Load8(code + i + 16), _mm256_loadu_ps(w + i + 16), sum32, sq);
    }
  }
  if (plan.partial != 0) {
    const __m256i c = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(PartialBytes(plan, code))));
    switch (plan.blocks) {
      case 0:
        Block8<kSums>(a0, c, plan.w_partial, sum32, sq);
        break;
      case 1:
        Block8<kSums>(a1, c, plan.w_partial, sum32, sq);
        break;
      case 2:
        Block8<kSums>(a2, c, plan.w_partial, sum32, sq);
        break;
      default:
        Block8<kSums>(a3, c, plan.w_partial, sum32, sq);
        break;
    }
  }
  // sum64's 64-bit lanes hold sums below 2^32 (d·255): as int32 lanes, (sum, 0) pairs.
  code_sum = _mm256_add_epi32(sum64, sum32);
  code_sq = sq;
  return FoldT(a0, a1, a2, a3);
}

template <bool kSums>
VIGILO_AVX2 inline RowSums RowLvq8(const float* w, const Plan& plan, const uint8_t* code) {
  __m256i sum, sq;
  const float dot = FoldLanesLvq8(RowLvq8T<kSums>(w, plan, code, sum, sq));
  uint64_t code_sum = 0, code_sq = 0;
  if constexpr (kSums) {
    code_sum = HorizontalSumI32(sum);
    code_sq = HorizontalSumI32(sq);
  }
  return RowSums{dot, static_cast<uint32_t>(code_sum), static_cast<uint32_t>(code_sq)};
}

// Exactly, u < 2^32: the double 2^52 + u (bits 0x43300000'u) minus 2^52.
VIGILO_AVX2 inline __m256d U32ToDouble(__m128i u) {
  const __m256i bits = _mm256_or_si256(_mm256_cvtepu32_epi64(u), _mm256_set1_epi64x(0x4330000000000000));
  return _mm256_sub_pd(_mm256_castsi256_pd(bits), _mm256_set1_pd(4503599627370496.0));
}

// CombineL2 / CombineCosine (lvq_kernels_internal.h) for 4 rows in 4-wide
// double: the same operations in the same order, each rounded once (no FMA),
// so the same floats. std::max(v, 0.0) is v unless v < 0, NaN and −0.0
// included, which is _mm256_max_pd(0, v) (it returns its second operand
// unless the first is greater).
template <Metric kMetric>
VIGILO_AVX2 inline __m128 Combine4(const ListContext& ctx, __m128 offsets, __m128 scales, __m128 dots, __m128i code_sum,
                                   __m128i code_sq) {
  const __m256d o = _mm256_cvtps_pd(offsets), sc = _mm256_cvtps_pd(scales), dot = _mm256_cvtps_pd(dots);
  const __m256d base = _mm256_set1_pd(ctx.base), weight_sum = _mm256_set1_pd(ctx.weight_sum);
  const __m256d os = _mm256_mul_pd(o, weight_sum);
  __m256d v;
  if constexpr (kMetric == Metric::kL2Squared) {
    const __m256d two = _mm256_set1_pd(2.0), d = _mm256_set1_pd(static_cast<double>(ctx.dimension));
    const __m256d sum = U32ToDouble(code_sum), sq = U32ToDouble(code_sq);
    // r2 = o·(d·o + (2·σ)·Σc) + (σ·σ)·Σc²; v = (base − 2·(o·S + σ·W)) + r2
    const __m256d r2 = _mm256_add_pd(
        _mm256_mul_pd(o, _mm256_add_pd(_mm256_mul_pd(d, o), _mm256_mul_pd(_mm256_mul_pd(two, sc), sum))),
        _mm256_mul_pd(_mm256_mul_pd(sc, sc), sq));
    v = _mm256_add_pd(_mm256_sub_pd(base, _mm256_mul_pd(two, _mm256_add_pd(os, _mm256_mul_pd(sc, dot)))), r2);
    v = _mm256_max_pd(_mm256_setzero_pd(), v);
  } else {
    (void)code_sum;
    (void)code_sq;
    v = _mm256_sub_pd(base, _mm256_add_pd(os, _mm256_mul_pd(sc, dot)));
  }
  return _mm256_cvtpd_ps(v);
}

// LVQ8 rows, eight at a time: their t vectors folded together (FoldLanes8),
// their code sums reduced together (Sum8), then their combinations four at a
// time; the last n mod 8 rows one at a time. kSums: the row loop computes the
// code sums (l2 without precomputed ones).
template <Metric kMetric, bool kSums>
VIGILO_AVX2 void RowsLvq8(const ListContext& ctx, const Plan& plan, const RowBlock& rows, float* out) {
  constexpr bool kL2 = kMetric == Metric::kL2Squared;
  const float* w = ctx.weights.data();
  size_t r = 0;
  for (; r + 8 <= rows.n; r += 8) {
    const uint8_t* codes = rows.codes + r * rows.stride;
    __m256 t[8];
    __m256i sums[8], squares[8];
    for (size_t k = 0; k < 8; ++k) t[k] = RowLvq8T<kSums>(w, plan, codes + k * rows.stride, sums[k], squares[k]);
    const __m256 dots = FoldLanes8(t);
    __m256i code_sum = _mm256_setzero_si256(), code_sq = code_sum;
    if constexpr (kSums) {
      code_sum = Sum8(sums);
      code_sq = Sum8(squares);
    } else if constexpr (kL2) {
      alignas(32) uint32_t s[8], q[8];
      for (size_t k = 0; k < 8; ++k) {
        s[k] = rows.sums[r + k].sum;
        q[k] = rows.sums[r + k].squares;
      }
      code_sum = _mm256_load_si256(reinterpret_cast<const __m256i*>(s));
      code_sq = _mm256_load_si256(reinterpret_cast<const __m256i*>(q));
    }
    for (int h = 0; h < 2; ++h) {
      const __m128 d4 = h == 0 ? _mm256_castps256_ps128(dots) : _mm256_extractf128_ps(dots, 1);
      const __m128i s4 = h == 0 ? _mm256_castsi256_si128(code_sum) : _mm256_extracti128_si256(code_sum, 1);
      const __m128i q4 = h == 0 ? _mm256_castsi256_si128(code_sq) : _mm256_extracti128_si256(code_sq, 1);
      _mm_storeu_ps(out + r + 4 * h, Combine4<kMetric>(ctx, _mm_loadu_ps(rows.offsets + r + 4 * h),
                                                       _mm_loadu_ps(rows.scales + r + 4 * h), d4, s4, q4));
    }
  }
  for (; r < rows.n; ++r) {
    RowSums s = RowLvq8<kSums>(w, plan, rows.codes + r * rows.stride);
    if constexpr (kL2 && !kSums) {
      s.code_sum = rows.sums[r].sum;
      s.code_sq = rows.sums[r].squares;
    }
    out[r] = CombineRow<kMetric>(ctx, rows.offsets[r], rows.scales[r], s);
  }
}

// 16 nibbles of 8 bytes: even elements (low nibbles) and odd ones (high), as int32 lanes.
VIGILO_AVX2 inline void Nibbles16(__m128i bytes8, __m256i& even, __m256i& odd) {
  const __m256i bytes = _mm256_cvtepu8_epi32(bytes8);
  even = _mm256_and_si256(bytes, _mm256_set1_epi32(0x0F));
  odd = _mm256_srli_epi32(bytes, 4);
}

VIGILO_AVX2 inline __m128i Bytes8(const uint8_t* p) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)); }

// One 16-block: even nibbles into ae, odd ones into ao; the code sums in
// integer lanes (off the float add ports the dot needs).
template <bool kSums>
VIGILO_AVX2 inline void Block16(__m128i bytes8, const float* ws, __m256& ae, __m256& ao, __m256i& sum, __m256i& sq) {
  __m256i even, odd;
  Nibbles16(bytes8, even, odd);
  ae = _mm256_add_ps(ae, _mm256_mul_ps(_mm256_cvtepi32_ps(even), _mm256_loadu_ps(ws)));
  ao = _mm256_add_ps(ao, _mm256_mul_ps(_mm256_cvtepi32_ps(odd), _mm256_loadu_ps(ws + 8)));
  if constexpr (kSums) {  // (c, 0)·(c, 0) per 32-bit lane
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(even, odd));
    sq = _mm256_add_epi32(sq, _mm256_add_epi32(_mm256_madd_epi16(even, even), _mm256_madd_epi16(odd, odd)));
  }
}

template <bool kSums>
VIGILO_AVX2 inline RowSums RowLvq4(const float* ws, const Plan& plan, const uint8_t* code) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  __m256i sum = _mm256_setzero_si256(), sq = sum;
  size_t i = 0;
  for (; i < plan.main_end; i += 32) {
    const uint8_t* p = code + i / 2;
    Block16<kSums>(Bytes8(p), ws + i, a0, a1, sum, sq);
    Block16<kSums>(Bytes8(p + 8), ws + i + 16, a2, a3, sum, sq);
  }
  if (plan.blocks != 0) {
    Block16<kSums>(Bytes8(code + i / 2), ws + i, a0, a1, sum, sq);
    i += 16;
  }
  if (plan.partial != 0) {  // weights_split is zero-padded to whole 16-blocks
    const __m128i b = _mm_cvtsi64_si128(static_cast<long long>(PartialBytes(plan, code)));
    if (plan.blocks != 0) {
      Block16<kSums>(b, ws + i, a2, a3, sum, sq);
    } else {
      Block16<kSums>(b, ws + i, a0, a1, sum, sq);
    }
  }
  const float dot = Fold(a0, a1, a2, a3);
  uint64_t code_sum = 0, code_sq = 0;
  if constexpr (kSums) {
    code_sum = HorizontalSumI32(sum);
    code_sq = HorizontalSumI32(sq);
  }
  return RowSums{dot, static_cast<uint32_t>(code_sum), static_cast<uint32_t>(code_sq)};
}

template <Encoding kEnc, bool kSums>
VIGILO_AVX2 inline RowSums Row(const ListContext& ctx, const Plan& plan, const uint8_t* code) {
  if constexpr (kEnc == Encoding::kLvq8) {
    return RowLvq8<kSums>(ctx.weights.data(), plan, code);
  } else {
    return RowLvq4<kSums>(ctx.weights_split.data(), plan, code);
  }
}

// kSums: the row loop computes the code sums (l2 without precomputed ones).
template <Encoding kEnc, Metric kMetric, bool kSums>
VIGILO_AVX2 void Rows(const ListContext& ctx, const RowBlock& rows, float* out) {
  const Plan plan = MakePlan(kEnc, ctx);
  if constexpr (kEnc == Encoding::kLvq8) {
    RowsLvq8<kMetric, kSums>(ctx, plan, rows, out);
    return;
  }
  for (size_t r = 0; r < rows.n; ++r) {
    RowSums s = Row<kEnc, kSums>(ctx, plan, rows.codes + r * rows.stride);
    if constexpr (kMetric == Metric::kL2Squared && !kSums) {
      s.code_sum = rows.sums[r].sum;
      s.code_sq = rows.sums[r].squares;
    }
    out[r] = CombineRow<kMetric>(ctx, rows.offsets[r], rows.scales[r], s);
  }
}

template <Encoding kEnc>
VIGILO_AVX2 RowSums OneRow(const ListContext& ctx, const uint8_t* code) {
  return Row<kEnc, true>(ctx, MakePlan(kEnc, ctx), code);
}

}  // namespace

bool Avx2Supported() {
  // The one-time CPU-feature detection (thread-safe static). GCC's and
  // clang's runtimes also check that the OS saves the YMM state (XGETBV).
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
  }();
  return supported;
}

void ScoreRowsAvx2(const ListContext& ctx, const RowBlock& rows, float* out) {
  DispatchEncodingMetric(ctx, [&]<Encoding kEnc, Metric kMetric>() {
    if constexpr (kMetric == Metric::kL2Squared) {
      if (rows.sums != nullptr) {
        Rows<kEnc, kMetric, false>(ctx, rows, out);
      } else {
        Rows<kEnc, kMetric, true>(ctx, rows, out);
      }
    } else {
      Rows<kEnc, kMetric, false>(ctx, rows, out);
    }
  });
}

RowSums RowSumsAvx2(const ListContext& ctx, const uint8_t* code) {
  return ctx.encoding == Encoding::kLvq8 ? OneRow<Encoding::kLvq8>(ctx, code) : OneRow<Encoding::kLvq4>(ctx, code);
}

VIGILO_AVX2 void CodeSumsLvq8Avx2(size_t d, size_t n, const uint8_t* codes, size_t stride, CodeSums* out) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i low_bytes = _mm256_set1_epi16(0x00FF);
  const size_t whole32 = d / 32 * 32;
  alignas(32) uint8_t tail_mask_bytes[32] = {};
  for (size_t j = 0; j < 32; ++j) tail_mask_bytes[j] = d >= 32 && d - 32 + j >= whole32 ? 0xFF : 0;
  const __m256i tail_mask = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail_mask_bytes));
  for (size_t r = 0; r < n; ++r) {
    const uint8_t* code = codes + r * stride;
    if (d < 32) {
      uint32_t sum = 0, sq = 0;
      for (size_t i = 0; i < d; ++i) {
        sum += code[i];
        sq += uint32_t{code[i]} * code[i];
      }
      out[r] = CodeSums{sum, sq};
      continue;
    }
    __m256i sum = zero, sq = zero;
    auto add = [&](__m256i b) VIGILO_AVX2 {
      sum = _mm256_add_epi64(sum, _mm256_sad_epu8(b, zero));
      const __m256i c0 = _mm256_and_si256(b, low_bytes);
      const __m256i c1 = _mm256_srli_epi16(b, 8);
      sq = _mm256_add_epi32(sq, _mm256_add_epi32(_mm256_madd_epi16(c0, c0), _mm256_madd_epi16(c1, c1)));
    };
    for (size_t i = 0; i < whole32; i += 32) add(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(code + i)));
    if (whole32 < d)
      add(_mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(code + d - 32)), tail_mask));
    out[r] = CodeSums{static_cast<uint32_t>(HorizontalSumU64(sum)), static_cast<uint32_t>(HorizontalSumI32(sq))};
  }
}

// The four lists' elements i … i+3 are loaded per list, then transposed so
// that one register holds element i of every list: the double sums then
// advance one element at a time in every lane, in PrepareList's order.
VIGILO_AVX2 bool PrepareLists4Avx2(bool l2, size_t d, const float* const* qs, const float* const* cs,
                                   float* const* weights, double* sum, double* base) {
  const __m128i exponent = _mm_set1_epi32(0x7f800000);
  __m128i bad = _mm_setzero_si128();  // lanes whose exponent bits were all ones (NaN, ±Inf)
  auto check = [&](__m128 x) VIGILO_AVX2 {
    const __m128i bits = _mm_and_si128(_mm_castps_si128(x), exponent);
    bad = _mm_or_si128(bad, _mm_cmpeq_epi32(bits, exponent));
  };
  __m256d s = _mm256_setzero_pd(), b = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 4 <= d; i += 4) {
    __m128 v[4], c[4];
    for (size_t j = 0; j < 4; ++j) {
      v[j] = _mm_loadu_ps(qs[j] + i);
      c[j] = _mm_loadu_ps(cs[j] + i);
      check(v[j]);
      check(c[j]);
      if (l2) {
        v[j] = _mm_sub_ps(v[j], c[j]);
        _mm_storeu_ps(weights[j] + i, v[j]);
      } else {
        _mm_storeu_ps(weights[j] + i, v[j]);
      }
    }
    _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
    if (l2) {
      for (size_t k = 0; k < 4; ++k) {
        const __m256d w = _mm256_cvtps_pd(v[k]);
        s = _mm256_add_pd(s, w);
        b = _mm256_add_pd(b, _mm256_mul_pd(w, w));
      }
    } else {
      _MM_TRANSPOSE4_PS(c[0], c[1], c[2], c[3]);
      for (size_t k = 0; k < 4; ++k) {
        const __m256d q = _mm256_cvtps_pd(v[k]);
        s = _mm256_add_pd(s, q);
        b = _mm256_add_pd(b, _mm256_mul_pd(q, _mm256_cvtps_pd(c[k])));
      }
    }
  }
  _mm256_storeu_pd(sum, s);
  _mm256_storeu_pd(base, b);  // cosine: Σq·c so far
  bool finite = _mm_movemask_epi8(bad) == 0;
  for (; i < d; ++i) {  // the last d mod 4 elements, lane by lane, in the same order
    for (size_t j = 0; j < 4; ++j) {
      const float q = qs[j][i], c = cs[j][i];
      finite &= std::isfinite(q) && std::isfinite(c);
      if (l2) {
        const float w = q - c;
        weights[j][i] = w;
        sum[j] += w;
        base[j] += static_cast<double>(w) * w;
      } else {
        weights[j][i] = q;
        sum[j] += q;
        base[j] += static_cast<double>(q) * c;
      }
    }
  }
  if (!l2) {
    for (size_t j = 0; j < 4; ++j) base[j] = 1.0 - base[j];
  }
  return finite;
}

}  // namespace vigilo::ivf::kernels_internal

#else  // not x86: no AVX2 path; the dispatcher never calls ScoreRowsAvx2.

namespace vigilo::ivf::kernels_internal {

bool Avx2Supported() { return false; }

void ScoreRowsAvx2(const ListContext& ctx, const RowBlock& rows, float* out) { ScoreRowsScalar(ctx, rows, out); }

RowSums RowSumsAvx2(const ListContext& ctx, const uint8_t* code) { return RowSumsScalar(ctx, code); }

void CodeSumsLvq8Avx2(size_t, size_t, const uint8_t*, size_t, CodeSums*) {}  // never called: Avx2Supported() is false

bool PrepareLists4Avx2(bool, size_t, const float* const*, const float* const*, float* const*, double*, double*) {
  return false;  // never called: Avx2Supported() is false
}

}  // namespace vigilo::ivf::kernels_internal

#endif
