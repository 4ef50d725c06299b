// The scalar path: the specification of the float order (lvq_kernels.h) as
// the plainest loop — element i into lane i mod 8, product rounded, then the
// add (-ffp-contract=off). The fallback on CPUs without AVX2.
#include "lvq_kernels_internal.h"
#include "vigilo/ivf/lvq.h"

namespace vigilo::ivf::kernels_internal {
namespace {

template <Encoding kEnc, bool kSums>
RowSums RowScalar(const float* w, size_t d, const uint8_t* code) {
  float lane[8] = {};
  uint32_t code_sum = 0;
  uint32_t code_sq = 0;
  for (size_t i = 0; i < d; ++i) {
    const uint32_t c = LvqCodeAt(kEnc, code, i);
    const float product = w[i] * static_cast<float>(c);
    lane[i & 7] += product;
    if constexpr (kSums) {
      code_sum += c;
      code_sq += c * c;
    }
  }
  return RowSums{FoldLanes8(lane), code_sum, code_sq};
}

template <Encoding kEnc, Metric kMetric>
void Rows(const ListContext& ctx, size_t n, const float* offsets, const float* scales, const uint8_t* codes,
          float* out) {
  const size_t d = ctx.dimension;
  const size_t bytes = static_cast<size_t>(CodeBytes(kEnc, d));
  const float* w = ctx.weights.data();
  for (size_t r = 0; r < n; ++r) {
    const RowSums s = RowScalar<kEnc, kMetric == Metric::kL2Squared>(w, d, codes + r * bytes);
    out[r] = kMetric == Metric::kL2Squared ? CombineL2(ctx, offsets[r], scales[r], s)
                                           : CombineCosine(ctx, offsets[r], scales[r], s);
  }
}

}  // namespace

void ScoreRowsScalar(const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                     const uint8_t* codes, float* out) {
  const bool l2 = ctx.metric == Metric::kL2Squared;
  if (ctx.encoding == Encoding::kLvq8) {
    l2 ? Rows<Encoding::kLvq8, Metric::kL2Squared>(ctx, n, offsets, scales, codes, out)
       : Rows<Encoding::kLvq8, Metric::kCosine>(ctx, n, offsets, scales, codes, out);
  } else {
    l2 ? Rows<Encoding::kLvq4, Metric::kL2Squared>(ctx, n, offsets, scales, codes, out)
       : Rows<Encoding::kLvq4, Metric::kCosine>(ctx, n, offsets, scales, codes, out);
  }
}

}  // namespace vigilo::ivf::kernels_internal
