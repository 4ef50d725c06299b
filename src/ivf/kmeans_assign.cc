// Exact nearest-centroid assignment: sgemm screens, double precision decides.
//
// For row x and centroid c the screened distance is
//   D̃ = ‖x‖² + ‖c‖² - 2·G,  G = sgemm's float x·c,  norms summed in double.
// Any float evaluation order of a d-term dot product (with or without FMA)
// satisfies |G - x·c| ≤ γ_d ‖x‖‖c‖ with γ_d = d·u / (1 - d·u), u = 2^-24, so
// E = 2γ_d‖x‖‖c‖ plus small double-rounding and underflow terms bounds
// |D̃ - D|. A float screen (BlockWorker) bounds min_l (D̃_l + E_l) from above
// and discards, 8 centroids at a time, those whose D̃ - E must exceed it; the
// rest are rechecked in double and recomputed exactly, so the exact winner is
// always among them. The answer therefore does not depend on the BLAS kernel,
// the block sizes or the thread count.
#include <cblas.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <limits>
#include <string>

#include "kmeans_internal.h"
#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_parallel.h"

namespace vigilo::ivf {
namespace {

// OpenBLAS must not start its own threads: we parallelize over row blocks and
// call sgemm concurrently. A function-local static runs this once, race-free.
void DisableBlasThreading() {
  static const bool done = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)done;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

using kmeans_internal::ExactL2;

double SquaredNorm(const float* x, size_t d) {
  double sum = 0;
  for (size_t i = 0; i < d; ++i) sum += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  return sum;
}

Status CheckMatrix(std::span<const float> values, size_t rows, size_t d, const char* what) {
  if (d == 0) return InvalidArgument("k-means: dimension must be at least 1");
  if (rows > values.size() / d || values.size() != rows * d) {
    return InvalidArgument(std::string(what) + ": " + std::to_string(values.size()) + " values are not " +
                           std::to_string(rows) + " rows of " + std::to_string(d));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return InvalidArgument(std::string(what) + ": row " + std::to_string(i / d) + " element " +
                             std::to_string(i % d) + " is not finite");
    }
  }
  return Status::Ok();
}

struct Problem {
  const float* data;
  const float* centroids;
  size_t m, d, k;
  size_t block_rows, tile;
  std::vector<double> centroid_sq;  // ‖c_j‖²
  std::vector<float> half_sq;       // ‖c_j‖² / 2 in float: the float screen's term
  // The error bound is E = ‖x‖·slope_j + base_j + R·‖x‖² + U with
  // slope_j = 2γ_d·‖c_j‖ + U and base_j = R·‖c_j‖² + U·‖c_j‖ (see the header
  // comment; R covers double rounding, U float underflow).
  std::vector<double> slope, base;
  double max_slope = 0, max_base = 0;
  double max_centroid_sq = 0, max_centroid_norm = 0;
  double row_rounding = 0;   // R
  double row_underflow = 0;  // U
  bool exhaustive = false;   // d so large that the bound is void: check every centroid
  bool float_screen = true;  // false when ‖c‖²/2 comes near the float range
};

constexpr size_t kLanes = 8;

// min_j (half_sq[j] − dots[j]) in float over one tile, in kLanes independent
// lanes (vectorizable, no loop-carried dependency); `finite` turns false if
// a dot product is not finite (then dot·0 is NaN).
float MinScreened(const float* half_sq, const float* dots, size_t cols, bool& finite) {
  float low[kLanes], zero[kLanes];
  for (size_t t = 0; t < kLanes; ++t) low[t] = std::numeric_limits<float>::infinity(), zero[t] = 0;
  size_t j = 0;
  for (; j + kLanes <= cols; j += kLanes) {
    for (size_t t = 0; t < kLanes; ++t) {
      const float v = half_sq[j + t] - dots[j + t];
      low[t] = v < low[t] ? v : low[t];
      zero[t] += dots[j + t] * 0.0f;
    }
  }
  for (size_t t = 0; j + t < cols; ++t) {
    const float v = half_sq[j + t] - dots[j + t];
    low[t] = v < low[t] ? v : low[t];
    zero[t] += dots[j + t] * 0.0f;
  }
  float best = low[0], sum = zero[0];
  for (size_t t = 1; t < kLanes; ++t) best = std::min(best, low[t]), sum += zero[t];
  finite = finite && sum == 0;
  return best;
}

// One thread's scratch and the work on one block of rows.
//
// The float screen v_j = half_sq_j − G_j (float) differs from (D̃_j − ‖x‖²)/2
// by at most M/2, M = 2⁻²¹(‖c‖²max + ‖x‖² + 2‖x‖‖c‖max) + U (float rounding
// of half_sq and of the subtraction, with room to spare). So with
// v* = min_j v_j, upper = ‖x‖² + 2v* + M + max_j E_j bounds the exact minimum
// from above (it is ≥ D̃_l + E_l ≥ D_l for the l attaining v*), and a centroid
// with v_j > T = v* + M + max E has D̃_j − E_j > upper: it cannot win. Pass 1
// finds v*; pass 2 skips every v_j > T in float (8 at a time), rechecks the
// rest with the double D̃_j − E_j ≤ upper, then in exact double. Rows whose
// dot products are not finite, or a problem where the float screen could
// overflow, fall back to the double screen on every centroid.
class BlockWorker {
 public:
  BlockWorker(const Problem& p, Assignment& out)
      : p_(p), out_(out), dots_(std::min(p.block_rows, p.m) * std::min(p.tile, p.k)), row_sq_(p.block_rows),
        row_norm_(p.block_rows), low_(p.block_rows), exhaustive_(p.block_rows) {}

  void operator()(size_t block) {
    const size_t r0 = block * p_.block_rows;
    const size_t rows = std::min(p_.block_rows, p_.m - r0);
    for (size_t r = 0; r < rows; ++r) {
      row_sq_[r] = SquaredNorm(p_.data + (r0 + r) * p_.d, p_.d);
      row_norm_[r] = std::sqrt(row_sq_[r]);
      low_[r] = std::numeric_limits<float>::infinity();
      exhaustive_[r] = p_.exhaustive;
      out_.labels[r0 + r] = 0;
      out_.distances[r0 + r] = kInf;
    }
    const size_t tiles = (p_.k + p_.tile - 1) / p_.tile;
    if (tiles == 1) {
      // One tile: both passes per row while its dot products are in cache.
      Dots(r0, rows, 0, p_.k);
      for (size_t r = 0; r < rows; ++r) {
        Lowest(r, dots_.data() + r * p_.k, p_.k, 0);
        Candidates(r0, r, dots_.data() + r * p_.k, 0, p_.k);
      }
      return;
    }
    for (size_t t = 0; t < tiles; ++t) {
      const size_t j0 = t * p_.tile;
      const size_t cols = std::min(p_.tile, p_.k - j0);
      Dots(r0, rows, j0, cols);
      for (size_t r = 0; r < rows; ++r) Lowest(r, dots_.data() + r * cols, cols, j0);
    }
    // Pass 2 recomputes each tile's dot products (memory stays bounded).
    for (size_t t = 0; t < tiles; ++t) {
      const size_t j0 = t * p_.tile;
      const size_t cols = std::min(p_.tile, p_.k - j0);
      Dots(r0, rows, j0, cols);
      for (size_t r = 0; r < rows; ++r) Candidates(r0, r, dots_.data() + r * cols, j0, cols);
    }
  }

 private:
  void Dots(size_t r0, size_t rows, size_t j0, size_t cols) {
    const int d = static_cast<int>(p_.d);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(cols), d, 1.0f,
                p_.data + r0 * p_.d, d, p_.centroids + j0 * p_.d, d, 0.0f, dots_.data(), static_cast<int>(cols));
  }

  // Pass 1 on one tile: the row's lowest float screen so far.
  void Lowest(size_t r, const float* dots, size_t cols, size_t j0) {
    bool finite = true;
    low_[r] = std::min(low_[r], MinScreened(p_.half_sq.data() + j0, dots, cols, finite));
    if (!finite) exhaustive_[r] = true;  // a float overflow in sgemm voids the bound
  }

  // Pass 2 on one tile: every centroid that may be the nearest, rechecked in double.
  void Candidates(size_t r0, size_t r, const float* dots, size_t j0, size_t cols) {
    const double max_error = row_norm_[r] * p_.max_slope + p_.max_base + RowTerm(r);
    const double margin = 0x1.0p-21 * (p_.max_centroid_sq + row_sq_[r] + 2.0 * row_norm_[r] * p_.max_centroid_norm) +
                          p_.row_underflow;
    const double low = static_cast<double>(low_[r]);
    const double upper = row_sq_[r] + 2.0 * low + margin + max_error;
    const float* x = p_.data + (r0 + r) * p_.d;
    auto check = [&](size_t c, float dot) {
      if (Screened(r, c, dot) - Error(r, c) > upper) return;
      const double exact = ExactL2(x, p_.centroids + c * p_.d, p_.d);
      // Strict <: candidates arrive in increasing c, so ties keep the lowest.
      if (exact < out_.distances[r0 + r]) {
        out_.distances[r0 + r] = exact;
        out_.labels[r0 + r] = static_cast<uint32_t>(c);
      }
    };
    const double threshold = low + margin + max_error;
    const float limit = std::nextafter(static_cast<float>(threshold), std::numeric_limits<float>::infinity());
    if (exhaustive_[r] || !p_.float_screen || !std::isfinite(upper) || !(std::fabs(limit) <= FLT_MAX)) {
      for (size_t j = 0; j < cols; ++j) {
        if (exhaustive_[r]) {
          const double exact = ExactL2(x, p_.centroids + (j0 + j) * p_.d, p_.d);
          if (exact < out_.distances[r0 + r]) {
            out_.distances[r0 + r] = exact;
            out_.labels[r0 + r] = static_cast<uint32_t>(j0 + j);
          }
        } else {
          check(j0 + j, dots[j]);
        }
      }
      return;
    }
    const float* half_sq = p_.half_sq.data() + j0;
    size_t j = 0;
    for (; j + kLanes <= cols; j += kLanes) {
      int any = 0;
      for (size_t t = 0; t < kLanes; ++t) any |= static_cast<int>(half_sq[j + t] - dots[j + t] <= limit);
      if (any == 0) continue;
      for (size_t t = 0; t < kLanes; ++t) {
        if (half_sq[j + t] - dots[j + t] <= limit) check(j0 + j + t, dots[j + t]);
      }
    }
    for (; j < cols; ++j) {
      if (half_sq[j] - dots[j] <= limit) check(j0 + j, dots[j]);
    }
  }

  double RowTerm(size_t r) const { return p_.row_rounding * row_sq_[r] + p_.row_underflow; }
  double Screened(size_t r, size_t j, float dot) const {
    return row_sq_[r] + p_.centroid_sq[j] - 2.0 * static_cast<double>(dot);
  }
  double Error(size_t r, size_t j) const { return row_norm_[r] * p_.slope[j] + p_.base[j] + RowTerm(r); }

  const Problem& p_;
  Assignment& out_;
  std::vector<float> dots_;
  std::vector<double> row_sq_, row_norm_;
  std::vector<float> low_;
  std::vector<bool> exhaustive_;
};

}  // namespace

Result<Assignment> AssignNearest(std::span<const float> data, size_t m, size_t d, std::span<const float> centroids,
                                 size_t k, const AssignOptions& options) {
  if (k == 0) return InvalidArgument("assign: at least one centroid is required");
  if (k > UINT32_MAX) return InvalidArgument("assign: more than 2^32 - 1 centroids");
  if (d > INT_MAX) return InvalidArgument("assign: dimension exceeds the BLAS index range");
  if (options.block_rows == 0 || options.block_centroids == 0) {
    return InvalidArgument("assign: block sizes must be at least 1");
  }
  if (options.threads == 0) return InvalidArgument("assign: threads must be at least 1");
  VIGILO_RETURN_IF_ERROR(CheckMatrix(data, m, d, "assign data"));
  VIGILO_RETURN_IF_ERROR(CheckMatrix(centroids, k, d, "assign centroids"));
  DisableBlasThreading();

  Problem p;
  p.data = data.data();
  p.centroids = centroids.data();
  p.m = m;
  p.d = d;
  p.k = k;
  // Block sizes are capped so every sgemm index fits in int.
  p.block_rows = std::min<size_t>(options.block_rows, static_cast<size_t>(INT_MAX) / d);
  p.tile = std::min<size_t>({options.block_centroids, k, static_cast<size_t>(INT_MAX)});
  const double du = static_cast<double>(d) * 0x1.0p-24;
  // 1% margin over 2γ_d covers the rounding of the bound itself; d·u ≥ 1/2
  // makes the bound useless (every centroid is then a candidate).
  p.exhaustive = du >= 0.5;
  const double gamma2 = p.exhaustive ? 0.0 : 2.02 * du / (1.0 - du);
  // Double rounding of the norms, the screened sum and the exact recheck, all
  // below (d + 4)·2^-53·(‖x‖ + ‖c‖)² ≤ 2(d + 4)·2^-53·(‖x‖² + ‖c‖²); ×4 spare.
  p.row_rounding = 8.0 * (static_cast<double>(d) + 4.0) * 0x1.0p-53;
  // Underflow: each float product may lose up to FLT_MIN·|c_i| (also with
  // denormals flushed), summing to d·FLT_MIN·(1 + ‖x‖ + ‖c‖); ×4 spare.
  p.row_underflow = 4.0 * static_cast<double>(d) * static_cast<double>(FLT_MIN);
  p.centroid_sq.resize(k);
  p.slope.resize(k);
  p.base.resize(k);
  p.half_sq.resize(k);
  for (size_t j = 0; j < k; ++j) {
    p.centroid_sq[j] = SquaredNorm(centroids.data() + j * d, d);
    const double norm = std::sqrt(p.centroid_sq[j]);
    p.slope[j] = gamma2 * norm + p.row_underflow;
    p.base[j] = p.row_rounding * p.centroid_sq[j] + p.row_underflow * norm;
    p.half_sq[j] = static_cast<float>(p.centroid_sq[j] / 2);
    p.max_slope = std::max(p.max_slope, p.slope[j]);
    p.max_base = std::max(p.max_base, p.base[j]);
    p.max_centroid_sq = std::max(p.max_centroid_sq, p.centroid_sq[j]);
  }
  p.max_centroid_norm = std::sqrt(p.max_centroid_sq);
  // Far from float overflow, half_sq and every v_j = half_sq_j − G_j stay finite.
  p.float_screen = p.max_centroid_sq <= static_cast<double>(FLT_MAX) / 8;

  Assignment out;
  out.labels.resize(m);
  out.distances.resize(m);
  const size_t blocks = (m + p.block_rows - 1) / p.block_rows;
  const store::CancelToken* cancel = options.cancel;
  ParallelForBlocks(options.threads, blocks, [&] {
    return [worker = BlockWorker(p, out), cancel](size_t b) mutable {
      if (cancel == nullptr || !cancel->cancelled()) worker(b);
    };
  });
  if (cancel != nullptr && cancel->cancelled()) return Cancelled("the assignment was cancelled");
  return out;
}

}  // namespace vigilo::ivf
