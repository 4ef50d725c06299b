// The word-vector importer (include/vigilo/ivf/embed_import.h) on arbitrary
// tarball bytes: gzip, the ustar reader, package.json and the package's
// streamed JSON. Invariants: no crash or sanitizer report; a failure is
// never Internal and names the tarball; an import that succeeds wrote an
// embedding.json that reads back as the spec it returned, whose parity
// probes the runtime reproduces.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "vigilo/ivf/embed.h"
#include "vigilo/ivf/embed_import.h"
#include "vigilo/store/memory_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/vigilo-embed-import-fuzz-" + std::to_string(::getpid()) + ".tgz";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  vigilo::store::MemoryStore out;
  vigilo::ivf::EmbedImportOptions options;
  options.buckets = 16;  // small assets: the fuzzer's time goes to parsing
  options.pages = 4;
  auto imported = vigilo::ivf::ImportWinkEmbeddings(path, out, options);
  std::remove(path.c_str());  // the import is done with it; a run leaves no file in /tmp
  if (!imported.ok()) {
    if (imported.status().code() == vigilo::StatusCode::kInternal) std::abort();
    if (imported.status().path().find(path) == std::string::npos) std::abort();
    return 0;
  }
  auto section = out.Peek(std::string(vigilo::ivf::kEmbeddingSectionPath));
  if (!section) std::abort();
  auto parsed = vigilo::ivf::ParseEmbeddingSection(*section);
  if (!parsed.ok() || !(*parsed == imported->spec)) std::abort();
  if (!vigilo::ivf::VerifyParity(out, imported->spec).ok()) std::abort();
  return 0;
}
