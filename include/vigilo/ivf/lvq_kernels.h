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
// Paths: kAvx512 (x86-64 with AVX-512 F/BW/VL and VNNI, chosen at run time
// first; the same order with each pair of 8-lane accumulators in one 16-lane
// register), kAvx2 (x86-64 with AVX2; the order is its loop's), kScalar (the
// fallback; the plainest statement of the order), kPortable (plain C++ in
// 8-lane blocks that compilers vectorize, e.g. to WASM SIMD128 f32x4). All
// four are bit-identical (tested).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/types.h"

namespace vigilo::ivf {

enum class KernelPath : uint8_t { kScalar, kPortable, kAvx2, kAvx512 };

// "scalar" | "portable" | "avx2" | "avx512".
std::string_view KernelPathName(KernelPath path);
// kScalar and kPortable always; kAvx2 when the CPU (and OS) support AVX2;
// kAvx512 when they support AVX-512 F, BW, VL and VNNI (and AVX2).
bool KernelPathAvailable(KernelPath path);
// The path ScoreRows uses: kAvx512 if available, else kAvx2 if available,
// else kScalar; under Emscripten (WebAssembly) always kPortable. Detected
// once per process, unless ForceKernelPath chose another before. Results
// are the same bits on every path.
KernelPath DispatchedKernelPath();
// Chooses the path named `name` (scalar, portable, avx2, avx512) instead of
// the detected one, so benchmarks compare flavours on one binary. Only an
// edge calls it, before the first query (the CLI when VIGILO_KERNEL is set):
// nothing below the edge reads the environment. False, changing nothing,
// for an unknown or unavailable name, or once the path has been chosen.
bool ForceKernelPath(std::string_view name);
// KernelPathName(DispatchedKernelPath()): "avx512", "avx2", "scalar" or "portable".
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
// Several lists for one query at once (out[j] for centroids[j]), each
// exactly as PrepareList would make it, faster: the per-list double sums are
// serial by definition, and here several run side by side. The first error
// PrepareList would report for any of them (sizes, then the dimension, the
// query, each centroid in order); out's sizes must match.
Status PrepareLists(Metric metric, Encoding encoding, std::span<const float> q,
                    std::span<const std::span<const float>> centroids, std::span<ListContext> out);
// Several queries against one list at once (out[j] for queries[j]: a row
// group's probers), each exactly as PrepareList would make it, the lists'
// sums side by side as in PrepareLists. The first error PrepareList would
// report for any of them, except that every query is checked before the
// centroid; out's sizes must match.
Status PrepareListsOfCentroid(Metric metric, Encoding encoding, std::span<const std::span<const float>> queries,
                              std::span<const float> centroid_decoded, std::span<ListContext> out);

// Exact integer code sums of one row, Σcode_i and Σcode_i² (LVQ8 bytes, LVQ4
// nibbles; an odd d's last high nibble ignored): what l2_squared's ‖r̂‖² needs.
struct CodeSums {
  uint32_t sum = 0;
  uint32_t squares = 0;
};

// n rows laid out as they are found: row r's offset and scale, its code at
// codes + r·stride (stride ≥ CodeBytes(e, d); e.g. CodeBytes + 4 for codes
// read in place from a PLAIN BYTE_ARRAY page, each behind its 4-byte length),
// and optionally its exact code sums, precomputed once for rows that are
// scored again and again (the centroids): l2_squared then skips them in the
// row loop. They must be ComputeCodeSums' values: they are trusted, not
// checked (wrong sums give wrong distances). Cosine ignores them.
struct RowBlock {
  size_t n = 0;
  const float* offsets = nullptr;
  const float* scales = nullptr;
  const uint8_t* codes = nullptr;
  size_t stride = 0;
  const CodeSums* sums = nullptr;
  // The rows are read again and again and stay in cache (the centroids,
  // ranked for every query): the SIMD screens may read several rows side by
  // side at any d, which only pays when the rows do not come from DRAM.
  bool cached = false;
};

// The sums of n codes at codes + r·stride.
void ComputeCodeSums(Encoding encoding, size_t dimension, size_t n, const uint8_t* codes, size_t stride,
                     CodeSums* out);

// Scores a block against the prepared (query, list); the distances are bit
// for bit those of ScoreRows on the same rows. Uses DispatchedKernelPath().
void ScoreBlock(const ListContext& ctx, const RowBlock& rows, float* out);
// The same on an explicit path; InvalidArgument as ScoreRowsWith, and for a
// stride below the code size.
Status ScoreBlockWith(KernelPath path, const ListContext& ctx, const RowBlock& rows, float* out);

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
