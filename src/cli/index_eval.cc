// `vigilo index eval PUBLICATION --queries F (--ground-truth F | --base F)
// [-k 10] [--nprobe 1,2,4,…] [--batch N] [--warmup N] [--json]`: recall@k,
// QPS on one thread and bytes read per query, for each nprobe
// (ivf::EvaluateRecall). Without --ground-truth the exact neighbours are
// computed here by brute force over the build's input vectors (--base) and
// cached in the user's cache directory, keyed by the publication's
// artifact-uuid: never beside the publication, whose manifest is its only
// inventory.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>

#include "commands.h"
#include "index_io.h"
#include "output.h"
#include "progress.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/eval.h"
#include "vigilo/ivf/kmeans_parallel.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/json/write.h"
#include "vigilo/store/local_store.h"

namespace vigilo::cli {
namespace {

struct EvalArgs {
  std::string manifest, queries, format, vector_field, ground_truth;
  std::string base, base_format, base_vector_field;
  uint32_t threads = std::max(1u, std::thread::hardware_concurrency());
  uint32_t k = 10;
  bool quiet = false;
  bool no_screen = false;
  std::vector<uint32_t> nprobes = {1, 2, 4, 8, 16, 32, 64};
  size_t batch = 1, warmup = 100;
  OutputFlags output;
};

double Rounded(double v, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

// ---- The exact ground truth over --base ----

// The context's ground-truth directory (engine::Settings:
// $XDG_CACHE_HOME/vigilo/ground-truth, else ~/.cache/vigilo/ground-truth).
Result<std::string> GroundTruthCacheDir(const engine::Context& context) {
  const std::string& dir = context.settings().ground_truth_directory;
  if (dir.empty()) return InvalidArgument("--base: no cache directory for the ground truth: set XDG_CACHE_HOME or HOME");
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
Result<ivf::GroundTruth> ComputeGroundTruth(const EvalArgs& a, const ivf::Manifest& m,
                                            const std::vector<std::vector<float>>& queries) {
  const ivf::IndexSpec& index = m.index;
  const bool row_keys = index.source_key.size() == 1 && index.source_key[0].name == ivf::kGeneratedKeyName;
  if (!row_keys && (index.source_key.size() != 1 || index.source_key[0].type.kind != ivf::ColumnType::Kind::kLong)) {
    return InvalidArgument("--base: the publication's key is not a long column; recall needs long keys");
  }
  ivf::InputOptions options;
  options.vector_field = a.base_vector_field.empty() ? index.vector_field : a.base_vector_field;
  if (!row_keys) options.key_field = index.source_key[0].name;
  if (!a.base_format.empty()) {
    VIGILO_ASSIGN_OR_RETURN(options.format, ivf::ParseInputFormat(a.base_format));
  } else if (a.base == "-") {
    return InvalidArgument("--base -: name the format of stdin with --base-format (jsonl, fvecs, bvecs or npy)");
  }
  VIGILO_ASSIGN_OR_RETURN(auto input, ivf::OpenVectorInput(a.base, options));
  const size_t d = input->dimension();
  if (d != index.dimension) {
    return InvalidArgument("--base holds vectors of dimension " + std::to_string(d) + ", the publication " +
                           std::to_string(index.dimension))
        .WithPath(a.base);
  }
  if (index.ntotal < a.k) {
    return InvalidArgument("-k " + std::to_string(a.k) + " exceeds the publication's " + std::to_string(index.ntotal) +
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
  Progress bar = Progress::ForStderr(a.quiet);
  while (true) {
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
    bar.Update("ground truth", rows, index.ntotal);
  }
  bar.Finish();
  if (rows != index.ntotal) {
    return InvalidArgument("--base holds " + std::to_string(rows) + " vectors, the publication " +
                           std::to_string(index.ntotal) + ": it is not the build's input")
        .WithPath(a.base);
  }
  ivf::GroundTruth gt;
  gt.queries = queries.size();
  gt.k = a.k;
  gt.ids.reserve(gt.queries * gt.k);
  for (std::vector<Neighbour>& heap : heaps) {
    std::sort_heap(heap.begin(), heap.end());
    for (const Neighbour& n : heap) {
      if (n.second < 0) {
        return InvalidArgument("--base: key " + std::to_string(n.second) + " is negative; ground-truth ids are not");
      }
      gt.ids.push_back(n.second);
    }
  }
  return gt;
}

// The cached ground truth for these queries, or one computed now and cached.
Result<ivf::GroundTruth> BaseGroundTruth(const engine::Context& context, const EvalArgs& a, const ivf::Manifest& m,
                                         const std::vector<std::vector<float>>& queries) {
  VIGILO_ASSIGN_OR_RETURN(std::string dir, GroundTruthCacheDir(context));
  VIGILO_ASSIGN_OR_RETURN(std::string name, GroundTruthCacheName(m, a.k, queries));
  const std::string path = dir + "/" + name;
  store::LocalStoreOptions options;
  options.create_root = true;
  VIGILO_ASSIGN_OR_RETURN(auto cache, store::OpenLocalStore(dir, options));
  auto cached = cache->Head(name);
  if (cached.ok()) {
    VIGILO_ASSIGN_OR_RETURN(ivf::GroundTruth gt, ivf::ReadGroundTruth(path));
    if (gt.queries != queries.size() || gt.k != a.k) {
      return IntegrityError("the cached ground truth holds " + std::to_string(gt.queries) + " rows of " +
                            std::to_string(gt.k) + " ids, not " + std::to_string(queries.size()) + " of " +
                            std::to_string(a.k) + "; remove it")
          .WithPath(path);
    }
    std::fprintf(stderr, "vigilo: ground truth: from the cache %s\n", path.c_str());
    return gt;
  }
  if (cached.status().code() != StatusCode::kNotFound) return cached.status();
  VIGILO_ASSIGN_OR_RETURN(ivf::GroundTruth gt, ComputeGroundTruth(a, m, queries));
  const std::string bytes = EncodeNpyIds(gt);
  auto created = cache->CreateIfAbsent(
      name, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  // Another run may have cached the same bytes meanwhile; that is no error.
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) return created.status();
  std::fprintf(stderr, "vigilo: ground truth: computed over %llu base vectors, cached in %s\n",
               static_cast<unsigned long long>(m.index.ntotal), path.c_str());
  return gt;
}

Status Eval(const EvalArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(OpenedPublication opened, OpenPublication(a.manifest, /*use_cache=*/false));
  const ivf::Manifest& manifest = opened.publication->manifest();
  VIGILO_ASSIGN_OR_RETURN(auto queries, LoadQueries(QuerySource{"", a.queries, a.format, a.vector_field}, manifest));
  ivf::GroundTruth truth;
  if (!a.ground_truth.empty()) {
    VIGILO_ASSIGN_OR_RETURN(truth, ivf::ReadGroundTruth(a.ground_truth));
  } else {
    VIGILO_ASSIGN_OR_RETURN(truth, BaseGroundTruth(*opened.context, a, manifest, queries));
  }
  ivf::PublicationReader reader(manifest);
  ivf::EvalOptions o;
  o.k = a.k;
  o.nprobes = a.nprobes;
  o.batch = a.batch;
  o.warmup = a.warmup;
  o.screen = !a.no_screen;
  VIGILO_ASSIGN_OR_RETURN(auto points, ivf::EvaluateRecall(reader, opened.publication->store(), queries, truth, o));
  // JSON: every measurement at full precision. Text: the columns a reader
  // compares, rounded (recall to 4 digits, rates to whole units).
  std::vector<Record> rows;
  for (const ivf::EvalPoint& p : points) {
    Record r;
    r.Add("nprobe", json::Value::Uint(p.nprobe));
    if (a.output.json) {
      r.Add("recall", json::Value::Double(p.recall));
      r.Add("list_recall", json::Value::Double(p.list_recall));
      r.Add("qps", json::Value::Double(p.qps));
      r.Add("bytes_per_query", json::Value::Double(p.bytes_per_query));
      r.Add("requests_per_query", json::Value::Double(p.requests_per_query));
      r.Add("k", json::Value::Uint(a.k));
      r.Add("batch", json::Value::Uint(p.batch));
      r.Add("queries", json::Value::Uint(p.queries));
      r.Add("seconds", json::Value::Double(p.seconds));
      r.Add("kernel", json::Value(std::string(ivf::KernelName())));
    } else {
      r.Add("recall", json::Value::Double(Rounded(p.recall, 4)));
      r.Add("list_recall", json::Value::Double(Rounded(p.list_recall, 4)));
      r.Add("qps", json::Value::Uint(static_cast<uint64_t>(std::llround(p.qps))));
      r.Add("bytes_per_query", json::Value::Uint(static_cast<uint64_t>(std::llround(p.bytes_per_query))));
      r.Add("requests_per_query", json::Value::Double(Rounded(p.requests_per_query, 1)));
    }
    rows.push_back(std::move(r));
  }
  return PrintTable({"nprobe", "recall", "list_recall", "qps", "bytes_per_query", "requests_per_query"}, rows, a.output);
}

}  // namespace

void RegisterIndexEval(CLI::App* index, Action* action) {
  auto a = std::make_shared<EvalArgs>();
  auto* eval = index->add_subcommand("eval",
                                     "Recall@k, single-thread QPS and bytes read per query, per nprobe; the exact "
                                     "neighbours from --ground-truth, or computed from the build's input (--base) "
                                     "and cached");
  eval->add_option("manifest", a->manifest, kManifestHelp)->required()->type_name("PUBLICATION");
  eval->add_option("--queries", a->queries,
                   "Query vectors: .fvecs, .bvecs, .npy, .parquet, or .jsonl (objects holding the vector field, or "
                   "arrays); - reads stdin (needs --format)")
      ->required()
      ->type_name("FILE");
  eval->add_option("--format", a->format, "Format of --queries, overriding the extension (jsonl|fvecs|bvecs|npy|parquet)");
  eval->add_option("--vector-field", a->vector_field,
                   "Vector column/member of --queries (Parquet, JSONL); default: the manifest's vector-field");
  auto* truth = eval->add_option("--ground-truth", a->ground_truth,
                                 "Exact neighbour ids per query (the publication's long keys): .ivecs or .npy "
                                 "(int32/int64)")
                    ->type_name("FILE");
  auto* base = eval->add_option("--base", a->base,
                                "Instead of --ground-truth: the build's input vectors (its formats and vector-field "
                                "rules), searched exactly with the publication's metric; the result is cached in "
                                "$XDG_CACHE_HOME/vigilo/ground-truth (else ~/.cache/…) by artifact-uuid")
                   ->type_name("FILE");
  truth->excludes(base);
  base->excludes(truth);
  eval->add_option("--base-format", a->base_format, "Format of --base, overriding the extension")->needs(base);
  eval->add_option("--base-vector-field", a->base_vector_field,
                   "Vector column/member of --base; default: the manifest's vector-field")
      ->needs(base);
  eval->add_option("--threads", a->threads, "Threads of the exact search over --base (default: the cores available)")
      ->check(CLI::PositiveNumber)
      ->needs(base);
  eval->add_option("-k,--k", a->k, "Neighbours per query (default 10)")->check(CLI::PositiveNumber);
  eval->add_option("--nprobe", a->nprobes, "Comma-separated nprobe values (default 1,2,4,8,16,32,64)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  eval->add_option("--batch", a->batch, "Queries per query run: 1 = one at a time (default), 0 = all at once");
  eval->add_option("--warmup", a->warmup, "Untimed queries before each timed pass (default 100)");
  eval->add_flag("--no-screen", a->no_screen,
                 "Score every probed row exactly instead of screening with proven bounds first (same results; for "
                 "measuring the screen)");
  eval->add_flag("-q,--quiet", a->quiet,
                 "No progress bar for --base (one is drawn on stderr only when it is a terminal)");
  AddJsonFlag(eval, &a->output);
  eval->callback([a, action] {
    *action = [a] {
      if (a->ground_truth.empty() && a->base.empty()) {
        return InvalidArgument("index eval: give --ground-truth FILE, or --base FILE to compute it from the build's "
                               "input vectors");
      }
      return Eval(*a);
    };
  });
}

}  // namespace vigilo::cli
