// The AVX-512 path (F, BW, VL; no FMA is ever emitted: the file is compiled
// with -ffp-contract=off and every product is a separate multiply). Like the
// AVX2 file, only the VIGILO_AVX512 functions use the extension, and the
// dispatcher calls in only after Avx512Supported().
//
// W in the normative order (lvq_kernels_internal.h) with each pair of the
// four 8-lane accumulators held in one 16-lane register: z0 = [A0 | A1],
// z1 = [A2 | A3]. LVQ8: 32 consecutive elements per step, the first 16 into
// z0 (8-blocks 4k, 4k+1 → A0, A1) and the next 16 into z1 (A2, A3) — exactly
// the AVX2 loop's slots; the first step's products are the accumulators
// (FirstProducts, below, on why that is exact). The last d mod 32 elements
// are a 16-lane step per whole or partial 16-block, except that up to 8
// elements starting a 16-block take an 8-lane step, with masked
// (zero-filling, never faulting) loads of the codes and the weights: the
// padding adds +0.0 products, which leave a lane unchanged. t = (A0 + A1) +
// (A2 + A3) lanewise from the halves of z0 and z1; rows are scored eight at a
// time, their eight t folded together lanewise after a transpose (fold::FoldLanes8),
// their code sums reduced together (fold::Sum8) and their distances combined in
// 8-wide double (Combine8).
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

#include "lvq_fold_avx2.h"

#define VIGILO_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

namespace vigilo::ivf::kernels_internal {
namespace {

VIGILO_AVX512 inline __m256 High(__m512 z) { return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1)); }
VIGILO_AVX512 inline __m256i High(__m512i z) { return _mm512_extracti64x4_epi64(z, 1); }

VIGILO_AVX512 inline int64_t HorizontalSum(__m256i v) {
  const __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i y = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
  return _mm_cvtsi128_si32(_mm_add_epi32(y, _mm_shuffle_epi32(y, 1)));
}

// What depends only on d: computed once per row group.
struct Plan {
  size_t main_end = 0;  // end of the whole 32-element steps
  // The tail (the d mod 32 elements after main_end, 8-blocks 0…3 into A0…A3):
  // a 16-lane step into z0 (mask z0, 0 if none), one into z1 (mask z1), and
  // the last up to 8 elements alone, when they start a 16-block (8-lane mask
  // y, into A0 at main_end or A2 at main_end + 16: y_at).
  __mmask16 z0 = 0;
  __mmask16 z1 = 0;
  __mmask16 y = 0;
  size_t y_at = 0;
  __m256 wy;            // the weights of the y step, zero-padded
  size_t bytes64 = 0;   // LVQ8 code sums: end of the whole 64-byte steps
  __mmask64 rest = 0;   // and the bytes after it
};

// LVQ8 rows of d elements.
VIGILO_AVX512 Plan MakePlan(const float* w, size_t d) {
  Plan p;
  p.main_end = d / 32 * 32;
  const size_t tail = d - p.main_end;
  auto mask = [](size_t n) { return static_cast<__mmask16>((1u << n) - 1); };
  if (tail > 16) {
    p.z0 = mask(16);
    if (tail > 24) {
      p.z1 = mask(tail - 16);
    } else {
      p.y = mask(tail - 16);
      p.y_at = 16;
    }
  } else if (tail > 8) {
    p.z0 = mask(tail);
  } else if (tail > 0) {
    p.y = mask(tail);
  }
  p.wy = _mm256_maskz_loadu_ps(static_cast<__mmask8>(p.y), w + p.main_end + p.y_at);
  p.bytes64 = d / 64 * 64;
  p.rest = d % 64 == 0 ? 0 : (__mmask64{1} << (d % 64)) - 1;
  return p;
}

// 16 products into a 16-lane accumulator (a separate multiply: each product rounded).
VIGILO_AVX512 inline void Step16(__m512& acc, __m512i c, __m512 w) {
  acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_cvtepi32_ps(c), w));
}

// LVQ8 Σc and Σc(c − 128) from the raw bytes as int32 lanes (their lane sums
// are the row's), 64 per step with VNNI's vpdpbusd (unsigned × signed bytes,
// 4 products per int32 lane): Σc against ones, and Σc(c − 128) against the
// codes with their top bit flipped (c XOR 0x80 read as a signed byte is
// c − 128); Σc² = Σc(c − 128) + 128·Σc. Exact: a lane takes at most
// 4·255·127 per step, 1024 steps for d ≤ 65536; the bytes past the row are
// masked to 0 and add nothing. (Summed in the float loop's int32 steps
// instead, the sums took about 40% of an l2 row's time at d = 100.)
VIGILO_AVX512 inline void CodeSums8(const Plan& plan, const uint8_t* code, __m256i& sum, __m256i& centred) {
  const __m512i ones = _mm512_set1_epi8(1), flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i s = _mm512_setzero_si512(), c = s;
  auto add = [&](__m512i b) VIGILO_AVX512 {
    s = _mm512_dpbusd_epi32(s, b, ones);
    c = _mm512_dpbusd_epi32(c, b, _mm512_xor_si512(b, flip));
  };
  for (size_t i = 0; i < plan.bytes64; i += 64) add(_mm512_loadu_si512(code + i));
  if (plan.rest != 0) add(_mm512_maskz_loadu_epi8(plan.rest, code + plan.bytes64));
  sum = _mm256_add_epi32(_mm512_castsi512_si256(s), High(s));
  centred = _mm256_add_epi32(_mm512_castsi512_si256(c), High(c));
}

// FirstProducts: the first 32-element step sets the accumulators to its
// products instead of adding them to +0.0 (two 16-lane adds fewer per row, on
// the FP add pipes that bound this loop). fl(+0.0 + p) is p except for
// p = −0.0, which gives +0.0; so every lane, and every sum the fold makes of
// them, equals the normative value or is −0.0 where that is +0.0 (−0.0 + x
// = +0.0 + x for x ≠ ±0, −0.0 + (+0.0) = +0.0, −0.0 + (−0.0) = −0.0). The
// normative W is never −0.0 (no lane is), so the fold's last step adds +0.0
// to W, which turns −0.0 into +0.0 and leaves every other value as it is:
// W is the normative one bit for bit.
//
// One row's t = (A0 + A1) + (A2 + A3), lanewise.
VIGILO_AVX512 inline __m256 RowT(const float* w, const Plan& plan, const uint8_t* code) {
  __m512 z0 = _mm512_setzero_ps(), z1 = z0;
  size_t i = 0;
  if (plan.main_end != 0) {
    // The first products are the accumulators (not +0.0 + p; see FirstProducts).
    z0 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code)))),
                       _mm512_loadu_ps(w));
    z1 = _mm512_mul_ps(
        _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + 16)))),
        _mm512_loadu_ps(w + 16));
    i = 32;
  }
  for (; i < plan.main_end; i += 32) {
    const __m512i c0 = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i)));
    const __m512i c1 = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i + 16)));
    Step16(z0, c0, _mm512_loadu_ps(w + i));
    Step16(z1, c1, _mm512_loadu_ps(w + i + 16));
  }
  // The tail, zero-padded: masked lanes read nothing and hold +0.0 products.
  if (plan.z0 != 0) {
    Step16(z0, _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(plan.z0, code + i)), _mm512_maskz_loadu_ps(plan.z0, w + i));
    if (plan.z1 != 0) {
      Step16(z1, _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(plan.z1, code + i + 16)),
             _mm512_maskz_loadu_ps(plan.z1, w + i + 16));
    }
  }
  __m256 a0 = _mm512_castps512_ps256(z0), a2 = _mm512_castps512_ps256(z1);
  if (plan.y != 0) {
    const size_t at = i + plan.y_at;
    const __m256i c = _mm256_cvtepu8_epi32(_mm_maskz_loadu_epi8(plan.y, code + at));
    const __m256 p = _mm256_mul_ps(_mm256_cvtepi32_ps(c), plan.wy);
    if (plan.y_at == 0) {
      a0 = _mm256_add_ps(a0, p);
    } else {
      a2 = _mm256_add_ps(a2, p);
    }
  }
  return _mm256_add_ps(_mm256_add_ps(a0, High(z0)), _mm256_add_ps(a2, High(z1)));
}

template <bool kSums>
VIGILO_AVX512 inline RowSums RowLvq8(const float* w, const Plan& plan, const uint8_t* code) {
  RowSums s{fold::FoldLanesLvq8(RowT(w, plan, code)), 0, 0};
  if constexpr (kSums) {
    __m256i sum, centred;
    CodeSums8(plan, code, sum, centred);
    const int64_t total = HorizontalSum(sum);  // < 2^31: d·255
    s.code_sum = static_cast<uint32_t>(total);
    s.code_sq = static_cast<uint32_t>(HorizontalSum(centred) + 128 * total);
  }
  return s;
}

// CombineL2 / CombineCosine (lvq_kernels_internal.h) for 8 rows in 8-wide
// double: the same operations in the same order, each rounded once (no FMA),
// so the same floats. std::max(v, 0.0) is v unless v < 0, NaN and −0.0
// included, which is _mm512_max_pd(0, v) (it returns its second operand
// unless the first is greater).
template <Metric kMetric>
VIGILO_AVX512 inline void Combine8(const ListContext& ctx, const float* offsets, const float* scales, __m256 dots,
                                   __m256i code_sum, __m256i code_sq, float* out) {
  const __m512d o = _mm512_cvtps_pd(_mm256_loadu_ps(offsets));
  const __m512d sc = _mm512_cvtps_pd(_mm256_loadu_ps(scales));
  const __m512d dot = _mm512_cvtps_pd(dots);
  const __m512d base = _mm512_set1_pd(ctx.base), weight_sum = _mm512_set1_pd(ctx.weight_sum);
  const __m512d os = _mm512_mul_pd(o, weight_sum);
  __m512d v;
  if constexpr (kMetric == Metric::kL2Squared) {
    const __m512d two = _mm512_set1_pd(2.0), d = _mm512_set1_pd(static_cast<double>(ctx.dimension));
    const __m512d sum = _mm512_cvtepu32_pd(code_sum);
    const __m512d sq = _mm512_cvtepu32_pd(code_sq);
    // r2 = o·(d·o + (2·σ)·Σc) + (σ·σ)·Σc²; v = (base − 2·(o·S + σ·W)) + r2
    const __m512d r2 = _mm512_add_pd(
        _mm512_mul_pd(o, _mm512_add_pd(_mm512_mul_pd(d, o), _mm512_mul_pd(_mm512_mul_pd(two, sc), sum))),
        _mm512_mul_pd(_mm512_mul_pd(sc, sc), sq));
    v = _mm512_add_pd(_mm512_sub_pd(base, _mm512_mul_pd(two, _mm512_add_pd(os, _mm512_mul_pd(sc, dot)))), r2);
    v = _mm512_max_pd(_mm512_setzero_pd(), v);
  } else {
    (void)code_sum;
    (void)code_sq;
    v = _mm512_sub_pd(base, _mm512_add_pd(os, _mm512_mul_pd(sc, dot)));
  }
  _mm256_storeu_ps(out, _mm512_cvtpd_ps(v));
}

// LVQ8 Σc and Σc(c − 128) of one row into 8 int32 lanes, from 32-byte loads
// (as CodeSums8; the last partial one masked).
VIGILO_AVX512 inline void CodeSumsY(size_t d, __mmask32 rest, const uint8_t* code, __m256i& sum, __m256i& centred) {
  const __m256i ones = _mm256_set1_epi8(1), flip = _mm256_set1_epi8(static_cast<char>(0x80));
  __m256i s = _mm256_setzero_si256(), c = s;
  auto add = [&](__m256i b) VIGILO_AVX512 {
    s = _mm256_dpbusd_epi32(s, b, ones);
    c = _mm256_dpbusd_epi32(c, b, _mm256_xor_si256(b, flip));
  };
  size_t i = 0;
  for (; i + 32 <= d; i += 32) add(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(code + i)));
  if (rest != 0) add(_mm256_maskz_loadu_epi8(rest, code + i));
  sum = s;
  centred = c;
}

// LVQ8 rows. kSums: the row loop computes the code sums (l2 without
// precomputed ones). Eight rows at a time: their t vectors, folded together
// (fold::FoldLanes8), their code sums reduced together (fold::Sum8), then their eight
// combinations at once; the last n mod 8 rows one at a time.
template <Metric kMetric, bool kSums>
VIGILO_AVX512 void Rows(const ListContext& ctx, const RowBlock& rows, float* out) {
  const float* w = ctx.weights.data();
  const size_t d = ctx.dimension;
  const Plan plan = MakePlan(w, d);
  const auto rest = d % 32 == 0 ? __mmask32{0} : static_cast<__mmask32>((uint64_t{1} << (d % 32)) - 1);
  constexpr bool kL2 = kMetric == Metric::kL2Squared;
  size_t r = 0;
  for (; r + 8 <= rows.n; r += 8) {
    const uint8_t* codes = rows.codes + r * rows.stride;
    __m256 t[8];
    __m256i sums[8], centred[8];
    for (size_t k = 0; k < 8; ++k) {
      t[k] = RowT(w, plan, codes + k * rows.stride);
      if constexpr (kSums) {
        if (d <= 128) {
          CodeSumsY(d, rest, codes + k * rows.stride, sums[k], centred[k]);
        } else {
          CodeSums8(plan, codes + k * rows.stride, sums[k], centred[k]);
        }
      }
    }
    __m256i code_sum = _mm256_setzero_si256(), code_sq = code_sum;
    if constexpr (kSums) {
      code_sum = fold::Sum8(sums);
      code_sq = _mm256_add_epi32(fold::Sum8(centred), _mm256_slli_epi32(code_sum, 7));
    } else if constexpr (kL2) {
      alignas(32) uint32_t s[8], q[8];
      for (size_t k = 0; k < 8; ++k) {
        s[k] = rows.sums[r + k].sum;
        q[k] = rows.sums[r + k].squares;
      }
      code_sum = _mm256_load_si256(reinterpret_cast<const __m256i*>(s));
      code_sq = _mm256_load_si256(reinterpret_cast<const __m256i*>(q));
    }
    Combine8<kMetric>(ctx, rows.offsets + r, rows.scales + r, fold::FoldLanes8(t), code_sum, code_sq, out + r);
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
  return RowLvq8<true>(ctx.weights.data(), MakePlan(ctx.weights.data(), ctx.dimension), code);
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
