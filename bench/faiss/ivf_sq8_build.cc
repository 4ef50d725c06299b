// bench/faiss/ivf_sq8_build: the FAISS peer of `vigilo index build` for
// bench/ivf_build.sh. Trains a faiss::IndexIVFScalarQuantizer (QT_8bit,
// residuals, as FAISS's "IVF<nlist>,SQ8") on a sample of an .fvecs base and
// adds every vector, then prints one JSON line with the phase times.
//
//   ivf_sq8_build BASE.fvecs --nlist N [--sample N] [--sample-mode random|first]
//                 [--iterations N] [--seed S] [--metric l2_squared|cosine]
//                 [--threads T] [--block N] [--write PATH]
//
// * sample: N training vectors (default: all), chosen as the first N rows or
//   (default) N distinct rows drawn with a SplitMix64 generator seeded with
//   --seed (partial Fisher-Yates over the row numbers), kept in row order.
//   FAISS's own subsampling is switched off (max_points_per_centroid), so
//   k-means sees exactly this sample.
// * iterations: ClusteringParameters::niter (FAISS's default is 25; vigilo's 10);
//   seed: ClusteringParameters::seed.
// * cosine: every vector (sample and base) is L2-normalised here, the coarse
//   quantizer is IndexFlatIP with spherical k-means and the index metric is
//   inner product; l2_squared: IndexFlatL2, METRIC_L2.
// * the base is read and added in blocks of --block rows (default 65,536), so
//   the process holds the sample, one block and FAISS's inverted lists — the
//   least memory FAISS needs — never the whole base.
// * threads: omp_set_num_threads(T) (default 2); OpenBLAS is set to one thread
//   (openblas_set_num_threads(1); also set OPENBLAS_NUM_THREADS=1 when timing:
//   OpenBLAS threads fight OpenMP's).
//
// * write: faiss::write_index to PATH after the add (as vigilo writes its
//   publication; FAISS does not fsync), timed as write_seconds (0 without).
//
// Output (stdout, one line): {"faiss": flavour, "faiss_version", "n", "d",
// "nlist", "sample", "iterations", "seed", "metric", "omp_threads",
// "read_sample_seconds", "train_seconds", "add_seconds" (reading the blocks
// included), "write_seconds", "total_seconds" (whole run from main()),
// "ntotal", "code_size", "imbalance_factor"}.
#include <faiss/Index.h>
#include <faiss/IndexFlat.h>
#include <faiss/IndexScalarQuantizer.h>
#include <faiss/index_io.h>
#include <faiss/invlists/InvertedLists.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <numeric>
#include <string>
#include <vector>

#ifndef VIGILO_FAISS_FLAVOUR
#define VIGILO_FAISS_FLAVOUR "unknown"
#endif

extern "C" void openblas_set_num_threads(int);

namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "ivf_sq8_build: %s\n", message.c_str());
  std::exit(1);
}

uint64_t ParseU64(const char* flag, const char* value) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(value, &end, 10);
  if (errno != 0 || end == value || *end != '\0' || value[0] == '-') Die(std::string("bad value for ") + flag + ": " + value);
  return v;
}

struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) by rejection (no modulo bias).
  uint64_t Below(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    for (;;) {
      uint64_t x = Next();
      if (x < limit) return x % n;
    }
  }
};

class Fvecs {
 public:
  explicit Fvecs(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) Die("cannot open " + path);
    int32_t d = 0;
    if (std::fread(&d, 4, 1, file_) != 1) Die(path + ": empty file");
    if (d <= 0 || d > 65536) Die(path + ": bad dimension " + std::to_string(d));
    d_ = static_cast<size_t>(d);
    std::fseek(file_, 0, SEEK_END);
    long size = std::ftell(file_);
    size_t record = 4 + 4 * d_;
    if (size <= 0 || static_cast<size_t>(size) % record != 0) Die(path + ": size is not a multiple of the record size");
    n_ = static_cast<size_t>(size) / record;
    Rewind();
  }
  ~Fvecs() { std::fclose(file_); }
  size_t n() const { return n_; }
  size_t d() const { return d_; }
  void Rewind() {
    std::fseek(file_, 0, SEEK_SET);
    row_ = 0;
  }
  // Reads up to `rows` vectors into out (rows × d floats); returns how many.
  size_t Read(size_t rows, std::vector<float>* out) {
    rows = std::min(rows, n_ - row_);
    size_t record = 1 + d_;
    buffer_.resize(rows * record);
    if (rows > 0 && std::fread(buffer_.data(), 4 * record, rows, file_) != rows) Die(path_ + ": short read");
    out->resize(rows * d_);
    for (size_t i = 0; i < rows; ++i) {
      int32_t d;
      std::memcpy(&d, &buffer_[i * record], 4);
      if (static_cast<size_t>(d) != d_) Die(path_ + ": row " + std::to_string(row_ + i) + " has another dimension");
      std::memcpy(out->data() + i * d_, &buffer_[i * record + 1], 4 * d_);
    }
    row_ += rows;
    return rows;
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  size_t n_ = 0, d_ = 0, row_ = 0;
  std::vector<float> buffer_;
};

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

}  // namespace

int main(int argc, char** argv) {
  Clock::time_point start = Clock::now();
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: ivf_sq8_build BASE.fvecs --nlist N [--sample N] [--sample-mode random|first]\n"
                 "       [--iterations N] [--seed S] [--metric l2_squared|cosine] [--threads T] [--block N]\n"
                 "       [--write PATH]\n");
    return 2;
  }
  std::string base = argv[1];
  uint64_t nlist = 0, sample = 0, iterations = 10, seed = 1, threads = 2, block = 65536;
  std::string metric = "l2_squared", sample_mode = "random", write_path;
  for (int i = 2; i < argc; i += 2) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Die("missing value for " + flag);
    const char* value = argv[i + 1];
    if (flag == "--nlist") nlist = ParseU64(argv[i], value);
    else if (flag == "--sample") sample = ParseU64(argv[i], value);
    else if (flag == "--iterations") iterations = ParseU64(argv[i], value);
    else if (flag == "--seed") seed = ParseU64(argv[i], value);
    else if (flag == "--threads") threads = ParseU64(argv[i], value);
    else if (flag == "--block") block = ParseU64(argv[i], value);
    else if (flag == "--metric") metric = value;
    else if (flag == "--sample-mode") sample_mode = value;
    else if (flag == "--write") write_path = value;
    else Die("unknown option " + flag);
  }
  if (metric != "l2_squared" && metric != "cosine") Die("--metric must be l2_squared or cosine");
  if (sample_mode != "random" && sample_mode != "first") Die("--sample-mode must be random or first");
  if (threads == 0 || block == 0) Die("--threads and --block must be positive");
  if (seed > INT32_MAX) Die("--seed must fit FAISS's int seed");
  bool cosine = metric == "cosine";
  openblas_set_num_threads(1);
  omp_set_num_threads(static_cast<int>(threads));

  Fvecs input(base);
  const size_t n = input.n(), d = input.d();
  if (sample == 0 || sample > n) sample = n;
  if (nlist == 0 || nlist > sample) Die("--nlist must be in 1..sample");

  // The sample, in row order.
  Clock::time_point t = Clock::now();
  std::vector<uint32_t> chosen;
  if (sample_mode == "first" || sample == n) {
    chosen.resize(sample);
    std::iota(chosen.begin(), chosen.end(), 0u);
  } else {
    std::vector<uint32_t> rows(n);
    std::iota(rows.begin(), rows.end(), 0u);
    SplitMix64 rng{seed};
    for (size_t i = 0; i < sample; ++i) std::swap(rows[i], rows[i + rng.Below(n - i)]);
    chosen.assign(rows.begin(), rows.begin() + static_cast<long>(sample));
    std::sort(chosen.begin(), chosen.end());
  }
  std::vector<float> train(sample * d), buffer;
  {
    size_t next = 0, row = 0;
    while (next < chosen.size()) {
      size_t got = input.Read(block, &buffer);
      if (got == 0) Die("input ended early");
      while (next < chosen.size() && chosen[next] < row + got) {
        std::memcpy(train.data() + next * d, buffer.data() + (chosen[next] - row) * d, 4 * d);
        ++next;
      }
      row += got;
    }
  }
  std::vector<uint32_t>().swap(chosen);
  if (cosine) Normalize(train.data(), sample, d);
  double read_sample_seconds = Since(t);

  try {
    faiss::MetricType faiss_metric = cosine ? faiss::METRIC_INNER_PRODUCT : faiss::METRIC_L2;
    faiss::IndexFlat quantizer(static_cast<faiss::Index::idx_t>(d), faiss_metric);
    faiss::IndexIVFScalarQuantizer index(&quantizer, d, nlist, faiss::ScalarQuantizer::QT_8bit, faiss_metric,
                                         /*encode_residual=*/true);
    index.cp.niter = static_cast<int>(iterations);
    index.cp.seed = static_cast<int>(seed);
    index.cp.spherical = cosine;
    index.cp.max_points_per_centroid = static_cast<int>(std::min<uint64_t>(INT32_MAX, sample / nlist + 1));
    index.cp.verbose = false;

    t = Clock::now();
    index.train(static_cast<faiss::Index::idx_t>(sample), train.data());
    double train_seconds = Since(t);
    std::vector<float>().swap(train);

    t = Clock::now();
    input.Rewind();
    for (;;) {
      size_t got = input.Read(block, &buffer);
      if (got == 0) break;
      if (cosine) Normalize(buffer.data(), got, d);
      index.add(static_cast<faiss::Index::idx_t>(got), buffer.data());
    }
    double add_seconds = Since(t);
    double write_seconds = 0;
    if (!write_path.empty()) {
      t = Clock::now();
      faiss::write_index(&index, write_path.c_str());
      write_seconds = Since(t);
    }
    double imbalance = index.invlists->imbalance_factor();
    std::printf(
        "{\"faiss\":\"%s\",\"faiss_version\":\"%d.%d.%d\",\"n\":%zu,\"d\":%zu,\"nlist\":%llu,\"sample\":%llu,"
        "\"sample_mode\":\"%s\",\"iterations\":%llu,\"seed\":%llu,\"metric\":\"%s\",\"omp_threads\":%d,"
        "\"read_sample_seconds\":%.3f,\"train_seconds\":%.3f,\"add_seconds\":%.3f,\"write_seconds\":%.3f,\"total_seconds\":%.3f,"
        "\"ntotal\":%lld,\"code_size\":%zu,\"imbalance_factor\":%.4f}\n",
        VIGILO_FAISS_FLAVOUR, FAISS_VERSION_MAJOR, FAISS_VERSION_MINOR, FAISS_VERSION_PATCH, n, d,
        static_cast<unsigned long long>(nlist), static_cast<unsigned long long>(sample), sample_mode.c_str(),
        static_cast<unsigned long long>(iterations), static_cast<unsigned long long>(seed), metric.c_str(),
        omp_get_max_threads(), read_sample_seconds, train_seconds, add_seconds, write_seconds, Since(start),
        static_cast<long long>(index.ntotal), index.code_size, imbalance);
  } catch (const std::exception& e) {
    Die(std::string("FAISS: ") + e.what());
  }
  return 0;
}
