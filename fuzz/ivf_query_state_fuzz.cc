// The sans-IO query core (include/vigilo/ivf/query_core.h) driven to the end
// with mutated responses: a whole publication is the input, so the fuzzer
// mutates the manifest, the centroids, the footers and the row-group chunks
// the core is handed. Invariants: no crash, no sanitizer report, no endless
// loop; every request names a manifest object and lies within its manifest
// size; every run ends in an error that is not Internal, or in results that
// are well formed (≤ k hits per query, ranks 0, 1, …, finite non-decreasing
// distances, one key per hit, a postings file of the manifest, counters equal
// to what was handed over).
//
// Input (the seeds in fuzz/corpus/ivf_query_state_fuzz/ are real publications
// packed this way):
//   byte 0   k − 1 (mod 16)          byte 1   nprobe − 1 (mod 8), first run
//   byte 2   footer tail choice      byte 3   query seed
//   then records, each a little-endian uint32 length and that many bytes:
//   manifest.json, then the objects in manifest order (centroids, postings
//   files, source files). A missing record is an empty object; an object of
//   another size than the manifest's is served as it is (short reads reach
//   the core, which must refuse them).
// A second run on the same PublicationReader (nprobe + 2) exercises the
// cached centroids and footers, and the row groups' recorded in-place
// layouts (PostingsGroup::in_place) read from the bytes it is handed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/query_core.h"

namespace {

using vigilo::StatusCode;
using vigilo::ivf::Manifest;
using vigilo::ivf::ObjectRange;
using vigilo::ivf::PublicationReader;
using vigilo::ivf::QueryOptions;
using vigilo::ivf::QueryResult;
using vigilo::ivf::QueryRun;

constexpr size_t kMaxRounds = 64;  // a run that asks more often loops
constexpr uint64_t kTailChoices[] = {64 * 1024, 8, 64, 300, 1024, 4096};

struct Bundle {
  std::string_view manifest;
  std::vector<std::string_view> objects;  // in manifest order
};

Bundle Unpack(std::string_view in) {
  Bundle out;
  bool first = true;
  while (in.size() >= 4) {
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n |= uint32_t{static_cast<unsigned char>(in[static_cast<size_t>(i)])} << (8 * i);
    in.remove_prefix(4);
    std::string_view record = in.substr(0, std::min<size_t>(n, in.size()));
    in.remove_prefix(record.size());
    if (first) {
      out.manifest = record;
      first = false;
    } else {
      out.objects.push_back(record);
    }
  }
  return out;
}

// Manifest paths in the order of the records.
std::vector<std::string> ObjectPaths(const Manifest& m) {
  std::vector<std::string> paths{m.hierarchy.centroids.path};
  for (const auto& f : m.postings) paths.push_back(f.object.path);
  if (m.source) {
    for (const auto& f : m.source->files) paths.push_back(f.object.path);
  }
  return paths;
}

// The bytes of [offset, offset + length) of the first object at `path`,
// cut short where the served object ends.
std::span<const uint8_t> Serve(const Bundle& b, const std::vector<std::string>& paths, const ObjectRange& r) {
  auto at = std::find(paths.begin(), paths.end(), r.path);
  if (at == paths.end()) std::abort();  // the core asked for an object the manifest does not name
  const auto index = static_cast<size_t>(at - paths.begin());
  std::string_view object = index < b.objects.size() ? b.objects[index] : std::string_view();
  if (r.offset >= object.size()) return {};
  std::string_view slice = object.substr(static_cast<size_t>(r.offset), static_cast<size_t>(r.length));
  return {reinterpret_cast<const uint8_t*>(slice.data()), slice.size()};
}

void CheckResult(const Manifest& m, const QueryResult& result, size_t queries, uint32_t k, uint64_t requests,
                 uint64_t bytes) {
  if (result.requests != requests || result.bytes_fetched != bytes) std::abort();
  if (result.keys.size() != result.hits.size()) std::abort();
  std::vector<uint32_t> seen(queries, 0);
  float last = 0;
  for (const auto& hit : result.hits) {
    if (hit.query >= queries || hit.rank != seen[hit.query] || hit.rank >= k) std::abort();
    if (!std::isfinite(hit.distance) || (hit.rank > 0 && hit.distance < last)) std::abort();
    if (hit.file >= m.postings.size() || hit.cid >= m.index.nlist) std::abort();
    if (hit.row >= m.postings[hit.file].rows) std::abort();
    last = hit.distance;
    ++seen[hit.query];
  }
}

// One run to its end; false when it ended in an (accepted) error.
bool Drive(PublicationReader& reader, const Bundle& b, const std::vector<std::string>& paths,
           std::vector<std::vector<float>> queries, QueryOptions options) {
  const size_t count = queries.size();
  auto run = QueryRun::Start(reader, std::move(queries), options);
  if (!run.ok()) {
    if (run.status().code() == StatusCode::kInternal) std::abort();
    return false;
  }
  uint64_t requests = 0, bytes = 0;
  for (size_t round = 0; !(*run)->done(); ++round) {
    if (round == kMaxRounds) std::abort();
    std::vector<std::span<const uint8_t>> responses;
    for (const ObjectRange& r : (*run)->requests()) {
      auto size = reader.ObjectSize(r.path);
      if (!size || r.offset > *size || r.length > *size - r.offset) std::abort();  // outside the manifest's object
      responses.push_back(Serve(b, paths, r));
      ++requests;
      bytes += responses.back().size();
    }
    if ((*run)->requests().empty()) std::abort();  // not done, yet nothing to fetch
    auto s = (*run)->Supply(std::span<const std::span<const uint8_t>>(responses));
    if (!s.ok()) {
      if (s.code() == StatusCode::kInternal) std::abort();
      if ((*run)->Supply(std::span<const std::span<const uint8_t>>(responses)).ok()) std::abort();  // failed stays failed
      return false;
    }
  }
  CheckResult(reader.manifest(), (*run)->result(), count, options.k, requests, bytes);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint32_t k = 1 + data[0] % 16, nprobe = 1 + data[1] % 8;
  const uint64_t tail = kTailChoices[data[2] % std::size(kTailChoices)];
  const unsigned seed = data[3];
  Bundle bundle = Unpack(std::string_view(reinterpret_cast<const char*>(data) + 4, size - 4));
  auto manifest = vigilo::ivf::ParseManifest(bundle.manifest);
  if (!manifest.ok()) return 0;
  const std::vector<std::string> paths = ObjectPaths(*manifest);
  const size_t d = manifest->index.dimension;
  std::vector<std::vector<float>> queries(2, std::vector<float>(d));
  for (size_t q = 0; q < queries.size(); ++q) {
    for (size_t i = 0; i < d; ++i) {
      queries[q][i] = static_cast<float>((seed * 31 + q * 17 + i * 7) % 23) * 0.5f - 1.0f;
    }
  }
  PublicationReader reader(std::move(*manifest));
  QueryOptions options;
  options.k = k;
  options.nprobe = nprobe;
  options.footer_tail_bytes = tail;
  Drive(reader, bundle, paths, queries, options);
  options.nprobe = nprobe + 2;  // the same reader again: cached centroids and footers
  Drive(reader, bundle, paths, std::move(queries), options);
  return 0;
}
