// What the `vigilo index` commands share: the local publication (a store
// rooted at the manifest's directory, the manifest read through it), the
// query-file loader and the text forms of keys and distances.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/query.h"
#include "vigilo/ivf/types.h"
#include "vigilo/store/object_store.h"

namespace vigilo::cli {

// The help of every index command's publication argument.
inline constexpr const char* kManifestHelp =
    "The publication: its directory, its manifest.json, or an http(s) URL of either (objects are read beside it)";

// The read-only local store of a manifest's directory (its objects' keys are
// their manifest paths) and the manifest's own key in it. Nothing is read.
struct PublicationStore {
  std::unique_ptr<store::ObjectStore> store;
  std::string manifest_key;
};
// Request permits of a process reading a publication over http(s)
// (docs/format/http-reading.md, "Parallel ranges").
inline constexpr uint64_t kPublicationReadPermits = 16;

// `manifest_path` is manifest.json's path or URL, or the publication's
// directory (or base URL ending in '/').
Result<PublicationStore> OpenPublicationStore(const std::string& manifest_path);

// That store, and manifest.json read through it (one Get capped at 64 MiB),
// parsed and validated (publication-v1.md §2); errors name the file as given.
// With `use_cache`, an http(s) publication's objects are then read through
// the persistent cache directory (ReadCacheDirectory; the manifest itself
// never is): `cache` points into `store`, null when no cache is used.
struct LoadedManifest {
  std::unique_ptr<store::ObjectStore> store;
  ivf::Manifest manifest;
  uint64_t bytes = 0;
};
Result<LoadedManifest> LoadManifest(const std::string& manifest_path, bool use_cache = false);

// The cache directory of http(s) reads (docs/format/http-reading.md, "The
// cache directory"): $XDG_CACHE_HOME/vigilo/ranges, else
// $HOME/.cache/vigilo/ranges; empty when VIGILO_CACHE=off or neither
// variable names an absolute directory.
std::string ReadCacheDirectory();
// VIGILO_CACHE_MAX_BYTES, else store::kDefaultCacheMaxBytes; InvalidArgument
// unless it is a positive decimal number.
Result<uint64_t> ReadCacheMaxBytes();

// Where the query vectors come from (index query / eval): `vector`, one
// JSON array given inline, as "@FILE" or as "-" (stdin); else every vector
// of `file` ("-" is stdin, which needs `format`) read by ivf::OpenVectorInput
// (.fvecs/.bvecs/.npy/.parquet/.jsonl; JSONL lines are objects holding the
// vector field or bare arrays). The vector field is `vector_field`, or the
// one the manifest records. Every query is in ivf::VectorDomainViolation's
// domain, the one `index build` applies.
struct QuerySource {
  std::string vector, file, format, vector_field;
};
Result<std::vector<std::vector<float>>> LoadQueries(const QuerySource& source, const ivf::Manifest& manifest);

// The manifest file a path names: DIR/manifest.json for a publication
// directory, else the path itself.
std::string ManifestFileName(const std::string& manifest_path);

// The shortest text that reads back as the same float.
std::string FloatText(float f);

// Key i as JSON: booleans, integers (date: days since 1970-01-01), strings;
// binary and fixed(L) as lowercase hex strings.
Result<std::string> KeyJson(const ivf::KeyColumn& keys, size_t i);

}  // namespace vigilo::cli
