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
};

// The k-th smallest (k from 1) of x[0, n), every value finite, 1 ≤ k ≤ n: the
// value std::nth_element would put at position k − 1 (−0.0 and +0.0 compare
// equal, so either may be returned where both tie).
//
// Values are bucketed by (x − min) scaled to 1,024 buckets, a monotone map
// (subtraction and scaling by a positive constant round monotonically), so
// every value of a lower bucket is at most every value of a higher one; a
// histogram finds the bucket holding rank k, and only its values are
// selected among. Computed in double, so no difference overflows.
float KthSmallest(const float* x, size_t n, size_t k, KthScratch& scratch);

}  // namespace vigilo::ivf
