// Scoring kernels for residual LVQ postings (publication-v1.md §4.2, §4.3;
// docs/format/ivf-build-algorithms.md "Scoring kernels").
//
// A posting of list L stores LVQ(r) of r = x − ĉ, ĉ the decoded LVQ8 centroid
// of L; r̂_i = offset + scale·code_i. Per (query, list) PrepareList folds the
// centroid into the query once, so that scoring a row needs only a float dot
// product with the raw codes plus integer code sums:
//   l2_squared: ‖q − x̂‖² = ‖q'‖² − 2(offset·S + scale·(q'·code)) + ‖r̂‖²,
//               q' = q − ĉ, S = Σq'_i,
//               ‖r̂‖² = d·offset² + 2·offset·scale·Σcode + scale²·Σcode²
//   cosine:     1 − q·x̂ = (1 − q·ĉ) − (offset·Σq_i + scale·(q·code))
// The float dot W is accumulated in float32 in one normative order (the doc
// above; no FMA: each product rounded, then added into one of 4 × 8 lanes —
// LVQ8 element i into accumulator (i/8) mod 4, lane i mod 8; LVQ4 a 16-block's
// even elements into one accumulator, its odd ones into the next — then a
// fixed fold); everything per-list and the per-row combination are in double
// and shared, so every path returns bit-identical distances, and the only
// float32 error is W and the rounding of q' (the bound is in the doc above).
//
// Paths: kAvx2 (x86-64 with AVX2, chosen at run time; the order is its
// loop's), kScalar (the fallback; the plainest statement of the order),
// kPortable (plain C++ in 8-lane blocks that compilers vectorize, e.g. to
// WASM SIMD128 f32x4). All three are bit-identical (tested).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/types.h"

namespace vigilo::ivf {

enum class KernelPath : uint8_t { kScalar, kPortable, kAvx2 };

// "scalar" | "portable" | "avx2".
std::string_view KernelPathName(KernelPath path);
// kScalar and kPortable always; kAvx2 when the CPU (and OS) support AVX2.
bool KernelPathAvailable(KernelPath path);
// The path ScoreRows uses: kAvx2 if available, else kScalar. Detected once.
KernelPath DispatchedKernelPath();
// KernelPathName(DispatchedKernelPath()): "avx2" or "scalar".
std::string_view KernelName();

// Everything about one (query, list) pair the row loop needs. Built by
// PrepareList; the fields are read by the kernels only.
struct ListContext {
  Metric metric = Metric::kL2Squared;
  Encoding encoding = Encoding::kLvq8;
  size_t dimension = 0;
  std::vector<float> weights;  // l2: q'_i = q_i − ĉ_i (float32); cosine: q_i
  // LVQ4 only: the weights of each 16-element block reordered as its 8 even
  // elements, then its 8 odd ones, so a SIMD kernel can multiply low and high
  // nibbles without interleaving them; the last partial block zero-padded
  // (⌈d/16⌉·16 values).
  std::vector<float> weights_split;
  double weight_sum = 0;       // Σ weights_i (in double)
  double base = 0;             // l2: ‖q'‖²; cosine: 1 − q·ĉ (in double)
};

// q is the query (already L2-normalized by the reader for cosine; not checked),
// centroid_decoded the list's decoded LVQ8 centroid. InvalidArgument for
// sizes that differ, d = 0 or d > 65536 (the format's limit, which keeps the
// integer code sums in 32 bits), or a NaN/Inf element.
Result<ListContext> PrepareList(Metric metric, Encoding encoding, std::span<const float> q,
                                std::span<const float> centroid_decoded);
// The same into an existing context, reusing its buffer (one per query
// thread, many lists).
Status PrepareList(Metric metric, Encoding encoding, std::span<const float> q,
                   std::span<const float> centroid_decoded, ListContext& out);

// Scores n rows of one row group against the prepared (query, list):
// offsets[r], scales[r] and the code of row r at codes + r·CodeBytes(e, d)
// (no alignment required; the float arrays need only float alignment).
// Writes out[r] (l2_squared clamped at 0, which only moves a result towards
// the exact one). An LVQ4 odd last high nibble is ignored, not trusted to be 0.
// n = 0 touches nothing. Non-finite offsets or scales give non-finite
// distances (nothing here checks them). Uses DispatchedKernelPath().
void ScoreRows(const ListContext& ctx, size_t n, const float* offsets, const float* scales, const uint8_t* codes,
               float* out);
// The same on an explicit path (tests, bench). InvalidArgument if the path
// is not available on this CPU or ctx did not come from PrepareList.
Status ScoreRowsWith(KernelPath path, const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                     const uint8_t* codes, float* out);

}  // namespace vigilo::ivf
