// The scalar path: the specification of the float order of W
// (lvq_kernels_internal.h, docs/format/ivf-build-algorithms.md "Scoring
// kernels") as the plainest loop — each element's product rounded to float,
// then added (-ffp-contract=off) to its normative slot; then the fixed fold.
// The fallback on CPUs without AVX2; bit-identical to the other paths.
#include "lvq_kernels_internal.h"
#include "vigilo/ivf/lvq.h"

namespace vigilo::ivf::kernels_internal {
namespace {

// Elements in increasing order; element i = base + p of a block of 8 (LVQ8)
// or 16 (LVQ4) goes to its slot (SlotAccumulator, SlotLane), spelled out here
// per block so the loop stays plain.
template <Encoding kEnc, bool kSums>
RowSums RowScalar(const float* w, size_t d, const uint8_t* code) {
  constexpr size_t kBlock = kEnc == Encoding::kLvq8 ? 8 : 16;
  float acc[4][8] = {};
  uint32_t code_sum = 0;
  uint32_t code_sq = 0;
  for (size_t base = 0; base < d; base += kBlock) {
    const size_t b = base / kBlock;
    const size_t end = d - base < kBlock ? d - base : kBlock;
    for (size_t p = 0; p < end; ++p) {
      const size_t i = base + p;
      const uint32_t c = LvqCodeAt(kEnc, code, i);  // an odd d's last high nibble is never read
      const float product = w[i] * static_cast<float>(c);
      if constexpr (kEnc == Encoding::kLvq8) {
        acc[b % 4][p] += product;  // = acc[SlotAccumulator(e, i)][SlotLane(e, i)]
      } else {
        acc[2 * (b % 2) + p % 2][p / 2] += product;
      }
      if constexpr (kSums) {
        code_sum += c;
        code_sq += c * c;
      }
    }
  }
  return RowSums{FoldAccumulators(acc), code_sum, code_sq};
}

}  // namespace

void ScoreRowsScalar(const ListContext& ctx, const RowBlock& rows, float* out) {
  DispatchEncodingMetric(ctx, [&]<Encoding kEnc, Metric kMetric>() {
    ScoreEachRow<kEnc, kMetric>(ctx, rows, out, [&](const uint8_t* code) {
      return RowScalar<kEnc, kMetric == Metric::kL2Squared>(ctx.weights.data(), ctx.dimension, code);
    });
  });
}

RowSums RowSumsScalar(const ListContext& ctx, const uint8_t* code) {
  return ctx.encoding == Encoding::kLvq8 ? RowScalar<Encoding::kLvq8, true>(ctx.weights.data(), ctx.dimension, code)
                                         : RowScalar<Encoding::kLvq4, true>(ctx.weights.data(), ctx.dimension, code);
}

}  // namespace vigilo::ivf::kernels_internal
