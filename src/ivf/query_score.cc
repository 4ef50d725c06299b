#include "query_score.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "column_schema.h"
#include "kth_smallest.h"
#include "query_scratch.h"
#include "vigilo/parquet/column_view.h"

namespace vigilo::ivf {
namespace {

using Kind = ColumnType::Kind;
using Candidate = QueryScoring::Candidate;

bool Better(const Candidate& a, const Candidate& b) {
  if (a.distance != b.distance) return a.distance < b.distance;
  if (a.file != b.file) return a.file < b.file;
  return a.row < b.row;
}

// Whether all of bounds[0, kSkipBlock) exceed the threshold: most rows'
// lower bounds do once a heap is full, and a block's test has no branch per
// row (at nprobe 64 on wink a loop that branched on every row took a
// seventh of a query). Written with GCC's (and clang's) vector extensions:
// the scalar form compiled to one compare and one flag test a row (4% of a
// wink query at nprobe 64), this to four 4-lane compares a block (SSE2 on
// any x86-64; lane by lane where a target has no vectors). NaN is not above.
constexpr size_t kSkipBlock = 16;
bool AllAbove(const float* bounds, float threshold) {
  using Floats = float __attribute__((vector_size(16)));
  using Mask = int32_t __attribute__((vector_size(16)));
  const Floats t = {threshold, threshold, threshold, threshold};
  Mask all = {-1, -1, -1, -1};
  for (size_t k = 0; k < kSkipBlock; k += 4) {
    Floats b;
    std::memcpy(&b, bounds + k, sizeof b);
    all &= b > t;
  }
  return (all[0] & all[1] & all[2] & all[3]) != 0;
}

// The k-th smallest (k from 1) of the heap's exact distances and a row
// group's upper bounds, k ≤ heap size + bounds: at least k rows have a
// distance at most this, so a row whose lower bound exceeds it cannot be among
// the k best. A bound that is NaN counts as +∞ (no bound), as does a k-th
// that is one.
float FillThreshold(const std::vector<Candidate>& heap, std::span<const float> upper, size_t k,
                    std::vector<float>& scratch) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (k <= kFewest) {
    SmallestFew few(k);
    for (const Candidate& c : heap) few.Offer(c.distance);
    for (float u : upper) few.Offer(std::isnan(u) ? kInf : u);
    return few.Kth();
  }
  scratch.clear();
  for (const Candidate& c : heap) scratch.push_back(c.distance);
  for (float u : upper) scratch.push_back(std::isnan(u) ? kInf : u);
  std::nth_element(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(k - 1), scratch.end());
  return scratch[k - 1];
}

// One query's row groups put in its ranking's order, nearest list first
// (`probe`: its lists so ranked; cid_of[t]: the list of row group order[t];
// a list's groups keep their order). Its heap's k-th distance then falls
// fastest, so the screen rules out more of the later lists' rows. The hits
// do not depend on the order: the heap keeps the k best under a total order
// (distance, file, row), and a row is ruled out only when k rows beat it.
//
// `rank_of` is indexed by CID (nlist entries, kNotProbed where not probed,
// and left so: the entries set here are reset before returning), `count` and
// `sorted` are buffers: a counting sort by rank, stable, allocating nothing
// once the buffers have grown.
constexpr uint32_t kNotProbed = UINT32_MAX;
void NearestListsFirst(std::span<const uint32_t> probe, std::span<const uint32_t> cid_of, std::vector<uint32_t>& order,
                       std::vector<uint32_t>& rank_of, std::vector<uint32_t>& count, std::vector<uint32_t>& sorted) {
  const uint32_t last = static_cast<uint32_t>(probe.size());  // the rank of a group no probe names (none, in fact)
  for (size_t j = 0; j < probe.size(); ++j) rank_of[probe[j]] = static_cast<uint32_t>(j);
  auto rank = [&](size_t t) { return cid_of[t] < rank_of.size() && rank_of[cid_of[t]] != kNotProbed ? rank_of[cid_of[t]] : last; };
  count.assign(probe.size() + 2, 0);
  for (size_t t = 0; t < order.size(); ++t) ++count[rank(t) + 1];
  for (size_t r = 1; r < count.size(); ++r) count[r] += count[r - 1];  // count[r]: where rank r's groups begin
  sorted.resize(order.size());
  for (size_t t = 0; t < order.size(); ++t) sorted[count[rank(t)]++] = order[t];
  order.swap(sorted);
  for (uint32_t cid : probe) rank_of[cid] = kNotProbed;
}

// Memory is asked for ahead of use, many lines at once, rather than met
// one dependent miss at a time: every chunk's first bytes (its page
// header) up front, and each group's offsets and scales (which are read
// before its codes, and are far from them) kPrefetchGroups groups ahead.
// On Fashion-MNIST (61 rows a list) the groups' offsets and scales, met
// cold, took a quarter of a query at nprobe 8; all of them at once at
// nprobe 256 overflowed L2, hence the window.
constexpr size_t kPrefetchGroups = 16;

}  // namespace

QueryScoring::QueryScoring(QueryRun& run, PublicationReader& reader)
    : run_(run),
      reader_(reader),
      scratch_(reader.scratch()),
      m_(reader.manifest()),
      d_(m_.index.dimension),
      b_(scratch_.scoring) {
  b_.top.resize(run.queries_.size());
  for (std::vector<Candidate>& heap : b_.top) heap.clear();
  if (!b_.columns) b_.columns.emplace(m_.index.source_key[0].type.kind, static_cast<size_t>(CodeBytes(m_.index.encoding, d_)));
}

Status QueryScoring::Run(std::span<const std::span<const uint8_t>> responses) {
  responses_ = responses;
  VIGILO_RETURN_IF_ERROR(PrepareContexts());
  OrderGroups();
  for (size_t t = 0; t < b_.order.size(); ++t) Prefetch(t, /*headers=*/true, /*values=*/t < kPrefetchGroups);
  for (size_t t = 0; t < b_.order.size(); ++t) {
    if (const size_t ahead = t + kPrefetchGroups; ahead < b_.order.size()) Prefetch(ahead, /*headers=*/false, /*values=*/true);
    VIGILO_RETURN_IF_ERROR(ScoreGroup(t));
  }
  CollectHits();
  return Status::Ok();
}

// Which queries probe each CID, and each (query, list) context: prepared up
// front, a query's lists side by side (PrepareLists), when they fit a
// cache-sized budget (one query up to nprobe ~660 at d = 784), else one at a
// time as each group is scored.
Status QueryScoring::PrepareContexts() {
  const Manifest& m = m_;
  const size_t context_bytes = d_ * sizeof(float) * (m.index.encoding == Encoding::kLvq4 ? 2 : 1);
  size_t probe_count = 0;
  for (const auto& p : run_.probes_) probe_count += p.size();
  prepared_up_front_ = probe_count * context_bytes <= (size_t{2} << 20);  // else they leave the cache before use
  const size_t prepared_count = prepared_up_front_ ? probe_count : 0;
  if (scratch_.prepared.size() < prepared_count) scratch_.prepared.resize(prepared_count);
  if (scratch_.screens.size() < prepared_count) scratch_.screens.resize(prepared_count);
  prepared_ = std::span<ListContext>(scratch_.prepared.data(), prepared_count);
  screens_ = std::span<screen::ScreenContext>(scratch_.screens.data(), prepared_count);
  b_.screen_ready.assign(prepared_count, 0);
  b_.quantized.assign(m.index.metric == Metric::kCosine ? run_.queries_.size() : 0, kNoSlot);
  b_.probing.clear();
  b_.probing.reserve(probe_count);
  std::vector<std::span<const float>> centroids;
  // The probed centroids decoded again from their codes (exactly
  // DecodeLvq's floats): a quarter of the bytes of the cached decoded rows,
  // and the codes were just ranked, so they are still in cache.
  std::vector<float>& decoded = b_.decoded;
  const PublicationReader::State& state = reader_.state();
  size_t at = 0;
  for (uint32_t q = 0; q < run_.probes_.size(); ++q) {
    centroids.clear();
    if (prepared_up_front_) decoded.resize(run_.probes_[q].size() * d_);
    for (uint32_t cid : run_.probes_[q]) {
      b_.probing.push_back({cid, {q, at + centroids.size()}});
      if (!prepared_up_front_) continue;
      std::span<float> row(decoded.data() + centroids.size() * d_, d_);
      VIGILO_RETURN_IF_ERROR(DecodeLvq(Encoding::kLvq8, LvqParams{state.centroid_offsets[cid], state.centroid_scales[cid]},
                                       std::span<const uint8_t>(state.centroid_codes.data() + size_t{cid} * d_, d_), row));
      centroids.emplace_back(row);
    }
    if (prepared_up_front_) {
      VIGILO_RETURN_IF_ERROR(PrepareLists(m.index.metric, m.index.encoding, run_.queries_[q], centroids,
                                          prepared_.subspan(at, centroids.size())));
    }
    at += centroids.size();
  }
  std::stable_sort(b_.probing.begin(), b_.probing.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return Status::Ok();
}

// A row group's probers, in query order.
const std::vector<QueryScoring::Prober>& QueryScoring::ProbersOf(uint32_t cid) {
  auto it = std::lower_bound(b_.probing.begin(), b_.probing.end(), cid, [](const auto& p, uint32_t c) { return p.first < c; });
  b_.probers_of.clear();
  for (; it != b_.probing.end() && it->first == cid; ++it) b_.probers_of.push_back(it->second);
  return b_.probers_of;
}

// The screen of a prepared context, made when it is first needed (at nprobe
// 64 on wink the repeated cosine quantization was 2.8% of a query's
// instructions, hence the sharing).
screen::ScreenContext& QueryScoring::ReadyScreen(uint32_t q, size_t context) {
  if (!b_.screen_ready[context]) {
    if (!b_.quantized.empty() && b_.quantized[q] != kNoSlot) {
      screen::PrepareScreenSharing(prepared_[context], screens_[b_.quantized[q]], screens_[context]);
    } else {
      screen::PrepareScreen(prepared_[context], screens_[context], screen::PostingsScreenWeights(m_.index.metric, d_));
      if (!b_.quantized.empty()) b_.quantized[q] = context;
    }
    b_.screen_ready[context] = 1;
  }
  return screens_[context];
}

// File order, or for a query alone its nearest lists first (NearestListsFirst).
void QueryScoring::OrderGroups() {
  b_.order.resize(run_.slices_.size());
  for (size_t t = 0; t < b_.order.size(); ++t) b_.order[t] = static_cast<uint32_t>(t);
  if (run_.probes_.size() != 1) return;
  std::vector<uint32_t>& cid_of = b_.slice_cids;
  cid_of.resize(b_.order.size());
  for (size_t t = 0; t < b_.order.size(); ++t) cid_of[t] = run_.slices_[b_.order[t]].cid;
  if (b_.rank_of.size() != m_.index.nlist) b_.rank_of.assign(m_.index.nlist, kNotProbed);
  NearestListsFirst(run_.probes_[0], cid_of, b_.order, b_.rank_of, b_.rank_count, b_.sorted_slices);
}

// The t-th group's chunk headers (its offset, scale and code chunks' first
// line) and, with `values`, its offsets and scales whole, and one byte of
// every 4 KiB page from its offsets to its codes' end read (TouchPages).
void QueryScoring::Prefetch(size_t t, bool headers, bool values) {
  const QueryRun::ChunkSlice& slice = run_.slices_[b_.order[t]];
  const PostingsGroup& group = *slice.record;
  const auto [bytes, base] = BytesOf(slice);
  for (size_t leaf = 1; leaf < 4; ++leaf) {
    const uint64_t at = group.chunks[leaf].offset - base;
    const uint64_t length = values && leaf < 3 ? group.chunks[leaf].length : headers ? 1 : 0;
    const uint64_t end = std::min<uint64_t>(at + length, bytes.size());
    for (uint64_t line = at; line < end; line += 64) __builtin_prefetch(bytes.data() + line);
  }
  // (Held bytes are the host's memory, where a load ahead only costs: no
  // page of theirs faults, and the resident store puts them on 2 MiB pages.)
  if (values && slice.request != QueryRun::kHeld) {  // (a hostile footer may order the chunks otherwise: then nothing is touched)
    const uint64_t from = group.chunks[1].offset - base;
    const uint64_t to = std::min<uint64_t>(group.chunks[3].offset + group.chunks[3].length - base, bytes.size());
    if (from < to) TouchPages(bytes.subspan(static_cast<size_t>(from), static_cast<size_t>(to - from)));  // (to ≤ bytes.size())
  }
}

// The bytes a slice's row group lies in and the file offset they start
// at: its request's response, or its file whole when held.
std::pair<std::span<const uint8_t>, uint64_t> QueryScoring::BytesOf(const QueryRun::ChunkSlice& slice) const {
  if (slice.request == QueryRun::kHeld) return {reader_.state().held[slice.file].bytes, 0};
  return {responses_[slice.request], run_.requests_[slice.request].offset};
}

// One byte of every 4 KiB page of `bytes` read (and kept, so the reads
// stay). The software prefetches into a page do not seem to take effect on
// this AMD EPYC until a load has walked to it: with the offsets and scales
// prefetched 16 groups ahead a wink query still spent ~10% of its time
// copying them from memory (in PostingsGroupColumns::Read), exactly as much
// as with no prefetch at all, and ~4.5% once a load touched their first byte
// at the prefetch. A load per page of the group's offsets, scales and codes,
// 16 groups ahead, made one-at-a-time queries faster on both sets (`index
// eval --batch 1`, CPU µs a query, medians of 9–11 interleaved runs): wink
// nprobe 64 201 → 189, 213 → 193 and 183 → 177, Fashion-MNIST nprobe 8
// 79 → 73 and 74 → 70; batched (1,000 a batch) unchanged. (Touching every
// group's pages at once, before scoring, gained a little less.) A load that
// misses holds retirement until it returns, which is why the pages are
// touched far ahead, not just before use.
void QueryScoring::TouchPages(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  constexpr uintptr_t kPage = 4096;
  const uintptr_t first = reinterpret_cast<uintptr_t>(bytes.data());
  const uintptr_t last = first + bytes.size() - 1;
  uint8_t sum = 0;
  for (uintptr_t at = first; at <= last; at = (at | (kPage - 1)) + 1) {
    sum ^= *static_cast<const volatile uint8_t*>(bytes.data() + (at - first));
  }
  touched_ ^= sum;
}

Status QueryScoring::ScoreGroup(size_t t) {
  const QueryRun::ChunkSlice& slice = run_.slices_[b_.order[t]];
  const auto [bytes, base] = BytesOf(slice);
  const std::vector<Prober>& probers = ProbersOf(slice.cid);
  QueryResult& result = run_.result_;
  Group g;
  g.slice = &slice;
  g.path = &m_.postings[slice.file].object.path;
  VIGILO_ASSIGN_OR_RETURN(
      const bool in_place,
      b_.columns->Read(PostingsGroupColumns::Source{slice.record, &reader_.state().postings_columns.at(slice.file),
                                                 bytes, base, g.path, slice.row_group,
                                                 slice.first_row}));
  ++(in_place ? result.row_groups_in_place : result.row_groups_decoded);
  g.n = b_.columns->rows();
  result.rows_probed += g.n * probers.size();
  g.centroid = std::span<const float>(reader_.state().centroids.data() + size_t{slice.cid} * d_, d_);
  b_.distance.resize(g.n);
  const bool screen = run_.options_.screen && m_.index.encoding == Encoding::kLvq8;
  // l2 with the screen and several queries probing the group: its exact
  // code sums, computed once for all of them (the screen and the kernels
  // then skip them). (For one query the screen's own pass is cheaper: it
  // reads the codes once.)
  if (screen && m_.index.metric == Metric::kL2Squared && probers.size() > 1) ComputeGroupSums(g);
  g.may_screen = screen;
  g.together = screen && probers.size() > 1;
  if (g.together) ScreenTogether(g, probers);
  for (size_t j = 0; j < probers.size(); ++j) {
    Probe p;
    p.index = j;
    p.q = probers[j].first;
    p.context = probers[j].second;
    VIGILO_RETURN_IF_ERROR(ScoreProbe(g, p));
  }
  return Status::Ok();
}

void QueryScoring::ComputeGroupSums(Group& g) {
  b_.code_sums.resize(g.n);
  size_t at = 0;
  for (const parquet::ValueRun& run : b_.columns->code_runs()) {
    ComputeCodeSums(Encoding::kLvq8, d_, run.count, run.first, run.stride, b_.code_sums.data() + at);
    at += run.count;
  }
  g.sums = b_.code_sums.data();
}

// Several queries probing the group: the bounds of every query that will
// screen it (its heap full after the rows that fill it: heap size + n > k)
// are computed first, in one pass over the codes (each row's codes loaded
// once for several queries). A bound depends only on the row and the query,
// so each query then screens as it would alone.
void QueryScoring::ScreenTogether(Group& g, const std::vector<Prober>& probers) {
  const size_t n = g.n;
  b_.group_slot.assign(probers.size(), kNoSlot);
  b_.group_list_ready.assign(probers.size(), 0);
  if (!prepared_up_front_ && b_.group_lists.size() < probers.size()) {
    b_.group_lists.resize(probers.size());
    b_.group_screens.resize(probers.size());
  }
  b_.group_screen_ready.assign(probers.size(), 0);
  if (!prepared_up_front_) {
    // Every prober's list at once, their sums side by side. A failure is
    // left to each query's own turn (ScoreProbe), which meets it again.
    b_.group_queries.clear();
    for (const auto& [q, context] : probers) b_.group_queries.emplace_back(run_.queries_[q]);
    const bool ready = PrepareListsOfCentroid(m_.index.metric, m_.index.encoding, b_.group_queries, g.centroid,
                                              std::span<ListContext>(b_.group_lists).first(probers.size()))
                           .ok();
    b_.group_list_ready.assign(probers.size(), ready ? 1 : 0);
  }
  b_.group_contexts.clear();
  for (size_t j = 0; j < probers.size(); ++j) {
    const auto [q, context] = probers[j];
    if (b_.top[q].size() + n <= run_.options_.k) continue;  // never screens this group
    if (prepared_up_front_) {
      b_.group_contexts.push_back(&ReadyScreen(q, context));
    } else {
      if (!b_.group_list_ready[j]) continue;
      screen::PrepareScreen(b_.group_lists[j], b_.group_screens[j], screen::PostingsScreenWeights(m_.index.metric, d_));
      b_.group_screen_ready[j] = 1;
      b_.group_contexts.push_back(&b_.group_screens[j]);
    }
    b_.group_slot[j] = b_.group_contexts.size() - 1;
  }
  g.slots = b_.group_contexts.size();
  if (g.slots <= 1) return;
  b_.group_lower.resize(g.slots * n);
  b_.group_upper.resize(g.slots * n);
  b_.lower_at.resize(g.slots);
  b_.upper_at.resize(g.slots);
  size_t row = 0;
  for (const parquet::ValueRun& run : b_.columns->code_runs()) {
    for (size_t k = 0; k < g.slots; ++k) {
      b_.lower_at[k] = b_.group_lower.data() + k * n + row;
      b_.upper_at[k] = b_.group_upper.data() + k * n + row;
    }
    screen::ScreenBlockMulti(b_.group_contexts.data(), g.slots, Rows(g, run, row, row, run.count), b_.lower_at.data(),
                             b_.upper_at.data());
    row += run.count;
  }
}

Status QueryScoring::ScoreProbe(const Group& g, Probe& p) {
  const bool list_ready = g.together && b_.group_list_ready[p.index];
  p.list = prepared_up_front_ ? &prepared_[p.context] : list_ready ? &b_.group_lists[p.index] : &b_.ctx;
  if (!prepared_up_front_ && !list_ready) {
    VIGILO_RETURN_IF_ERROR(PrepareList(m_.index.metric, m_.index.encoding, run_.queries_[p.q], g.centroid, b_.ctx));
  }
  p.heap = &b_.top[p.q];
  // The group pass's bounds if it made them, else its own (BoundRows).
  if (g.slots > 1 && b_.group_slot[p.index] != kNoSlot) {
    p.lower = b_.group_lower.data() + b_.group_slot[p.index] * g.n;
    p.upper = b_.group_upper.data() + b_.group_slot[p.index] * g.n;
  }
  const std::vector<Candidate>& heap = *p.heap;
  const size_t k = run_.options_.k;
  b_.considered.clear();
  if (g.may_screen && heap.size() == k) {
    // A full heap: a row whose lower bound exceeds the k-th distance (taken
    // before the rows are screened; it only falls meanwhile) would be
    // rejected by the heap (Consider), so it is screened out and never
    // scored exactly. Its distance is proven finite too, so no error is
    // skipped.
    BoundRows(g, p);
    ScoreRows(g, p, true, heap.front().distance);
  } else if (g.may_screen && heap.size() + g.n > k) {
    // The group fills the heap. Rather than scoring the rows that fill it
    // whatever they are, every row's bounds first: at least k rows (held or
    // in the group) have a distance at most the k-th smallest of the heap's
    // distances and the rows' upper bounds, so a row whose lower bound
    // exceeds it loses to k rows and is screened out.
    BoundRows(g, p);
    ScoreRows(g, p, true, FillThreshold(heap, std::span<const float>(p.upper, g.n), k, b_.fill));
  } else {
    ScoreRows(g, p, false, 0.0f);  // every row enters the heap (or fails), or the screen is off
  }
  return Consider(g, p);
}

// The probe's own screen context: the group pass's, or made now.
const screen::ScreenContext& QueryScoring::OwnScreen(const Group& g, const Probe& p) {
  if (g.together && b_.group_screen_ready[p.index]) return b_.group_screens[p.index];
  if (!prepared_up_front_) {
    screen::PrepareScreen(*p.list, b_.screen_ctx, screen::PostingsScreenWeights(m_.index.metric, d_));
    return b_.screen_ctx;
  }
  return ReadyScreen(p.q, p.context);
}

// Rows [from, from + count) of the group, all within the code run that
// starts at row run_row: their offsets, scales, codes and (when computed)
// code sums, as the kernels take them.
RowBlock QueryScoring::Rows(const Group& g, const parquet::ValueRun& run, size_t run_row, size_t from,
                            size_t count) const {
  return RowBlock{count,
                  b_.columns->offsets().data() + from,
                  b_.columns->scales().data() + from,
                  run.first + (from - run_row) * run.stride,
                  run.stride,
                  g.SumsAt(from)};
}

// The probe's bounds of the group's rows, unless the group pass made them.
void QueryScoring::BoundRows(const Group& g, Probe& p) {
  if (p.lower != nullptr) return;
  const screen::ScreenContext& own = OwnScreen(g, p);
  b_.lower.resize(g.n);
  b_.upper.resize(g.n);
  size_t row = 0;
  for (const parquet::ValueRun& run : b_.columns->code_runs()) {
    screen::ScreenBlock(own, Rows(g, run, row, row, run.count), b_.lower.data() + row, b_.upper.data() + row);
    row += run.count;
  }
  p.lower = b_.lower.data();
  p.upper = b_.upper.data();
}

// Scores the group's rows exactly, or, when `screened`, those whose lower
// bound is at most `threshold` (BoundRows first), and lists those scored in
// b_.considered.
void QueryScoring::ScoreRows(const Group& g, const Probe& p, bool screened, float threshold) {
  size_t row = 0;
  for (const parquet::ValueRun& run : b_.columns->code_runs()) {
    const size_t from = row, to = row + run.count;
    if (!screened) {
      ScoreBlock(*p.list, Rows(g, run, row, from, run.count), b_.distance.data() + from);
      for (size_t i = from; i < to; ++i) b_.considered.push_back(static_cast<uint32_t>(i));
    } else {
      const float* bound = p.lower;
      size_t scored = 0;
      for (size_t i = from; i < to;) {  // exact scores for each stretch of rows not screened out
        if (i + kSkipBlock <= to && AllAbove(bound + i, threshold)) {
          i += kSkipBlock;
          continue;
        }
        if (bound[i] > threshold) {
          ++i;
          continue;
        }
        size_t stretch = i + 1;
        while (stretch < to && !(bound[stretch] > threshold)) ++stretch;
        ScoreBlock(*p.list, Rows(g, run, row, i, stretch - i), b_.distance.data() + i);
        for (size_t j = i; j < stretch; ++j) b_.considered.push_back(static_cast<uint32_t>(j));
        scored += stretch - i;
        i = stretch;
      }
      run_.result_.rows_screened_out += run.count - scored;
    }
    row += run.count;
  }
}

// The heap code, over the rows in b_.considered (in row order).
Status QueryScoring::Consider(const Group& g, const Probe& p) {
  VIGILO_RETURN_IF_ERROR(b_.columns->ConfirmCodes());
  const QueryRun::ChunkSlice& slice = *g.slice;
  std::vector<Candidate>& heap = *p.heap;
  const size_t k = run_.options_.k;
  auto heap_less = [](const Candidate& a, const Candidate& b) { return Better(a, b); };
  for (const uint32_t i : b_.considered) {
    if (!std::isfinite(b_.distance[i])) {
      // The query is in its domain (ranking checked it), so the row is at fault.
      const bool finite_params = std::isfinite(b_.columns->offsets()[i]) && std::isfinite(b_.columns->scales()[i]);
      return InvalidFormat("postings row " + std::to_string(slice.first_row + i) +
                           " scores a non-finite distance (offset or scale " +
                           (finite_params ? "too large)" : "not finite)"))
          .WithPath(*g.path);
    }
    const float dist = b_.distance[i];
    if (heap.size() == k) {  // most rows lose to the current k-th at once
      const Candidate& kth = heap.front();
      if (dist > kth.distance || (dist == kth.distance && !Better({dist, slice.file, slice.first_row + i, 0, {}}, kth))) {
        continue;
      }
    }
    VIGILO_ASSIGN_OR_RETURN(std::string key, b_.columns->Key(i));
    heap.push_back(Candidate{dist, slice.file, slice.first_row + i, slice.cid, std::move(key)});
    std::push_heap(heap.begin(), heap.end(), heap_less);
    if (heap.size() > k) {
      std::pop_heap(heap.begin(), heap.end(), heap_less);
      heap.pop_back();
    }
  }
  b_.considered.clear();
  return Status::Ok();
}

// Every query's heap, best first, into the run's hits and keys.
void QueryScoring::CollectHits() {
  QueryResult& result = run_.result_;
  const Kind key_kind = m_.index.source_key[0].type.kind;
  result.probes = run_.probes_;
  for (uint32_t q = 0; q < b_.top.size(); ++q) {
    std::sort(b_.top[q].begin(), b_.top[q].end(), Better);
    for (uint32_t rank = 0; rank < b_.top[q].size(); ++rank) {
      const Candidate& c = b_.top[q][rank];
      result.hits.push_back(QueryHit{q, rank, c.distance, c.cid, c.file, c.row});
      KeyColumn& keys = result.keys;
      if (key_kind == Kind::kBoolean) {
        keys.booleans.push_back(static_cast<uint8_t>(c.key[0]));
      } else if (key_kind == Kind::kInt || key_kind == Kind::kLong || key_kind == Kind::kDate) {
        int64_t x = 0;
        std::memcpy(&x, c.key.data(), 8);
        keys.integers.push_back(x);
      } else {
        keys.bytes.insert(keys.bytes.end(), c.key.begin(), c.key.end());
        keys.offsets.push_back(keys.bytes.size());
      }
    }
  }
}

}  // namespace vigilo::ivf
