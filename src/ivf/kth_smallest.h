// The k-th smallest of n floats, without a heap or a partition's branches
// (private to the read core; centroid ranking uses it for the screen's
// threshold U, the nprobe-th smallest upper bound). A heap of the nprobe
// smallest took 13 µs a query at nlist 2048, nprobe 64 on wink, most of it
// mispredicted branches; this takes a few passes that vectorize or do not
// branch on the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vigilo::ivf {

// Reused buffers: one per reader, so a query allocates nothing.
struct KthScratch {
  std::vector<uint16_t> bucket;  // per value
  std::vector<float> tied;       // the values of the bucket holding the k-th
  std::vector<float> minima;     // per block of kKthBlock values
};

// Values per block when k is small against n (KthSmallest).
inline constexpr size_t kKthBlock = 8;

// The k-th smallest (k from 1) of x[0, n), every value finite, 1 ≤ k ≤ n: the
// value std::nth_element would put at position k − 1 (−0.0 and +0.0 compare
// equal, so either may be returned where both tie).
//
// Values are bucketed by (x − min) scaled to 1,024 buckets, a monotone map
// (subtraction and scaling by a positive constant round monotonically), so
// every value of a lower bucket is at most every value of a higher one; a
// histogram finds the bucket holding rank k, and only its values are
// selected among. Computed in double, so no difference overflows.
//
// When k is few (k ≤ kFewest) and small against n (n / kKthBlock ≥ 2k, as
// nprobe 8 against nlist 980), first a bound: the k-th smallest of the minima
// of the n / kKthBlock whole blocks is at least the k-th smallest of all (k
// distinct values lie at or below it), so only the values at or below it
// (usually a few times k) are selected among, both selections by
// SmallestFew. (For larger k, nprobe 96 of 2048 on wink, the bound and a
// selection among what it gathers measured slower than the histogram:
// 7.2 against 5.7 µs a query.)
float KthSmallest(const float* x, size_t n, size_t k, KthScratch& scratch);

// The few-k case by itself, k ≤ kFewest: one pass keeping the k smallest
// sorted, most values losing to the k-th at once. Values may be ±∞ (not NaN).
inline constexpr size_t kFewest = 32;
class SmallestFew {
 public:
  explicit SmallestFew(size_t k) : k_(k) {}
  void Offer(float v) {
    if (have_ == k_ && !(v < best_[k_ - 1])) return;
    size_t at = have_ < k_ ? have_++ : k_ - 1;
    for (; at > 0 && v < best_[at - 1]; --at) best_[at] = best_[at - 1];
    best_[at] = v;
  }
  // The k-th smallest offered (at least k were).
  float Kth() const { return best_[k_ - 1]; }

 private:
  size_t k_;
  size_t have_ = 0;
  float best_[kFewest] = {};  // (only the first have_ are read)
};

}  // namespace vigilo::ivf
