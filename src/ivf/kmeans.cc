// Lloyd's k-means with k-means++ seeding. Every reduction runs in a fixed
// order on one thread or per fixed block, so the centroids' bytes depend only
// on (data, k, iterations, seed).
#include <algorithm>
#include <cmath>
#include <string>

#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_parallel.h"
#include "vigilo/ivf/kmeans_random.h"

namespace vigilo::ivf {
namespace {

// Rows per k-means++ update block (fixed: results never depend on it anyway,
// each row's value is computed independently).
constexpr size_t kSeedBlockRows = 4096;

// Squared L2 in float with 8 interleaved partial sums combined pairwise: fast
// (vectorizable) yet a fixed, portable order. Used only for D² seeding weights.
float SeedingL2(const float* a, const float* b, size_t d) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= d; i += 8) {
    for (size_t j = 0; j < 8; ++j) {
      const float t = a[i + j] - b[i + j];
      acc[j] += t * t;
    }
  }
  for (size_t j = 0; i + j < d; ++j) {
    const float t = a[i + j] - b[i + j];
    acc[j] += t * t;
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// k-means++ on `data` (the subsample): the first seed uniform, each next one drawn with probability
// proportional to its squared distance to the nearest seed so far (the
// cumulative sum runs in row order in double). If every point already
// coincides with a seed, the next one is uniform.
// Returns `cancelled` when `cancel` is seen at a step.
Result<std::vector<float>> SeedPlusPlus(const float* data, size_t n, size_t d, size_t k, uint32_t threads,
                                        Xoshiro256& rng, const store::CancelToken* cancel) {
  std::vector<float> centroids(k * d);
  std::vector<double> nearest(n);
  size_t pick = rng.Below(n);
  const size_t blocks = (n + kSeedBlockRows - 1) / kSeedBlockRows;
  for (size_t c = 0; c < k; ++c) {
    if (cancel != nullptr && cancel->cancelled()) return Cancelled("k-means was cancelled");
    std::copy_n(data + pick * d, d, centroids.begin() + static_cast<std::ptrdiff_t>(c * d));
    if (c + 1 == k) break;
    const float* seed = data + pick * d;
    ParallelForBlocks(threads, blocks, [&] {
      return [&, c](size_t b) {
        const size_t end = std::min(n, (b + 1) * kSeedBlockRows);
        for (size_t i = b * kSeedBlockRows; i < end; ++i) {
          const double dist = SeedingL2(data + i * d, seed, d);
          nearest[i] = c == 0 ? dist : std::min(nearest[i], dist);
        }
      };
    });
    double total = 0;
    for (double w : nearest) total += w;
    if (!(total > 0)) {
      pick = rng.Below(n);
      continue;
    }
    const double target = rng.NextDouble() * total;
    double cumulative = 0;
    pick = n;
    size_t last_positive = 0;
    for (size_t i = 0; i < n; ++i) {
      if (nearest[i] <= 0) continue;
      last_positive = i;
      cumulative += nearest[i];
      if (cumulative > target) {
        pick = i;
        break;
      }
    }
    if (pick == n) pick = last_positive;  // target rounded up to the total
  }
  return centroids;
}

}  // namespace

Result<KMeansResult> KMeans(std::span<const float> data, size_t n, size_t d, size_t k, const KMeansOptions& options) {
  if (d == 0) return InvalidArgument("k-means: dimension must be at least 1");
  if (k == 0 || k > n) {
    return InvalidArgument("k-means: k = " + std::to_string(k) + " must be between 1 and the " + std::to_string(n) +
                           " training points");
  }
  if (options.threads == 0) return InvalidArgument("k-means: threads must be at least 1");
  if (n > data.size() / d || data.size() != n * d) {
    return InvalidArgument("k-means: " + std::to_string(data.size()) + " values are not " + std::to_string(n) +
                           " rows of " + std::to_string(d));
  }
  for (size_t i = 0; i < data.size(); ++i) {
    if (!std::isfinite(data[i])) {
      return InvalidArgument("k-means: row " + std::to_string(i / d) + " element " + std::to_string(i % d) +
                             " is not finite");
    }
  }

  if (options.seeding_points == 0) return InvalidArgument("k-means: seeding_points must be at least 1");

  Xoshiro256 rng(options.seed);
  KMeansResult result;
  const size_t per = options.seeding_points;
  const size_t seed_points = k > n / per ? n : k * per;
  if (seed_points == n) {
    VIGILO_ASSIGN_OR_RETURN(result.centroids, SeedPlusPlus(data.data(), n, d, k, options.threads, rng, options.cancel));
  } else {
    // A uniform subsample: the first seed_points positions of a partial
    // Fisher–Yates shuffle of the row indices, in that order.
    std::vector<size_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = i;
    std::vector<float> subsample(seed_points * d);
    for (size_t i = 0; i < seed_points; ++i) {
      std::swap(rows[i], rows[i + rng.Below(n - i)]);
      std::copy_n(data.data() + rows[i] * d, d, subsample.begin() + static_cast<std::ptrdiff_t>(i * d));
    }
    VIGILO_ASSIGN_OR_RETURN(result.centroids,
                            SeedPlusPlus(subsample.data(), seed_points, d, k, options.threads, rng, options.cancel));
  }
  const AssignOptions assign_options{options.threads, options.block_rows, options.block_centroids, options.cancel};
  std::vector<double> sums(k * d);
  std::vector<uint64_t> counts(k);
  if (options.progress) options.progress(0, options.iterations);
  for (uint32_t iteration = 0; iteration < options.iterations; ++iteration) {
    if (options.cancel != nullptr && options.cancel->cancelled()) return Cancelled("k-means was cancelled");
    VIGILO_ASSIGN_OR_RETURN(Assignment a, AssignNearest(data, n, d, result.centroids, k, assign_options));
    result.inertia = 0;
    for (double dist : a.distances) result.inertia += dist;

    // Update: per-cluster sums in double, in row order.
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(counts.begin(), counts.end(), uint64_t{0});
    for (size_t i = 0; i < n; ++i) {
      const uint32_t label = a.labels[i];
      ++counts[label];
      double* sum = sums.data() + static_cast<size_t>(label) * d;
      const float* x = data.data() + i * d;
      for (size_t t = 0; t < d; ++t) sum[t] += static_cast<double>(x[t]);
    }
    for (size_t j = 0; j < k; ++j) {
      if (counts[j] == 0) continue;
      // Spherical: the sum scaled to unit norm instead (a zero sum keeps the mean).
      auto divisor = static_cast<double>(counts[j]);
      if (options.spherical) {
        double norm = 0;
        for (size_t t = 0; t < d; ++t) norm += sums[j * d + t] * sums[j * d + t];
        if (norm > 0) divisor = std::sqrt(norm);
      }
      for (size_t t = 0; t < d; ++t) result.centroids[j * d + t] = static_cast<float>(sums[j * d + t] / divisor);
    }

    // Empty clusters, in index order: take the point of the currently largest
    // cluster (ties: lowest index) that lies farthest from that cluster's
    // centroid (ties: lowest row). Since k ≤ n, a cluster with ≥ 2 points
    // exists whenever one is empty.
    for (size_t j = 0; j < k; ++j) {
      if (counts[j] != 0) continue;
      const auto largest = static_cast<uint32_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
      size_t far = n;
      for (size_t i = 0; i < n; ++i) {
        if (a.labels[i] == largest && (far == n || a.distances[i] > a.distances[far])) far = i;
      }
      std::copy_n(data.data() + far * d, d, result.centroids.begin() + static_cast<std::ptrdiff_t>(j * d));
      a.labels[far] = static_cast<uint32_t>(j);
      a.distances[far] = 0;
      --counts[largest];
      counts[j] = 1;
      ++result.reseeded;
    }
    if (options.progress) options.progress(iteration + 1, options.iterations);
  }
  return result;
}

}  // namespace vigilo::ivf
