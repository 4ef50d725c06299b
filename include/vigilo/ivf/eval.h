// Recall evaluation of a publication (`vigilo index eval`,
// docs/format/ivf-query.md "Evaluation"): ground truth in the ann-benchmarks
// conventions, recall@k, and timed passes of the query core per nprobe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/query.h"
#include "vigilo/json/value.h"
#include "vigilo/store/clock.h"

namespace vigilo::ivf {

// The exact neighbours of each query: row q holds `k` ids (base row
// positions, nearest first) at ids[q·k …).
struct GroundTruth {
  size_t queries = 0;
  size_t k = 0;
  std::vector<int64_t> ids;
  std::span<const int64_t> Row(size_t q) const { return {ids.data() + q * k, k}; }
};

// .ivecs (per row: int32 count, then that many int32 ids; every row the same
// count), .npy (2-D C order '<i4', '<i8', '<u4' or '<u8') or .jsonl (per
// line a JSON array of ids, every line as long as the first), by extension.
// InvalidFormat naming the file, row and byte for anything else (ragged rows,
// negative ids, a truncated row, no rows; in .jsonl a string id, which
// needs ReadGroundTruthIds and an id column).
Result<GroundTruth> ReadGroundTruth(const std::string& path);

// Ground truth in a user's own ids (`index eval --id-column`): per query
// the `k` ids nearest first, each the canonical JSON text of its value (a
// string "\"doc-7\"", an integer "17"), as payload lookup renders a
// source column's values.
struct IdGroundTruth {
  size_t queries = 0;
  size_t k = 0;
  std::vector<std::string> ids;
};
// The formats of ReadGroundTruth: .ivecs and .npy hold integers; a .jsonl
// line is an array of strings or integers (one kind per file).
Result<IdGroundTruth> ReadGroundTruthIds(const std::string& path);

// The same ground truth in row positions: each id's row in the source
// column `id_column` of a publication keyed by row position (an
// `id_column` build; any source table with a long key dense from zero),
// read through `store` one row group at a time. Only the first `k` ids of
// each row are translated. InvalidArgument for a publication without a
// source table or without that column, an id the column does not hold
// (naming the ground truth's row and the column's type), and an id the
// column holds at two rows (recall by id needs the ids it names unique).
// `cancel` is checked before each lookup: `cancelled`.
Result<GroundTruth> GroundTruthInRows(PublicationReader& reader, store::ObjectStore& store, const IdGroundTruth& truth,
                                      const std::string& id_column, size_t k,
                                      const store::CancelToken* cancel = nullptr);

// |found ∩ truth[0, k)| / k: found holds at most k ids (fewer when the probed
// lists held fewer rows); repeated ids in found count once.
double RecallAtK(std::span<const int64_t> found, std::span<const int64_t> truth, size_t k);

struct EvalOptions {
  uint32_t k = 10;
  std::vector<uint32_t> nprobes = {1, 2, 4, 8, 16, 32, 64};
  size_t batch = 1;    // queries per QueryRun: 1 = one at a time, 0 = all at once
  // Untimed queries before each timed pass (page cache, footers), and as
  // many at the widest nprobe before the first (a reader's first reads).
  size_t warmup = 100;
  bool screen = true;   // QueryOptions::screen
  // Before the first warm-up, the postings files that fit in this many
  // bytes are held in the reader (ivf::HoldPostings: read whole through the
  // store, checked, then read in place by every pass); 0 holds none.
  uint64_t hold_postings_max_bytes = 0;
  // Set from another thread (the CLI's signal watcher): checked before every
  // query run, warm-up and timed (one atomic load, negligible next to a
  // query); EvaluateRecall then returns `cancelled`. Evaluating writes
  // nothing.
  const store::CancelToken* cancel = nullptr;
};

struct EvalPoint {
  uint32_t nprobe = 0;
  size_t batch = 0;
  size_t queries = 0;
  double recall = 0;               // mean recall@k
  // Mean recall@k of an exact float scan of the same probed lists: what the
  // partitions allow (every true neighbour in a probed list is found), so
  // recall − list_recall is what the codes lose and 1 − list_recall what the
  // clustering loses.
  double list_recall = 0;
  double seconds = 0;              // the timed pass, one thread
  // The timed pass's CPU time on its thread: on a machine shared with other
  // jobs, wall time also counts the slices the thread waited for a core
  // (n / cpu_seconds is the rate an unshared core would approach).
  double cpu_seconds = 0;
  double qps = 0;                  // queries / seconds
  // Bytes fetched in the timed pass, and the spans of its row groups in held
  // postings (read in place, not fetched), / queries.
  double bytes_per_query = 0;
  double requests_per_query = 0;   // ranges fetched in the timed pass / queries
  // Postings rows in the lists each query probed, the timed pass's mean:
  // the rows its scan reads (with the machine's scattered-read rate, bench/
  // ivf_kernels "Probed lists", a query's memory floor).
  double rows_per_query = 0;
  // Of those, the rows scored exactly (the rest the screen ruled out), and
  // the leaf centroids scored exactly in the ranking: where the screen's
  // bounds leave work, the timed pass's means.
  double rows_scored_per_query = 0;
  double centroids_scored_per_query = 0;
};

// A warm-up at the widest nprobe (EvalOptions::warmup), then for each
// nprobe: a warm-up, then every query through `reader` (whose
// centroid and footer caches persist across passes, as in a long-lived
// reader), timed on one thread, fetching through `store` (the local store:
// views of cached mappings, as a long-lived native reader sees them). The
// publication's key must be `long` (the ground truth's ids are key values);
// InvalidArgument if not, or if the ground truth has fewer rows than there
// are queries or fewer than k columns.
Result<std::vector<EvalPoint>> EvaluateRecall(PublicationReader& reader, store::ObjectStore& store,
                                              const std::vector<std::vector<float>>& queries,
                                              const GroundTruth& truth, const EvalOptions& options);

// One point as `vigilo index eval --json` and the Python package's
// evaluate() report it: every measurement at full precision, snake_case
// keys, in this order, with the run's k and this process's kernel path
// (one definition, so the two bindings cannot drift apart).
std::vector<std::pair<std::string, json::Value>> EvalPointFields(const EvalPoint& p, uint32_t k);

}  // namespace vigilo::ivf
