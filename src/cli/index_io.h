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
#include "vigilo/ivf/types.h"
#include "vigilo/store/object_store.h"

namespace vigilo::cli {

// The read-only local store of a manifest's directory (its objects' keys are
// their manifest paths) and the manifest's own key in it. Nothing is read.
struct PublicationStore {
  std::unique_ptr<store::ObjectStore> store;
  std::string manifest_key;
};
Result<PublicationStore> OpenPublicationStore(const std::string& manifest_path);

// That store, and manifest.json read through it (one Get capped at 64 MiB),
// parsed and validated (publication-v1.md §2); errors name the file as given.
struct LoadedManifest {
  std::unique_ptr<store::ObjectStore> store;
  ivf::Manifest manifest;
  uint64_t bytes = 0;
};
Result<LoadedManifest> LoadManifest(const std::string& manifest_path);

// One query from `vector` (a JSON array) when it is not empty, else every
// vector of `file`: .fvecs/.bvecs/.npy, or .jsonl lines of JSON arrays.
Result<std::vector<std::vector<float>>> LoadQueries(const std::string& vector, const std::string& file);

// The shortest text that reads back as the same float.
std::string FloatText(float f);

// Key i as JSON: booleans, integers (date: days since 1970-01-01), strings;
// binary and fixed(L) as lowercase hex strings.
Result<std::string> KeyJson(const ivf::KeyColumn& keys, size_t i);

}  // namespace vigilo::cli
