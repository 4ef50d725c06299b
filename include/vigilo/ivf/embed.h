// The native driver of the embedding runtime (embed_core.h): it runs the
// sans-IO core over an ObjectStore, verifying each fetched object or range
// against the digest the core asked for (SHA-256, vigilo_hash) before the
// core sees it. docs/format/embedding.md.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/embed_core.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

struct EmbedFetchStats {
  uint64_t requests = 0;
  uint64_t bytes = 0;
  uint64_t round_trips = 0;  // dependent batches
};

// Embeds texts with one model: the runtime's cache keeps every verified page
// and decoded bucket, so each is fetched once however many texts need it.
// Open runs the parity probe first; a model that fails it refuses text
// (IntegrityError "parity probe N: …").
class TextEmbedder {
 public:
  static Result<std::unique_ptr<TextEmbedder>> Open(store::ObjectStore& store, const EmbeddingSpec& spec);
  // Without the parity probe (VerifyParity's own use, the importer's probes).
  static Result<std::unique_ptr<TextEmbedder>> OpenUnchecked(store::ObjectStore& store, const EmbeddingSpec& spec);
  Result<std::vector<float>> Embed(std::string text);
  // Every probe of spec.probes against this runtime.
  Status CheckParity();
  const EmbedFetchStats& stats() const { return stats_; }

 private:
  TextEmbedder(store::ObjectStore& store, std::unique_ptr<EmbeddingRuntime> runtime)
      : store_(store), runtime_(std::move(runtime)) {}
  store::ObjectStore& store_;
  std::unique_ptr<EmbeddingRuntime> runtime_;
  EmbedFetchStats stats_;
};

// Runs every parity probe (IntegrityError naming the probe and component).
Status VerifyParity(store::ObjectStore& store, const EmbeddingSpec& spec);
// One text / many texts, after the parity probe.
Result<std::vector<float>> EmbedText(store::ObjectStore& store, const EmbeddingSpec& spec, std::string_view text);
Result<std::vector<std::vector<float>>> EmbedTexts(store::ObjectStore& store, const EmbeddingSpec& spec,
                                                   const std::vector<std::string>& texts);

// A fetched response against its request: exactly its length, and its
// SHA-256 (whole objects) or 128-bit SHA-256 prefix (ranges) equal to the
// digest the core asked for; IntegrityError naming the asset path otherwise.
Status CheckEmbedResponse(const EmbedRequest& request, std::span<const uint8_t> bytes);

// Fetches one batch of requests and checks each against its digest:
// IntegrityError naming the asset path and range on a mismatch.
Status FetchEmbedRequests(store::ObjectStore& store, const std::vector<EmbedRequest>& requests,
                          std::vector<store::Bytes>& bytes, EmbedFetchStats* stats);

}  // namespace vigilo::ivf
