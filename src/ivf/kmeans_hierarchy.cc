// Two-level training: TrainHierarchy (roots, then leaves inside each root's
// points) and TrainPartition (flat leaves, then grouped into root buckets).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

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

double SquaredDistance(const float* a, const float* b, size_t d) {
  double sum = 0;
  for (size_t t = 0; t < d; ++t) {
    const double diff = static_cast<double>(a[t]) - static_cast<double>(b[t]);
    sum += diff * diff;
  }
  return sum;
}

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
      nearest[c] = std::min(nearest[c], SquaredDistance(&leaves[c * d], &centroids[size_t{r} * d], d));
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
      const double distance = SquaredDistance(&leaves[size_t{c} * d], &centroids[size_t{r} * d], d);
      if (best == roots || distance < best_distance) best = r, best_distance = distance;
    }
    root_of[c] = best;  // Σ room = nlist - (leaves placed so far) > 0
    --room[best];
  }
  return root_of;
}

}  // namespace

Result<std::vector<uint32_t>> ApportionLeaves(std::span<const uint64_t> populations, uint32_t nlist) {
  const size_t roots = populations.size();
  if (roots == 0 || roots > nlist) {
    return InvalidArgument("apportion: need 1 <= roots <= nlist, got " + std::to_string(roots) + " roots for nlist " +
                           std::to_string(nlist));
  }
  if (nlist > kMaxCount) return InvalidArgument("apportion: nlist must be below 2^31");
  uint64_t total = 0, capacity = 0;
  for (uint64_t p : populations) {
    if (p > kMaxCount || total + p > kMaxCount) return InvalidArgument("apportion: population must be below 2^31");
    total += p;
    capacity += std::max<uint64_t>(p, 1);
  }
  if (capacity < nlist) {
    return InvalidArgument("apportion: " + std::to_string(nlist) + " leaves need at least as many sample points, got " +
                           std::to_string(total));
  }
  if (total == 0) total = 1;  // only reachable with one leaf per root: every quota is 0

  // Root r's quota is nlist·p_r / total; priority of a root for one more leaf
  // is its quota minus its leaves, compared exactly as nlist·p_r - leaves·total
  // (all terms < 2^62).
  std::vector<uint32_t> leaves(roots);
  uint64_t assigned = 0;
  for (size_t r = 0; r < roots; ++r) {
    const uint64_t cap = std::max<uint64_t>(populations[r], 1);
    leaves[r] = static_cast<uint32_t>(std::clamp<uint64_t>(nlist * populations[r] / total, 1, cap));
    assigned += leaves[r];
  }
  auto priority = [&](size_t r) {
    return static_cast<int64_t>(nlist * populations[r]) - static_cast<int64_t>(leaves[r] * total);
  };
  while (assigned < nlist) {  // largest remainder first, ties to the lowest root
    size_t best = roots;
    for (size_t r = 0; r < roots; ++r) {
      if (leaves[r] >= std::max<uint64_t>(populations[r], 1)) continue;
      if (best == roots || priority(r) > priority(best)) best = r;
    }
    ++leaves[best];
    ++assigned;
  }
  while (assigned > nlist) {  // the ≥ 1 floor overshot: take from the most over-served
    size_t best = roots;
    for (size_t r = 0; r < roots; ++r) {
      if (leaves[r] <= 1) continue;
      if (best == roots || priority(r) < priority(best)) best = r;
    }
    --leaves[best];
    --assigned;
  }
  return leaves;
}

Result<TrainedHierarchy> TrainHierarchy(std::span<const float> sample, size_t n, size_t d, uint32_t roots, uint32_t nlist,
                                 uint32_t iterations, uint64_t seed, uint32_t threads,
                                 const KMeansProgress& progress) {
  if (roots == 0 || roots > nlist || nlist > n) {
    return InvalidArgument("hierarchy: need 1 <= roots <= nlist <= sample size, got roots " + std::to_string(roots) +
                           ", nlist " + std::to_string(nlist) + ", sample " + std::to_string(n));
  }
  if (n > kMaxCount) return InvalidArgument("hierarchy: sample must have fewer than 2^31 points");
  KMeansOptions options;
  options.iterations = iterations;
  options.threads = threads;
  options.seed = DeriveSeed(seed, 0);
  // Each k-means reports its own iterations; `base` places them in the whole run.
  const uint64_t total = (uint64_t{roots} + 1) * iterations + 1;
  uint64_t base = 0;
  if (progress) {
    progress(0, total);
    options.progress = [&](uint64_t done, uint64_t) {
      if (done > 0) progress(base + done, total);
    };
  }
  VIGILO_ASSIGN_OR_RETURN(KMeansResult top, KMeans(sample, n, d, roots, options));
  base += iterations;
  const AssignOptions assign_options{threads, options.block_rows, options.block_centroids};
  VIGILO_ASSIGN_OR_RETURN(Assignment assignment, AssignNearest(sample, n, d, top.centroids, roots, assign_options));
  if (progress) progress(++base, total);

  std::vector<uint64_t> populations(roots);
  for (uint32_t label : assignment.labels) ++populations[label];
  VIGILO_ASSIGN_OR_RETURN(std::vector<uint32_t> leaves, ApportionLeaves(populations, nlist));

  TrainedHierarchy h;
  h.root_centroids = std::move(top.centroids);
  h.leaf_centroids.reserve(static_cast<size_t>(nlist) * d);
  h.cid_offsets.reserve(roots + 1);
  h.cid_offsets.push_back(0);
  std::vector<float> points;
  for (uint32_t r = 0; r < roots; ++r) {
    const auto root_centroid = std::span<const float>(h.root_centroids).subspan(static_cast<size_t>(r) * d, d);
    if (populations[r] == 0) {
      // A root no sample point chose keeps a single leaf at its own centroid.
      h.leaf_centroids.insert(h.leaf_centroids.end(), root_centroid.begin(), root_centroid.end());
      base += iterations;
      if (progress && iterations > 0) progress(base, total);
    } else {
      points.clear();
      for (size_t i = 0; i < n; ++i) {
        if (assignment.labels[i] == r) points.insert(points.end(), sample.begin() + i * d, sample.begin() + (i + 1) * d);
      }
      options.seed = DeriveSeed(seed, uint64_t{r} + 1);
      auto leaf = KMeans(points, populations[r], d, leaves[r], options);
      if (!leaf.ok()) {
        return Status(leaf.status().code(), "root " + std::to_string(r) + ": " + std::string(leaf.status().message()));
      }
      h.leaf_centroids.insert(h.leaf_centroids.end(), leaf->centroids.begin(), leaf->centroids.end());
      base += iterations;
    }
    h.cid_offsets.push_back(h.cid_offsets.back() + leaves[r]);
  }
  return h;
}

Result<TrainedHierarchy> TrainPartition(std::span<const float> sample, size_t n, size_t d, uint32_t roots,
                                        uint32_t nlist, uint32_t iterations, uint64_t seed, uint32_t threads,
                                        bool spherical, const KMeansProgress& progress) {
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
  if (progress) {
    options.progress = [&](uint64_t done, uint64_t) { progress(done, total); };
  }
  VIGILO_ASSIGN_OR_RETURN(KMeansResult leaves, KMeans(sample, n, d, nlist, options));

  // Buckets: the leaf centroids' own k-means (plain, cheap: nlist points).
  KMeansOptions grouping;
  grouping.iterations = iterations;
  grouping.threads = threads;
  grouping.seed = DeriveSeed(seed, 0);
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
