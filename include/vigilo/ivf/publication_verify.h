// Full verification of a publication (`vigilo index verify`,
// publication-v1.md §6 level 4): manifest.json by every rule of §2 and, by
// default, its content-derived artifact-uuid; then every object's size,
// footer, schema, row groups (every column chunk decoded), row counts, the
// source partition and whole-object SHA-256; embedding assets by size and
// SHA-256 (their contents are the runtime contract's, publication_check.h). Either stops at the first
// failure or, with `all`, records every failure and continues with the next
// independent check.
//
// Streaming and peak memory. Nothing holds a whole object: SHA-256 reads
// blocks of min(1 MiB, max_buffer_bytes), and Parquet objects are read as one
// footer tail and then one column chunk at a time, each chunk decoded and
// checked and released before the next is read. Every single Get of an
// object is at most max_buffer_bytes, and each chunk's decoder
// allocations are charged to a budget of max_buffer_bytes (a footer or chunk
// that would need more is a LimitExceeded failure naming it, never a larger
// read). So the buffers held at once are at most
//     the manifest (≤ 64 MiB, one Get capped at that) and its model
//   + one parsed footer (its raw bytes ≤ max_buffer_bytes)
//   + one column chunk's bytes (≤ max_buffer_bytes)
//   + that chunk's decoded values (≤ max_buffer_bytes)
//   + the centroids' cid values of one root (4 bytes per leaf),
// i.e. manifest + about 3 × max_buffer_bytes, independent of the object
// sizes; in practice the largest column chunk and its decode (LVQ code
// chunks: rows × code bytes) dominate. The test pins "no object Get exceeds
// the bound" with a store wrapper that records its Gets. Every read is a
// ranged Get with the manifest's size as its expected size: no HEAD.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

struct VerifyOptions {
  // Record every failure and continue; otherwise stop at the first.
  bool all = false;
  // The longest single read and each column chunk's decode budget (above).
  uint64_t max_buffer_bytes = uint64_t{256} << 20;
  // artifact-uuid must be the UUIDv8 `vigilo index build` derives from the
  // manifest's content (publication-v1.md §2.2); this is what makes a changed
  // byte anywhere in manifest.json detectable. Off for publications whose
  // builder chose its own UUID.
  bool derived_uuid = true;
  // Set from another thread to stop at the next read: the verification then
  // fails with `cancelled` (no report: a partial one would claim too little
  // was wrong).
  const store::CancelToken* cancel = nullptr;
};

struct VerifyReport {
  // In check order; each names its object (and "row group N"), or for the
  // manifest the manifest path and JSON path. Empty: the publication verified.
  std::vector<Status> failures;
  uint64_t manifest_bytes = 0;
  uint64_t objects = 0;        // objects checked (the manifest not included; embedding assets included)
  uint64_t assets = 0;         // embedding assets checked (size and SHA-256; not parsed: see CheckObjects)
  uint64_t bytes_hashed = 0;   // fed to SHA-256
  uint64_t bytes_read = 0;     // read from objects, hashing included
  uint64_t largest_read = 0;   // the longest single Get, manifest included
  uint64_t row_groups = 0;
  uint64_t column_chunks = 0;  // decoded
  uint64_t rows = 0;           // postings rows in the footers (equal to ntotal when valid)
  uint64_t source_rows = 0;
  bool ok() const { return failures.empty(); }
  // Takes CheckObjects' counts (largest_read: the larger of the two).
  void AddObjectCounts(const ObjectCheckReport& counts);
};

// The artifact-uuid rule (VerifyOptions::derived_uuid): IntegrityError at
// "$.artifact-uuid" when it is not the content-derived UUID.
Status CheckDerivedArtifactUuid(const Manifest& manifest);

// Verifies the objects of an already parsed manifest (and its derived UUID).
// The Result fails only for bad options (InvalidArgument); the publication's
// failures are in the report.
Result<VerifyReport> VerifyPublication(const Manifest& manifest, store::ObjectStore& store,
                                       const VerifyOptions& options);

// Reads `manifest_path` through the store too (one Get; more than 64 MiB is
// LimitExceeded), parses it, then VerifyPublication.
// Manifest failures are named "<manifest_path>: $.json.path" (or
// "<manifest_path>" with a byte offset for broken JSON); an unparsable
// manifest ends verification, since it names no objects.
Result<VerifyReport> VerifyPublicationFrom(store::ObjectStore& store, const std::string& manifest_path,
                                           const VerifyOptions& options);

}  // namespace vigilo::ivf
