// bench/faiss/ivf_search: the FAISS peer of `vigilo index eval` for
// bench/ivf_query.sh. Trains one coarse quantizer (flat k-means, nlist
// centroids) on a sample of an .fvecs base, builds IVF indexes that share it,
// adds every vector, and for each nprobe measures recall@k against exact
// ground truth and single-thread QPS, queries one at a time and batched.
//
//   ivf_search BASE.fvecs QUERIES.fvecs GT.ivecs --nlist N
//              [--indexes flat,sq8,sq4,pq4fs] [--pq-m M] [--metric l2_squared|cosine]
//              [--sample N] [--iterations N] [--seed S] [--k 10]
//              [--nprobe 1,2,4,...] [--one-queries N] [--warmup N]
//              [--ceiling-eps E] [--ceiling-from P]
//
// * indexes (default flat,sq8,pq4fs): IVF-Flat = IndexIVFFlat; IVF-SQ8 / IVF-SQ4 =
//   IndexIVFScalarQuantizer QT_8bit / QT_4bit on residuals (FAISS's "IVF<n>,SQ8");
//   IVF-PQ FastScan = IndexIVFPQFastScan with M sub-quantizers of 4 bits, on
//   residuals ("IVF<n>,PQ<M>x4fs"), M = --pq-m (default d/2; must divide d).
//   Every index uses the same trained coarse quantizer (FAISS skips k-means
//   when the quantizer is already trained), so they differ only in their codes.
// * sample: N training vectors (default min(n, 256·nlist), FAISS's and vigilo's
//   default), N distinct rows drawn with SplitMix64 seeded with --seed, in row
//   order; FAISS's own subsampling of the k-means input is switched off.
//   iterations: ClusteringParameters::niter (default 10, vigilo's); seed: cp.seed.
// * cosine: base and queries are L2-normalised, the quantizer is IndexFlatIP
//   with spherical k-means and the index metric is inner product (ranks as
//   cosine); l2_squared: IndexFlatL2, METRIC_L2.
// * one thread: omp_set_num_threads(1), openblas_set_num_threads(1) (set
//   OPENBLAS_NUM_THREADS=1 too).
// * per nprobe (in the given order; values above nlist are skipped): a
//   warm-up of --warmup queries (default 100, untimed), then
//   - batched: one search() call with every query: recall and QPS;
//   - one at a time: search() with n = 1 for each of the first --one-queries
//     queries (default all) in turn: QPS (and recall over those queries);
//   recall@k = |found ∩ gt[0,k)| / k averaged over the queries.
//   A ceiling stop: once nprobe ≥ --ceiling-from (default 64), the sweep of an
//   index ends when recall rose by less than --ceiling-eps (default 0.0005)
//   over the previous nprobe.
//
// Output (stdout, JSON lines): per index {"type":"index", "index", "faiss",
// "faiss_version", "n", "d", "nlist", "sample", "iterations", "metric",
// "code_size", "train_seconds", "add_seconds", "imbalance_factor", "pq_m"}; per
// nprobe {"type":"point", "index", "faiss", "nprobe", "recall", "qps_batch",
// "queries_batch", "recall_one", "qps_one", "queries_one"}. Progress on stderr.
#include <faiss/Index.h>
#include <faiss/IndexFlat.h>
#include <faiss/IndexIVFFlat.h>
#include <faiss/IndexIVFPQFastScan.h>
#include <faiss/IndexScalarQuantizer.h>
#include <faiss/invlists/InvertedLists.h>
#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#ifndef VIGILO_FAISS_FLAVOUR
#define VIGILO_FAISS_FLAVOUR "unknown"
#endif

extern "C" void openblas_set_num_threads(int);

namespace {

using Clock = std::chrono::steady_clock;
using idx_t = faiss::Index::idx_t;
double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "ivf_search: %s\n", message.c_str());
  std::exit(1);
}

uint64_t ParseU64(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(value.c_str(), &end, 10);
  if (errno != 0 || end == value.c_str() || *end != '\0' || value[0] == '-') Die("bad value for " + flag + ": " + value);
  return v;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    for (;;) {
      uint64_t x = Next();
      if (x < limit) return x % n;
    }
  }
};

// An .fvecs or .ivecs file read whole: rows × d values (4 bytes each).
template <typename T>
std::vector<T> ReadVecs(const std::string& path, size_t* rows, size_t* dim) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) Die("cannot open " + path);
  int32_t d = 0;
  if (std::fread(&d, 4, 1, f) != 1) Die(path + ": empty file");
  if (d <= 0 || d > 65536) Die(path + ": bad dimension " + std::to_string(d));
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  size_t record = 4 + 4 * static_cast<size_t>(d);
  if (size <= 0 || static_cast<size_t>(size) % record != 0) Die(path + ": size is not a multiple of the record size");
  size_t n = static_cast<size_t>(size) / record;
  std::fseek(f, 0, SEEK_SET);
  std::vector<T> out(n * static_cast<size_t>(d));
  std::vector<uint8_t> buffer(record);
  for (size_t i = 0; i < n; ++i) {
    if (std::fread(buffer.data(), record, 1, f) != 1) Die(path + ": short read");
    int32_t di;
    std::memcpy(&di, buffer.data(), 4);
    if (di != d) Die(path + ": row " + std::to_string(i) + " has another dimension");
    std::memcpy(out.data() + i * static_cast<size_t>(d), buffer.data() + 4, record - 4);
  }
  std::fclose(f);
  *rows = n;
  *dim = static_cast<size_t>(d);
  return out;
}

void Normalize(float* x, size_t rows, size_t d) {
  for (size_t i = 0; i < rows; ++i) {
    float* v = x + i * d;
    double s = 0;
    for (size_t j = 0; j < d; ++j) s += static_cast<double>(v[j]) * v[j];
    if (s > 0) {
      float inv = static_cast<float>(1.0 / std::sqrt(s));
      for (size_t j = 0; j < d; ++j) v[j] *= inv;
    }
  }
}

// Mean recall@k of labels (nq × k) against the ground truth (rows of gt_k ids).
double Recall(const std::vector<idx_t>& labels, size_t nq, size_t k, const std::vector<int32_t>& gt, size_t gt_k) {
  double sum = 0;
  for (size_t q = 0; q < nq; ++q) {
    std::unordered_set<int64_t> truth(gt.begin() + static_cast<long>(q * gt_k),
                                      gt.begin() + static_cast<long>(q * gt_k + k));
    std::unordered_set<int64_t> seen;
    size_t hits = 0;
    for (size_t j = 0; j < k; ++j) {
      idx_t id = labels[q * k + j];
      if (id < 0 || !seen.insert(id).second) continue;
      hits += truth.count(id);
    }
    sum += static_cast<double>(hits) / static_cast<double>(k);
  }
  return nq == 0 ? 0 : sum / static_cast<double>(nq);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: ivf_search BASE.fvecs QUERIES.fvecs GT.ivecs --nlist N [--indexes flat,sq8,sq4,pq4fs]\n"
                 "       [--pq-m M] [--metric l2_squared|cosine] [--sample N] [--iterations N] [--seed S] [--k 10]\n"
                 "       [--nprobe 1,2,4,...] [--one-queries N] [--warmup N] [--ceiling-eps E] [--ceiling-from P]\n");
    return 2;
  }
  const std::string base_path = argv[1], queries_path = argv[2], gt_path = argv[3];
  uint64_t nlist = 0, sample = 0, iterations = 10, seed = 1, k = 10, pq_m = 0, one_queries = 0, warmup = 100;
  uint64_t ceiling_from = 64;
  double ceiling_eps = 0.0005;
  std::string metric = "l2_squared", indexes_arg = "flat,sq8,pq4fs", nprobe_arg = "1,2,4,8,16,32,64,128,256";
  for (int i = 4; i < argc; i += 2) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Die("missing value for " + flag);
    std::string value = argv[i + 1];
    if (flag == "--nlist") nlist = ParseU64(flag, value);
    else if (flag == "--sample") sample = ParseU64(flag, value);
    else if (flag == "--iterations") iterations = ParseU64(flag, value);
    else if (flag == "--seed") seed = ParseU64(flag, value);
    else if (flag == "--k") k = ParseU64(flag, value);
    else if (flag == "--pq-m") pq_m = ParseU64(flag, value);
    else if (flag == "--one-queries") one_queries = ParseU64(flag, value);
    else if (flag == "--warmup") warmup = ParseU64(flag, value);
    else if (flag == "--ceiling-from") ceiling_from = ParseU64(flag, value);
    else if (flag == "--ceiling-eps") ceiling_eps = std::atof(value.c_str());
    else if (flag == "--metric") metric = value;
    else if (flag == "--indexes") indexes_arg = value;
    else if (flag == "--nprobe") nprobe_arg = value;
    else Die("unknown option " + flag);
  }
  if (metric != "l2_squared" && metric != "cosine") Die("--metric must be l2_squared or cosine");
  if (seed > INT32_MAX) Die("--seed must fit FAISS's int seed");
  if (k == 0) Die("--k must be positive");
  std::vector<uint64_t> nprobes;
  for (const std::string& s : Split(nprobe_arg)) nprobes.push_back(ParseU64("--nprobe", s));
  const bool cosine = metric == "cosine";
  openblas_set_num_threads(1);
  omp_set_num_threads(1);

  size_t n = 0, d = 0, nq = 0, dq = 0, ngt = 0, gt_k = 0;
  std::vector<float> base = ReadVecs<float>(base_path, &n, &d);
  std::vector<float> queries = ReadVecs<float>(queries_path, &nq, &dq);
  std::vector<int32_t> gt = ReadVecs<int32_t>(gt_path, &ngt, &gt_k);
  if (dq != d) Die("queries and base differ in dimension");
  if (ngt < nq) Die("the ground truth has fewer rows than there are queries");
  if (gt_k < k) Die("the ground truth has fewer than k columns");
  if (one_queries == 0 || one_queries > nq) one_queries = nq;
  if (warmup > nq) warmup = nq;
  if (cosine) {
    Normalize(base.data(), n, d);
    Normalize(queries.data(), nq, d);
  }
  if (sample == 0) sample = std::min<uint64_t>(n, 256 * nlist);
  if (sample > n) sample = n;
  if (nlist == 0 || nlist > sample) Die("--nlist must be in 1..sample");
  if (pq_m == 0) pq_m = d / 2;
  if (d % pq_m != 0) Die("--pq-m must divide d");

  std::vector<uint32_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0u);
  if (sample < n) {
    SplitMix64 rng{seed};
    for (size_t i = 0; i < sample; ++i) std::swap(rows[i], rows[i + rng.Below(n - i)]);
    rows.resize(sample);
    std::sort(rows.begin(), rows.end());
  }
  std::vector<float> train(sample * d);
  for (size_t i = 0; i < sample; ++i) std::memcpy(train.data() + i * d, base.data() + size_t{rows[i]} * d, 4 * d);

  try {
    const faiss::MetricType faiss_metric = cosine ? faiss::METRIC_INNER_PRODUCT : faiss::METRIC_L2;
    faiss::IndexFlat quantizer(static_cast<idx_t>(d), faiss_metric);
    bool first = true;
    for (const std::string& kind : Split(indexes_arg)) {
      std::unique_ptr<faiss::IndexIVF> index;
      std::string name;
      if (kind == "flat") {
        index = std::make_unique<faiss::IndexIVFFlat>(&quantizer, d, nlist, faiss_metric);
        name = "IVF-Flat";
      } else if (kind == "sq8" || kind == "sq4") {
        index = std::make_unique<faiss::IndexIVFScalarQuantizer>(
            &quantizer, d, nlist, kind == "sq8" ? faiss::ScalarQuantizer::QT_8bit : faiss::ScalarQuantizer::QT_4bit,
            faiss_metric, /*encode_residual=*/true);
        name = kind == "sq8" ? "IVF-SQ8" : "IVF-SQ4";
      } else if (kind == "pq4fs") {
        index = std::make_unique<faiss::IndexIVFPQFastScan>(&quantizer, d, nlist, pq_m, 4, faiss_metric);
        name = "IVF-PQ" + std::to_string(pq_m) + "x4fs";
      } else {
        Die("unknown index " + kind + " (flat, sq8, sq4, pq4fs)");
      }
      index->own_fields = false;
      index->cp.niter = static_cast<int>(iterations);
      index->cp.seed = static_cast<int>(seed);
      index->cp.spherical = cosine;
      index->cp.max_points_per_centroid = static_cast<int>(std::min<uint64_t>(INT32_MAX, sample / nlist + 1));
      index->cp.verbose = false;
      std::fprintf(stderr, "ivf_search: %s %s: train ...\n", VIGILO_FAISS_FLAVOUR, name.c_str());
      Clock::time_point t = Clock::now();
      index->train(static_cast<idx_t>(sample), train.data());  // k-means only the first time
      double train_seconds = Since(t);
      t = Clock::now();
      index->add(static_cast<idx_t>(n), base.data());
      double add_seconds = Since(t);
      std::printf(
          "{\"type\":\"index\",\"index\":\"%s\",\"faiss\":\"%s\",\"faiss_version\":\"%d.%d.%d\",\"n\":%zu,\"d\":%zu,"
          "\"nlist\":%llu,\"sample\":%llu,\"iterations\":%llu,\"seed\":%llu,\"metric\":\"%s\",\"code_size\":%zu,"
          "\"train_seconds\":%.3f,\"kmeans_trained_here\":%s,\"add_seconds\":%.3f,\"imbalance_factor\":%.4f,"
          "\"pq_m\":%llu}\n",
          name.c_str(), VIGILO_FAISS_FLAVOUR, FAISS_VERSION_MAJOR, FAISS_VERSION_MINOR, FAISS_VERSION_PATCH, n, d,
          static_cast<unsigned long long>(nlist), static_cast<unsigned long long>(sample),
          static_cast<unsigned long long>(iterations), static_cast<unsigned long long>(seed), metric.c_str(),
          index->code_size, train_seconds, first ? "true" : "false", add_seconds,
          index->invlists->imbalance_factor(), static_cast<unsigned long long>(kind == "pq4fs" ? pq_m : 0));
      std::fflush(stdout);
      first = false;

      std::vector<float> distances(nq * k);
      std::vector<idx_t> labels(nq * k), one_labels(one_queries * k);
      double previous = -1;
      for (uint64_t nprobe : nprobes) {
        if (nprobe == 0 || nprobe > nlist) continue;
        index->nprobe = nprobe;
        if (warmup > 0) index->search(static_cast<idx_t>(warmup), queries.data(), k, distances.data(), labels.data());
        t = Clock::now();
        index->search(static_cast<idx_t>(nq), queries.data(), k, distances.data(), labels.data());
        double batch_seconds = Since(t);
        double recall = Recall(labels, nq, k, gt, gt_k);
        if (warmup > 0) index->search(static_cast<idx_t>(warmup), queries.data(), k, distances.data(), labels.data());
        t = Clock::now();
        for (size_t q = 0; q < one_queries; ++q) {
          index->search(1, queries.data() + q * d, k, distances.data(), one_labels.data() + q * k);
        }
        double one_seconds = Since(t);
        double recall_one = Recall(one_labels, one_queries, k, gt, gt_k);
        std::printf(
            "{\"type\":\"point\",\"index\":\"%s\",\"faiss\":\"%s\",\"nprobe\":%llu,\"recall\":%.4f,"
            "\"qps_batch\":%.1f,\"queries_batch\":%zu,\"recall_one\":%.4f,\"qps_one\":%.1f,\"queries_one\":%llu}\n",
            name.c_str(), VIGILO_FAISS_FLAVOUR, static_cast<unsigned long long>(nprobe), recall,
            static_cast<double>(nq) / batch_seconds, nq, recall_one,
            static_cast<double>(one_queries) / one_seconds, static_cast<unsigned long long>(one_queries));
        std::fflush(stdout);
        std::fprintf(stderr, "ivf_search: %s %s nprobe %llu: recall %.4f\n", VIGILO_FAISS_FLAVOUR, name.c_str(),
                     static_cast<unsigned long long>(nprobe), recall);
        if (nprobe >= ceiling_from && recall - previous < ceiling_eps) break;
        previous = recall;
      }
    }
  } catch (const std::exception& e) {
    Die(std::string("FAISS: ") + e.what());
  }
  return 0;
}
