// ground_truth BASE.fvecs QUERIES.fvecs METRIC K OUT.ivecs [THREADS]
//
// Exact k nearest neighbours by brute force, for benchmark recall. METRIC is
// l2_squared (sum of squared differences, ascending) or cosine (dot / (|q| |x|),
// descending; a zero vector scores 0). Every distance is accumulated in double
// precision, element by element in index order, with no FMA contraction
// (compile with -ffp-contract=off), so the values — and therefore the order —
// do not depend on the compiler, the vector width or the thread count; equal
// values are ordered by the lower base id. Output: per query an int32 k then
// k int32 base row ids (.ivecs).
//
// Inputs are loaded whole (the base as floats: 341,479 × 100 is 137 MB);
// queries are processed in tiles of kTile, transposed so that the inner loop
// runs across the tile's queries (independent sums, vectorisable without
// reordering any one sum).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <queue>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kTile = 8;

struct Matrix {
  size_t rows = 0;
  size_t dim = 0;
  std::vector<float> values;
  const float* Row(size_t r) const { return values.data() + r * dim; }
};

bool ReadFvecs(const std::string& path, Matrix* m, std::string* error) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    *error = "cannot open " + path;
    return false;
  }
  auto size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  int32_t d = 0;
  if (size < 4 || !in.read(reinterpret_cast<char*>(&d), 4) || d <= 0 || d > 65536) {
    *error = path + ": no valid first record";
    return false;
  }
  uint64_t record = 4 + 4 * static_cast<uint64_t>(d);
  if (size % record != 0) {
    *error = path + ": size is not a multiple of the record size";
    return false;
  }
  m->dim = static_cast<size_t>(d);
  m->rows = size / record;
  m->values.resize(m->rows * m->dim);
  in.seekg(0);
  for (size_t r = 0; r < m->rows; ++r) {
    int32_t rd = 0;
    in.read(reinterpret_cast<char*>(&rd), 4);
    in.read(reinterpret_cast<char*>(m->values.data() + r * m->dim), static_cast<std::streamsize>(4 * m->dim));
    if (!in || rd != d) {
      *error = path + ": row " + std::to_string(r) + " is short or has another dimension";
      return false;
    }
    for (size_t j = 0; j < m->dim; ++j) {
      if (!std::isfinite(m->values[r * m->dim + j])) {
        *error = path + ": row " + std::to_string(r) + " is not finite";
        return false;
      }
    }
  }
  return true;
}

// (key, id) ascending is the neighbour order: key is the l2 distance, or the
// negated cosine score (negation is exact).
struct Candidate {
  double key;
  uint32_t id;
  bool operator<(const Candidate& o) const { return key < o.key || (key == o.key && id < o.id); }
};

double SquaredNorm(const float* v, size_t dim) {
  double s = 0;
  for (size_t j = 0; j < dim; ++j) s += static_cast<double>(v[j]) * static_cast<double>(v[j]);
  return s;
}

// Neighbours of queries [q0, q0 + n), n ≤ kTile, into out (k ids per query).
void SolveTile(const Matrix& base, const std::vector<double>& base_norms, const Matrix& queries, size_t q0, size_t n,
               bool cosine, size_t k, std::vector<int32_t>* out) {
  const size_t dim = base.dim;
  std::vector<double> qt(dim * kTile, 0.0);  // qt[j * kTile + t] = query q0 + t, element j
  double qnorm[kTile] = {};
  for (size_t t = 0; t < n; ++t) {
    const float* q = queries.Row(q0 + t);
    for (size_t j = 0; j < dim; ++j) qt[j * kTile + t] = q[j];
    qnorm[t] = std::sqrt(SquaredNorm(q, dim));
  }
  std::priority_queue<Candidate> heaps[kTile];  // max-heaps: the worst kept neighbour on top
  for (size_t i = 0; i < base.rows; ++i) {
    const float* x = base.Row(i);
    double acc[kTile] = {};
    if (cosine) {
      for (size_t j = 0; j < dim; ++j) {
        double xj = x[j];
        for (size_t t = 0; t < kTile; ++t) acc[t] += qt[j * kTile + t] * xj;
      }
    } else {
      for (size_t j = 0; j < dim; ++j) {
        double xj = x[j];
        for (size_t t = 0; t < kTile; ++t) {
          double diff = qt[j * kTile + t] - xj;
          acc[t] += diff * diff;
        }
      }
    }
    for (size_t t = 0; t < n; ++t) {
      double key = acc[t];
      if (cosine) {
        double denom = qnorm[t] * base_norms[i];
        key = denom == 0.0 ? 0.0 : -(acc[t] / denom);
      }
      Candidate c{key, static_cast<uint32_t>(i)};
      if (heaps[t].size() < k) {
        heaps[t].push(c);
      } else if (c < heaps[t].top()) {
        heaps[t].pop();
        heaps[t].push(c);
      }
    }
  }
  for (size_t t = 0; t < n; ++t) {
    std::vector<Candidate> sorted;
    while (!heaps[t].empty()) {
      sorted.push_back(heaps[t].top());
      heaps[t].pop();
    }
    std::reverse(sorted.begin(), sorted.end());
    int32_t* dst = out->data() + (q0 + t) * k;
    for (size_t r = 0; r < k; ++r) dst[r] = static_cast<int32_t>(sorted[r].id);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6 || argc > 7) {
    std::cerr << "usage: ground_truth BASE.fvecs QUERIES.fvecs l2_squared|cosine K OUT.ivecs [THREADS]\n";
    return 2;
  }
  std::string metric = argv[3];
  if (metric != "l2_squared" && metric != "cosine") {
    std::cerr << "ground_truth: metric must be l2_squared or cosine\n";
    return 2;
  }
  bool cosine = metric == "cosine";
  size_t k = std::strtoul(argv[4], nullptr, 10);
  size_t threads = argc == 7 ? std::strtoul(argv[6], nullptr, 10) : std::max(1u, std::thread::hardware_concurrency());
  Matrix base, queries;
  std::string error;
  if (!ReadFvecs(argv[1], &base, &error) || !ReadFvecs(argv[2], &queries, &error)) {
    std::cerr << "ground_truth: " << error << "\n";
    return 1;
  }
  if (base.dim != queries.dim || k == 0 || k > base.rows || base.rows > INT32_MAX || threads == 0) {
    std::cerr << "ground_truth: dimensions differ, or K is not in 1…rows\n";
    return 1;
  }
  std::vector<double> base_norms(base.rows);
  for (size_t i = 0; i < base.rows; ++i) base_norms[i] = std::sqrt(SquaredNorm(base.Row(i), base.dim));

  std::vector<int32_t> ids(queries.rows * k);
  std::atomic<size_t> next_tile{0};
  size_t tiles = (queries.rows + kTile - 1) / kTile;
  std::vector<std::thread> pool;
  for (size_t w = 0; w < threads; ++w) {
    pool.emplace_back([&] {
      for (size_t tile; (tile = next_tile.fetch_add(1)) < tiles;) {
        size_t q0 = tile * kTile;
        SolveTile(base, base_norms, queries, q0, std::min(kTile, queries.rows - q0), cosine, k, &ids);
      }
    });
  }
  for (auto& t : pool) t.join();

  std::ofstream out(argv[5], std::ios::binary);
  auto k32 = static_cast<int32_t>(k);
  for (size_t q = 0; q < queries.rows; ++q) {
    out.write(reinterpret_cast<const char*>(&k32), 4);
    out.write(reinterpret_cast<const char*>(ids.data() + q * k), static_cast<std::streamsize>(4 * k));
  }
  out.close();
  if (!out) {
    std::cerr << "ground_truth: cannot write " << argv[5] << "\n";
    return 1;
  }
  std::cout << argv[5] << ": " << queries.rows << " queries × " << k << " (" << metric << ", " << base.rows
            << " base rows, " << threads << " threads)\n";
  return 0;
}
