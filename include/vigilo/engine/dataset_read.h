// Reading published datasets back (issue 20, "Reading back"): which root a
// user means, and the four read paths over it — a summary, a full
// verification (cases::ReadDataset), the exact submitted document, and a
// range of cases through the ordinal index. Every object is fetched within
// its budget and verified (size, then BLAKE3) before it is decoded; nothing
// is printed here (the CLI formats).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/case_batch.h"
#include "vigilo/cases/dataset.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/cases/object_ref.h"
#include "vigilo/common/result.h"
#include "vigilo/control/control_store.h"
#include "vigilo/store/clock.h"

namespace vigilo::engine {

// A published dataset or run, named (a root name in the control store) or
// given by its root reference.
struct RootLocator {
  std::optional<cases::ObjectRef> ref;  // set for a REF
  std::string name;                     // set for a name
};
using DatasetLocator = RootLocator;

// The root object of a namespace's published values
// (kDatasets: vigilo/dataset-manifest/v1, kRuns: vigilo/run-plan-manifest/v1).
cases::StorageFormat RootFormat(control::Namespace ns);

// The longest root reference text (one trailing LF aside).
inline constexpr size_t kMaxRootReferenceBytes = 64 * 1024;

// A reference's JSON text, as `dataset ingest` and `run plan` print it (an
// ObjectRef of the namespace's root object; at most 64 KiB, one trailing
// LF allowed): ParseError or InvalidFormat for a malformed reference (the
// path names `origin`, then the field), InvalidArgument for a reference to
// another kind of object, LimitExceeded over 64 KiB. Where the text comes
// from (a file, standard input) is the caller's business: the CLI's
// `@FILE` and `-` (docs/format/case-storage-runs.md, "NAME|REF").
Result<cases::ObjectRef> ParseRootReference(std::string_view text, const std::string& origin, control::Namespace ns);

// A name (control::ValidateRootName) or a reference's JSON text (starting
// with `{`; origin "<reference>"). Messages say "dataset" or "run".
Result<RootLocator> ParseRootLocator(std::string_view text, control::Namespace ns);
// ParseRootLocator for the datasets namespace.
Result<DatasetLocator> ParseDatasetLocator(std::string_view text);

// A located root.
struct ResolvedRoot {
  cases::ObjectRef root;                      // the root object's reference
  std::optional<control::RootRecord> record;  // for a name: its current version
  // For a name: the ledger store id of the store its publishing attempt wrote
  // to (control::StoreSpecForLedgerId turns it into a --store spec). Empty
  // for a REF.
  std::string ledger_store_id;
};
using ResolvedDataset = ResolvedRoot;
// A REF is returned as is. A name is looked up in `control`'s namespace `ns`
// (control may be null only for a REF): NotFound "no dataset is published
// under NAME" ("no run ...") otherwise; a stored value that is not a
// reference to the namespace's root object is an error naming
// "<namespace>/<name> version N".
Result<ResolvedRoot> ResolveRoot(const RootLocator& locator, control::ControlStore* control, control::Namespace ns);
// ResolveRoot in the datasets namespace.
Result<ResolvedDataset> ResolveDataset(const DatasetLocator& locator, control::ControlStore* control);

// `dataset show`: the verified manifest, its source fields, and the object
// layout found by walking the index pages (batches are counted from their
// descriptors, not fetched).
struct DatasetOverview {
  cases::DatasetManifest manifest;
  cases::DatasetSourceFields source_fields;
  uint64_t batch_count = 0;
  uint64_t index_page_count = 0;
  uint64_t object_count = 0;  // manifest + source fields + pages + batches
  uint64_t object_bytes = 0;  // their byte_counts added up
};
Result<DatasetOverview> ShowDataset(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                    const cases::ObjectBytesFetch& fetch);

// `dataset export`: writes the exact compact canonical submitted JSON (the
// bytes whose BLAKE3 is dataset_hash) to `out` in pieces, batch by batch,
// verifying every object; the hash of what was written is compared with the
// manifest's at the end (IntegrityError otherwise — after the bytes were
// written, so a caller streaming to stdout must exit non-zero).
struct ExportSummary {
  uint64_t bytes_written = 0;
  uint64_t case_count = 0;
  std::string dataset_hash;  // recomputed, equal to the manifest's
};
// `cancel`, set from another thread (the CLI's signal watcher), stops it
// before the next batch is fetched: `cancelled` (what was written to `out`
// is the caller's to discard).
Result<ExportSummary> ExportDataset(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                    const cases::ObjectBytesFetch& fetch,
                                    const std::function<Status(std::string_view bytes)>& out,
                                    const store::CancelToken* cancel = nullptr);

// `dataset export -o FILE` for every edge: ExportDataset into `path`
// through a temporary beside it, `.<name>.vigilo-export-<pid>`, renamed
// onto `path` only once the export verified, so `path` is either as it was
// (absent, or an earlier file, never truncated) or the whole export. A
// failure or a cancel removes the temporary; temporaries of exports that
// died (SIGKILL: their pid is gone on this host) are removed first.
Result<ExportSummary> ExportDatasetToFile(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                          const cases::ObjectBytesFetch& fetch, const std::string& path,
                                          const store::CancelToken* cancel = nullptr);

// `dataset cases --from N --to M`: the records with ordinals in [from, to)
// (to clamped to case_count; from >= case_count or from >= to is
// InvalidArgument naming the range and the count), in ordinal order, from
// only the batches that hold them (found through the ordinal index, each
// verified in full against its index entry). `on_record` gets the decoded
// record and its canonical line (without LF).
struct CasesSummary {
  int32_t from = 0;
  int32_t to = 0;
  uint64_t batches_fetched = 0;
  uint64_t bytes_fetched = 0;  // every object fetched, manifest and pages included
};
Result<CasesSummary> ReadDatasetCases(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                      const cases::ObjectBytesFetch& fetch, int32_t from, int32_t to,
                                      const std::function<Status(const cases::CaseRecord& record,
                                                                 std::string_view line)>& on_record);

}  // namespace vigilo::engine
