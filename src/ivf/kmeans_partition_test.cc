#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_random.h"

namespace vigilo::ivf {
namespace {

std::vector<float> ClusteredSample(size_t n, size_t d, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> centers(12 * d);
  for (float& c : centers) c = 6 * normal(gen);
  std::vector<float> sample;
  sample.reserve(n * d);
  for (size_t i = 0; i < n; ++i) {
    const size_t c = gen() % 12;
    for (size_t t = 0; t < d; ++t) sample.push_back(centers[c * d + t] + normal(gen));
  }
  return sample;
}

}  // namespace
}  // namespace vigilo::ivf

namespace vigilo::ivf {
namespace {

std::vector<float> Blobs(size_t n, size_t d) {
  std::mt19937 gen(7);
  std::normal_distribution<float> noise(0, 1);
  std::vector<float> data(n * d);
  for (size_t i = 0; i < n; ++i) {
    for (size_t t = 0; t < d; ++t) data[i * d + t] = static_cast<float>((i % 4) * 10) + noise(gen);
  }
  return data;
}

using Steps = std::vector<std::pair<uint64_t, uint64_t>>;

TEST(KMeansProgressTest, OneStepPerIteration) {
  std::vector<float> data = Blobs(200, 3);
  KMeansOptions o;
  o.iterations = 4;
  Steps steps;
  o.progress = [&](uint64_t done, uint64_t total) { steps.emplace_back(done, total); };
  auto with = KMeans(data, 200, 3, 5, o);
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  EXPECT_EQ(steps, (Steps{{0, 4}, {1, 4}, {2, 4}, {3, 4}, {4, 4}}));
  o.progress = nullptr;
  auto without = KMeans(data, 200, 3, 5, o);
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(with->centroids, without->centroids);  // watching changes nothing
}

// The cancel token (issue 34): k-means stops at its next seeding step,
// iteration or assignment block, and an unset token changes nothing.
TEST(KMeansCancelTest, StopsAtTheNextIterationSeedingStepOrBlock) {
  std::vector<float> data = Blobs(200, 3);
  store::CancelToken cancel;
  KMeansOptions o;
  o.iterations = 40;
  o.cancel = &cancel;
  Steps steps;
  o.progress = [&](uint64_t done, uint64_t total) {
    steps.emplace_back(done, total);
    if (done == 2) cancel.Cancel();
  };
  auto stopped = KMeans(data, 200, 3, 5, o);
  EXPECT_EQ(stopped.status().code(), StatusCode::kCancelled) << stopped.status().ToString();
  EXPECT_EQ(steps, (Steps{{0, 40}, {1, 40}, {2, 40}}));  // no iteration after the one that saw it
  // Cancelled before it starts: k-means++ seeding stops at its first step (no iteration is reported).
  steps.clear();
  EXPECT_EQ(KMeans(data, 200, 3, 5, o).status().code(), StatusCode::kCancelled);
  EXPECT_TRUE(steps.empty());
  // An assignment stops before its next block.
  AssignOptions assign;
  assign.block_rows = 16;
  assign.cancel = &cancel;
  EXPECT_EQ(AssignNearest(data, 200, 3, std::vector<float>(data.begin(), data.begin() + 15), 5, assign).status().code(),
            StatusCode::kCancelled);
  // The partition passes the token to both of its k-means runs.
  EXPECT_EQ(TrainPartition(data, 200, 3, 2, 8, 5, 1, 1, false, {}, &cancel).status().code(), StatusCode::kCancelled);
  // A token never set: the same bytes as without one.
  store::CancelToken idle;
  KMeansOptions watched;
  watched.iterations = 4;
  watched.cancel = &idle;
  auto with = KMeans(data, 200, 3, 5, watched);
  watched.cancel = nullptr;
  auto without = KMeans(data, 200, 3, 5, watched);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(with->centroids, without->centroids);
}

}  // namespace
}  // namespace vigilo::ivf

namespace vigilo::ivf {
namespace {

bool SameBytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<float> UnitRows(std::vector<float> rows, size_t d) {
  for (size_t i = 0; i < rows.size(); i += d) {
    double norm = 0;
    for (size_t t = 0; t < d; ++t) norm += static_cast<double>(rows[i + t]) * rows[i + t];
    for (size_t t = 0; t < d; ++t) rows[i + t] = static_cast<float>(rows[i + t] / std::sqrt(norm));
  }
  return rows;
}

double RowNorm(const std::vector<float>& rows, size_t row, size_t d) {
  double norm = 0;
  for (size_t t = 0; t < d; ++t) norm += static_cast<double>(rows[row * d + t]) * rows[row * d + t];
  return std::sqrt(norm);
}

double Distance(const std::vector<float>& a, size_t i, const std::vector<float>& b, size_t j, size_t d) {
  double sum = 0;
  for (size_t t = 0; t < d; ++t) {
    const double diff = static_cast<double>(a[i * d + t]) - static_cast<double>(b[j * d + t]);
    sum += diff * diff;
  }
  return sum;
}

TEST(PartitionTest, FlatLeavesInBalancedRoots) {
  const size_t n = 4000, d = 8;
  const uint32_t roots = 6, nlist = 50, iterations = 10;
  const auto sample = ClusteredSample(n, d, 31);
  auto h = TrainPartition(sample, n, d, roots, nlist, iterations, 77, 1, false);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  // 50 = 6·8 + 2: roots 0 and 1 hold 9 leaves, the others 8.
  EXPECT_EQ(h->cid_offsets, (std::vector<uint32_t>{0, 9, 18, 26, 34, 42, 50}));
  ASSERT_EQ(h->leaf_centroids.size(), size_t{nlist} * d);
  ASSERT_EQ(h->root_centroids.size(), size_t{roots} * d);

  // The leaves are exactly the flat k-means' centroids, each once, in their
  // k-means order inside each root.
  KMeansOptions flat;
  flat.iterations = iterations;
  flat.seed = DeriveSeed(77, 1);
  flat.seeding_points = 8;
  auto leaves = KMeans(sample, n, d, nlist, flat);
  ASSERT_TRUE(leaves.ok());
  std::vector<size_t> source(nlist, nlist);  // the k-means row of each CID
  std::vector<bool> used(nlist);
  for (size_t cid = 0; cid < nlist; ++cid) {
    for (size_t c = 0; c < nlist; ++c) {
      if (!used[c] && std::memcmp(&h->leaf_centroids[cid * d], &leaves->centroids[c * d], d * sizeof(float)) == 0) {
        source[cid] = c, used[c] = true;
        break;
      }
    }
    ASSERT_LT(source[cid], nlist) << "CID " << cid << " is no k-means leaf";
  }
  std::vector<uint32_t> root_of(nlist);
  for (uint32_t r = 0; r < roots; ++r) {
    for (uint32_t cid = h->cid_offsets[r]; cid < h->cid_offsets[r + 1]; ++cid) {
      root_of[cid] = r;
      if (cid > h->cid_offsets[r]) {
        EXPECT_LT(source[cid - 1], source[cid]) << "root " << r;
      }
    }
  }

  // Greedy placement: a root nearer to a leaf than its own was full before
  // that leaf was placed, so each of its leaves is at least as near to its
  // nearest root centroid.
  auto nearest = [&](size_t cid) {
    double best = std::numeric_limits<double>::infinity();
    for (size_t r = 0; r < roots; ++r) best = std::min(best, Distance(h->leaf_centroids, cid, h->root_centroids, r, d));
    return best;
  };
  size_t displaced = 0;
  for (size_t cid = 0; cid < nlist; ++cid) {
    const double own = Distance(h->leaf_centroids, cid, h->root_centroids, root_of[cid], d);
    for (uint32_t s = 0; s < roots; ++s) {
      if (Distance(h->leaf_centroids, cid, h->root_centroids, s, d) >= own) continue;
      ++displaced;
      for (uint32_t other = h->cid_offsets[s]; other < h->cid_offsets[s + 1]; ++other) {
        EXPECT_LE(nearest(other), nearest(cid)) << "CID " << cid << " root " << s;
      }
    }
  }
  EXPECT_GT(displaced, 0u);  // the balance really moved leaves here
}

TEST(PartitionTest, SameBytesForAnyThreadCount) {
  const size_t n = 3000, d = 5;
  const auto sample = ClusteredSample(n, d, 8);
  auto one = TrainPartition(sample, n, d, 4, 40, 6, 3, 1, false);
  auto two = TrainPartition(sample, n, d, 4, 40, 6, 3, 2, false);
  auto three = TrainPartition(sample, n, d, 4, 40, 6, 3, 3, false);
  ASSERT_TRUE(one.ok() && two.ok() && three.ok());
  EXPECT_EQ(two->cid_offsets, one->cid_offsets);
  EXPECT_EQ(three->cid_offsets, one->cid_offsets);
  EXPECT_TRUE(SameBytes(two->leaf_centroids, one->leaf_centroids));
  EXPECT_TRUE(SameBytes(three->leaf_centroids, one->leaf_centroids));
  EXPECT_TRUE(SameBytes(two->root_centroids, one->root_centroids));
  auto other_seed = TrainPartition(sample, n, d, 4, 40, 6, 4, 1, false);
  ASSERT_TRUE(other_seed.ok());
  EXPECT_FALSE(SameBytes(other_seed->leaf_centroids, one->leaf_centroids));
}

TEST(PartitionTest, SphericalLeavesHaveUnitNorm) {
  const size_t n = 2000, d = 6;
  const auto sample = UnitRows(ClusteredSample(n, d, 12), d);
  auto spherical = TrainPartition(sample, n, d, 3, 20, 5, 9, 2, true);
  auto plain = TrainPartition(sample, n, d, 3, 20, 5, 9, 2, false);
  ASSERT_TRUE(spherical.ok() && plain.ok());
  double plain_lowest = 1;
  for (size_t c = 0; c < 20; ++c) {
    EXPECT_NEAR(RowNorm(spherical->leaf_centroids, c, d), 1.0, 1e-6) << "leaf " << c;
    plain_lowest = std::min(plain_lowest, RowNorm(plain->leaf_centroids, c, d));
  }
  EXPECT_LT(plain_lowest, 0.999);  // means of unit vectors fall inside the sphere
}

TEST(PartitionTest, EveryRootGetsALeafWhenLeavesCoincide) {
  // Two distinct points, four leaves: re-seeding leaves duplicate centroids,
  // whose grouping leaves roots without leaves until the fix gives them one.
  const size_t d = 2;
  std::vector<float> sample;
  for (int i = 0; i < 8; ++i) sample.insert(sample.end(), {i % 2 == 0 ? 0.0f : 10.0f, 1.0f});
  auto h = TrainPartition(sample, 8, d, 4, 4, 3, 5, 1, false);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->cid_offsets, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  std::vector<float> sorted_leaves;
  for (size_t c = 0; c < 4; ++c) sorted_leaves.push_back(h->leaf_centroids[c * d]);
  std::sort(sorted_leaves.begin(), sorted_leaves.end());
  EXPECT_EQ(sorted_leaves.front(), 0.0f);
  EXPECT_EQ(sorted_leaves.back(), 10.0f);
}

TEST(PartitionTest, ProgressCountsLeafIterationsThenTheGrouping) {
  std::vector<float> data = Blobs(400, 4);
  Steps steps;
  auto h = TrainPartition(data, 400, 4, 3, 9, 5, 11, 2, false,
                          [&](uint64_t done, uint64_t total) { steps.emplace_back(done, total); });
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(steps, (Steps{{0, 6}, {1, 6}, {2, 6}, {3, 6}, {4, 6}, {5, 6}, {6, 6}}));
  auto quiet = TrainPartition(data, 400, 4, 3, 9, 5, 11, 2, false);
  ASSERT_TRUE(quiet.ok());
  EXPECT_TRUE(SameBytes(h->leaf_centroids, quiet->leaf_centroids));
}

TEST(PartitionTest, RejectsBadShapes) {
  const auto sample = ClusteredSample(10, 2, 1);
  EXPECT_EQ(TrainPartition(sample, 10, 2, 2, 11, 5, 1, 1, false).status().message(),
            "partition: need 1 <= roots <= nlist <= sample size, got roots 2, nlist 11, sample 10");
  EXPECT_EQ(TrainPartition(sample, 10, 2, 5, 4, 5, 1, 1, false).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TrainPartition(sample, 10, 2, 0, 4, 5, 1, 1, false).status().code(), StatusCode::kInvalidArgument);
}

TEST(KMeansOptionsTest, SeedingPointsMustBePositive) {
  const auto sample = ClusteredSample(50, 2, 1);
  KMeansOptions o;
  o.seeding_points = 0;
  EXPECT_EQ(KMeans(sample, 50, 2, 4, o).status().message(), "k-means: seeding_points must be at least 1");
}

}  // namespace
}  // namespace vigilo::ivf
