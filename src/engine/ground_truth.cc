#include "vigilo/engine/ground_truth.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/kmeans_parallel.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/store/local_store.h"

namespace vigilo::engine {
namespace {

// The context's ground-truth directory (engine::Settings:
// $XDG_CACHE_HOME/vigilo/ground-truth, else ~/.cache/vigilo/ground-truth).
Result<std::string> GroundTruthCacheDir(const Context& context) {
  const std::string& dir = context.settings().ground_truth_directory;
  if (dir.empty()) return InvalidArgument("`base`: no cache directory for the ground truth: set XDG_CACHE_HOME or HOME");
  return dir;
}

// The cache file's name: what the neighbours depend on besides the base
// vectors, which the artifact-uuid stands for (the base is checked against
// the manifest's row count and dimension).
Result<std::string> GroundTruthCacheName(const ivf::Manifest& m, uint32_t k,
                                         const std::vector<std::vector<float>>& queries) {
  std::string bytes;
  for (const std::vector<float>& q : queries) {
    bytes.append(reinterpret_cast<const char*>(q.data()), q.size() * sizeof(float));  // little-endian hosts only
  }
  VIGILO_ASSIGN_OR_RETURN(auto digest, Sha256(bytes));
  return m.artifact_uuid.ToString() + "-k" + std::to_string(k) + "-" +
         HexEncode(std::span<const uint8_t>(digest.data(), 16)) + ".npy";
}

// A 2-D '<i8' .npy (format 1.0), the form ivf::ReadGroundTruth reads back.
std::string EncodeNpyIds(const ivf::GroundTruth& gt) {
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + std::to_string(gt.queries) + ", " +
                       std::to_string(gt.k) + "), }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(gt.ids.data()), gt.ids.size() * sizeof(int64_t));
  return out;
}

// The k nearest (distance, key) pairs seen so far, nearest first once sorted;
// ties go to the lower key, so the order is a function of the data alone.
using Neighbour = std::pair<double, int64_t>;

void Offer(std::vector<Neighbour>& heap, size_t k, Neighbour candidate) {
  if (heap.size() < k) {
    heap.push_back(candidate);
    std::push_heap(heap.begin(), heap.end());
  } else if (candidate < heap.front()) {
    std::pop_heap(heap.begin(), heap.end());
    heap.back() = candidate;
    std::push_heap(heap.begin(), heap.end());
  }
}

// Exact distance in double: squared L2, or 1 - q·x of normalized vectors
// for cosine (both normalized as the build and the query core do).
double ExactDistance(ivf::Metric metric, const float* q, const float* x, size_t d) {
  double sum = 0;
  if (metric == ivf::Metric::kCosine) {
    for (size_t i = 0; i < d; ++i) sum += static_cast<double>(q[i]) * static_cast<double>(x[i]);
    return 1.0 - sum;
  }
  for (size_t i = 0; i < d; ++i) {
    const double t = static_cast<double>(q[i]) - static_cast<double>(x[i]);
    sum += t * t;
  }
  return sum;
}

// Brute force over every base row, block by block, the queries split
// across threads (each query's heap is touched by one thread only).
Result<ivf::GroundTruth> ComputeGroundTruth(const GroundTruthRequest& a, const ivf::Manifest& m,
                                            const std::vector<std::vector<float>>& queries) {
  const ivf::IndexSpec& index = m.index;
  const bool row_keys = index.source_key.size() == 1 && index.source_key[0].name == ivf::kGeneratedKeyName;
  if (!row_keys && (index.source_key.size() != 1 || index.source_key[0].type.kind != ivf::ColumnType::Kind::kLong)) {
    return InvalidArgument("`base`: the publication's key is not a long column; recall needs long keys");
  }
  ivf::InputOptions options;
  options.vector_field = a.base.vector_field.empty() ? index.vector_field : a.base.vector_field;
  if (!row_keys) options.key_field = index.source_key[0].name;
  if (!a.base.format.empty()) {
    VIGILO_ASSIGN_OR_RETURN(options.format, ivf::ParseInputFormat(a.base.format));
  } else if (a.base.path == "-") {
    return InvalidArgument("`base` -: name the format of stdin with `base_format` (jsonl, fvecs, bvecs or npy)");
  }
  VIGILO_ASSIGN_OR_RETURN(auto input, ivf::OpenVectorInput(a.base.path, options));
  const size_t d = input->dimension();
  if (d != index.dimension) {
    return InvalidArgument("`base` holds vectors of dimension " + std::to_string(d) + ", the publication " +
                           std::to_string(index.dimension))
        .WithPath(a.base.path);
  }
  if (index.ntotal < a.k) {
    return InvalidArgument("`k` " + std::to_string(a.k) + " exceeds the publication's " + std::to_string(index.ntotal) +
                           " vectors");
  }
  const ivf::Metric metric = index.metric;
  std::vector<float> flat;
  flat.reserve(queries.size() * d);
  for (const auto& q : queries) flat.insert(flat.end(), q.begin(), q.end());
  if (metric == ivf::Metric::kCosine) VIGILO_RETURN_IF_ERROR(ivf::NormalizeL2Rows(flat, d));

  std::vector<std::vector<Neighbour>> heaps(queries.size());
  constexpr size_t kQueriesPerTask = 8;
  const size_t tasks = (queries.size() + kQueriesPerTask - 1) / kQueriesPerTask;
  ivf::InputBlock block;
  uint64_t rows = 0;
  while (true) {
    if (a.cancel != nullptr && a.cancel->cancelled()) return Cancelled("the exact search over `base` was cancelled");
    VIGILO_ASSIGN_OR_RETURN(bool more, input->Next(&block));
    if (!more) break;
    if (metric == ivf::Metric::kCosine) VIGILO_RETURN_IF_ERROR(ivf::NormalizeL2Rows(block.vectors, d));
    ivf::ParallelForBlocks(a.threads, tasks, [&] {
      return [&](size_t task) {
        const size_t end = std::min(queries.size(), (task + 1) * kQueriesPerTask);
        for (size_t q = task * kQueriesPerTask; q < end; ++q) {
          for (size_t i = 0; i < block.rows; ++i) {
            const int64_t key = row_keys ? static_cast<int64_t>(block.first_row + i) : block.keys.integers[i];
            Offer(heaps[q], a.k, {ExactDistance(metric, flat.data() + q * d, block.vectors.data() + i * d, d), key});
          }
        }
      };
    });
    rows += block.rows;
    if (a.progress) a.progress(rows, index.ntotal);
  }
  if (rows != index.ntotal) {
    return InvalidArgument("`base` holds " + std::to_string(rows) + " vectors, the publication " +
                           std::to_string(index.ntotal) + ": it is not the build's input")
        .WithPath(a.base.path);
  }
  ivf::GroundTruth gt;
  gt.queries = queries.size();
  gt.k = a.k;
  gt.ids.reserve(gt.queries * gt.k);
  for (std::vector<Neighbour>& heap : heaps) {
    std::sort_heap(heap.begin(), heap.end());
    for (const Neighbour& n : heap) {
      if (n.second < 0) {
        return InvalidArgument("`base`: key " + std::to_string(n.second) + " is negative; ground-truth ids are not");
      }
      gt.ids.push_back(n.second);
    }
  }
  return gt;
}

}  // namespace

// The cached ground truth for these queries, or one computed now and cached.
Result<GroundTruthOutcome> BaseGroundTruth(const Context& context, const ivf::Manifest& m,
                                           const std::vector<std::vector<float>>& queries, const GroundTruthRequest& a) {
  VIGILO_ASSIGN_OR_RETURN(std::string dir, GroundTruthCacheDir(context));
  VIGILO_ASSIGN_OR_RETURN(std::string name, GroundTruthCacheName(m, a.k, queries));
  GroundTruthOutcome out;
  out.cache_path = dir + "/" + name;
  const std::string& path = out.cache_path;
  store::LocalStoreOptions options;
  options.create_root = true;
  VIGILO_ASSIGN_OR_RETURN(auto cache, store::OpenLocalStore(dir, options));
  auto cached = cache->Head(name);
  if (cached.ok()) {
    VIGILO_ASSIGN_OR_RETURN(out.truth, ivf::ReadGroundTruth(path));
    if (out.truth.queries != queries.size() || out.truth.k != a.k) {
      return IntegrityError("the cached ground truth holds " + std::to_string(out.truth.queries) + " rows of " +
                            std::to_string(out.truth.k) + " ids, not " + std::to_string(queries.size()) + " of " +
                            std::to_string(a.k) + "; remove it")
          .WithPath(path);
    }
    out.from_cache = true;
    return out;
  }
  if (cached.status().code() != StatusCode::kNotFound) return cached.status();
  VIGILO_ASSIGN_OR_RETURN(out.truth, ComputeGroundTruth(a, m, queries));
  const std::string bytes = EncodeNpyIds(out.truth);
  auto created = cache->CreateIfAbsent(
      name, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  // Another run may have cached the same bytes meanwhile; that is no error.
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) return created.status();
  return out;
}

}  // namespace vigilo::engine
