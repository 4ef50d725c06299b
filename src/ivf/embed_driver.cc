// The embedding runtime over an ObjectStore (include/vigilo/ivf/embed.h).
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/embed.h"

namespace vigilo::ivf {

Status CheckEmbedResponse(const EmbedRequest& r, std::span<const uint8_t> bytes) {
  if (bytes.size() != r.length) {
    return IntegrityError("expected " + std::to_string(r.length) + " bytes at offset " + std::to_string(r.offset) +
                          ", got " + std::to_string(bytes.size()))
        .WithPath(r.path);
  }
  VIGILO_ASSIGN_OR_RETURN(auto digest, Sha256(bytes));
  std::string got = r.whole ? HexEncode(digest) : HexEncode(std::span<const uint8_t>(digest.data(), 16));
  if (got == r.digest) return Status::Ok();
  std::string what = r.whole ? "sha256 of the object" : "sha256 prefix of bytes [" + std::to_string(r.offset) + ", " +
                                                            std::to_string(r.offset + r.length) + ")";
  return IntegrityError(what + " is " + got + ", expected " + r.digest).WithPath(r.path);
}

Status FetchEmbedRequests(store::ObjectStore& store, const std::vector<EmbedRequest>& requests,
                          std::vector<store::Bytes>& bytes, EmbedFetchStats* stats) {
  bytes.clear();
  bytes.reserve(requests.size());
  if (stats != nullptr && !requests.empty()) ++stats->round_trips;
  for (const EmbedRequest& r : requests) {
    store::GetOptions get;
    if (!r.whole) get.range = ByteRange{r.offset, r.length};
    get.max_bytes = r.length;
    if (r.whole) get.expected_size = r.length;
    VIGILO_ASSIGN_OR_RETURN(store::Bytes b, store.Get(r.path, get));
    if (stats != nullptr) {
      ++stats->requests;
      stats->bytes += b.size();
    }
    VIGILO_RETURN_IF_ERROR(CheckEmbedResponse(r, b.span()));
    bytes.push_back(std::move(b));
  }
  return Status::Ok();
}

Result<std::unique_ptr<TextEmbedder>> TextEmbedder::OpenUnchecked(store::ObjectStore& store,
                                                                  const EmbeddingSpec& spec) {
  VIGILO_ASSIGN_OR_RETURN(auto runtime, EmbeddingRuntime::Open(spec));
  return std::unique_ptr<TextEmbedder>(new TextEmbedder(store, std::move(runtime)));
}

Result<std::unique_ptr<TextEmbedder>> TextEmbedder::Open(store::ObjectStore& store, const EmbeddingSpec& spec) {
  VIGILO_ASSIGN_OR_RETURN(auto embedder, OpenUnchecked(store, spec));
  VIGILO_RETURN_IF_ERROR(embedder->CheckParity());
  return embedder;
}

Result<std::vector<float>> TextEmbedder::Embed(std::string text) {
  VIGILO_ASSIGN_OR_RETURN(auto run, runtime_->Start(std::move(text)));
  std::vector<store::Bytes> bytes;
  std::vector<std::span<const uint8_t>> views;
  while (!run->done()) {
    VIGILO_RETURN_IF_ERROR(FetchEmbedRequests(store_, run->requests(), bytes, &stats_));
    views.assign(bytes.size(), {});
    for (size_t i = 0; i < bytes.size(); ++i) views[i] = bytes[i].span();
    VIGILO_RETURN_IF_ERROR(run->Supply(std::span<const std::span<const uint8_t>>(views)));
  }
  return run->vector();
}

Status TextEmbedder::CheckParity() {
  const EmbeddingSpec& spec = runtime_->spec();
  if (spec.probes.empty()) return IntegrityError("the model has no parity probe");
  for (size_t i = 0; i < spec.probes.size(); ++i) {
    Result<std::vector<float>> got = Embed(spec.probes[i].input);
    if (!got.ok()) {
      if (got.status().code() == StatusCode::kIntegrityError) return got.status();
      return IntegrityError("parity probe " + std::to_string(i) + ": " + std::string(got.status().message()));
    }
    VIGILO_RETURN_IF_ERROR(CompareParityProbe(spec, i, *got));
  }
  return Status::Ok();
}

Status VerifyParity(store::ObjectStore& store, const EmbeddingSpec& spec) {
  VIGILO_ASSIGN_OR_RETURN(auto embedder, TextEmbedder::OpenUnchecked(store, spec));
  return embedder->CheckParity();
}

Result<std::vector<float>> EmbedText(store::ObjectStore& store, const EmbeddingSpec& spec, std::string_view text) {
  VIGILO_ASSIGN_OR_RETURN(auto embedder, TextEmbedder::Open(store, spec));
  return embedder->Embed(std::string(text));
}

Result<std::vector<std::vector<float>>> EmbedTexts(store::ObjectStore& store, const EmbeddingSpec& spec,
                                                   const std::vector<std::string>& texts) {
  VIGILO_ASSIGN_OR_RETURN(auto embedder, TextEmbedder::Open(store, spec));
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    Result<std::vector<float>> v = embedder->Embed(texts[i]);
    if (!v.ok()) return Status(v.status()).PrependPath("texts[" + std::to_string(i) + "]");
    out.push_back(std::move(*v));
  }
  return out;
}

}  // namespace vigilo::ivf
