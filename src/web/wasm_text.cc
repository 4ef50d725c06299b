// Text queries in WebAssembly (docs/format/embedding.md, "Querying with
// text"): the sans-IO embedding runtime (embed_core.h) driven the way the
// native driver drives it (src/ivf/text_query.cc, EmbedQueryTexts): the
// model's parity probes and the texts share one runtime, each round asks for
// the distinct ranges all unfinished runs need, and the first round also
// fetches the centroids (whole, with their digest) so the vector query that
// follows finds them in the module's range cache: a cold text query costs the
// vector query's round trips plus 2. JavaScript checks nothing itself: it
// hands over the bytes and their SHA-256 (WebCrypto), compared here.
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "vigilo/ivf/embed_core.h"
#include "vigilo/ivf/query_core.h"
#include "wasm_abi.h"

namespace {

using vigilo::Status;
using vigilo::StatusCode;
using vigilo::web::WireRequest;

class TextBatch {
 public:
  static vigilo::Result<std::unique_ptr<TextBatch>> Start(vigilo::ivf::PublicationReader& reader,
                                                          std::vector<std::string> texts) {
    const vigilo::ivf::Manifest& m = reader.manifest();
    if (!m.embedding) {
      return vigilo::InvalidArgument(
          "this publication carries no embedding model, so it cannot embed text: query it with a vector");
    }
    const vigilo::ivf::EmbeddingSpec& spec = *m.embedding;
    if (spec.probes.empty()) {
      return vigilo::IntegrityError("the model has no parity probe").WithPath("$.embedding.parity-probe");
    }
    VIGILO_ASSIGN_OR_RETURN(auto runtime, vigilo::ivf::EmbeddingRuntime::Open(spec));
    std::unique_ptr<TextBatch> batch(new TextBatch(reader, std::move(runtime), texts.size()));
    const size_t probes = spec.probes.size();
    for (size_t i = 0; i < probes + texts.size(); ++i) {
      const bool probe = i < probes;
      auto run = batch->runtime_->Start(probe ? spec.probes[i].input : texts[i - probes]);
      if (!run.ok()) {
        const Status& s = run.status();
        return probe ? vigilo::IntegrityError("parity probe " + std::to_string(i) + ": " + std::string(s.message()))
                     : Status(s.code(), "text " + std::to_string(i - probes) + ": " + std::string(s.message()));
      }
      batch->runs_.push_back(std::move(*run));
    }
    batch->Plan();
    return batch;
  }

  bool done() const { return round_.empty(); }
  const std::vector<WireRequest>& requests() const { return round_; }

  Status Supply(const uint8_t* bytes, size_t size, std::string_view digests) {
    VIGILO_ASSIGN_OR_RETURN(auto views, vigilo::web::SplitAndCheck(round_, bytes, size, digests));
    const size_t probes = probes_count();
    for (size_t r = 0; r < runs_.size(); ++r) {
      if (wants_[r].empty()) continue;
      std::vector<std::span<const uint8_t>> mine;
      for (size_t i : wants_[r]) mine.push_back(views[i]);
      Status s = runs_[r]->Supply(std::span<const std::span<const uint8_t>>(mine));
      if (s.ok()) continue;
      if (r < probes && s.code() != StatusCode::kIntegrityError) {
        return vigilo::IntegrityError("parity probe " + std::to_string(r) + ": " + std::string(s.message()));
      }
      if (r >= probes && s.code() == StatusCode::kInvalidArgument) {
        return vigilo::InvalidArgument("text " + std::to_string(r - probes) + ": " + std::string(s.message()));
      }
      return s;
    }
    first_round_ = false;
    Plan();
    if (!done()) return Status::Ok();
    const vigilo::ivf::EmbeddingSpec& spec = *reader_.manifest().embedding;
    for (size_t i = 0; i < probes; ++i) {
      VIGILO_RETURN_IF_ERROR(vigilo::ivf::CompareParityProbe(spec, i, runs_[i]->vector()));
    }
    return Status::Ok();
  }

  // Text i's unit vector, once done.
  const std::vector<float>& vector(size_t i) const { return runs_[probes_count() + i]->vector(); }
  size_t texts() const { return texts_; }

 private:
  TextBatch(vigilo::ivf::PublicationReader& reader, std::unique_ptr<vigilo::ivf::EmbeddingRuntime> runtime,
            size_t texts)
      : reader_(reader), runtime_(std::move(runtime)), texts_(texts) {}
  size_t probes_count() const { return runs_.size() - texts_; }

  // This round's distinct requests and, per run, which of them it reads.
  void Plan() {
    round_.clear();
    wants_.assign(runs_.size(), {});
    std::map<std::tuple<std::string, uint64_t, uint64_t>, size_t> index;
    for (size_t r = 0; r < runs_.size(); ++r) {
      if (runs_[r]->done()) continue;
      for (const vigilo::ivf::EmbedRequest& q : runs_[r]->requests()) {
        auto [it, added] = index.emplace(std::tuple(q.path, q.offset, q.length), round_.size());
        if (added) round_.push_back(WireRequest{q.path, q.offset, q.length, q.digest});
        wants_[r].push_back(it->second);
      }
    }
    // The centroids ride along with the first round (no run reads them).
    if (first_round_ && !round_.empty() && !reader_.has_centroids()) {
      const vigilo::ivf::ObjectDescriptor& c = reader_.manifest().hierarchy.centroids;
      round_.push_back(WireRequest{c.path, 0, c.size, c.sha256});
    }
  }

  vigilo::ivf::PublicationReader& reader_;
  std::unique_ptr<vigilo::ivf::EmbeddingRuntime> runtime_;
  size_t texts_;
  std::vector<std::unique_ptr<vigilo::ivf::EmbedRun>> runs_;  // the probes, then the texts
  std::vector<WireRequest> round_;
  std::vector<std::vector<size_t>> wants_;
  bool first_round_ = true;
};

// A batch and the last string handed out.
struct TextHandle {
  std::unique_ptr<TextBatch> batch;
  std::string text;
};

}  // namespace

extern "C" {

// One text (UTF-8, NUL-terminated) embedded with the publication's own
// model after its parity probes; null on error (vigilo_error says why).
void* vigilo_text_start(void* reader, const char* text) {
  auto batch = TextBatch::Start(*static_cast<vigilo::ivf::PublicationReader*>(reader), {std::string(text)});
  if (!batch.ok()) {
    vigilo::web::Fail(batch.status());
    return nullptr;
  }
  return new TextHandle{std::move(*batch), {}};
}

int vigilo_text_done(void* handle) { return static_cast<TextHandle*>(handle)->batch->done() ? 1 : 0; }

const char* vigilo_text_requests(void* handle) {
  auto* h = static_cast<TextHandle*>(handle);
  h->text = vigilo::web::RequestsJson(h->batch->requests());
  return h->text.c_str();
}

// The round's bytes concatenated in request order and the SHA-256 of each
// request (every one names its digest); 0, or -1 (vigilo_error says why).
int vigilo_text_supply(void* handle, const uint8_t* bytes, size_t size, const char* digests) {
  Status s = static_cast<TextHandle*>(handle)->batch->Supply(bytes, size, digests == nullptr ? "" : digests);
  if (s.ok()) return 0;
  vigilo::web::Fail(s);
  return -1;
}

// The text's unit vector (the model's dimension floats) once done.
const float* vigilo_text_vector(void* handle) { return static_cast<TextHandle*>(handle)->batch->vector(0).data(); }

void vigilo_text_free(void* handle) { delete static_cast<TextHandle*>(handle); }

}  // extern "C"
