// Private to the query core: the last step of a QueryRun (docs/format/
// ivf-query.md, step 6). Given the bytes of the selected postings row groups,
// it scores every probed row that can enter a query's top-k — screening the
// rest out by proven bounds (docs/format/ivf-build-algorithms.md,
// "Screening") — and fills the run's hits, best first.
//
// One QueryScoring lives for one Score call. Its parts, in the order a call
// runs them: the (query, list) contexts (PrepareContexts), the row groups'
// order (OrderGroups: nearest list first for a query alone), then each row
// group (ScoreGroup): its columns read, the bounds of several queries probing
// it computed in one pass (ScreenTogether), and each probing query's rows
// scored (ScoreProbe: its bounds, the rows they let through, its heap).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lvq_screen_internal.h"
#include "postings_group_columns.h"
#include "vigilo/common/result.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/query_core.h"

namespace vigilo::ivf {

class QueryScoring {
 public:
  QueryScoring(QueryRun& run, PublicationReader& reader);
  Status Run(std::span<const std::span<const uint8_t>> responses);

  // A candidate hit; the key travels with it as bytes (i64 little-endian for
  // integer keys, one byte for booleans).
  struct Candidate {
    float distance;
    size_t file;
    uint64_t row;
    uint32_t cid;
    std::string key;
  };

  // A query probing a row group: the query and its context's index (into
  // the prepared contexts when made up front).
  using Prober = std::pair<uint32_t, size_t>;

  // The working buffers of a call, kept by the reader between calls
  // (PublicationReader::Scratch) so that a query allocates little once they
  // have grown.
  struct Buffers {
    std::vector<uint8_t> screen_ready;
    // Cosine weighs every list of a query by the query itself, so the lists'
    // screens share one quantization: made for the query's first screened
    // list (quantized[q]), copied for the others.
    std::vector<size_t> quantized;
    // Who probes each CID: (cid, prober), by CID, queries in order.
    std::vector<std::pair<uint32_t, Prober>> probing;
    std::vector<Prober> probers_of;
    std::vector<std::vector<Candidate>> top;  // max-heaps by Better
    ListContext ctx;                          // a list prepared alone
    screen::ScreenContext screen_ctx;
    std::vector<float> distance, lower, upper;
    // A row group's queries screened together (prober j's slot in the
    // bounds, or kNoSlot), and their lists when prepared per group.
    std::vector<size_t> group_slot;
    std::vector<ListContext> group_lists;
    std::vector<screen::ScreenContext> group_screens;
    std::vector<uint8_t> group_list_ready, group_screen_ready;
    std::vector<std::span<const float>> group_queries;
    std::vector<const screen::ScreenContext*> group_contexts;
    std::vector<float> group_lower, group_upper;
    std::vector<float*> lower_at, upper_at;
    std::vector<uint32_t> considered;  // a row group's rows scored exactly, in order
    std::vector<float> fill;           // FillThreshold's values
    std::vector<CodeSums> code_sums;   // a row group's (l2)
    std::optional<PostingsGroupColumns> columns;  // one row group's (made on first use: the key kind and code size are the publication's)
    std::vector<uint32_t> order;  // the slices in scoring order
    // NearestListsFirst's: the slices' CIDs, each CID's rank (kNotProbed
    // between queries), the ranks' counts, the order being built.
    std::vector<uint32_t> slice_cids, rank_of, rank_count, sorted_slices;
    std::vector<float> decoded;  // the probed centroids, decoded again for their contexts
  };

 private:
  // The row group being scored.
  struct Group {
    const QueryRun::ChunkSlice* slice = nullptr;
    const std::string* path = nullptr;
    size_t n = 0;  // rows
    std::span<const float> centroid;
    const CodeSums* sums = nullptr;  // its rows' code sums, when computed once for all its queries
    bool may_screen = false;         // its rows may be screened (LVQ8, the screen on)
    bool together = false;           // several queries probe it: ScreenTogether ran
    size_t slots = 0;                // the queries ScreenTogether bounded (used when > 1)
    const CodeSums* SumsAt(size_t row) const { return sums == nullptr ? nullptr : sums + row; }
  };
  // One query's turn at a row group.
  struct Probe {
    size_t index = 0;  // in the group's probers
    uint32_t q = 0;
    size_t context = 0;
    const ListContext* list = nullptr;
    std::vector<Candidate>* heap = nullptr;
    const float* lower = nullptr;  // its rows' bounds, once computed
    const float* upper = nullptr;
  };

  Status PrepareContexts();
  const std::vector<Prober>& ProbersOf(uint32_t cid);
  screen::ScreenContext& ReadyScreen(uint32_t q, size_t context);
  void OrderGroups();
  void Prefetch(size_t t, bool headers, bool values);
  void TouchPages(std::span<const uint8_t> bytes);
  std::pair<std::span<const uint8_t>, uint64_t> BytesOf(const QueryRun::ChunkSlice& slice) const;
  Status ScoreGroup(size_t t);
  void ComputeGroupSums(Group& g);
  void ScreenTogether(Group& g, const std::vector<Prober>& probers);
  Status ScoreProbe(const Group& g, Probe& p);
  const screen::ScreenContext& OwnScreen(const Group& g, const Probe& p);
  RowBlock Rows(const Group& g, const parquet::ValueRun& run, size_t run_row, size_t from, size_t count) const;
  void BoundRows(const Group& g, Probe& p);
  void ScoreRows(const Group& g, const Probe& p, bool screened, float threshold);
  Status Consider(const Group& g, const Probe& p);
  void CollectHits();

  static constexpr size_t kNoSlot = SIZE_MAX;

  QueryRun& run_;
  PublicationReader& reader_;
  PublicationReader::Scratch& scratch_;
  const Manifest& m_;
  const size_t d_;
  std::span<const std::span<const uint8_t>> responses_;
  // The contexts: prepared up front (a query's lists side by side) when they
  // fit a cache-sized budget, else one at a time as each group is scored.
  bool prepared_up_front_ = false;
  std::span<ListContext> prepared_;
  std::span<screen::ScreenContext> screens_;  // the prepared contexts' screens, made on first need
  Buffers& b_;
  uint8_t touched_ = 0;  // TouchPages' reads, kept
};

}  // namespace vigilo::ivf
