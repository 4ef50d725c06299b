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

}  // namespace

void ScoreRowsScalar(const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                     const uint8_t* codes, float* out) {
  DispatchEncodingMetric(ctx, [&]<Encoding kEnc, Metric kMetric>() {
    ScoreEachRow<kEnc, kMetric>(ctx, n, offsets, scales, codes, out, [&](const uint8_t* code) {
      return RowScalar<kEnc, kMetric == Metric::kL2Squared>(ctx.weights.data(), ctx.dimension, code);
    });
  });
}

}  // namespace vigilo::ivf::kernels_internal
