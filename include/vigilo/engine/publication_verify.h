// Verifying a publication at one of three levels (publication-v1.md §6),
// each a superset of the one before, wherever a locator says it lies:
//   manifest: manifest.json by every rule of §2 and its content-derived
//     artifact-uuid; no object is read;
//   quick: also every object's size, footer, schema, row-group CID
//     statistics and row counts (footers only, no column chunk);
//   full: also every column chunk decoded with its value rules, the source
//     partition, and every object's SHA-256: every byte.
// The outcome says which checks ran and which did not; nothing claims more.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/engine/context.h"
#include "vigilo/ivf/publication_verify.h"

namespace vigilo::engine {

enum class VerifyLevel { kManifest, kQuick, kFull };
std::string_view VerifyLevelName(VerifyLevel level);  // "manifest", "quick", "full"

struct VerifyRequest {
  VerifyLevel level = VerifyLevel::kFull;
  bool all = false;       // record every failure, not only the first
  bool any_uuid = false;  // accept an artifact-uuid not derived from the content
  uint64_t max_buffer = uint64_t{256} << 20;  // the longest read and each chunk's decode budget
  // Set from another thread (the CLI's signal watcher) to stop at the next
  // object read: VerifyPublication then fails with `cancelled`. Verifying
  // writes nothing, so nothing is left.
  const store::CancelToken* cancel = nullptr;
};

struct VerifyOutcome {
  VerifyLevel level = VerifyLevel::kFull;
  // Failures are in report.failures, named "<path>: …" by manifest path.
  ivf::VerifyReport report;
  // The checks in the order they run, by name (manifest_rules,
  // artifact_uuid, object_sizes, footers, schemas, row_group_statistics,
  // row_counts, column_chunks, values, sha256), and those this level or
  // request left out (plus embedding_parity_probe when there are assets:
  // they are checked as bytes, and the probe runs only where text is
  // embedded).
  std::vector<std::string> checked, not_checked;
};

// A failure to locate the publication is the error, and so is `cancelled`;
// a failure of a check is recorded in the outcome (the first only, unless
// `all`).
Result<VerifyOutcome> VerifyPublication(Context& context, std::string_view locator, const VerifyRequest& request);

}  // namespace vigilo::engine
