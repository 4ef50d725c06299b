// The sans-IO query core (docs/format/ivf-query.md): it plans exact byte
// ranges and consumes the bytes the caller fetched; it never opens a file or
// a socket, so the CLI (local files) and a browser (HTTP ranges) share it.
//
//   PublicationReader reader(manifest);             // caches centroids and footers
//   auto run = QueryRun::Start(reader, {query}, {.k = 10, .nprobe = 16});
//   while (!run->done()) {
//     std::vector<std::vector<uint8_t>> bytes;      // one per request, in order
//     for (const ObjectRange& r : run->requests()) bytes.push_back(fetch(r));
//     VIGILO_RETURN_IF_ERROR(run->Supply(std::move(bytes)));
//   }
//   const QueryResult& result = run->result();
//
// This header is the core alone: it includes nothing that opens a file, a
// socket or a thread, so it also builds for WebAssembly (docs/format/wasm.md;
// target vigilo_read_core). query.h adds the drivers over the ObjectStore seam.
//
// Steps: the centroids object (once per reader) → every leaf centroid ranked
// globally, the nprobe nearest CIDs → the postings files whose [min-cid,
// max-cid] hold them, from the manifest alone → their footers (one
// speculative tail read; cached), CID statistics checked against the
// manifest (file range, bucket interval, order, row count) → only the selected
// row groups' key/offset/scale/code chunks, adjacent ranges coalesced →
// scored → top-k by (_distance, postings order).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/byte_range.h"
#include "vigilo/common/result.h"
#include "vigilo/ivf/key_column.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/range_plan.h"

namespace vigilo::ivf {

using ObjectRange = vigilo::ObjectRange;

// What every sans-IO run does with a batch of responses: one per request,
// each exactly its length (Internal for a miscount, IntegrityError naming the
// path for a short or long response), added to the byte and request counters.
Status AcceptResponses(const std::vector<ObjectRange>& requests, std::span<const std::span<const uint8_t>> responses,
                       uint64_t& bytes_fetched, uint64_t& request_count);

struct QueryOptions {
  uint32_t k = 10;
  uint32_t nprobe = 16;
  uint64_t footer_tail_bytes = 64 * 1024;  // the speculative footer read
  RangeLimits ranges;                      // how selected row groups are merged into requests
  // Screen LVQ8 rows and centroids with proven distance bounds and score
  // exactly only those the bounds cannot rule out (docs/format/
  // ivf-build-algorithms.md, "Screening"). Results are identical either way;
  // false scores every row (tests, measurements).
  bool screen = true;
};

struct QueryHit {
  uint32_t query = 0;  // index of the query vector
  uint32_t rank = 0;   // 0-based
  float distance = 0;
  uint32_t cid = 0;
  size_t file = 0;   // index into manifest.postings
  uint64_t row = 0;  // row within that file
};

struct QueryResult {
  std::vector<QueryHit> hits;  // query by query, rank by rank
  KeyColumn keys;              // keys.Bytes(i) / keys.integers[i] … belong to hits[i]
  uint64_t bytes_fetched = 0;
  uint64_t requests = 0;
  // The bytes of held postings (PublicationReader::HoldPostings) the probed
  // row groups span: read in place, neither requested nor fetched.
  uint64_t bytes_held = 0;
  // Postings row groups scored: their offsets, scales and codes read in place
  // (uncompressed PLAIN pages) or decoded (any other layout; same distances).
  uint64_t row_groups_in_place = 0;
  uint64_t row_groups_decoded = 0;
  // What the screen (QueryOptions::screen) ruled out without exact scoring:
  // leaf centroids (ranking) and postings rows, summed over the queries.
  uint64_t centroids_screened_out = 0;
  uint64_t rows_screened_out = 0;
  // Postings rows in the row groups each query probed, summed over the
  // queries: what their scans read (a row group two queries probe counts twice).
  uint64_t rows_probed = 0;
  // Per query, the CIDs it probed, nearest first (evaluation: list recall).
  std::vector<std::vector<uint32_t>> probes;
};

// Per-publication state shared by queries: decoded centroids and parsed
// footers, cached forever (publications are immutable), behind a pointer
// (its layout is the query core's own: src/ivf/publication_reader_state.h).
//
// Threads: a reader is not thread-safe. Every QueryRun and SourceLookup on
// it mutates its caches and working buffers, so runs on one reader must not
// overlap in time (interleaving runs on one thread is fine: each call
// leaves the reader consistent). Concurrent searches of one publication use
// one reader each — engine::Publication keeps a pool of them, and
// MemoryContextTest.ConcurrentSearchesOfOnePublicationAnswerAsALoneSearch
// checks that eight threads get the single-thread answers.
class PublicationReader {
 public:
  explicit PublicationReader(Manifest manifest);
  ~PublicationReader();
  PublicationReader(PublicationReader&&) noexcept;
  PublicationReader& operator=(PublicationReader&&) noexcept;
  const Manifest& manifest() const;
  // The manifest's size of the object at `path` (nullopt for a path it does
  // not name): what a driver's Get expects, so it never needs a HEAD.
  std::optional<uint64_t> ObjectSize(std::string_view path) const;
  // The manifest's SHA-256 (64 lowercase hex digits) of the object at
  // `path`, empty for a path it does not name. A driver that fetched a whole
  // object checks its bytes against it before Supply (docs/format/
  // ivf-query.md, "What a reader checks").
  const std::string& ObjectSha256(std::string_view path) const;
  // The centroids were decoded by an earlier run (a run then never asks for them).
  bool has_centroids() const;
  // Holds a postings file whole for the reader's life (docs/format/
  // ivf-query.md, "Held postings"): later runs read its probed row groups
  // from `bytes` in place, with no range planned, requested or supplied for
  // them and no page touched ahead (they are the host's memory, not a file
  // mapping). `bytes` must be the object whole, checked by the host against
  // ObjectSha256(path) as any whole object is; `owner` keeps them alive.
  // InvalidArgument, holding nothing, for a path that names no postings file
  // of the manifest or bytes of another size than its.
  Status HoldPostings(std::string_view path, std::shared_ptr<const void> owner, std::span<const uint8_t> bytes);
  bool HoldsPostings(std::string_view path) const;

 private:
  friend class QueryRun;
  friend class QueryScoring;
  friend class SourceLookup;
  struct State;
  // Working buffers of a query's ranking, planning and scoring (query.cc,
  // query_score.cc; defined in src/ivf/query_scratch.h), made on first use.
  struct Scratch;
  Scratch& scratch();
  State& state() { return *state_; }
  const State& state() const { return *state_; }
  std::unique_ptr<State> state_;
};

struct PostingsGroup;  // a postings row group as the reader indexed it (private)
class QueryScoring;   // a run's last step, scoring the fetched row groups (private: query_score.h)

class QueryRun {
 public:
  // Queries are d floats each (normalized here for cosine). InvalidArgument
  // for a wrong dimension, k or nprobe of 0, or a non-finite value, and —
  // here when the centroids are cached, else from the Supply that brings
  // them — for a query whose distance to a centroid overflows float32
  // ("query 3: …"; docs/format/ivf-query.md, Ranking).
  static Result<std::unique_ptr<QueryRun>> Start(PublicationReader& reader, std::vector<std::vector<float>> queries,
                                                 QueryOptions options);

  bool done() const { return stage_ == Stage::kDone; }
  // What to fetch next (exact ranges of manifest paths).
  const std::vector<ObjectRange>& requests() const { return requests_; }
  // The bytes of every request, in order. Errors leave the run failed.
  // The views need to live only for the call (nothing is kept).
  Status Supply(std::span<const std::span<const uint8_t>> responses);
  Status Supply(std::vector<std::vector<uint8_t>> responses);
  const QueryResult& result() const { return result_; }

 private:
  enum class Stage { kCentroids, kFooters, kChunks, kDone };
  QueryRun(PublicationReader& reader, std::vector<std::vector<float>> queries, QueryOptions options);
  Status Advance();  // plans the next stage from what is known
  Status PlanFooters();
  Status IndexFooter(size_t file, parquet::Footer footer);
  Status PlanChunks();
  Status Score(std::span<const std::span<const uint8_t>> responses);  // QueryScoring
  friend class QueryScoring;

  PublicationReader& reader_;
  std::vector<std::vector<float>> queries_;
  QueryOptions options_;
  Stage stage_ = Stage::kCentroids;
  std::vector<ObjectRange> requests_;
  std::vector<std::vector<uint32_t>> probes_;  // per query, the probed CIDs
  std::vector<uint32_t> probed_;               // their union, sorted
  std::vector<size_t> footer_files_;           // the files whose footers are requested
  static constexpr size_t kHeld = SIZE_MAX;
  // A selected row group inside a (coalesced) chunk request or a held file.
  struct ChunkSlice {
    size_t file;
    size_t row_group;
    uint32_t cid;
    uint64_t first_row;  // the row group's first row within the file
    size_t request;      // the request that covers it, or kHeld: its file is held whole
    PostingsGroup* record;  // its footer's record (in the reader's state)
  };
  // Every selected row group, in file and row-group order (so by request:
  // a request covers a run of them).
  std::vector<ChunkSlice> slices_;
  QueryResult result_;
  bool failed_ = false;
};

}  // namespace vigilo::ivf
