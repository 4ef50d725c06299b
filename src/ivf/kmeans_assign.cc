// Exact nearest-centroid assignment: sgemm screens, double precision decides.
//
// For row x and centroid c the screened distance is
//   D̃ = ‖x‖² + ‖c‖² - 2·G,  G = sgemm's float x·c,  norms summed in double.
// Any float evaluation order of a d-term dot product (with or without FMA)
// satisfies |G - x·c| ≤ γ_d ‖x‖‖c‖ with γ_d = d·u / (1 - d·u), u = 2^-24, so
// E = 2γ_d‖x‖‖c‖ plus small double-rounding and underflow terms bounds
// |D̃ - D|. Every centroid with D̃ - E ≤ min_l (D̃_l + E_l) is recomputed in
// double; the exact winner is always among them. The answer therefore does
// not depend on the BLAS kernel, the block sizes or the thread count.
#include <cblas.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <limits>
#include <string>

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

// The normative distance: Σ ((double)x_i - (double)c_i)² in element order.
double ExactL2(const float* x, const float* c, size_t d) {
  double sum = 0;
  for (size_t i = 0; i < d; ++i) {
    const double diff = static_cast<double>(x[i]) - static_cast<double>(c[i]);
    sum += diff * diff;
  }
  return sum;
}

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
  std::vector<float> half_sq;       // ‖c_j‖² / 2 in float, only to pick a likely winner
  // The error bound is E = ‖x‖·slope_j + base_j + R·‖x‖² + U with
  // slope_j = 2γ_d·‖c_j‖ + U and base_j = R·‖c_j‖² + U·‖c_j‖ (see the header
  // comment; R covers double rounding, U float underflow).
  std::vector<double> slope, base;
  double max_slope = 0, max_base = 0;
  double row_rounding = 0;   // R
  double row_underflow = 0;  // U
  bool exhaustive = false;   // d so large that the bound is void: check every centroid
};

// One thread's scratch and the work on one block of rows.
//
// Pass 1 picks, per row, any centroid l (the float argmin of ‖c‖²/2 - x·c)
// and takes upper = D̃_l + E_l: every bound D̃_l + E_l is ≥ the exact minimum,
// so any l is correct and a good l keeps the candidate set small. Pass 2
// rechecks in double every j with D̃_j - E_j ≤ upper, after a cheap filter
// that uses the row's largest E.
class BlockWorker {
 public:
  BlockWorker(const Problem& p, Assignment& out)
      : p_(p), out_(out), dots_(std::min(p.block_rows, p.m) * std::min(p.tile, p.k)), row_sq_(p.block_rows),
        row_norm_(p.block_rows), upper_(p.block_rows), exhaustive_(p.block_rows) {}

  void operator()(size_t block) {
    const size_t r0 = block * p_.block_rows;
    const size_t rows = std::min(p_.block_rows, p_.m - r0);
    for (size_t r = 0; r < rows; ++r) {
      row_sq_[r] = SquaredNorm(p_.data + (r0 + r) * p_.d, p_.d);
      row_norm_[r] = std::sqrt(row_sq_[r]);
      upper_[r] = kInf;
      exhaustive_[r] = p_.exhaustive;
    }
    const size_t tiles = (p_.k + p_.tile - 1) / p_.tile;
    for (size_t t = 0; t < tiles; ++t) {
      const size_t j0 = t * p_.tile;
      const size_t cols = std::min(p_.tile, p_.k - j0);
      Dots(r0, rows, j0, cols);
      for (size_t r = 0; r < rows; ++r) {
        const float* dots = dots_.data() + r * cols;
        size_t likely = 0;
        float likely_value = p_.half_sq[j0] - dots[0];
        bool finite = true;
        for (size_t j = 0; j < cols; ++j) {
          finite = finite && std::fabs(dots[j]) <= FLT_MAX;
          const float v = p_.half_sq[j0 + j] - dots[j];
          if (v < likely_value) likely_value = v, likely = j;
        }
        // A float overflow in sgemm voids the bound: check that row exhaustively.
        if (!finite) exhaustive_[r] = true;
        const size_t l = j0 + likely;
        upper_[r] = std::min(upper_[r], Screened(r, l, dots[likely]) + Error(r, l));
      }
    }
    for (size_t r = 0; r < rows; ++r) {
      out_.labels[r0 + r] = 0;
      out_.distances[r0 + r] = kInf;
    }
    // Pass 2 (the dots of a single tile are still in dots_; several tiles are
    // recomputed to keep memory bounded).
    for (size_t t = 0; t < tiles; ++t) {
      const size_t j0 = t * p_.tile;
      const size_t cols = std::min(p_.tile, p_.k - j0);
      if (tiles > 1) Dots(r0, rows, j0, cols);
      for (size_t r = 0; r < rows; ++r) {
        const float* x = p_.data + (r0 + r) * p_.d;
        const float* dots = dots_.data() + r * cols;
        // D̃_j - E_j ≤ upper implies ‖c_j‖² - 2G_j ≤ upper + max E - ‖x‖².
        const double max_error = row_norm_[r] * p_.max_slope + p_.max_base + RowTerm(r);
        const double threshold = upper_[r] + max_error - row_sq_[r];
        for (size_t j = 0; j < cols; ++j) {
          const size_t c = j0 + j;
          if (!exhaustive_[r]) {
            if (p_.centroid_sq[c] - 2.0 * static_cast<double>(dots[j]) > threshold) continue;
            if (Screened(r, c, dots[j]) - Error(r, c) > upper_[r]) continue;
          }
          const double exact = ExactL2(x, p_.centroids + c * p_.d, p_.d);
          // Strict <: candidates arrive in increasing j, so ties keep the lowest.
          if (exact < out_.distances[r0 + r]) {
            out_.distances[r0 + r] = exact;
            out_.labels[r0 + r] = static_cast<uint32_t>(c);
          }
        }
      }
    }
  }

 private:
  void Dots(size_t r0, size_t rows, size_t j0, size_t cols) {
    const int d = static_cast<int>(p_.d);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(cols), d, 1.0f,
                p_.data + r0 * p_.d, d, p_.centroids + j0 * p_.d, d, 0.0f, dots_.data(), static_cast<int>(cols));
  }

  double RowTerm(size_t r) const { return p_.row_rounding * row_sq_[r] + p_.row_underflow; }
  double Screened(size_t r, size_t j, float dot) const {
    return row_sq_[r] + p_.centroid_sq[j] - 2.0 * static_cast<double>(dot);
  }
  double Error(size_t r, size_t j) const { return row_norm_[r] * p_.slope[j] + p_.base[j] + RowTerm(r); }

  const Problem& p_;
  Assignment& out_;
  std::vector<float> dots_;
  std::vector<double> row_sq_, row_norm_, upper_;
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
  }

  Assignment out;
  out.labels.resize(m);
  out.distances.resize(m);
  const size_t blocks = (m + p.block_rows - 1) / p.block_rows;
  ParallelForBlocks(options.threads, blocks, [&] { return BlockWorker(p, out); });
  return out;
}

}  // namespace vigilo::ivf
