// Dataset ingestion (issue 20): a dataset file goes in; a verified,
// published, immutable dataset comes out, in bounded memory and disk, safe
// against crashes and concurrent writers.
//
//  1. Everything that can be checked without reading the input is checked
//     first (budget, name, alias, options).
//  2. Pass one reads the input once: the top-level fields and a BLAKE3 of
//     the raw input bytes (the attempt's resume key). Standard input is
//     first copied to a spool file inside the validation quota, so that the
//     input can be read twice.
//  3. An attempt is taken in the control ledger: an unpublished attempt of
//     the same name, store, input and limits whose writer is gone (lease
//     expired) is resumed (its verified objects are replayed, not rewritten);
//     otherwise a new one begins. Due cleanup on the store is drained first.
//  4. Pass two streams the cases through cases::DatasetWriter; every key is
//     recorded in the ledger before its conditional create, and each object
//     is read back after it (cases::StoreSink).
//  5. The written dataset is read back and verified in full
//     (cases::ReadDataset: every descendant, identities, unique ids).
//  6. The root reference is published under the name, fenced by the lease.
//     A name that already holds the same dataset (equal dataset_hash,
//     dataset_version_id and batch policy) is left as it is and this
//     attempt's objects become cleanup work; a name holding another dataset
//     takes `replace`.
//
// On failure: errors that a rerun can get past (the store unavailable, a
// deadline, cancellation) leave the attempt resumable — its lease is
// released at once so a rerun takes it over; any other error abandons the
// attempt and drains its objects, so nothing is left that blocks a retry.
// docs/format/case-storage-ingest.md has the rules and their reasons.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/case_lines.h"
#include "vigilo/cases/dataset.h"
#include "vigilo/cases/object_ref.h"
#include "vigilo/common/result.h"
#include "vigilo/control/control_store.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/object_store.h"
#include "vigilo/engine/write_target.h"

namespace vigilo::engine {

enum class InputFormat {
  kDatasetJson,  // the seed's dataset document: one JSON object with `cases`
  kCaseLines,    // JSON Lines, one typed case per line (cases::CaseLinesOptions)
};

struct IngestInput {
  std::string path;  // "-" is standard input
  InputFormat format = InputFormat::kDatasetJson;
  cases::CaseLinesOptions lines;  // kCaseLines only (its limits are ignored)
};

// What the caller reports progress with (cases and input bytes of pass two).
struct IngestProgress {
  std::string phase;  // "reading", "writing", "verifying", "publishing"
  uint64_t cases = 0;
  uint64_t bytes = 0;        // input bytes consumed in this phase
  uint64_t total_bytes = 0;  // 0 when unknown
};

struct IngestOptions {
  std::string name;  // the root name; empty: the dataset_id
  bool replace = false;
  cases::BudgetConfig budget = cases::BudgetConfig::Defaults();
  std::filesystem::path scratch_dir;  // spools (stdin copy, duplicate-id sort)
  store::Micros lease_duration = store::Micros{300} * 1'000'000;
  std::function<void(const IngestProgress&)> progress;
  const store::CancelToken* cancel = nullptr;
};

// Where the dataset goes.
using IngestTarget = WriteTarget;

using IngestOutcome = RootOutcome;

struct IngestResult : PublicationReport {  // root: the dataset manifest reference
  cases::DatasetManifest manifest;
  uint64_t input_bytes = 0;
  uint64_t verified_bytes = 0;  // object bytes read back by the final verification
};

Result<IngestResult> IngestDataset(const IngestInput& input, const IngestOptions& options,
                                   const IngestTarget& target);

}  // namespace vigilo::engine
