// k-means wall time: ivf_kmeans [n d k iterations threads...]
// (defaults: 100000 100 316 10, threads 1 and 2). Data: uniform [0,1) from
// xoshiro256** seed 1, clustered around 1000 random centers. Prints one line
// per thread count, then whether all runs produced identical centroid bytes.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_random.h"

int main(int argc, char** argv) {
  using namespace vigilo::ivf;
  auto arg = [&](int i, unsigned long fallback) { return argc > i ? std::strtoul(argv[i], nullptr, 10) : fallback; };
  const size_t n = arg(1, 100000), d = arg(2, 100), k = arg(3, 316);
  const auto iterations = static_cast<uint32_t>(arg(4, 10));
  std::vector<uint32_t> thread_counts;
  for (int i = 5; i < argc; ++i) thread_counts.push_back(static_cast<uint32_t>(std::strtoul(argv[i], nullptr, 10)));
  if (thread_counts.empty()) thread_counts = {1, 2};

  Xoshiro256 rng(1);
  const size_t centers = 1000;
  std::vector<float> center(centers * d);
  for (float& c : center) c = static_cast<float>(rng.NextDouble());
  std::vector<float> data(n * d);
  for (size_t i = 0; i < n; ++i) {
    const size_t c = rng.Below(centers);
    for (size_t t = 0; t < d; ++t) {
      data[i * d + t] = center[c * d + t] + 0.1f * static_cast<float>(rng.NextDouble() - 0.5);
    }
  }

  std::vector<float> first;
  bool identical = true;
  for (uint32_t threads : thread_counts) {
    KMeansOptions options;
    options.iterations = iterations;
    options.seed = 42;
    options.threads = threads;
    const auto start = std::chrono::steady_clock::now();
    auto result = KMeans(data, n, d, k, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result.ok()) {
      std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
      return 1;
    }
    std::printf("n=%zu d=%zu k=%zu iterations=%u threads=%u: %.3f s (inertia %.6g)\n", n, d, k, iterations, threads,
                seconds, result->inertia);
    if (first.empty()) {
      first = result->centroids;
    } else {
      identical = identical && std::memcmp(first.data(), result->centroids.data(), first.size() * 4) == 0;
    }
  }
  std::printf("centroids identical across thread counts: %s\n", identical ? "yes" : "no");
  return 0;
}
