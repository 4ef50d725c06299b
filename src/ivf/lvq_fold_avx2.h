// Private to lvq_kernels_avx2.cc and lvq_kernels_avx512.cc (included inside
// their x86 blocks, after <immintrin.h>): the last step of the normative fold
// of W (lvq_kernels_internal.h) on a row's 8-lane t = (A0 + A1) + (A2 + A3),
// for one row and for eight rows at once, and an exact reduction of eight
// rows' int32 sums. AVX2 only; the AVX-512 path calls them too (a function
// for a subset of the caller's extensions inlines into it).
#pragma once

#include <immintrin.h>

#define VIGILO_FOLD_AVX2 __attribute__((target("avx2")))

namespace vigilo::ivf::kernels_internal::fold {

// The fold of t's lanes: (k, k+4), then (k, k+2), then (0, 1).
VIGILO_FOLD_AVX2 inline float FoldLanes(__m256 v) {
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  const __m128 s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
  return _mm_cvtss_f32(s1);
}

// FoldLanes for eight rows at once, lanewise across rows after a transpose:
// every row's lanes are added in exactly FoldLanes' pairs (each addition is
// one rounding of the same two floats, and float addition is commutative),
// so each row's W has the same bits. t[r] is row r's t; the result holds rows
// 0…7 in lanes 0…7.
//
// Then + 0.0, for the LVQ8 rows' first products: both paths set the
// accumulators to the first 32-element step's products instead of adding
// them to +0.0 (fewer adds per row). fl(+0.0 + p) is p except for
// p = −0.0, which gives +0.0; so every lane, and every sum the fold makes of
// them, equals the normative value or is −0.0 where that is +0.0 (−0.0 + x
// = +0.0 + x for x ≠ ±0, −0.0 + (+0.0) = +0.0, −0.0 + (−0.0) = −0.0). The
// normative W is never −0.0 (no lane is), so adding +0.0 to W turns −0.0
// into +0.0 and leaves every other value as it is: W is the normative one.
VIGILO_FOLD_AVX2 inline __m256 FoldLanes8(const __m256 (&t)[8]) {
  __m256 p[4];  // p[j] = [s(row j) | s(row j + 4)], s_k = t_k + t_{k+4}
  for (int j = 0; j < 4; ++j) {
    p[j] = _mm256_add_ps(_mm256_permute2f128_ps(t[j], t[j + 4], 0x20), _mm256_permute2f128_ps(t[j], t[j + 4], 0x31));
  }
  // e0 = s0 + s2, e1 = s1 + s3: q01 = [e(row 0), e(row 1) | e(row 4), e(row 5)], q23 likewise for rows 2, 3, 6, 7.
  const __m256 q01 = _mm256_add_ps(_mm256_shuffle_ps(p[0], p[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                   _mm256_shuffle_ps(p[0], p[1], _MM_SHUFFLE(3, 2, 3, 2)));
  const __m256 q23 = _mm256_add_ps(_mm256_shuffle_ps(p[2], p[3], _MM_SHUFFLE(1, 0, 1, 0)),
                                   _mm256_shuffle_ps(p[2], p[3], _MM_SHUFFLE(3, 2, 3, 2)));
  // W = e0 + e1, rows [0, 1, 2, 3 | 4, 5, 6, 7]; then + 0.0 (below).
  const __m256 w = _mm256_add_ps(_mm256_shuffle_ps(q01, q23, _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm256_shuffle_ps(q01, q23, _MM_SHUFFLE(3, 1, 3, 1)));
  return _mm256_add_ps(w, _mm256_setzero_ps());
}

// FoldLanes of an LVQ8 row, whose first products were its accumulators: + 0.0 (FoldLanes8).
VIGILO_FOLD_AVX2 inline float FoldLanesLvq8(__m256 v) {
  return _mm_cvtss_f32(_mm_add_ss(_mm_set_ss(FoldLanes(v)), _mm_setzero_ps()));
}

// Lane r: the sum of v[r]'s eight int32 lanes (exact: any order).
VIGILO_FOLD_AVX2 inline __m256i Sum8(const __m256i (&v)[8]) {
  __m256i w[4];
  for (int j = 0; j < 4; ++j) {
    w[j] = _mm256_add_epi32(_mm256_unpacklo_epi32(v[2 * j], v[2 * j + 1]), _mm256_unpackhi_epi32(v[2 * j], v[2 * j + 1]));
  }
  const __m256i x0 = _mm256_add_epi32(_mm256_unpacklo_epi64(w[0], w[1]), _mm256_unpackhi_epi64(w[0], w[1]));
  const __m256i x1 = _mm256_add_epi32(_mm256_unpacklo_epi64(w[2], w[3]), _mm256_unpackhi_epi64(w[2], w[3]));
  return _mm256_add_epi32(_mm256_permute2x128_si256(x0, x1, 0x20), _mm256_permute2x128_si256(x0, x1, 0x31));
}

}  // namespace vigilo::ivf::kernels_internal::fold

#undef VIGILO_FOLD_AVX2
