// Private to the kmeans*.cc files.
#pragma once

#include <cstddef>

namespace vigilo::ivf::kmeans_internal {

// The normative distance of assignment: Σ ((double)x_i − (double)c_i)² in
// element order.
inline double ExactL2(const float* x, const float* c, size_t d) {
  double sum = 0;
  for (size_t i = 0; i < d; ++i) {
    const double diff = static_cast<double>(x[i]) - static_cast<double>(c[i]);
    sum += diff * diff;
  }
  return sum;
}

}  // namespace vigilo::ivf::kmeans_internal
