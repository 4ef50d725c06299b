#include "kth_smallest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

namespace vigilo::ivf {
namespace {

// What std::nth_element puts at k − 1 (the reference).
float Reference(std::vector<float> x, size_t k) {
  std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(k - 1), x.end());
  return x[k - 1];
}

// Every k of x against the reference; −0.0 and +0.0 compare equal, so == is the check.
void ExpectEveryRank(const std::vector<float>& x, KthScratch& scratch) {
  for (size_t k = 1; k <= x.size(); ++k) {
    const float got = KthSmallest(x.data(), x.size(), k, scratch);
    ASSERT_EQ(got, Reference(x, k)) << "k = " << k << " of " << x.size();
  }
}

TEST(KthSmallest, MatchesNthElementOnRandomValues) {
  std::mt19937 rng(7);
  KthScratch scratch;
  for (size_t n : {1u, 2u, 3u, 17u, 100u, 1000u, 2048u}) {
    std::normal_distribution<float> normal(0.5f, 0.2f);
    std::vector<float> x(n);
    for (float& v : x) v = normal(rng);
    ExpectEveryRank(x, scratch);
  }
}

TEST(KthSmallest, TiesAllEqualAndSignedZeros) {
  KthScratch scratch;
  ExpectEveryRank(std::vector<float>(50, 3.25f), scratch);                          // every value equal
  ExpectEveryRank({0.0f, -0.0f, 0.0f, -0.0f, 1.0f, -1.0f}, scratch);               // ±0 tie
  std::vector<float> ties;
  for (int i = 0; i < 300; ++i) ties.push_back(static_cast<float>(i % 7));          // 7 values, many ties
  ExpectEveryRank(ties, scratch);
}

TEST(KthSmallest, ExtremeRangesAndClusters) {
  KthScratch scratch;
  // The whole float range: differences that overflow float are fine in double.
  ExpectEveryRank({FLT_MAX, -FLT_MAX, 0.0f, 1e-30f, -1e30f, FLT_MIN, 1.0f}, scratch);
  // Denormals only (the range is tiny, the scale huge).
  ExpectEveryRank({1e-45f, 3e-45f, 2e-45f, 0.0f, 1e-44f}, scratch);
  // One outlier: every other value lands in the first bucket, which holds rank k.
  std::vector<float> clustered(1000);
  for (size_t i = 0; i < clustered.size(); ++i) clustered[i] = 1.0f + static_cast<float>(i) * 1e-7f;
  clustered.push_back(1e30f);
  ExpectEveryRank(clustered, scratch);
  // Values one ulp apart across a bucket edge.
  std::vector<float> ulps;
  float v = 0.75f;
  for (int i = 0; i < 64; ++i, v = std::nextafter(v, 2.0f)) ulps.push_back(v);
  ulps.push_back(0.0f);
  ulps.push_back(2.0f);
  ExpectEveryRank(ulps, scratch);
}

}  // namespace
}  // namespace vigilo::ivf
