// Private to lvq_screen_avx2.cc and lvq_screen_avx512.cc (included inside
// their x86 blocks, after <immintrin.h>): the exact reductions of the
// screens' int32 lanes to the doubles BoundRows takes. AVX2 only; the
// AVX-512 screen calls them too (a function for a subset of the caller's
// extensions inlines into it).
#pragma once

#include <immintrin.h>

#include <cstddef>

#define VIGILO_REDUCE_AVX2 __attribute__((target("avx2")))

namespace vigilo::ivf::screen::reduce {

// 8 int32 lanes → 4 int64 lanes (each pair of lanes added in int64).
VIGILO_REDUCE_AVX2 inline __m256i Widen64(__m256i acc32) {
  return _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(acc32)),
                          _mm256_cvtepi32_epi64(_mm256_extracti128_si256(acc32, 1)));
}

// Four rows' 8-lane int32 sums (each row's total below 2^31), as doubles.
VIGILO_REDUCE_AVX2 inline void Reduce4(__m256i a0, __m256i a1, __m256i a2, __m256i a3, double* out) {
  const __m256i t = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
  const __m128i sums = _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
  _mm256_storeu_pd(out, _mm256_cvtepi32_pd(sums));
}

// Four rows' 8-lane int32 sums reduced in int64, as doubles (exact: the
// sums are below 2^51, where adding 1.5·2^52 to the bits converts exactly).
VIGILO_REDUCE_AVX2 inline void Reduce4Wide(const __m256i (&a)[4], double* out) {
  __m256i w[4];
  for (size_t k = 0; k < 4; ++k) w[k] = Widen64(a[k]);
  const __m256i s01 = _mm256_add_epi64(_mm256_unpacklo_epi64(w[0], w[1]), _mm256_unpackhi_epi64(w[0], w[1]));
  const __m256i s23 = _mm256_add_epi64(_mm256_unpacklo_epi64(w[2], w[3]), _mm256_unpackhi_epi64(w[2], w[3]));
  const __m256i sums =
      _mm256_add_epi64(_mm256_permute2x128_si256(s01, s23, 0x20), _mm256_permute2x128_si256(s01, s23, 0x31));
  const __m256i magic = _mm256_set1_epi64x(0x4338000000000000);  // the bits of 1.5·2^52
  _mm256_storeu_pd(out, _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(sums, magic)), _mm256_castsi256_pd(magic)));
}

}  // namespace vigilo::ivf::screen::reduce

#undef VIGILO_REDUCE_AVX2
