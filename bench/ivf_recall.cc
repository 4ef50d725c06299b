// Recall@10 of a publication's encoding, with and without residuals
// (publication-v1.md §4.2 asks for this measurement once).
//
//   ivf_recall PUBLICATION_DIR BASE.fvecs QUERIES.fvecs GT.ivecs [NPROBE...]
//
// For each query the nprobe nearest decoded leaf centroids are probed (as a
// reader does) and the probed rows ranked three ways: by the publication's
// reconstruction x̂ = ĉ + r̂ (residual LVQ), by a direct LVQ code of x with the
// same bits (no residual; same assignment), and by the exact float x (the
// probing-only ceiling). Base row i is key i (the builder's default key).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "vigilo/common/byte_source.h"
#include "vigilo/ivf/distance.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/parquet/local_file.h"

using namespace vigilo;       // NOLINT
using namespace vigilo::ivf;  // NOLINT

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "ivf_recall: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Check(Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.status().ToString());
  return std::move(r).value();
}
void Check(const Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

// .fvecs / .ivecs: per row int32 d then d 4-byte values.
template <typename T>
std::vector<T> ReadVecs(const std::string& path, size_t* d) {
  std::ifstream f(path, std::ios::binary);
  if (!f) Die("cannot open " + path);
  std::vector<T> out;
  int32_t dim = 0;
  while (f.read(reinterpret_cast<char*>(&dim), 4)) {
    *d = static_cast<size_t>(dim);
    size_t at = out.size();
    out.resize(at + *d);
    f.read(reinterpret_cast<char*>(out.data() + at), static_cast<std::streamsize>(*d * 4));
  }
  return out;
}

struct Variant {
  const char* name;
  std::vector<float> vectors;  // n × d, by key
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) Die("usage: ivf_recall PUBLICATION_DIR BASE.fvecs QUERIES.fvecs GT.ivecs [NPROBE...]");
  std::string dir = argv[1];
  std::vector<size_t> nprobes;
  for (int i = 5; i < argc; ++i) nprobes.push_back(std::strtoul(argv[i], nullptr, 10));
  if (nprobes.empty()) nprobes = {1, 4, 16, 64};

  Manifest m = Check(ParseManifest(Check(ReadFileToString(dir + "/manifest.json", kMaxManifestBytes), "manifest")),
                     "manifest");
  const size_t d = m.index.dimension, nlist = m.index.nlist, n = m.index.ntotal;
  const Encoding e = m.index.encoding;
  const bool cosine = m.index.metric == Metric::kCosine;
  size_t bd = 0, qd = 0, gd = 0;
  std::vector<float> base = ReadVecs<float>(argv[2], &bd);
  std::vector<float> queries = ReadVecs<float>(argv[3], &qd);
  std::vector<int32_t> gt = ReadVecs<int32_t>(argv[4], &gd);
  if (bd != d || qd != d || base.size() != n * d) Die("base/queries do not match the publication");
  if (cosine) {
    Check(NormalizeL2Rows(base, d), "normalize base");
    Check(NormalizeL2Rows(queries, d), "normalize queries");
  }
  const size_t nq = queries.size() / d;

  // Decoded centroids.
  auto cfile = Check(parquet::LocalParquetFile::Open(dir + "/" + m.hierarchy.centroids.path), "centroids");
  std::vector<float> centroids;
  for (size_t rg = 0; rg < cfile.footer().metadata.row_groups.size(); ++rg) {
    auto off = Check(cfile.ReadColumnChunk(rg, 2), "c"), sc = Check(cfile.ReadColumnChunk(rg, 3), "c"),
         code = Check(cfile.ReadColumnChunk(rg, 4), "c");
    for (size_t i = 0; i < off.values.floats.size(); ++i) {
      std::vector<float> c(d);
      Check(DecodeLvq(Encoding::kLvq8, {off.values.floats[i], sc.values.floats[i]}, code.values.Binary(i), c), "decode");
      centroids.insert(centroids.end(), c.begin(), c.end());
    }
  }
  // Postings: each key's leaf and its three reconstructions.
  std::vector<std::vector<uint32_t>> lists(nlist);
  Variant residual{"residual LVQ (the format)", std::vector<float>(n * d)};
  Variant direct{"direct LVQ, no residual", std::vector<float>(n * d)};
  Variant exact{"exact float (probing only)", base};
  std::vector<uint8_t> code(CodeBytes(e, d));
  for (const PostingsFile& pf : m.postings) {
    auto file = Check(parquet::LocalParquetFile::Open(dir + "/" + pf.object.path), "postings");
    for (size_t rg = 0; rg < file.footer().metadata.row_groups.size(); ++rg) {
      auto cids = Check(file.ReadColumnChunk(rg, 0), "p"), keys = Check(file.ReadColumnChunk(rg, 1), "p"),
           off = Check(file.ReadColumnChunk(rg, 2), "p"), sc = Check(file.ReadColumnChunk(rg, 3), "p"),
           codes = Check(file.ReadColumnChunk(rg, 4), "p");
      for (size_t i = 0; i < cids.values.int32s.size(); ++i) {
        auto cid = static_cast<size_t>(cids.values.int32s[i]);
        auto key = static_cast<size_t>(keys.values.int64s[i]);
        lists[cid].push_back(static_cast<uint32_t>(key));
        std::span<float> out(residual.vectors.data() + key * d, d);
        Check(ReconstructResidual(e, {off.values.floats[i], sc.values.floats[i]}, codes.values.Binary(i),
                                  std::span<const float>(centroids.data() + cid * d, d), out),
              "reconstruct");
        std::span<const float> x(base.data() + key * d, d);
        LvqParams p = Check(EncodeLvq(e, x, code), "encode");
        Check(DecodeLvq(e, p, code, std::span<float>(direct.vectors.data() + key * d, d)), "decode");
      }
    }
  }

  std::printf("%s: %zu queries, %s %s, nlist %zu, d %zu\n", dir.c_str(), nq, MetricName(m.index.metric).data(),
              EncodingName(e).data(), nlist, d);
  std::printf("| nprobe | %s | %s | %s |\n|---:|---:|---:|---:|\n", residual.name, direct.name, exact.name);
  for (size_t nprobe : nprobes) {
    uint64_t hits[3] = {0, 0, 0};
    for (size_t q = 0; q < nq; ++q) {
      std::span<const float> query(queries.data() + q * d, d);
      std::vector<std::pair<float, uint32_t>> order(nlist);
      for (size_t c = 0; c < nlist; ++c) {
        order[c] = {FloatDistance(m.index.metric, query, std::span<const float>(centroids.data() + c * d, d)),
                    static_cast<uint32_t>(c)};
      }
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(std::min(nprobe, nlist)), order.end());
      std::vector<int32_t> truth(gt.begin() + static_cast<std::ptrdiff_t>(q * gd),
                                 gt.begin() + static_cast<std::ptrdiff_t>(q * gd + 10));
      const Variant* variants[3] = {&residual, &direct, &exact};
      for (int v = 0; v < 3; ++v) {
        std::vector<std::pair<float, uint32_t>> ranked;
        for (size_t p = 0; p < std::min(nprobe, nlist); ++p) {
          for (uint32_t key : lists[order[p].second]) {
            ranked.emplace_back(FloatDistance(m.index.metric, query,
                                              std::span<const float>(variants[v]->vectors.data() + size_t{key} * d, d)),
                                key);
          }
        }
        size_t top = std::min<size_t>(10, ranked.size());
        std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(top), ranked.end());
        for (size_t i = 0; i < top; ++i) {
          hits[v] += static_cast<uint64_t>(std::count(truth.begin(), truth.end(), static_cast<int32_t>(ranked[i].second)));
        }
      }
    }
    auto recall = [&](int v) { return static_cast<double>(hits[v]) / (10.0 * static_cast<double>(nq)); };
    std::printf("| %zu | %.4f | %.4f | %.4f |\n", nprobe, recall(0), recall(1), recall(2));
  }
  return 0;
}
