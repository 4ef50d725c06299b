// Per-(query, list) preparation and the path dispatch of the scoring kernels.
#include "vigilo/ivf/lvq_kernels.h"

#include <atomic>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lvq_kernels_internal.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/manifest.h"

namespace vigilo::ivf {
namespace {

// The integer code sums are 32-bit (RowSums); the format's dimension limit is what keeps them exact.
static_assert(kMaxDimension * 255ull * 255ull < (1ull << 32));

// Branch-free first (PrepareList runs per probed list): an exponent of all
// ones is NaN or ±Inf; only then look for the element to name.
Status CheckFinite(std::span<const float> v, const char* what) {
  uint32_t bad = 0;
  for (float x : v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &x, 4);
    bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  if (bad == 0) return Status::Ok();
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) return InvalidArgument(std::string(what) + " element " + std::to_string(i) + " is not finite");
  }
  return Status::Ok();
}

bool Prepared(const ListContext& ctx) {
  return ctx.dimension > 0 && ctx.weights.size() == ctx.dimension &&
         ctx.weights_split.size() == (ctx.encoding == Encoding::kLvq4 ? (ctx.dimension + 15) / 16 * 16 : 0);
}

void Dispatch(KernelPath path, const ListContext& ctx, const RowBlock& rows, float* out) {
  assert(Prepared(ctx));
  switch (path) {
    case KernelPath::kAvx512:
      kernels_internal::ScoreRowsAvx512(ctx, rows, out);
      return;
    case KernelPath::kAvx2:
      kernels_internal::ScoreRowsAvx2(ctx, rows, out);
      return;
    case KernelPath::kPortable:
      kernels_internal::ScoreRowsPortable(ctx, rows, out);
      return;
    case KernelPath::kScalar:
      break;
  }
  kernels_internal::ScoreRowsScalar(ctx, rows, out);
}

RowBlock Packed(const ListContext& ctx, size_t n, const float* offsets, const float* scales, const uint8_t* codes) {
  return RowBlock{n, offsets, scales, codes, static_cast<size_t>(CodeBytes(ctx.encoding, ctx.dimension)), nullptr};
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
    case KernelPath::kAvx512:
      return "avx512";
  }
  return "unknown";
}

bool KernelPathAvailable(KernelPath path) {
  switch (path) {
    case KernelPath::kAvx2:
      return kernels_internal::Avx2Supported();
    case KernelPath::kAvx512:
      return kernels_internal::Avx512Supported();
    case KernelPath::kScalar:
    case KernelPath::kPortable:
      break;
  }
  return true;
}

namespace {

// What ForceKernelPath chose (-1: nothing), read once by the first dispatch.
std::atomic<int> forced_path{-1};
std::atomic<bool> path_chosen{false};

KernelPath DetectKernelPath() {
  path_chosen = true;
  if (const int forced = forced_path.load(); forced >= 0) return static_cast<KernelPath>(forced);
#if defined(__EMSCRIPTEN__)
  // WebAssembly: the portable path, written for SIMD128 (bit-identical to the others).
  return KernelPath::kPortable;
#else
  if (kernels_internal::Avx512Supported()) return KernelPath::kAvx512;
  return kernels_internal::Avx2Supported() ? KernelPath::kAvx2 : KernelPath::kScalar;
#endif
}

}  // namespace

KernelPath DispatchedKernelPath() {
  static const KernelPath path = DetectKernelPath();  // once per process (thread-safe static)
  return path;
}

std::string_view KernelName() { return KernelPathName(DispatchedKernelPath()); }

bool ForceKernelPath(std::string_view name) {
  for (KernelPath p : {KernelPath::kScalar, KernelPath::kPortable, KernelPath::kAvx2, KernelPath::kAvx512}) {
    if (KernelPathName(p) != name || !KernelPathAvailable(p)) continue;
    if (path_chosen.load()) return DispatchedKernelPath() == p;
    forced_path = static_cast<int>(p);
    return DispatchedKernelPath() == p;
  }
  return false;
}

namespace {

// K lists' weights and double sums in one pass, list j for (qs[j], cs[j])
// (one query against K centroids, or K queries against one centroid): each
// list's sums in the normative order (increasing i), the K dependency chains
// interleaved so they do not wait on one another's add latency. Bit for bit
// one list at a time.
template <size_t K>
void PrepareGroup(Metric metric, size_t d, const float* const* qs, const float* const* cs, ListContext* out) {
  float* weights[K];
  for (size_t j = 0; j < K; ++j) {
    out[j].weights.resize(d);
    weights[j] = out[j].weights.data();
  }
  double sum[K] = {};
  double base[K] = {};
  if (metric == Metric::kL2Squared) {
    for (size_t i = 0; i < d; ++i) {
      for (size_t j = 0; j < K; ++j) {
        // q' is float32 (the kernels multiply it with the codes in float);
        // its square and the sums are exact or nearly so in double.
        const float w = qs[j][i] - cs[j][i];
        weights[j][i] = w;
        sum[j] += w;
        base[j] += static_cast<double>(w) * w;
      }
    }
  } else {
    double dot[K] = {};
    for (size_t i = 0; i < d; ++i) {
      for (size_t j = 0; j < K; ++j) {
        sum[j] += qs[j][i];
        dot[j] += static_cast<double>(qs[j][i]) * cs[j][i];
      }
    }
    for (size_t j = 0; j < K; ++j) {
      std::copy(qs[j], qs[j] + d, weights[j]);
      base[j] = 1.0 - dot[j];
    }
  }
  for (size_t j = 0; j < K; ++j) {
    out[j].weight_sum = sum[j];
    out[j].base = base[j];
  }
}

// PrepareGroup over n lists, four at a time: with AVX2, four lists side by
// side in the lanes of one register (a last group of fewer than four filled
// with copies of its first list, whose lanes write the same weights to the
// same place and are dropped), the inputs checked finite on the way (false
// when an element is NaN or ±Inf; the contexts are then meaningless).
// Without AVX2 the caller checks the inputs first.
bool PrepareGroups(Metric metric, size_t d, size_t n, const float* const* qs, const float* const* cs,
                   ListContext* out, bool avx2) {
  if (!avx2) {
    size_t j = 0;
    for (; j + 4 <= n; j += 4) PrepareGroup<4>(metric, d, qs + j, cs + j, out + j);
    switch (n - j) {
      case 3: PrepareGroup<3>(metric, d, qs + j, cs + j, out + j); break;
      case 2: PrepareGroup<2>(metric, d, qs + j, cs + j, out + j); break;
      case 1: PrepareGroup<1>(metric, d, qs + j, cs + j, out + j); break;
      default: break;
    }
    return true;
  }
  bool finite = true;
  for (size_t j = 0; j < n; j += 4) {
    const size_t lists = std::min<size_t>(4, n - j);
    const float* q4[4];
    const float* c4[4];
    float* weights[4];
    double sum[4], base[4];
    for (size_t k = 0; k < 4; ++k) {
      const size_t from = k < lists ? j + k : j;
      if (k < lists) out[from].weights.resize(d);
      q4[k] = qs[from];
      c4[k] = cs[from];
      weights[k] = out[from].weights.data();
    }
    finite &= kernels_internal::PrepareLists4Avx2(metric == Metric::kL2Squared, d, q4, c4, weights, sum, base);
    for (size_t k = 0; k < lists; ++k) {
      out[j + k].weight_sum = sum[k];
      out[j + k].base = base[k];
    }
  }
  return finite;
}

Status FinishList(Metric metric, Encoding encoding, ListContext& out) {
  if (!std::isfinite(out.weight_sum) || !std::isfinite(out.base)) {
    return InvalidArgument("scoring: query − centroid overflows");
  }
  const size_t d = out.weights.size();
  out.metric = metric;
  out.encoding = encoding;
  out.dimension = d;
  out.weights_split.clear();
  if (encoding == Encoding::kLvq4) {
    // Per 16-block: its even elements, then its odd ones; the last block zero-padded.
    out.weights_split.resize((d + 15) / 16 * 16);  // after clear(): all +0.0
    for (size_t i = 0; i < d; ++i) out.weights_split[i / 16 * 16 + (i % 2) * 8 + (i % 16) / 2] = out.weights[i];
  }
  return Status::Ok();
}

// The format's dimensions, 1…65536 (which keeps the integer code sums in 32 bits).
Status CheckDimension(size_t d) {
  if (d == 0 || d > kMaxDimension) {
    return InvalidArgument("scoring: dimension " + std::to_string(d) + " is outside 1…" + std::to_string(kMaxDimension));
  }
  return Status::Ok();
}

// n lists (query_of(j), centroid_of(j)) of dimension d into out, after the
// caller's size checks; check_inputs() names the first NaN or ±Inf input in
// the caller's order, before any other error. It runs before any work
// without AVX2, and with AVX2 only when the check fused into the work met one.
template <class QueryOf, class CentroidOf, class CheckInputs>
Status PrepareMany(Metric metric, Encoding encoding, size_t d, size_t n, QueryOf query_of, CentroidOf centroid_of,
                   ListContext* out, CheckInputs check_inputs) {
  const bool avx2 = kernels_internal::PathHasAvx2(DispatchedKernelPath());
  if (!avx2) VIGILO_RETURN_IF_ERROR(check_inputs());
  constexpr size_t kAtOnce = 64;  // pointer arrays on the stack
  const float* qs[kAtOnce];
  const float* cs[kAtOnce];
  bool finite = true;
  for (size_t first = 0; first < n; first += kAtOnce) {
    const size_t count = std::min(kAtOnce, n - first);
    for (size_t j = 0; j < count; ++j) {
      qs[j] = query_of(first + j);
      cs[j] = centroid_of(first + j);
    }
    finite &= PrepareGroups(metric, d, count, qs, cs, out + first, avx2);
  }
  if (!finite) {
    VIGILO_RETURN_IF_ERROR(check_inputs());
    return Internal("scoring: a non-finite input was met and then not found");
  }
  for (size_t j = 0; j < n; ++j) VIGILO_RETURN_IF_ERROR(FinishList(metric, encoding, out[j]));
  return Status::Ok();
}

}  // namespace

Status PrepareLists(Metric metric, Encoding encoding, std::span<const float> q,
                    std::span<const std::span<const float>> centroids, std::span<ListContext> out) {
  if (out.size() != centroids.size()) {
    return InvalidArgument("scoring: " + std::to_string(centroids.size()) + " centroids for " +
                           std::to_string(out.size()) + " contexts");
  }
  const size_t d = q.size();
  for (const auto& c : centroids) {
    if (c.size() != d) {
      return InvalidArgument("scoring: query has " + std::to_string(d) + " elements, centroid " +
                             std::to_string(c.size()));
    }
  }
  VIGILO_RETURN_IF_ERROR(CheckDimension(d));
  auto check_inputs = [&]() -> Status {
    VIGILO_RETURN_IF_ERROR(CheckFinite(q, "query"));
    for (const auto& c : centroids) VIGILO_RETURN_IF_ERROR(CheckFinite(c, "centroid"));
    return Status::Ok();
  };
  if (centroids.empty()) return check_inputs();
  return PrepareMany(
      metric, encoding, d, centroids.size(), [&](size_t) { return q.data(); },
      [&](size_t j) { return centroids[j].data(); }, out.data(), check_inputs);
}

Status PrepareListsOfCentroid(Metric metric, Encoding encoding, std::span<const std::span<const float>> queries,
                              std::span<const float> centroid_decoded, std::span<ListContext> out) {
  if (out.size() != queries.size()) {
    return InvalidArgument("scoring: " + std::to_string(queries.size()) + " queries for " +
                           std::to_string(out.size()) + " contexts");
  }
  const size_t d = centroid_decoded.size();
  for (const auto& q : queries) {
    if (q.size() != d) {
      return InvalidArgument("scoring: query has " + std::to_string(q.size()) + " elements, centroid " +
                             std::to_string(d));
    }
  }
  if (queries.empty()) return Status::Ok();
  VIGILO_RETURN_IF_ERROR(CheckDimension(d));
  auto check_inputs = [&]() -> Status {
    for (const auto& q : queries) VIGILO_RETURN_IF_ERROR(CheckFinite(q, "query"));
    return CheckFinite(centroid_decoded, "centroid");
  };
  return PrepareMany(
      metric, encoding, d, queries.size(), [&](size_t j) { return queries[j].data(); },
      [&](size_t) { return centroid_decoded.data(); }, out.data(), check_inputs);
}

Status PrepareList(Metric metric, Encoding encoding, std::span<const float> q, std::span<const float> centroid_decoded,
                   ListContext& out) {
  const std::span<const float> centroids[1] = {centroid_decoded};
  return PrepareLists(metric, encoding, q, centroids, std::span<ListContext>(&out, 1));
}

Result<ListContext> PrepareList(Metric metric, Encoding encoding, std::span<const float> q,
                                std::span<const float> centroid_decoded) {
  ListContext ctx;
  VIGILO_RETURN_IF_ERROR(PrepareList(metric, encoding, q, centroid_decoded, ctx));
  return ctx;
}

void ComputeCodeSums(Encoding encoding, size_t dimension, size_t n, const uint8_t* codes, size_t stride,
                     CodeSums* out) {
  if (encoding == Encoding::kLvq8 && kernels_internal::PathHasAvx2(DispatchedKernelPath())) {
    kernels_internal::CodeSumsLvq8Avx2(dimension, n, codes, stride, out);
    return;
  }
  for (size_t r = 0; r < n; ++r) {
    const uint8_t* code = codes + r * stride;
    uint32_t sum = 0;
    uint32_t squares = 0;
    for (size_t i = 0; i < dimension; ++i) {
      const uint32_t c = LvqCodeAt(encoding, code, i);
      sum += c;
      squares += c * c;
    }
    out[r] = CodeSums{sum, squares};
  }
}

void ScoreBlock(const ListContext& ctx, const RowBlock& rows, float* out) {
  Dispatch(DispatchedKernelPath(), ctx, rows, out);
}

Status ScoreBlockWith(KernelPath path, const ListContext& ctx, const RowBlock& rows, float* out) {
  if (!KernelPathAvailable(path)) {
    return InvalidArgument("scoring: the " + std::string(KernelPathName(path)) + " kernel is not supported by this CPU");
  }
  if (!Prepared(ctx)) return InvalidArgument("scoring: the list context was not prepared");
  const auto code_bytes = static_cast<size_t>(CodeBytes(ctx.encoding, ctx.dimension));
  if (rows.n > 1 && rows.stride < code_bytes) {
    return InvalidArgument("scoring: a row stride of " + std::to_string(rows.stride) + " bytes is below the " +
                           std::to_string(code_bytes) + "-byte code");
  }
  Dispatch(path, ctx, rows, out);
  return Status::Ok();
}

void ScoreRows(const ListContext& ctx, size_t n, const float* offsets, const float* scales, const uint8_t* codes,
               float* out) {
  ScoreBlock(ctx, Packed(ctx, n, offsets, scales, codes), out);
}

Status ScoreRowsWith(KernelPath path, const ListContext& ctx, size_t n, const float* offsets, const float* scales,
                     const uint8_t* codes, float* out) {
  return ScoreBlockWith(path, ctx, Packed(ctx, n, offsets, scales, codes), out);
}

}  // namespace vigilo::ivf
