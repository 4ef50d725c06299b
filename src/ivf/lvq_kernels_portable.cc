// The portable path: plain C++ (no intrinsics) for targets without a
// hand-written kernel, WASM first. It computes W in the normative order
// (lvq_kernels_internal.h) — the AVX2 loop's four 8-lane accumulators —
// written as whole 8-element blocks, each one accumulator's 8 lanes updated
// lane by lane with no reordering, which auto-vectorizers (GCC/clang SLP,
// emscripten -msimd128: two f32x4 per accumulator) map onto vector registers.
// LVQ4 decodes a 16-element block (8 bytes) into its even and odd nibbles and
// multiplies them with ListContext::weights_split. The last partial block is
// zero-padded (a +0.0 product leaves a lane unchanged). Bit-identical to the
// scalar path and the AVX2 path, which the tests check.
#include <cstring>

#include "lvq_kernels_internal.h"

namespace vigilo::ivf::kernels_internal {
namespace {

// lane[k] += w[k]·c[k] for k < 8: one accumulator, one block.
inline void Accumulate8(float* lane, const float* w, const uint32_t* c) {
  for (size_t k = 0; k < 8; ++k) {
    const float product = w[k] * static_cast<float>(c[k]);
    lane[k] += product;
  }
}

template <bool kSums>
inline void CodeSums8(const uint32_t* c, uint32_t& code_sum, uint32_t& code_sq) {
  if constexpr (kSums) {
    for (size_t k = 0; k < 8; ++k) {  // exact integer sums: their order is free
      code_sum += c[k];
      code_sq += c[k] * c[k];
    }
  }
}

template <bool kSums>
RowSums RowLvq8(const float* w, size_t d, const uint8_t* code) {
  float acc[4][8] = {};
  uint32_t code_sum = 0;
  uint32_t code_sq = 0;
  uint32_t c[8];
  size_t i = 0;
  for (; i + 32 <= d; i += 32) {  // four blocks, one per accumulator
    for (size_t j = 0; j < 4; ++j) {
      for (size_t k = 0; k < 8; ++k) c[k] = code[i + 8 * j + k];
      Accumulate8(acc[j], w + i + 8 * j, c);
      CodeSums8<kSums>(c, code_sum, code_sq);
    }
  }
  for (; i + 8 <= d; i += 8) {  // whole blocks left: block i/8 into accumulator (i/8) mod 4
    for (size_t k = 0; k < 8; ++k) c[k] = code[i + k];
    Accumulate8(acc[(i / 8) % 4], w + i, c);
    CodeSums8<kSums>(c, code_sum, code_sq);
  }
  if (i < d) {  // the partial block, zero-padded
    float wp[8] = {};
    for (size_t k = 0; k < 8; ++k) c[k] = 0;
    for (size_t k = 0; i + k < d; ++k) {
      c[k] = code[i + k];
      wp[k] = w[i + k];
    }
    Accumulate8(acc[(i / 8) % 4], wp, c);
    CodeSums8<kSums>(c, code_sum, code_sq);
  }
  return RowSums{FoldAccumulators(acc), code_sum, code_sq};
}

// One 16-element block from its 8 bytes: even elements (low nibbles) into
// accumulator 2·(b mod 2), odd ones (high) into the next; ws the block's split weights.
template <bool kSums>
inline void Block16(float (&acc)[4][8], size_t b, const float* ws, const uint8_t* bytes, uint32_t& code_sum,
                    uint32_t& code_sq) {
  uint32_t even[8], odd[8];
  for (size_t k = 0; k < 8; ++k) {
    even[k] = bytes[k] & 0x0Fu;
    odd[k] = static_cast<uint32_t>(bytes[k] >> 4);
  }
  Accumulate8(acc[2 * (b % 2)], ws, even);
  Accumulate8(acc[2 * (b % 2) + 1], ws + 8, odd);
  CodeSums8<kSums>(even, code_sum, code_sq);
  CodeSums8<kSums>(odd, code_sum, code_sq);
}

template <bool kSums>
RowSums RowLvq4(const float* ws, size_t d, const uint8_t* code) {
  float acc[4][8] = {};
  uint32_t code_sum = 0;
  uint32_t code_sq = 0;
  size_t i = 0;
  for (; i + 32 <= d; i += 32) {
    Block16<kSums>(acc, 0, ws + i, code + i / 2, code_sum, code_sq);
    Block16<kSums>(acc, 1, ws + i + 16, code + i / 2 + 8, code_sum, code_sq);
  }
  if (i + 16 <= d) {
    Block16<kSums>(acc, 0, ws + i, code + i / 2, code_sum, code_sq);
    i += 16;
  }
  if (i < d) {  // the partial block: its bytes, an odd d's last high nibble cleared, zero-padded
    uint8_t bytes[8] = {};
    const size_t nb = (d - i + 1) / 2;
    std::memcpy(bytes, code + i / 2, nb);
    if (d % 2 == 1) bytes[nb - 1] &= 0x0F;
    Block16<kSums>(acc, i / 16, ws + i, bytes, code_sum, code_sq);  // weights_split is zero-padded too
  }
  return RowSums{FoldAccumulators(acc), code_sum, code_sq};
}

template <Encoding kEnc, bool kSums>
RowSums RowPortable(const ListContext& ctx, const uint8_t* code) {
  if constexpr (kEnc == Encoding::kLvq8) {
    return RowLvq8<kSums>(ctx.weights.data(), ctx.dimension, code);
  } else {
    return RowLvq4<kSums>(ctx.weights_split.data(), ctx.dimension, code);
  }
}

}  // namespace

void ScoreRowsPortable(const ListContext& ctx, const RowBlock& rows, float* out) {
  DispatchEncodingMetric(ctx, [&]<Encoding kEnc, Metric kMetric>() {
    ScoreEachRow<kEnc, kMetric>(ctx, rows, out, [&](const uint8_t* code) {
      return RowPortable<kEnc, kMetric == Metric::kL2Squared>(ctx, code);
    });
  });
}

RowSums RowSumsPortable(const ListContext& ctx, const uint8_t* code) {
  return ctx.encoding == Encoding::kLvq8 ? RowPortable<Encoding::kLvq8, true>(ctx, code)
                                         : RowPortable<Encoding::kLvq4, true>(ctx, code);
}

}  // namespace vigilo::ivf::kernels_internal
