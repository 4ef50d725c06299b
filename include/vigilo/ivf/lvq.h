// LVQ (locally-adaptive vector quantization) codec: one offset and one scale
// per vector, 4- or 8-bit codes (docs/format/ivf-build-algorithms.md).
//
// Decode is normative and must be bit-exact in every reader (C++ and
// JavaScript/WASM): v̂_i = offset + scale * (float)code_i in float32, the
// product rounded before the sum (no FMA). lvq.cc is compiled with
// -ffp-contract=off so the compiler cannot fuse it either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/types.h"

namespace vigilo::ivf {

struct LvqParams {
  float offset = 0;  // min(v)
  float scale = 0;   // (max(v) - min(v)) / levels, 0 for a constant vector
  friend bool operator==(const LvqParams&, const LvqParams&) = default;
};

// One coded vector as postings and centroid files store it.
struct LvqVector {
  LvqParams params;
  std::string code;  // CodeBytes(encoding, d) bytes
};

// 2^bits - 1: 15 (LVQ4) or 255 (LVQ8).
uint32_t LvqLevels(Encoding e);

// Code element i of a coded vector (LVQ4: element 2j is the low nibble of byte
// j, element 2j+1 the high nibble). The caller keeps i < d.
inline uint32_t LvqCodeAt(Encoding e, const uint8_t* code, size_t i) {
  if (e == Encoding::kLvq8) return code[i];
  return (code[i / 2] >> ((i & 1) * 4)) & 0x0Fu;
}

// Encodes v into code_out, which must hold exactly CodeBytes(e, v.size())
// bytes. InvalidArgument for an empty vector, a NaN/Inf element, a value range
// max - min that overflows float, or a wrong code_out size.
Result<LvqParams> EncodeLvq(Encoding e, std::span<const float> v, std::span<uint8_t> code_out);
Result<LvqVector> EncodeLvqVector(Encoding e, std::span<const float> v);

// out_i = offset + scale * code_i (float32, no FMA). code must hold
// CodeBytes(e, out.size()) bytes; InvalidArgument otherwise. Codes above
// LvqLevels are impossible for LVQ4 and decode as they are for LVQ8.
Status DecodeLvq(Encoding e, LvqParams p, std::span<const uint8_t> code, std::span<float> out);

// Residual coding: a posting stores the LVQ code of r = x - ĉ, where ĉ is the
// *decoded* LVQ8 centroid of the vector's leaf (float32 subtraction per
// element). A reader reconstructs x̂_i = ĉ_i + r̂_i with r̂_i decoded as above,
// then one float32 addition.
Result<LvqParams> EncodeResidual(Encoding e, std::span<const float> x, std::span<const float> centroid_decoded,
                                 std::span<uint8_t> code_out);
Result<LvqVector> EncodeResidualVector(Encoding e, std::span<const float> x,
                                       std::span<const float> centroid_decoded);
Status ReconstructResidual(Encoding e, LvqParams p, std::span<const uint8_t> code,
                           std::span<const float> centroid_decoded, std::span<float> out);

// A row-major block of n vectors of dimension d, LVQ-coded row by row (the
// leaf centroids: LVQ8). decoded holds the n × d decoded values the builder
// assigns against.
struct LvqRows {
  std::vector<LvqParams> params;  // n
  std::vector<uint8_t> codes;     // n × CodeBytes(e, d)
  std::vector<float> decoded;     // n × d
};
Result<LvqRows> EncodeLvqRows(Encoding e, std::span<const float> rows, size_t d);

// Cosine: the builder L2-normalizes every vector first. The norm is summed in
// double in element order; each element becomes (float)((double)v_i / norm).
// InvalidArgument for a zero vector or a NaN/Inf element.
Status NormalizeL2(std::span<float> v);
// Every row of a row-major n × d block; the error names the row ("vector 7").
Status NormalizeL2Rows(std::span<float> rows, size_t d);

}  // namespace vigilo::ivf
