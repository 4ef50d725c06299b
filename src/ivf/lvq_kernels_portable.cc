// The portable path: plain C++ (no intrinsics) for targets without a
// hand-written kernel, WASM first. It keeps the scalar order exactly — 8
// lanes, lane k holds elements ≡ k mod 8 in increasing order — but decodes
// and accumulates a block of 8 elements at a time, which is the shape
// auto-vectorizers (GCC/clang SLP, emscripten -msimd128: two f32x4) map onto
// vector registers without reordering anything. Hence bit-identical to the
// scalar path, which the tests check.
#include "lvq_kernels_internal.h"

namespace vigilo::ivf::kernels_internal {
namespace {

// Codes of elements i…i+7 (i a multiple of 8, i + 8 ≤ d).
template <Encoding kEnc>
void DecodeBlock8(const uint8_t* code, size_t i, uint32_t* c) {
  if constexpr (kEnc == Encoding::kLvq8) {
    for (size_t k = 0; k < 8; ++k) c[k] = code[i + k];
  } else {
    const uint8_t* b = code + i / 2;
    for (size_t k = 0; k < 4; ++k) {
      c[2 * k] = b[k] & 0x0Fu;
      c[2 * k + 1] = static_cast<uint32_t>(b[k] >> 4);
    }
  }
}

template <Encoding kEnc>
uint32_t CodeAt(const uint8_t* code, size_t i) {
  if constexpr (kEnc == Encoding::kLvq8) {
    return code[i];
  } else {
    return (code[i / 2] >> ((i & 1) * 4)) & 0x0Fu;
  }
}

template <Encoding kEnc, bool kSums>
RowSums RowPortable(const float* w, size_t d, const uint8_t* code) {
  float lane[8] = {};
  uint32_t code_sum = 0;
  uint32_t code_sq = 0;
  size_t i = 0;
  for (; i + 8 <= d; i += 8) {
    uint32_t c[8];
    DecodeBlock8<kEnc>(code, i, c);
    for (size_t k = 0; k < 8; ++k) {
      const float product = w[i + k] * static_cast<float>(c[k]);
      lane[k] += product;
    }
    if constexpr (kSums) {
      // Exact integer sums: their order is free.
      for (size_t k = 0; k < 8; ++k) {
        code_sum += c[k];
        code_sq += c[k] * c[k];
      }
    }
  }
  for (; i < d; ++i) {  // i is a multiple of 8 plus the lane index
    const uint32_t c = CodeAt<kEnc>(code, i);
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

void ScoreRowsPortable(const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                       const uint8_t* codes, float* out) {
  DispatchEncodingMetric(ctx, [&]<Encoding kEnc, Metric kMetric>() {
    ScoreEachRow<kEnc, kMetric>(ctx, n, offsets, scales, codes, out, [&](const uint8_t* code) {
      return RowPortable<kEnc, kMetric == Metric::kL2Squared>(ctx.weights.data(), ctx.dimension, code);
    });
  });
}

}  // namespace vigilo::ivf::kernels_internal
