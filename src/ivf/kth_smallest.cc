#include "kth_smallest.h"

#include <algorithm>

namespace vigilo::ivf {

float KthSmallest(const float* x, size_t n, size_t k, KthScratch& scratch) {
  if (const size_t blocks = n / kKthBlock; k <= kFewest && blocks >= 2 * k) {
    std::vector<float>& minima = scratch.minima;
    minima.resize(blocks);
    for (size_t b = 0; b < blocks; ++b) {
      const float* block = x + b * kKthBlock;
      float low = block[0];
      for (size_t j = 1; j < kKthBlock; ++j) low = block[j] < low ? block[j] : low;
      minima[b] = low;
    }
    SmallestFew bounding(k);
    for (float low : minima) bounding.Offer(low);
    // At least k values are at most the bound, so the k smallest all are:
    // only they are offered (a few times k of n, the test rarely true).
    const float bound = bounding.Kth();
    SmallestFew few(k);
    for (size_t i = 0; i < n; ++i) {
      if (x[i] <= bound) few.Offer(x[i]);
    }
    return few.Kth();
  }
  constexpr size_t kBuckets = 1024;
  float lo = x[0], hi = x[0];
  for (size_t i = 1; i < n; ++i) {  // (branch-free min and max: vectorizes)
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  if (!(lo < hi)) return lo;  // every value equal
  // Just below kBuckets / range, so the largest value lands in the last bucket
  // or, rounded up, past it (clamped); doubles keep x − lo finite.
  const double scale = static_cast<double>(kBuckets) * (1.0 - 0x1p-20) / (double{hi} - double{lo});
  const double low = lo;
  std::vector<uint16_t>& bucket = scratch.bucket;
  bucket.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const double at = (double{x[i]} - low) * scale;
    const double clamped = at < kBuckets - 1 ? at : kBuckets - 1;
    bucket[i] = static_cast<uint16_t>(clamped);  // at ≥ 0: truncation is the floor
  }
  uint32_t count[kBuckets] = {};
  for (size_t i = 0; i < n; ++i) ++count[bucket[i]];
  size_t b = 0, below = 0;  // the bucket holding rank k, and how many values lie in lower buckets
  while (below + count[b] < k) below += count[b++];
  // Bucket b's values, gathered without a branch: every value is stored at
  // tied[m] and only bucket b's advance m (m ≤ count[b], hence the one spare slot).
  std::vector<float>& tied = scratch.tied;
  tied.resize(count[b] + 1);
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) {
    tied[m] = x[i];
    m += bucket[i] == b;
  }
  const auto end = tied.begin() + static_cast<std::ptrdiff_t>(m);
  std::nth_element(tied.begin(), tied.begin() + static_cast<std::ptrdiff_t>(k - 1 - below), end);
  return tied[k - 1 - below];
}

}  // namespace vigilo::ivf
