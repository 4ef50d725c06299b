// What the `vigilo index` commands share: the manifest and query-file
// loaders and the text forms of keys and distances.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/types.h"

namespace vigilo::cli {

// manifest.json parsed and validated (publication-v1.md §2); errors name the file.
struct LoadedManifest {
  ivf::Manifest manifest;
  uint64_t bytes = 0;
};
Result<LoadedManifest> LoadManifest(const std::string& path);

// One query from `vector` (a JSON array) when it is not empty, else every
// vector of `file`: .fvecs/.bvecs/.npy, or .jsonl lines of JSON arrays.
Result<std::vector<std::vector<float>>> LoadQueries(const std::string& vector, const std::string& file);

// The shortest text that reads back as the same float.
std::string FloatText(float f);

// Key i as JSON: booleans, integers (date: days since 1970-01-01), strings;
// binary and fixed(L) as lowercase hex strings.
Result<std::string> KeyJson(const ivf::KeyColumn& keys, size_t i);

}  // namespace vigilo::cli
