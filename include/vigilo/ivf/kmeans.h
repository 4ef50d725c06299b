// k-means for the IVF builder: exact nearest-centroid assignment, Lloyd's
// algorithm and the partition (flat leaves grouped into root buckets)
// (docs/format/ivf-build-algorithms.md).
//
// All matrices are float32, row-major, n × d. Results are deterministic for a
// given seed: identical bytes for any thread count and block size (blocks and
// reductions have a fixed order, assignment is decided in double precision).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/store/clock.h"

namespace vigilo::ivf {

struct AssignOptions {
  uint32_t threads = 1;
  // Rows per sgemm block and centroids per tile: each thread holds
  // block_rows × min(k, block_centroids) floats of dot products.
  size_t block_rows = 1024;
  size_t block_centroids = 4096;
  // Set from another thread to stop: no block starts after it is seen, and
  // AssignNearest returns `cancelled` (one block of rows at most finishes
  // first per thread: block_rows × k × d multiply-adds).
  const store::CancelToken* cancel = nullptr;
};

struct Assignment {
  std::vector<uint32_t> labels;   // m
  std::vector<double> distances;  // m, squared L2 to the chosen centroid
};

// The nearest centroid of every row under squared L2, decided as
// argmin_j Σ_i ((double)x_i - (double)c_ji)² summed in element order, ties
// to the lowest j. sgemm (‖x‖² - 2x·c + ‖c‖²) only screens: every centroid
// whose screened distance could be within its rigorous float error bound of
// the best is recomputed in double. InvalidArgument for mismatched sizes,
// d = 0, k = 0, k ≥ 2^32 or a NaN/Inf value.
Result<Assignment> AssignNearest(std::span<const float> data, size_t m, size_t d, std::span<const float> centroids,
                                 size_t k, const AssignOptions& options = {});

// Training progress: `done` of `total` steps, called on the calling thread
// after each step (and once with done = 0 first), done strictly increasing up
// to total. Optional: an empty function costs one test per step.
using KMeansProgress = std::function<void(uint64_t done, uint64_t total)>;

struct KMeansOptions {
  uint32_t iterations = 10;  // Lloyd iterations (assign + update); 0 returns the k-means++ seeds
  uint64_t seed = 0;
  uint32_t threads = 1;
  size_t block_rows = 1024;
  size_t block_centroids = 4096;
  // k-means++ runs on a uniform subsample of min(n, k·seeding_points) rows.
  // Each of its k steps streams the subsample, so its cost grows with k²;
  // TrainPartition lowers it for its nlist leaves.
  size_t seeding_points = 32;
  // Spherical k-means: every updated centroid is scaled to unit L2 norm (the
  // sum of its points divided by the sum's norm, in double). For unit-norm
  // data (cosine) nearest in L2 is then also largest inner product.
  bool spherical = false;
  // One step per Lloyd iteration: total = iterations.
  KMeansProgress progress;
  // Set from another thread to stop: checked at every k-means++ step, every
  // Lloyd iteration and every assignment block; KMeans then returns
  // `cancelled`. The result of an uncancelled run does not depend on it.
  const store::CancelToken* cancel = nullptr;
};

struct KMeansResult {
  std::vector<float> centroids;  // k × d
  double inertia = 0;            // Σ distances of the last assignment (before the last update)
  uint64_t reseeded = 0;         // empty clusters re-seeded over all iterations
};

// k-means++ seeding (D² weights, on a uniform subsample of
// min(n, seeding_points·k) points), then Lloyd iterations; an
// empty cluster takes the point of the largest cluster farthest from that
// cluster's centroid. InvalidArgument unless 1 ≤ k ≤ n, or for bad sizes or
// NaN/Inf values.
Result<KMeansResult> KMeans(std::span<const float> data, size_t n, size_t d, size_t k,
                            const KMeansOptions& options = {});

struct TrainedHierarchy {
  std::vector<float> root_centroids;  // roots × d: the centroids of the leaf grouping
  std::vector<float> leaf_centroids;  // nlist × d, root by root; leaf CID = row
  std::vector<uint32_t> cid_offsets;  // roots + 1: root r owns leaves [cid_offsets[r], cid_offsets[r+1])
};

// The builder's training: the nlist leaves by flat k-means over the whole
// sample (KMeans with `iterations` Lloyd iterations, seed DeriveSeed(seed, 1),
// k-means++ on 8 points per leaf, `spherical` for cosine), then the leaves
// grouped into `roots` balanced buckets: k-means of the leaf centroids into
// `roots` clusters (seed DeriveSeed(seed, 0), same iterations); root r holds
// nlist / roots leaves, one more if r < nlist % roots; leaves are placed in
// increasing distance to their nearest root centroid (ties: lower leaf), each
// into the nearest root with room (ties: lower root). Leaves are then
// numbered root by root, keeping their k-means order inside a root. Roots are
// physical buckets only (readers rank every leaf globally). Requires
// 1 ≤ roots ≤ nlist ≤ n < 2^31. `progress` counts iterations + 1 steps: the
// leaf Lloyd iterations, then the grouping. `cancel` (KMeansOptions::cancel)
// stops both k-means runs: `cancelled`.
Result<TrainedHierarchy> TrainPartition(std::span<const float> sample, size_t n, size_t d, uint32_t roots,
                                        uint32_t nlist, uint32_t iterations, uint64_t seed, uint32_t threads,
                                        bool spherical, const KMeansProgress& progress = {},
                                        const store::CancelToken* cancel = nullptr);

// Defaults: nlist = round(4·√ntotal) clamped to [1, max(1, ntotal)];
// roots = round(√nlist) clamped to [1, nlist].
uint32_t DefaultNlist(uint64_t ntotal);
uint32_t DefaultRoots(uint32_t nlist);

}  // namespace vigilo::ivf
