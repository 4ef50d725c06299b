// The AVX-512 path (F, BW, VL; no FMA is ever emitted: the file is compiled
// with -ffp-contract=off and every product is a separate multiply). Like the
// AVX2 file, only the VIGILO_AVX512 functions use the extension, and the
// dispatcher calls in only after Avx512Supported().
//
// W in the normative order (lvq_kernels_internal.h) with each pair of the
// four 8-lane accumulators held in one 16-lane register: z0 = [A0 | A1],
// z1 = [A2 | A3]. LVQ8: 32 consecutive elements per step, the first 16 into
// z0 (8-blocks 4k, 4k+1 → A0, A1) and the next 16 into z1 (A2, A3) — exactly
// the AVX2 loop's slots. The last d mod 32 elements are one more step with a
// masked (zero-filling, never faulting) load of the codes and the weights:
// the padding adds +0.0 products, which leave a lane unchanged. Fold: lo + hi
// of z0 is A0 + A1 and of z1 is A2 + A3 lanewise, then the AVX2 fold.
// LVQ4 rows go to the AVX2 loop: a 512-bit form (each 16-block's bytes in
// both halves, nibbles split by a variable shift) measured 15–20% slower on
// AMD EPYC, the unpacking costing more than the wider lanes saved.
#include "lvq_kernels_internal.h"

#if defined(__x86_64__) && !defined(VIGILO_KERNELS_NO_AVX2) && !defined(VIGILO_KERNELS_NO_AVX512)
// GCC 12's AVX-512 headers build some results from _mm512_undefined_*()
// (a self-initialized variable), which -Wuninitialized reports at -O3 in
// every caller: a false positive of the headers, silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)  // clang has no -Wmaybe-uninitialized (the fuzz build)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#define VIGILO_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

namespace vigilo::ivf::kernels_internal {
namespace {

// The normative fold: t = (A0 + A1) + (A2 + A3), then lanes (k, k+4), (k, k+2), (0, 1).
VIGILO_AVX512 inline __m256 High(__m512 z) { return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1)); }

VIGILO_AVX512 inline float Fold(__m512 z0, __m512 z1) {
  const __m256 a01 = _mm256_add_ps(_mm512_castps512_ps256(z0), High(z0));
  const __m256 a23 = _mm256_add_ps(_mm512_castps512_ps256(z1), High(z1));
  const __m256 v = _mm256_add_ps(a01, a23);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  const __m128 s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
  return _mm_cvtss_f32(s1);
}


// What depends only on d: computed once per row group.
struct Plan {
  size_t main_end = 0;  // end of the whole 32-element steps
  size_t tail = 0;      // elements after it (0…31)
  size_t bytes64 = 0;   // LVQ8 code sums: end of the whole 64-byte steps
  __mmask64 rest = 0;   // and the bytes after it
  __mmask16 lo = 0;     // the tail's lanes in z0's step
  __mmask16 hi = 0;     // the tail's lanes in z1's step
};

// LVQ8 rows of d elements.
VIGILO_AVX512 Plan MakePlan(size_t d) {
  Plan p;
  p.main_end = d / 32 * 32;
  p.tail = d - p.main_end;
  p.bytes64 = d / 64 * 64;
  p.rest = d % 64 == 0 ? 0 : (__mmask64{1} << (d % 64)) - 1;
  const size_t first = p.tail < 16 ? p.tail : 16;
  p.lo = static_cast<__mmask16>((1u << first) - 1);
  p.hi = static_cast<__mmask16>((1u << (p.tail - first)) - 1);
  return p;
}

// 16 products into a 16-lane accumulator (a separate multiply: each product rounded).
VIGILO_AVX512 inline void Step16(__m512& acc, __m512i c, __m512 w) {
  acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_cvtepi32_ps(c), w));
}

// LVQ8 Σc and Σc² from the raw bytes, 64 per step with VNNI's vpdpbusd
// (unsigned × signed bytes, 4 products per int32 lane): Σc against ones, and
// Σc(c − 128) against the codes with their top bit flipped (c XOR 0x80 read
// as a signed byte is c − 128), so Σc² = Σc(c − 128) + 128·Σc. Exact: a lane
// takes at most 4·255·127 per step, 1024 steps for d ≤ 65536; the bytes past
// the row are masked to 0 and add nothing. (Summed in the float loop's int32
// steps instead, the sums took about 40% of an l2 row's time at d = 100.)
VIGILO_AVX512 inline void CodeSums8(const Plan& plan, const uint8_t* code, RowSums& s) {
  const __m512i ones = _mm512_set1_epi8(1), flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i sum = _mm512_setzero_si512(), centred = sum;
  auto add = [&](__m512i b) VIGILO_AVX512 {
    sum = _mm512_dpbusd_epi32(sum, b, ones);
    centred = _mm512_dpbusd_epi32(centred, b, _mm512_xor_si512(b, flip));
  };
  for (size_t i = 0; i < plan.bytes64; i += 64) add(_mm512_loadu_si512(code + i));
  if (plan.rest != 0) add(_mm512_maskz_loadu_epi8(plan.rest, code + plan.bytes64));
  const int64_t total = _mm512_reduce_add_epi32(sum);  // < 2^31: d·255
  const int64_t squares = int64_t{_mm512_reduce_add_epi32(centred)} + 128 * total;
  s.code_sum = static_cast<uint32_t>(total);
  s.code_sq = static_cast<uint32_t>(squares);
}

template <bool kSums>
VIGILO_AVX512 inline RowSums RowLvq8(const float* w, const Plan& plan, const uint8_t* code) {
  __m512 z0 = _mm512_setzero_ps(), z1 = z0;
  size_t i = 0;
  for (; i < plan.main_end; i += 32) {
    const __m512i c0 = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i)));
    const __m512i c1 = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i + 16)));
    Step16(z0, c0, _mm512_loadu_ps(w + i));
    Step16(z1, c1, _mm512_loadu_ps(w + i + 16));
  }
  if (plan.tail != 0) {  // zero-padded: masked lanes read nothing and hold +0.0 products
    const __m512i c0 = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(plan.lo, code + i));
    Step16(z0, c0, _mm512_maskz_loadu_ps(plan.lo, w + i));
    if (plan.hi != 0) {
      const __m512i c1 = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(plan.hi, code + i + 16));
      Step16(z1, c1, _mm512_maskz_loadu_ps(plan.hi, w + i + 16));
    }
  }
  RowSums s{Fold(z0, z1), 0, 0};
  if constexpr (kSums) CodeSums8(plan, code, s);
  return s;
}

// CombineL2 / CombineCosine (lvq_kernels_internal.h) for 8 rows in 8-wide
// double: the same operations in the same order, each rounded once (no FMA),
// so the same floats. std::max(v, 0.0) is v unless v < 0, NaN and −0.0
// included, which is _mm512_max_pd(0, v) (it returns its second operand
// unless the first is greater).
template <Metric kMetric>
VIGILO_AVX512 inline void Combine8(const ListContext& ctx, const float* offsets, const float* scales,
                                   const float* dots, const uint32_t* code_sum, const uint32_t* code_sq, float* out) {
  const __m512d o = _mm512_cvtps_pd(_mm256_loadu_ps(offsets));
  const __m512d sc = _mm512_cvtps_pd(_mm256_loadu_ps(scales));
  const __m512d dot = _mm512_cvtps_pd(_mm256_loadu_ps(dots));
  const __m512d base = _mm512_set1_pd(ctx.base), weight_sum = _mm512_set1_pd(ctx.weight_sum);
  const __m512d os = _mm512_mul_pd(o, weight_sum);
  __m512d v;
  if constexpr (kMetric == Metric::kL2Squared) {
    const __m512d two = _mm512_set1_pd(2.0), d = _mm512_set1_pd(static_cast<double>(ctx.dimension));
    const __m512d sum = _mm512_cvtepu32_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(code_sum)));
    const __m512d sq = _mm512_cvtepu32_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(code_sq)));
    // r2 = o·(d·o + (2·σ)·Σc) + (σ·σ)·Σc²; v = (base − 2·(o·S + σ·W)) + r2
    const __m512d r2 = _mm512_add_pd(
        _mm512_mul_pd(o, _mm512_add_pd(_mm512_mul_pd(d, o), _mm512_mul_pd(_mm512_mul_pd(two, sc), sum))),
        _mm512_mul_pd(_mm512_mul_pd(sc, sc), sq));
    v = _mm512_add_pd(_mm512_sub_pd(base, _mm512_mul_pd(two, _mm512_add_pd(os, _mm512_mul_pd(sc, dot)))), r2);
    v = _mm512_max_pd(_mm512_setzero_pd(), v);
  } else {
    v = _mm512_sub_pd(base, _mm512_add_pd(os, _mm512_mul_pd(sc, dot)));
  }
  _mm256_storeu_ps(out, _mm512_cvtpd_ps(v));
}

// LVQ8 rows. kSums: the row loop computes the code sums (l2 without
// precomputed ones). Eight rows' sums first, then their eight combinations at once.
template <Metric kMetric, bool kSums>
VIGILO_AVX512 void Rows(const ListContext& ctx, const RowBlock& rows, float* out) {
  const float* w = ctx.weights.data();
  const Plan plan = MakePlan(ctx.dimension);
  constexpr bool kL2 = kMetric == Metric::kL2Squared;
  size_t r = 0;
  for (; r + 8 <= rows.n; r += 8) {
    float dots[8];
    uint32_t sums[8] = {}, squares[8] = {};
    for (size_t k = 0; k < 8; ++k) {
      const RowSums s = RowLvq8<kSums>(w, plan, rows.codes + (r + k) * rows.stride);
      dots[k] = s.dot;
      if constexpr (kL2) {
        sums[k] = kSums ? s.code_sum : rows.sums[r + k].sum;
        squares[k] = kSums ? s.code_sq : rows.sums[r + k].squares;
      }
    }
    Combine8<kMetric>(ctx, rows.offsets + r, rows.scales + r, dots, sums, squares, out + r);
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

VIGILO_AVX512 RowSums OneRowLvq8(const ListContext& ctx, const uint8_t* code) {
  return RowLvq8<true>(ctx.weights.data(), MakePlan(ctx.dimension), code);
}

}  // namespace

bool Avx512Supported() {
  // Once per process. The runtime's checks include the OS saving the
  // opmask and ZMM state (XGETBV), as for AVX2's YMM state.
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512vnni");
  }();
  return supported;
}

void ScoreRowsAvx512(const ListContext& ctx, const RowBlock& rows, float* out) {
  if (ctx.encoding == Encoding::kLvq4) {
    ScoreRowsAvx2(ctx, rows, out);  // faster there (see the top of this file); the same bits
  } else if (ctx.metric == Metric::kCosine) {
    Rows<Metric::kCosine, false>(ctx, rows, out);
  } else if (rows.sums != nullptr) {
    Rows<Metric::kL2Squared, false>(ctx, rows, out);
  } else {
    Rows<Metric::kL2Squared, true>(ctx, rows, out);
  }
}

RowSums RowSumsAvx512(const ListContext& ctx, const uint8_t* code) {
  return ctx.encoding == Encoding::kLvq8 ? OneRowLvq8(ctx, code) : RowSumsAvx2(ctx, code);
}

}  // namespace vigilo::ivf::kernels_internal

#else  // no AVX-512 path here; the dispatcher never calls ScoreRowsAvx512.

namespace vigilo::ivf::kernels_internal {

bool Avx512Supported() { return false; }

void ScoreRowsAvx512(const ListContext& ctx, const RowBlock& rows, float* out) { ScoreRowsScalar(ctx, rows, out); }

RowSums RowSumsAvx512(const ListContext& ctx, const uint8_t* code) { return RowSumsScalar(ctx, code); }

}  // namespace vigilo::ivf::kernels_internal

#endif
