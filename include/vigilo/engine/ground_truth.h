// The exact neighbours a recall measurement compares with, computed by
// brute force over the build's input vectors and cached in the context's
// ground-truth directory (Settings::ground_truth_directory), keyed by the
// publication's artifact-uuid, k and the queries' bytes: never beside the
// publication, whose manifest is its only inventory.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/engine/context.h"
#include "vigilo/ivf/eval.h"
#include "vigilo/ivf/manifest.h"

namespace vigilo::engine {

// The build's input: a vector file (ivf::OpenVectorInput), its format
// (empty: by extension; "-" needs one) and vector field (empty: the
// manifest's).
struct BaseVectors {
  std::string path, format, vector_field;
};

struct GroundTruthRequest {
  BaseVectors base;  // setting `base` (and `base_format`, `base_vector_field`)
  uint32_t k = 10;
  uint32_t threads = 1;  // the queries are split across them
  std::function<void(uint64_t rows, uint64_t total)> progress;
  // Set from another thread: checked at every block of base rows; the
  // computation then returns `cancelled` and caches nothing (the cache file
  // is created, whole, only after the last row).
  const store::CancelToken* cancel = nullptr;
};

struct GroundTruthOutcome {
  ivf::GroundTruth truth;
  std::string cache_path;  // the .npy it was read from or written to
  bool from_cache = false;
};

// InvalidArgument naming `base` for an input that is not the build's (its
// dimension or row count differ), a publication whose key is not a long,
// and a k above ntotal; IntegrityError for a cached file of another shape.
// Ties go to the lower key, so the neighbours are a function of the data.
Result<GroundTruthOutcome> BaseGroundTruth(const Context& context, const ivf::Manifest& manifest,
                                           const std::vector<std::vector<float>>& queries,
                                           const GroundTruthRequest& request);

}  // namespace vigilo::engine
