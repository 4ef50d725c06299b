// The builder's training, TrainPartition: flat leaves, then grouped into
// balanced root buckets; and the nlist and roots defaults.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kmeans_internal.h"
#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_random.h"

namespace vigilo::ivf {
namespace {

constexpr uint64_t kMaxCount = (uint64_t{1} << 31) - 1;
// k-means++ subsample per leaf in TrainPartition. Seeding streams its
// subsample once per leaf (cost ∝ nlist²); with 32 per leaf it took longer
// than the ten Lloyd iterations at nlist 2048, with 8 a sixteenth of that for
// recall within 0.004 (docs/format/ivf-build-algorithms.md).
constexpr size_t kLeafSeedingPoints = 8;

using kmeans_internal::ExactL2;

// The root of every leaf, balanced: root r holds nlist / roots leaves, one
// more if r < nlist % roots. Leaves are placed in increasing distance to
// their nearest root centroid (ties: lower leaf), each into the nearest root
// (ties: lower root) that still has room. Memory O(nlist + roots); each
// leaf's distances to the roots are computed twice rather than kept.
std::vector<uint32_t> BalancedRoots(const std::vector<float>& leaves, size_t nlist, const std::vector<float>& centroids,
                                    uint32_t roots, size_t d) {
  std::vector<double> nearest(nlist, std::numeric_limits<double>::infinity());
  for (size_t c = 0; c < nlist; ++c) {
    for (uint32_t r = 0; r < roots; ++r) {
      nearest[c] = std::min(nearest[c], ExactL2(&leaves[c * d], &centroids[size_t{r} * d], d));
    }
  }
  std::vector<uint32_t> order(nlist);
  for (size_t c = 0; c < nlist; ++c) order[c] = static_cast<uint32_t>(c);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return nearest[a] < nearest[b]; });
  std::vector<uint64_t> room(roots, nlist / roots);
  for (uint32_t r = 0; r < nlist % roots; ++r) ++room[r];
  std::vector<uint32_t> root_of(nlist);
  for (uint32_t c : order) {
    uint32_t best = roots;
    double best_distance = 0;
    for (uint32_t r = 0; r < roots; ++r) {
      if (room[r] == 0) continue;
      const double distance = ExactL2(&leaves[size_t{c} * d], &centroids[size_t{r} * d], d);
      if (best == roots || distance < best_distance) best = r, best_distance = distance;
    }
    root_of[c] = best;  // Σ room = nlist - (leaves placed so far) > 0
    --room[best];
  }
  return root_of;
}

}  // namespace

Result<TrainedHierarchy> TrainPartition(std::span<const float> sample, size_t n, size_t d, uint32_t roots,
                                        uint32_t nlist, uint32_t iterations, uint64_t seed, uint32_t threads,
                                        bool spherical, const KMeansProgress& progress,
                                        const store::CancelToken* cancel) {
  if (roots == 0 || roots > nlist || nlist > n) {
    return InvalidArgument("partition: need 1 <= roots <= nlist <= sample size, got roots " + std::to_string(roots) +
                           ", nlist " + std::to_string(nlist) + ", sample " + std::to_string(n));
  }
  if (n > kMaxCount) return InvalidArgument("partition: sample must have fewer than 2^31 points");
  const uint64_t total = uint64_t{iterations} + 1;
  KMeansOptions options;
  options.iterations = iterations;
  options.threads = threads;
  options.seed = DeriveSeed(seed, 1);
  options.seeding_points = kLeafSeedingPoints;
  options.spherical = spherical;
  options.cancel = cancel;
  if (progress) {
    options.progress = [&](uint64_t done, uint64_t) { progress(done, total); };
  }
  VIGILO_ASSIGN_OR_RETURN(KMeansResult leaves, KMeans(sample, n, d, nlist, options));

  // Buckets: the leaf centroids' own k-means (plain, cheap: nlist points).
  KMeansOptions grouping;
  grouping.iterations = iterations;
  grouping.threads = threads;
  grouping.seed = DeriveSeed(seed, 0);
  grouping.cancel = cancel;
  VIGILO_ASSIGN_OR_RETURN(KMeansResult top, KMeans(leaves.centroids, nlist, d, roots, grouping));
  const std::vector<uint32_t> to_root = BalancedRoots(leaves.centroids, nlist, top.centroids, roots, d);
  std::vector<uint32_t> per_root(roots);
  for (uint32_t label : to_root) ++per_root[label];

  TrainedHierarchy h;
  h.root_centroids = std::move(top.centroids);
  h.leaf_centroids.reserve(size_t{nlist} * d);
  h.cid_offsets.reserve(roots + 1);
  h.cid_offsets.push_back(0);
  for (uint32_t r = 0; r < roots; ++r) {
    for (size_t c = 0; c < nlist; ++c) {
      if (to_root[c] != r) continue;
      const auto row = leaves.centroids.begin() + static_cast<std::ptrdiff_t>(c * d);
      h.leaf_centroids.insert(h.leaf_centroids.end(), row, row + static_cast<std::ptrdiff_t>(d));
    }
    h.cid_offsets.push_back(h.cid_offsets.back() + per_root[r]);
  }
  if (progress) progress(total, total);
  return h;
}

uint32_t DefaultNlist(uint64_t ntotal) {
  const double nlist = std::round(4.0 * std::sqrt(static_cast<double>(ntotal)));
  const double upper = static_cast<double>(std::max<uint64_t>(ntotal, 1));
  return static_cast<uint32_t>(std::clamp(nlist, 1.0, std::min(upper, 4294967295.0)));
}

uint32_t DefaultRoots(uint32_t nlist) {
  const double roots = std::round(std::sqrt(static_cast<double>(nlist)));
  return static_cast<uint32_t>(std::clamp(roots, 1.0, static_cast<double>(std::max<uint32_t>(nlist, 1))));
}

}  // namespace vigilo::ivf
