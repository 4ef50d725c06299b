// Per-(query, list) preparation and the path dispatch of the scoring kernels.
#include "vigilo/ivf/lvq_kernels.h"

#include <cassert>
#include <cmath>
#include <string>

#include "lvq_kernels_internal.h"
#include "vigilo/ivf/manifest.h"

namespace vigilo::ivf {
namespace {

// The integer code sums are 32-bit (RowSums); the format's dimension limit is what keeps them exact.
static_assert(kMaxDimension * 255ull * 255ull < (1ull << 32));

Status CheckFinite(std::span<const float> v, const char* what) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) return InvalidArgument(std::string(what) + " element " + std::to_string(i) + " is not finite");
  }
  return Status::Ok();
}

bool Prepared(const ListContext& ctx) {
  return ctx.dimension > 0 && ctx.weights.size() == ctx.dimension &&
         ctx.weights_split.size() == (ctx.encoding == Encoding::kLvq4 ? (ctx.dimension + 15) / 16 * 16 : 0);
}

void Dispatch(KernelPath path, const ListContext& ctx, size_t n, const float* offsets, const float* scales,
              const uint8_t* codes, float* out) {
  assert(Prepared(ctx));
  switch (path) {
    case KernelPath::kAvx2:
      kernels_internal::ScoreRowsAvx2(ctx, n, offsets, scales, codes, out);
      return;
    case KernelPath::kPortable:
      kernels_internal::ScoreRowsPortable(ctx, n, offsets, scales, codes, out);
      return;
    case KernelPath::kScalar:
      break;
  }
  kernels_internal::ScoreRowsScalar(ctx, n, offsets, scales, codes, out);
}

}  // namespace

std::string_view KernelPathName(KernelPath path) {
  switch (path) {
    case KernelPath::kScalar:
      return "scalar";
    case KernelPath::kPortable:
      return "portable";
    case KernelPath::kAvx2:
      return "avx2";
  }
  return "unknown";
}

bool KernelPathAvailable(KernelPath path) {
  return path != KernelPath::kAvx2 || kernels_internal::Avx2Supported();
}

KernelPath DispatchedKernelPath() {
  return kernels_internal::Avx2Supported() ? KernelPath::kAvx2 : KernelPath::kScalar;
}

std::string_view KernelName() { return KernelPathName(DispatchedKernelPath()); }

Status PrepareList(Metric metric, Encoding encoding, std::span<const float> q, std::span<const float> centroid_decoded,
                   ListContext& out) {
  const size_t d = q.size();
  if (centroid_decoded.size() != d) {
    return InvalidArgument("scoring: query has " + std::to_string(d) + " elements, centroid " +
                           std::to_string(centroid_decoded.size()));
  }
  if (d == 0 || d > kMaxDimension) {
    return InvalidArgument("scoring: dimension " + std::to_string(d) + " is outside 1…" + std::to_string(kMaxDimension));
  }
  VIGILO_RETURN_IF_ERROR(CheckFinite(q, "query"));
  VIGILO_RETURN_IF_ERROR(CheckFinite(centroid_decoded, "centroid"));

  out.metric = metric;
  out.encoding = encoding;
  out.dimension = d;
  out.weights.resize(d);
  double sum = 0;
  double base = 0;
  if (metric == Metric::kL2Squared) {
    for (size_t i = 0; i < d; ++i) {
      // q' is float32 (the kernels multiply it with the codes in float);
      // its square and the sums are exact or nearly so in double.
      const float w = q[i] - centroid_decoded[i];
      out.weights[i] = w;
      sum += w;
      base += static_cast<double>(w) * w;
    }
  } else {
    double dot = 0;
    for (size_t i = 0; i < d; ++i) {
      out.weights[i] = q[i];
      sum += q[i];
      dot += static_cast<double>(q[i]) * centroid_decoded[i];
    }
    base = 1.0 - dot;
  }
  if (!std::isfinite(sum) || !std::isfinite(base)) return InvalidArgument("scoring: query − centroid overflows");
  out.weights_split.clear();
  if (encoding == Encoding::kLvq4) {
    // Per 16-block: its even elements, then its odd ones; the last block zero-padded.
    out.weights_split.resize((d + 15) / 16 * 16);  // after clear(): all +0.0
    for (size_t i = 0; i < d; ++i) out.weights_split[i / 16 * 16 + (i % 2) * 8 + (i % 16) / 2] = out.weights[i];
  }
  out.weight_sum = sum;
  out.base = base;
  return Status::Ok();
}

Result<ListContext> PrepareList(Metric metric, Encoding encoding, std::span<const float> q,
                                std::span<const float> centroid_decoded) {
  ListContext ctx;
  VIGILO_RETURN_IF_ERROR(PrepareList(metric, encoding, q, centroid_decoded, ctx));
  return ctx;
}

void ScoreRows(const ListContext& ctx, size_t n, const float* offsets, const float* scales, const uint8_t* codes,
               float* out) {
  Dispatch(DispatchedKernelPath(), ctx, n, offsets, scales, codes, out);
}

Status ScoreRowsWith(KernelPath path, const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                     const uint8_t* codes, float* out) {
  if (!KernelPathAvailable(path)) {
    return InvalidArgument("scoring: the " + std::string(KernelPathName(path)) + " kernel is not supported by this CPU");
  }
  if (!Prepared(ctx)) return InvalidArgument("scoring: the list context was not prepared");
  Dispatch(path, ctx, n, offsets, scales, codes, out);
  return Status::Ok();
}

}  // namespace vigilo::ivf
