// Validation levels 2 and 3 of publication-v1.md §6: with the objects at
// hand, each Parquet object's size, footer, schema, row groups and CID
// statistics (footers), and optionally every object's SHA-256 and the value
// rules that need the data (deep). Objects are read through the ObjectStore
// seam, keyed by their manifest paths (a local publication: a store rooted at
// the manifest's directory).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/postings_cid.h"
#include "vigilo/parquet/footer.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

// Exactly [offset, offset + length) of a publication object, read through
// the seam with no HEAD: the descriptor's size is the Get's expected size, so
// an object of another size is the store's IntegrityError naming it ("object
// is N bytes, expected M"), a missing one NotFound. Read once: the store
// caches nothing of it (GetOptions::reuse false).
Result<store::Bytes> ReadObjectRange(store::ObjectStore& store, const ObjectDescriptor& object, uint64_t offset,
                                     uint64_t length);

struct ObjectCheckReport {
  uint64_t objects = 0;  // embedding assets included
  uint64_t assets = 0;   // embedding assets (size checked; with deep, SHA-256 too)
  uint64_t row_groups = 0;
  uint64_t bytes_read = 0;
  // Counted by CheckObjects (zero from CheckPublicationObjects is not a claim):
  uint64_t bytes_hashed = 0;   // bytes fed to SHA-256
  uint64_t column_chunks = 0;  // column chunks decoded
  uint64_t rows = 0;           // postings rows in the row groups checked
  uint64_t source_rows = 0;    // source rows in the row groups checked
  uint64_t largest_read = 0;   // the longest single Get
};

// The footer of a Parquet object: one speculative 64 KiB tail read (at most
// max_read bytes; the object's size must be the descriptor's, IntegrityError
// otherwise), and a second read only for a larger footer (LimitExceeded when
// that would exceed max_read). Adds the bytes read to *bytes_read if given.
Result<parquet::Footer> ReadObjectFooter(store::ObjectStore& store, const ObjectDescriptor& object,
                                         uint64_t* bytes_read,
                                         uint64_t max_read = std::numeric_limits<uint64_t>::max());

// Errors name the object (and row group: "<path>: row group 3"):
// IntegrityError for a size or SHA-256 that differs from the manifest,
// ParseError for a broken footer, InvalidFormat for a rule of §3.
Result<ObjectCheckReport> CheckPublicationObjects(const Manifest& manifest, store::ObjectStore& store, bool deep);

// The same checks in per-object steps, for `vigilo index verify`
// (publication_verify.h). For each object in manifest order (centroids,
// postings, source, embedding assets): its size, checked by the first Get (a
// missing, unreadable or wrong-sized object skips the rest of that object),
// its footer and schema (a failure skips that object's row-group checks),
// each row group (a failure skips the rest of that row group only), the
// file's row count, then with deep its SHA-256. An embedding asset is not
// Parquet: its first Get is its last byte, then with deep its SHA-256; its
// contents are its runtime contract's to parse (a reader checks them, and
// runs the parity probe, before its first text query).
struct ObjectCheckOptions {
  bool deep = false;
  // With deep: decode every column chunk of every row group, not only the
  // chunks a value rule reads, so that every page header, level and value
  // encoding is checked too.
  bool every_column = false;
  // The longest single Get (footer tails, column chunks, hash blocks) and
  // each column chunk's decode budget; a chunk or footer needing more is a
  // LimitExceeded failure naming it.
  uint64_t max_read = std::numeric_limits<uint64_t>::max();
  // Sees each failure in order; returning true continues with the next
  // independent check. Without it checking stops at the first failure.
  std::function<bool(const Status&)> on_failure;
  // Set from another thread to stop at the next read: the checks end there
  // and CheckObjects returns `cancelled` (not passed to on_failure: it says
  // nothing about the publication).
  const store::CancelToken* cancel = nullptr;
};

// Returns the first failure (Ok when there is none; `cancelled` when
// options.cancel stopped the checks) and fills *report.
Status CheckObjects(const Manifest& manifest, store::ObjectStore& store, const ObjectCheckOptions& options,
                    ObjectCheckReport* report);

// The same checks over a source table's files alone, as `source` describes
// them (a native catalog's registered source table: engine/catalog.h):
// sizes, footers, schemas, row-group layout and, with deep, the key dense
// from 0 and every file's SHA-256.
Status CheckSourceTable(const SourceSpec& source, store::ObjectStore& store, const ObjectCheckOptions& options,
                        ObjectCheckReport* report);

}  // namespace vigilo::ivf
