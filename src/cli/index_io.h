// What the `vigilo index` commands share: the publication opened through
// the engine, the query-file loader and the text forms of keys and
// distances.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/engine/context.h"
#include "vigilo/engine/publication.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/query.h"
#include "vigilo/ivf/types.h"

namespace vigilo::cli {

// The help of every index command's publication argument.
inline constexpr const char* kManifestHelp =
    "The publication: its directory, its manifest.json, an http(s) URL of either (objects are read beside it), or "
    "ALIAS:KEY in a configured store";

// A publication opened through a Context built from the environment
// (engine::Publication::Open); the context outlives the publication.
struct OpenedPublication {
  std::unique_ptr<engine::Context> context;
  std::unique_ptr<engine::Publication> publication;
};
// `resident_max_bytes`: engine::PublicationOpenOptions' (0: objects read in place).
Result<OpenedPublication> OpenPublication(const std::string& locator, bool use_cache, uint64_t resident_max_bytes = 0);

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

// The shortest text that reads back as the same float.
std::string FloatText(float f);

// Key i as JSON: booleans, integers (date: days since 1970-01-01), strings;
// binary and fixed(L) as lowercase hex strings.
Result<std::string> KeyJson(const ivf::KeyColumn& keys, size_t i);

}  // namespace vigilo::cli
