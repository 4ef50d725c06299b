// Text queries over the seam (include/vigilo/ivf/text_query.h).
#include "vigilo/ivf/text_query.h"

#include <map>
#include <span>
#include <tuple>

#include "vigilo/ivf/embed.h"
#include "vigilo/store/forwarding_store.h"

namespace vigilo::ivf {
namespace {

using RangeKey = std::tuple<std::string, uint64_t, uint64_t>;

// Answers Gets of the ranges fetched ahead (flagged as held, like a cache
// hit: the round that fetched them was counted already); everything else
// goes to the publication's store.
class PrefetchedStore final : public store::ForwardingStore {
 public:
  PrefetchedStore(store::ObjectStore& inner, std::map<RangeKey, store::Bytes> held)
      : ForwardingStore(inner), held_(std::move(held)) {}
  Result<store::Bytes> Get(std::string_view key, const store::GetOptions& options) override {
    if (const store::Bytes* b = Held(key, options)) return *b;
    return inner().Get(key, options);
  }
  std::vector<store::GetResponse> GetMany(std::span<const store::GetRequest> requests) override {
    std::vector<store::GetResponse> out(requests.size(), store::GetResponse{store::Bytes()});
    std::vector<store::GetRequest> rest;
    std::vector<size_t> rest_index;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (const store::Bytes* b = Held(requests[i].key, requests[i].options)) {
        out[i] = store::GetResponse{*b, true};
      } else {
        rest.push_back(requests[i]);
        rest_index.push_back(i);
      }
    }
    std::vector<store::GetResponse> fetched = inner().GetMany(rest);
    for (size_t j = 0; j < fetched.size(); ++j) out[rest_index[j]] = std::move(fetched[j]);
    return out;
  }

 private:
  const store::Bytes* Held(std::string_view key, const store::GetOptions& options) const {
    if (!options.range) return nullptr;
    auto it = held_.find(RangeKey{std::string(key), options.range->offset, options.range->length});
    return it == held_.end() ? nullptr : &it->second;
  }
  std::map<RangeKey, store::Bytes> held_;
};

}  // namespace

Result<EmbeddedQueries> EmbedQueryTexts(PublicationReader& reader, store::ObjectStore& store,
                                        const std::vector<std::string>& texts, FetchStats* stats) {
  const Manifest& m = reader.manifest();
  if (!m.embedding) {
    return InvalidArgument("this publication carries no embedding model, so it cannot embed text: query it with a "
                           "vector");
  }
  const EmbeddingSpec& spec = *m.embedding;
  std::map<std::string, uint64_t, std::less<>> asset_sizes;
  for (const ObjectDescriptor& a : spec.assets) asset_sizes[a.path] = a.size;
  VIGILO_ASSIGN_OR_RETURN(auto runtime, EmbeddingRuntime::Open(spec));
  // The parity probes first, then the texts: one runtime, so a page or
  // bucket two of them need is fetched once.
  const size_t probes = spec.probes.size();
  if (probes == 0) return IntegrityError("the model has no parity probe").WithPath("$.embedding.parity-probe");
  std::vector<std::unique_ptr<EmbedRun>> runs;
  for (size_t i = 0; i < probes + texts.size(); ++i) {
    const bool probe = i < probes;
    auto run = runtime->Start(probe ? spec.probes[i].input : texts[i - probes]);
    if (!run.ok()) {
      Status s = run.status();
      return probe ? IntegrityError("parity probe " + std::to_string(i) + ": " + std::string(s.message()))
                   : Status(s.code(), "text " + std::to_string(i - probes) + ": " + std::string(s.message()));
    }
    runs.push_back(std::move(*run));
  }
  std::map<RangeKey, store::Bytes> held;
  const bool prefetch_centroids = !reader.has_centroids();
  const ObjectDescriptor& centroids = m.hierarchy.centroids;
  bool first_round = true;
  for (;;) {
    // This round's distinct requests and, per run, which of them it reads.
    std::vector<EmbedRequest> round;
    std::map<RangeKey, size_t> index;
    std::vector<std::vector<size_t>> wants(runs.size());
    for (size_t r = 0; r < runs.size(); ++r) {
      if (runs[r]->done()) continue;
      for (const EmbedRequest& q : runs[r]->requests()) {
        auto [it, added] = index.emplace(RangeKey{q.path, q.offset, q.length}, round.size());
        if (added) round.push_back(q);
        wants[r].push_back(it->second);
      }
    }
    if (round.empty()) break;
    std::vector<store::GetRequest> gets;
    for (const EmbedRequest& q : round) {
      auto size = asset_sizes.find(q.path);
      if (size == asset_sizes.end()) {
        return Internal("the embedding runtime asked for an object the inventory does not name").WithPath(q.path);
      }
      store::GetOptions get;
      if (!q.whole) get.range = ByteRange{q.offset, q.length};
      get.max_bytes = q.length;
      get.expected_size = size->second;
      gets.push_back(store::GetRequest{q.path, get});
    }
    if (first_round && prefetch_centroids) {
      store::GetOptions get;
      get.range = ByteRange{0, centroids.size};
      get.max_bytes = centroids.size;
      get.expected_size = centroids.size;
      gets.push_back(store::GetRequest{centroids.path, get});
    }
    std::vector<store::GetResponse> answers = store.GetMany(gets);
    for (size_t i = 0; i < answers.size(); ++i) {
      if (!answers[i].bytes.ok()) return answers[i].bytes.status();
      if (i < round.size()) VIGILO_RETURN_IF_ERROR(CheckEmbedResponse(round[i], answers[i].bytes->span()));
    }
    CountRound(answers, stats);
    if (first_round && prefetch_centroids) {
      held.emplace(RangeKey{centroids.path, 0, centroids.size}, std::move(*answers.back().bytes));
    }
    first_round = false;
    for (size_t r = 0; r < runs.size(); ++r) {
      if (wants[r].empty()) continue;
      std::vector<std::span<const uint8_t>> views;
      for (size_t i : wants[r]) views.push_back(answers[i].bytes->span());
      Status s = runs[r]->Supply(std::span<const std::span<const uint8_t>>(views));
      if (!s.ok()) {
        if (r < probes && s.code() != StatusCode::kIntegrityError) {
          return IntegrityError("parity probe " + std::to_string(r) + ": " + std::string(s.message()));
        }
        if (r >= probes && s.code() == StatusCode::kInvalidArgument) {
          return InvalidArgument("text " + std::to_string(r - probes) + ": " + std::string(s.message()));
        }
        return s;
      }
    }
  }
  for (size_t i = 0; i < probes; ++i) VIGILO_RETURN_IF_ERROR(CompareParityProbe(spec, i, runs[i]->vector()));
  EmbeddedQueries out;
  for (size_t i = probes; i < runs.size(); ++i) out.vectors.push_back(runs[i]->vector());
  out.store = std::make_unique<PrefetchedStore>(store, std::move(held));
  return out;
}

}  // namespace vigilo::ivf
