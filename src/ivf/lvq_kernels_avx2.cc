// The AVX2+FMA path. Only the functions marked VIGILO_AVX2 use AVX2: the file
// is compiled for the baseline ISA, so nothing else here (and no inline
// function another file might share) can reach a CPU without it; the
// dispatcher calls in only after Avx2Supported().
//
// Order (deterministic for a given d): 32 elements per step into four 8-lane
// FMA accumulators a0…a3; one more 16-element block into a0, a1 if 16
// remain; fold (a0 + a1) + (a2 + a3), then 256 → 128 → 64 → 32 bits; the
// last < 16 elements one by one onto that sum. LVQ8 lanes hold consecutive
// elements; LVQ4 lanes hold a block's even elements (a0, a2) and odd ones
// (a1, a3), against ListContext::weights_split, so nibbles are never
// re-interleaved. The code sums are exact: LVQ8 in integers (SAD for Σc,
// 16-bit madd for Σc²), LVQ4 in float lanes, where every partial sum is an
// integer below 2^24 (Σc² ≤ 225·65536) and so exact.
#include "lvq_kernels_internal.h"

// VIGILO_KERNELS_NO_AVX2 builds the non-x86 stub on x86 too (to check it compiles).
#if (defined(__x86_64__) || defined(__i386__)) && !defined(VIGILO_KERNELS_NO_AVX2)
#include <immintrin.h>

#include "vigilo/ivf/lvq.h"

#define VIGILO_AVX2 __attribute__((target("avx2,fma")))

namespace vigilo::ivf::kernels_internal {
namespace {

VIGILO_AVX2 inline __m256 Codes8(const uint8_t* p) {  // 8 bytes → 8 float lanes
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}

VIGILO_AVX2 inline float HorizontalSum(__m256 v) {
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  const __m128 s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
  return _mm_cvtss_f32(s1);
}

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

// The scalar tail of a row: elements i…d−1 one by one onto `dot`.
template <Encoding kEnc, bool kSums>
inline RowSums Tail(const float* w, size_t i, size_t d, const uint8_t* code, float dot, uint64_t code_sum,
                    uint64_t code_sq) {
  for (; i < d; ++i) {
    const uint32_t c = LvqCodeAt(kEnc, code, i);
    const float product = w[i] * static_cast<float>(c);
    dot += product;
    if constexpr (kSums) {
      code_sum += c;
      code_sq += c * c;
    }
  }
  return RowSums{dot, static_cast<uint32_t>(code_sum), static_cast<uint32_t>(code_sq)};
}

template <bool kSums>
VIGILO_AVX2 RowSums RowLvq8(const float* w, size_t d, const uint8_t* code) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  const __m256i zero = _mm256_setzero_si256();
  __m256i sum64 = zero, sum32 = zero, sq = zero;
  size_t i = 0;
  for (; i + 32 <= d; i += 32) {
    const uint8_t* p = code + i;
    a0 = _mm256_fmadd_ps(Codes8(p), _mm256_loadu_ps(w + i), a0);
    a1 = _mm256_fmadd_ps(Codes8(p + 8), _mm256_loadu_ps(w + i + 8), a1);
    a2 = _mm256_fmadd_ps(Codes8(p + 16), _mm256_loadu_ps(w + i + 16), a2);
    a3 = _mm256_fmadd_ps(Codes8(p + 24), _mm256_loadu_ps(w + i + 24), a3);
    if constexpr (kSums) {
      // Lane order does not matter for exact sums: unpack against zero in place.
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      sum64 = _mm256_add_epi64(sum64, _mm256_sad_epu8(b, zero));
      const __m256i lo = _mm256_unpacklo_epi8(b, zero);
      const __m256i hi = _mm256_unpackhi_epi8(b, zero);
      sq = _mm256_add_epi32(sq, _mm256_add_epi32(_mm256_madd_epi16(lo, lo), _mm256_madd_epi16(hi, hi)));
    }
  }
  if (i + 16 <= d) {
    const uint8_t* p = code + i;
    a0 = _mm256_fmadd_ps(Codes8(p), _mm256_loadu_ps(w + i), a0);
    a1 = _mm256_fmadd_ps(Codes8(p + 8), _mm256_loadu_ps(w + i + 8), a1);
    if constexpr (kSums) {
      const __m256i c16 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
      sq = _mm256_add_epi32(sq, _mm256_madd_epi16(c16, c16));
      sum32 = _mm256_add_epi32(sum32, _mm256_madd_epi16(c16, _mm256_set1_epi16(1)));
    }
    i += 16;
  }
  const float dot = HorizontalSum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  uint64_t code_sum = 0, code_sq = 0;
  if constexpr (kSums) {
    code_sum = HorizontalSumU64(sum64) + HorizontalSumI32(sum32);
    code_sq = HorizontalSumI32(sq);
  }
  return Tail<Encoding::kLvq8, kSums>(w, i, d, code, dot, code_sum, code_sq);
}

// 16 nibbles of 8 bytes: even elements (low nibbles) and odd ones (high).
VIGILO_AVX2 inline void Nibbles16(const uint8_t* p, __m256& even, __m256& odd) {
  const __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  even = _mm256_cvtepi32_ps(_mm256_and_si256(bytes, _mm256_set1_epi32(0x0F)));
  odd = _mm256_cvtepi32_ps(_mm256_srli_epi32(bytes, 4));
}

template <bool kSums>
VIGILO_AVX2 inline void CodeSums4(__m256 even, __m256 odd, __m256& sum, __m256& sq) {
  if constexpr (kSums) {
    sum = _mm256_add_ps(sum, _mm256_add_ps(even, odd));
    sq = _mm256_add_ps(sq, _mm256_fmadd_ps(odd, odd, _mm256_mul_ps(even, even)));
  }
}

template <bool kSums>
VIGILO_AVX2 RowSums RowLvq4(const float* w, const float* ws, size_t d, const uint8_t* code) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, sum = a0, sq = a0;
  size_t i = 0;
  __m256 even, odd;
  for (; i + 32 <= d; i += 32) {
    const uint8_t* p = code + i / 2;
    Nibbles16(p, even, odd);
    a0 = _mm256_fmadd_ps(even, _mm256_loadu_ps(ws + i), a0);
    a1 = _mm256_fmadd_ps(odd, _mm256_loadu_ps(ws + i + 8), a1);
    CodeSums4<kSums>(even, odd, sum, sq);
    Nibbles16(p + 8, even, odd);
    a2 = _mm256_fmadd_ps(even, _mm256_loadu_ps(ws + i + 16), a2);
    a3 = _mm256_fmadd_ps(odd, _mm256_loadu_ps(ws + i + 24), a3);
    CodeSums4<kSums>(even, odd, sum, sq);
  }
  if (i + 16 <= d) {
    Nibbles16(code + i / 2, even, odd);
    a0 = _mm256_fmadd_ps(even, _mm256_loadu_ps(ws + i), a0);
    a1 = _mm256_fmadd_ps(odd, _mm256_loadu_ps(ws + i + 8), a1);
    CodeSums4<kSums>(even, odd, sum, sq);
    i += 16;
  }
  const float dot = HorizontalSum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  uint64_t code_sum = 0, code_sq = 0;
  if constexpr (kSums) {
    code_sum = HorizontalSumI32(_mm256_cvtps_epi32(sum));  // exact integers (see the top)
    code_sq = HorizontalSumI32(_mm256_cvtps_epi32(sq));
  }
  return Tail<Encoding::kLvq4, kSums>(w, i, d, code, dot, code_sum, code_sq);
}

template <Encoding kEnc, Metric kMetric>
VIGILO_AVX2 void Rows(const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                      const uint8_t* codes, float* out) {
  const size_t d = ctx.dimension;
  const size_t bytes = kEnc == Encoding::kLvq8 ? d : (d + 1) / 2;
  const float* w = ctx.weights.data();
  const float* ws = ctx.weights_split.data();
  for (size_t r = 0; r < n; ++r) {
    constexpr bool kSums = kMetric == Metric::kL2Squared;
    const RowSums s = kEnc == Encoding::kLvq8 ? RowLvq8<kSums>(w, d, codes + r * bytes)
                                              : RowLvq4<kSums>(w, ws, d, codes + r * bytes);
    out[r] = CombineRow<kMetric>(ctx, offsets[r], scales[r], s);
  }
}

}  // namespace

bool Avx2Supported() {
  // The one-time CPU-feature detection (thread-safe static). GCC's and
  // clang's runtimes also check that the OS saves the YMM state (XGETBV).
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return supported;
}

void ScoreRowsAvx2(const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                   const uint8_t* codes, float* out) {
  DispatchEncodingMetric(ctx, [&]<Encoding kEnc, Metric kMetric>() {
    Rows<kEnc, kMetric>(ctx, n, offsets, scales, codes, out);
  });
}

}  // namespace vigilo::ivf::kernels_internal

#else  // not x86: no AVX2 path; the dispatcher never calls ScoreRowsAvx2.

namespace vigilo::ivf::kernels_internal {

bool Avx2Supported() { return false; }

void ScoreRowsAvx2(const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                   const uint8_t* codes, float* out) {
  ScoreRowsScalar(ctx, n, offsets, scales, codes, out);
}

}  // namespace vigilo::ivf::kernels_internal

#endif
