#include "vigilo/ivf/query_core.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

#include "column_schema.h"
#include "kth_smallest.h"
#include "lvq_screen_internal.h"
#include "postings_group_columns.h"
#include "publication_reader_state.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/postings_cid.h"
#include "vigilo/ivf/types.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/column_view.h"

namespace vigilo::ivf {
namespace {

using Kind = ColumnType::Kind;

// A candidate hit; the key travels with it as bytes (i64 little-endian for
// integer keys, one byte for booleans).
struct Candidate {
  float distance;
  size_t file;
  uint64_t row;
  uint32_t cid;
  std::string key;
};

bool Better(const Candidate& a, const Candidate& b) {
  if (a.distance != b.distance) return a.distance < b.distance;
  if (a.file != b.file) return a.file < b.file;
  return a.row < b.row;
}

// centroids.parquet's rows in CID order, checked against the manifest (the
// cid column must count 0, 1, …: the reader trusts no unchecked byte).
struct Centroids {
  std::vector<float> decoded, offsets, scales;
  std::vector<uint8_t> codes;
};

Result<Centroids> DecodeCentroids(const Manifest& m, std::span<const uint8_t> bytes) {
  const std::string& path = m.hierarchy.centroids.path;
  VIGILO_ASSIGN_OR_RETURN(parquet::FooterParse parsed, parquet::ParseFooter(bytes, bytes.size()));
  auto* footer = std::get_if<parquet::Footer>(&parsed);
  if (footer == nullptr) return Internal("a whole centroids file did not hold its footer");
  const size_t d = m.index.dimension, nlist = m.index.nlist;
  // Grown row by row, never sized from the manifest: a manifest stating a
  // huge nlist must meet the "holds N rows; nlist is M" error below, not an
  // allocation of nlist × d floats.
  Centroids out;
  for (size_t rg = 0; rg < footer->metadata.row_groups.size(); ++rg) {
    VIGILO_ASSIGN_OR_RETURN(auto plan, parquet::PlanRowGroup(*footer, rg));
    parquet::DecodedColumn cols[5];  // cid, cid_bucket, offset, scale, code
    for (size_t leaf : {0, 2, 3, 4}) {
      const parquet::ByteRange& r = plan[leaf].range;
      auto decoded = parquet::DecodeColumnChunk(*footer, rg, leaf, bytes.subspan(r.offset, r.length));
      if (!decoded.ok()) {
        Status failure = decoded.status();
        return std::move(failure).PrependPath(path + ": ");
      }
      cols[leaf] = std::move(*decoded);
    }
    const size_t n = cols[2].values.floats.size();
    if (cols[0].values.int32s.size() != n || cols[3].values.floats.size() != n || cols[4].values.size() != n) {
      return InvalidFormat("centroid columns differ in length").WithPath(path + ": row group " + std::to_string(rg));
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t cid = out.offsets.size();
      if (cid >= nlist || cols[0].values.int32s[i] != static_cast<int32_t>(cid)) {
        return InvalidFormat("centroid row " + std::to_string(cid) + " has cid " + std::to_string(cols[0].values.int32s[i]) +
                             "; rows must hold cids 0…nlist-1 in order")
            .WithPath(path);
      }
      auto code = cols[4].values.Binary(i);
      if (code.size() != d) return InvalidFormat("a centroid code is not dimension bytes").WithPath(path);
      LvqParams p{cols[2].values.floats[i], cols[3].values.floats[i]};
      if (!std::isfinite(p.offset) || !std::isfinite(p.scale)) {
        return InvalidFormat("centroid " + std::to_string(cid) + " has a non-finite offset or scale").WithPath(path);
      }
      out.decoded.resize((cid + 1) * d);
      VIGILO_RETURN_IF_ERROR(DecodeLvq(Encoding::kLvq8, p, code, std::span<float>(out.decoded.data() + cid * d, d)));
      out.offsets.push_back(p.offset);
      out.scales.push_back(p.scale);
      out.codes.insert(out.codes.end(), code.begin(), code.end());
    }
  }
  if (out.offsets.size() != nlist) {
    return InvalidFormat("centroids.parquet holds " + std::to_string(out.offsets.size()) + " rows; nlist is " +
                         std::to_string(nlist))
        .WithPath(path);
  }
  return out;
}

// Every row group's CID (exact statistics), first row and chunk ranges,
// checked against the manifest before any row is scored (P-POS-05/06, the
// file's [min-cid, max-cid] and its bucket's CID interval): a footer that
// disagrees — a file swapped with another bucket's, an edited statistic — is
// an IntegrityError naming the file (and row group), never a wrong answer.
// With these checks a file's row groups of a probed CID are exactly the rows
// of that CID in the file: the first and last CIDs are present, and a CID
// strictly between them without a row group is an empty leaf (legal).
Result<std::vector<PostingsGroup>> IndexPostingsFooter(const Manifest& m, const PostingsFile& file,
                                                       const parquet::Footer& footer) {
  const std::string& path = file.object.path;
  const std::vector<uint64_t>& offsets = m.hierarchy.cid_offsets;
  if (file.cid_bucket + 1 >= offsets.size()) {  // a validated manifest never gets here
    return InvalidFormat("cid-bucket " + std::to_string(file.cid_bucket) + " is not a root of the hierarchy")
        .WithPath(path);
  }
  const uint64_t bucket_begin = offsets[file.cid_bucket], bucket_end = offsets[file.cid_bucket + 1];
  std::vector<PostingsGroup> groups;
  uint64_t first_row = 0;
  for (size_t g = 0; g < footer.metadata.row_groups.size(); ++g) {
    const parquet::RowGroup& rg = footer.metadata.row_groups[g];
    const std::string where = path + ": row group " + std::to_string(g);
    VIGILO_ASSIGN_OR_RETURN(int32_t cid, PostingsRowGroupCid(rg, where));
    const auto wide = static_cast<uint64_t>(cid);  // used only once cid >= 0 is known
    if (cid < 0 || wide < bucket_begin || wide >= bucket_end) {
      return IntegrityError("row group holds CID " + std::to_string(cid) + ", outside the CIDs of the file's bucket " +
                            std::to_string(file.cid_bucket) + " [" + std::to_string(bucket_begin) + ", " +
                            std::to_string(bucket_end) + ")")
          .WithPath(where);
    }
    if (wide < file.min_cid || wide > file.max_cid) {
      return IntegrityError("row group holds CID " + std::to_string(cid) + ", outside the file's [min-cid, max-cid] [" +
                            std::to_string(file.min_cid) + ", " + std::to_string(file.max_cid) + "]")
          .WithPath(where);
    }
    if (!groups.empty() && static_cast<uint32_t>(cid) < groups.back().cid) {
      return IntegrityError("row group holds CID " + std::to_string(cid) + " after CID " +
                            std::to_string(groups.back().cid) + "; CIDs must not decrease within a file")
          .WithPath(where);
    }
    VIGILO_ASSIGN_OR_RETURN(auto plan, parquet::PlanRowGroup(footer, g));
    if (plan.size() != 5) {
      return InvalidFormat("a postings row group has " + std::to_string(plan.size()) + " columns; 5 are required")
          .WithPath(where);
    }
    PostingsGroup group;
    group.cid = static_cast<uint32_t>(cid);
    group.first_row = first_row;
    group.rows = static_cast<uint64_t>(rg.num_rows);
    for (size_t leaf = 1; leaf < 5; ++leaf) {
      group.chunks[leaf - 1] = plan[leaf].range;
      group.meta[leaf - 1] = plan[leaf].meta;
    }
    groups.push_back(group);
    first_row += static_cast<uint64_t>(rg.num_rows);
  }
  // The CIDs are in range and in order; the manifest's bounds must be held.
  if (groups.empty()) return IntegrityError("postings file has no row groups").WithPath(path);
  if (groups.front().cid != file.min_cid) {
    return IntegrityError("no row group holds CID " + std::to_string(file.min_cid) +
                          ", the file's min-cid (the first holds CID " + std::to_string(groups.front().cid) + ")")
        .WithPath(path);
  }
  if (groups.back().cid != file.max_cid) {
    return IntegrityError("no row group holds CID " + std::to_string(file.max_cid) +
                          ", the file's max-cid (the last holds CID " + std::to_string(groups.back().cid) + ")")
        .WithPath(path);
  }
  if (first_row != file.rows) {
    return IntegrityError("file holds " + std::to_string(first_row) + " rows; the manifest says " +
                          std::to_string(file.rows))
        .WithPath(path);
  }
  return groups;
}

// Whether the file's [min-cid, max-cid] holds a probed CID (the manifest alone decides).
bool HoldsProbe(const PostingsFile& f, const std::vector<uint32_t>& probed) {
  auto it = std::lower_bound(probed.begin(), probed.end(), static_cast<uint32_t>(f.min_cid));
  return it != probed.end() && *it <= f.max_cid;
}

// Centroid ranking's screen, from every centroid's distance bounds (a
// batch's queries screened together): in order[0, candidates) the centroids
// whose lower bound is at most U, the nprobe-th smallest upper bound. At
// least nprobe centroids have a distance ≤ U, so any other has a distance >
// U and ranks after them whatever the tie-break: the nprobe best are among
// the candidates. False (nothing decided) when some bound is not proven: the
// exact pass then ranks every centroid and names one whose distance is not
// finite. (No loop here branches on the data: at nprobe 64 a heap of upper
// bounds took 13 µs a query, mostly mispredicted branches.)
bool SelectCentroids(size_t nlist, size_t nprobe, const float* lower, const float* upper, std::vector<uint32_t>& order,
                     size_t& candidates, KthScratch& scratch) {
  bool finite = true;  // a finite upper proves the distance finite
  for (size_t c = 0; c < nlist; ++c) {
    finite &= std::isfinite(lower[c]);
    finite &= std::isfinite(upper[c]);
  }
  if (!finite) return false;
  const float bound = KthSmallest(upper, nlist, nprobe, scratch);
  candidates = 0;
  for (size_t c = 0; c < nlist; ++c) {
    order[candidates] = static_cast<uint32_t>(c);
    candidates += !(lower[c] > bound);
  }
  return true;
}

// Whether all of bounds[0, kSkipBlock) exceed the threshold: most rows'
// lower bounds do once a heap is full, and a block's test vectorizes where
// a row-by-row loop would branch on every row (at nprobe 64 on wink that
// loop took a seventh of a query).
constexpr size_t kSkipBlock = 16;
bool AllAbove(const float* bounds, float threshold) {
  bool all = true;
  for (size_t k = 0; k < kSkipBlock; ++k) all &= bounds[k] > threshold;
  return all;
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

// A finite distance and a CID as one integer that sorts as (distance, CID):
// the float's bits made monotone (−0.0 first made +0.0, so the two tie as
// their comparison does), above the CID.
uint64_t RankKey(float distance, uint32_t cid) {
  uint32_t bits;
  const float normal = distance + 0.0f;
  std::memcpy(&bits, &normal, sizeof bits);
  bits = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
  return uint64_t{bits} << 32 | cid;
}

}  // namespace

Status AcceptResponses(const std::vector<ObjectRange>& requests, std::span<const std::span<const uint8_t>> responses,
                       uint64_t& bytes_fetched, uint64_t& request_count) {
  if (responses.size() != requests.size()) return Internal("one response per request is required");
  for (size_t i = 0; i < responses.size(); ++i) {
    if (responses[i].size() != requests[i].length) {
      return IntegrityError("fetched " + std::to_string(responses[i].size()) + " bytes; " +
                            std::to_string(requests[i].length) + " were requested")
          .WithPath(requests[i].path);
    }
  }
  for (const auto& r : responses) bytes_fetched += r.size();
  request_count += responses.size();
  return Status::Ok();
}

struct PublicationReader::Scratch {
  // Ranking (Advance).
  std::vector<float> zero, distance, lower, upper;
  std::vector<uint32_t> order;
  std::vector<uint64_t> ranked;  // RankKey of the candidates
  KthScratch kth;
  std::vector<ListContext> lists;
  std::vector<screen::ScreenContext> list_screens;
  ListContext alone;
  // Scoring (Score): grown, never shrunk, so the contexts keep their buffers.
  std::vector<ListContext> prepared;
  std::vector<screen::ScreenContext> screens;
  std::vector<uint32_t> slice_order;  // the slices, in scoring order
  // NearestListsFirst's: the slices' CIDs, each CID's rank (kNotProbed
  // between queries), the ranks' counts, the order being built.
  std::vector<uint32_t> slice_cids, rank_of, rank_count, sorted_slices;
  // Planning (PlanChunks).
  std::vector<PublicationReader::State::PlannedGroup> selected;  // the probed row groups
  std::vector<float> decoded;  // the probed centroids, decoded again for their contexts
};

PublicationReader::State::State(Manifest m) : manifest(std::move(m)) {
  objects.emplace(manifest.hierarchy.centroids.path, manifest.hierarchy.centroids);
  for (const PostingsFile& f : manifest.postings) objects.emplace(f.object.path, f.object);
  if (manifest.source) {
    for (const SourceFile& f : manifest.source->files) objects.emplace(f.object.path, f.object);
  }
}
PublicationReader::State::~State() = default;

PublicationReader::PublicationReader(Manifest manifest) : state_(std::make_unique<State>(std::move(manifest))) {}
PublicationReader::~PublicationReader() = default;
PublicationReader::PublicationReader(PublicationReader&&) noexcept = default;
PublicationReader& PublicationReader::operator=(PublicationReader&&) noexcept = default;

const Manifest& PublicationReader::manifest() const { return state_->manifest; }

PublicationReader::Scratch& PublicationReader::scratch() {
  if (!state_->scratch) state_->scratch = std::make_unique<Scratch>();
  return *state_->scratch;
}
bool PublicationReader::has_centroids() const { return !state_->centroids.empty(); }

std::optional<uint64_t> PublicationReader::ObjectSize(std::string_view path) const {
  auto it = state_->objects.find(path);
  if (it == state_->objects.end()) return std::nullopt;
  return it->second.size;
}

const std::string& PublicationReader::ObjectSha256(std::string_view path) const {
  static const std::string kNone;
  auto it = state_->objects.find(path);
  return it == state_->objects.end() ? kNone : it->second.sha256;
}

QueryRun::QueryRun(PublicationReader& reader, std::vector<std::vector<float>> queries, QueryOptions options)
    : reader_(reader), queries_(std::move(queries)), options_(options) {}

Result<std::unique_ptr<QueryRun>> QueryRun::Start(PublicationReader& reader, std::vector<std::vector<float>> queries,
                                                  QueryOptions options) {
  const Manifest& m = reader.manifest();
  if (options.k == 0 || options.nprobe == 0) return InvalidArgument("k and nprobe must be positive");
  if (queries.empty()) return InvalidArgument("no query vectors");
  for (size_t q = 0; q < queries.size(); ++q) {
    if (queries[q].size() != m.index.dimension) {
      return InvalidArgument("query " + std::to_string(q) + " has " + std::to_string(queries[q].size()) +
                             " values; the index dimension is " + std::to_string(m.index.dimension));
    }
    for (float v : queries[q]) {
      if (!std::isfinite(v)) return InvalidArgument("query " + std::to_string(q) + " has a NaN or infinite value");
    }
    if (m.index.metric == Metric::kCosine) VIGILO_RETURN_IF_ERROR(NormalizeL2(queries[q]));
  }
  std::unique_ptr<QueryRun> run(new QueryRun(reader, std::move(queries), options));
  run->result_.keys.Clear(m.index.source_key[0].type);
  VIGILO_RETURN_IF_ERROR(run->Advance());
  return run;
}

Status QueryRun::Advance() {
  const Manifest& m = reader_.manifest();
  requests_.clear();
  if (reader_.state().centroids.empty()) {
    stage_ = Stage::kCentroids;
    requests_.push_back(ObjectRange{m.hierarchy.centroids.path, 0, m.hierarchy.centroids.size});
    return Status::Ok();
  }
  if (probes_.empty()) {  // rank every leaf centroid, globally, with the LVQ8 kernel (a zero "centroid")
    const size_t d = m.index.dimension, nlist = m.index.nlist;
    const size_t nprobe = std::min<size_t>(options_.nprobe, nlist);
    PublicationReader::Scratch& scratch = reader_.scratch();
    scratch.zero.assign(d, 0.0f);
    const std::vector<float>& zero = scratch.zero;
    ListContext& alone = scratch.alone;  // a query's context without the screen (or its failure met again)
    std::vector<float>& distance = scratch.distance;
    std::vector<uint32_t>& order = scratch.order;
    distance.resize(nlist);
    order.resize(nlist);
    const RowBlock all{nlist, reader_.state().centroid_offsets.data(), reader_.state().centroid_scales.data(),
                       reader_.state().centroid_codes.data(), d, reader_.state().centroid_code_sums.data(),
                       /*cached=*/true};
    // With the screen, the queries go kRankBatch at a time: their contexts
    // prepared and every centroid's bounds computed for all of them in one
    // pass over the centroid codes, then each ranked in turn.
    constexpr size_t kRankBatch = 8;
    // The ranking screens with 8-bit weights from d = 256 on: bounds about
    // 250 times wider, found twice as fast. Measured one at a time
    // (index eval --batch 1, CPU 1): Fashion-MNIST (d = 784, nprobe 8) 95.5 →
    // 93.8 µs, batched 48.1 → 46.3 µs, its candidates 8.0 → 11.7 a query;
    // wink (d = 100, nprobe 64) 220.8 → 227.7 µs, its candidates 64 → 170:
    // short rows cost little to screen, and the extra candidates outweigh it.
    const screen::ScreenWeights ranking_weights =
        d >= 256 ? screen::ScreenWeights::k8 : screen::ScreenWeights::k16;
    const size_t batch = std::min(kRankBatch, queries_.size());
    std::vector<ListContext>& lists = scratch.lists;
    std::vector<screen::ScreenContext>& screens = scratch.list_screens;
    if (lists.size() < batch) lists.resize(batch);
    if (screens.size() < batch) screens.resize(batch);
    std::vector<float>& lower = scratch.lower;
    std::vector<float>& upper = scratch.upper;
    lower.resize(options_.screen ? batch * nlist : 0);
    upper.resize(lower.size());
    bool ready[kRankBatch] = {};
    const screen::ScreenContext* screened[kRankBatch];
    float* lower_at[kRankBatch];
    float* upper_at[kRankBatch];
    for (size_t qi = 0; qi < queries_.size(); ++qi) {
      const size_t slot = qi % batch;
      if (options_.screen && slot == 0) {
        size_t count = 0;
        for (size_t b = 0; b < batch && qi + b < queries_.size(); ++b) {
          ready[b] = PrepareList(m.index.metric, Encoding::kLvq8, queries_[qi + b], zero, lists[b]).ok();
          if (!ready[b]) {
            screens[b].usable = false;
            continue;
          }
          screen::PrepareScreen(lists[b], screens[b], ranking_weights);
          screened[count] = &screens[b];
          lower_at[count] = lower.data() + b * nlist;
          upper_at[count] = upper.data() + b * nlist;
          ++count;
        }
        screen::ScreenBlockMulti(screened, count, all, lower_at, upper_at);
      }
      const ListContext* list = &lists[slot];
      if (!options_.screen || !ready[slot]) {
        VIGILO_RETURN_IF_ERROR(PrepareList(m.index.metric, Encoding::kLvq8, queries_[qi], zero, alone));
        list = &alone;
      }
      const ListContext& ctx = *list;
      // order[0, candidates) are the centroids that can rank among the first nprobe.
      size_t candidates = 0;
      if (options_.screen && screens[slot].usable &&
          SelectCentroids(nlist, nprobe, lower.data() + slot * nlist, upper.data() + slot * nlist, order,
                          candidates, scratch.kth)) {
        result_.centroids_screened_out += nlist - candidates;
        for (size_t j = 0; j < candidates; ++j) {
          const uint32_t c = order[j];
          ScoreBlock(ctx,
                     RowBlock{1, all.offsets + c, all.scales + c, all.codes + size_t{c} * d, d, all.sums + c},
                     distance.data() + c);
        }
      } else {
        ScoreBlock(ctx, all, distance.data());
        // The query's input domain: its distance to every leaf centroid (each
        // checked finite when decoded) must be a finite float32. Beyond it the
        // ranking would be arbitrary and every postings row would score
        // non-finite; the query is at fault, named before anything is scored.
        if (auto bad = std::find_if(distance.begin(), distance.end(), [](float x) { return !std::isfinite(x); });
            bad != distance.end()) {
          return InvalidArgument("query " + std::to_string(qi) + ": its " + std::string(MetricName(m.index.metric)) +
                                 " distance to centroid " + std::to_string(bad - distance.begin()) +
                                 " overflows float32; its values are too large");
        }
        for (uint32_t c = 0; c < nlist; ++c) order[c] = c;
        candidates = nlist;
      }
      // The nprobe best by (distance, CID), sorted as integers (an indirect
      // comparator's branches cost more than the sort's work at nprobe 64).
      std::vector<uint64_t>& ranked = scratch.ranked;
      ranked.resize(candidates);
      for (size_t j = 0; j < candidates; ++j) ranked[j] = RankKey(distance[order[j]], order[j]);
      const auto best_end = ranked.begin() + static_cast<std::ptrdiff_t>(nprobe);
      if (candidates > nprobe) std::nth_element(ranked.begin(), best_end, ranked.end());
      std::sort(ranked.begin(), best_end);
      std::vector<uint32_t>& probe = probes_.emplace_back(nprobe);
      for (size_t j = 0; j < nprobe; ++j) probe[j] = static_cast<uint32_t>(ranked[j]);
    }
    probed_.clear();
    for (const std::vector<uint32_t>& probe : probes_) probed_.insert(probed_.end(), probe.begin(), probe.end());
    std::sort(probed_.begin(), probed_.end());
    probed_.erase(std::unique(probed_.begin(), probed_.end()), probed_.end());
  }
  return PlanFooters();
}

Status QueryRun::PlanFooters() {
  const Manifest& m = reader_.manifest();
  const std::vector<uint32_t>& probed = probed_;
  footer_files_.clear();
  // A long-lived reader soon holds every footer: then there is nothing to
  // look for (45 map lookups a wink query otherwise).
  if (reader_.state().footers.size() == m.postings.size()) return PlanChunks();
  for (size_t i = 0; i < m.postings.size(); ++i) {
    const PostingsFile& f = m.postings[i];
    if (!HoldsProbe(f, probed) || reader_.state().footers.count(i) != 0) continue;
    footer_files_.push_back(i);
    requests_.push_back(FooterTailRequest(f.object, options_.footer_tail_bytes));
  }
  if (!requests_.empty()) {
    stage_ = Stage::kFooters;
    return Status::Ok();
  }
  return PlanChunks();
}

Status QueryRun::PlanChunks() {
  const Manifest& m = reader_.manifest();
  slices_.clear();
  // The probed CIDs' row groups (every file holding one has its footer
  // indexed by now), in file and row-group order.
  std::vector<PublicationReader::State::PlannedGroup>& selected = reader_.scratch().selected;
  selected.clear();
  for (uint32_t cid : probed_) {
    if (cid < reader_.state().cid_groups.size()) {
      selected.insert(selected.end(), reader_.state().cid_groups[cid].begin(), reader_.state().cid_groups[cid].end());
    }
  }
  std::sort(selected.begin(), selected.end());
  slices_.reserve(selected.size());
  RangePlanner planner(options_.ranges);
  constexpr uint64_t kNoRun = UINT64_MAX;
  uint64_t run_end = kNoRun;  // where the previous row group's span ended, when it was selected
  for (size_t s = 0; s < selected.size(); ++s) {
    const PublicationReader::State::PlannedGroup& group = selected[s];
    uint64_t begin = group.begin;
    // A run of adjacent selected row groups is one request: the bytes
    // between them (the next group's cid chunk, 4 bytes a row) are fetched
    // too rather than split the run.
    const bool follows = s > 0 && selected[s - 1].file == group.file && selected[s - 1].group + 1 == group.group;
    if (follows && run_end <= begin) begin = run_end;
    run_end = group.end;
    const size_t request = planner.Add(m.postings[group.file].object.path, begin, group.end - begin);
    slices_.push_back(ChunkSlice{group.file, group.group, group.cid, group.first_row, request, group.record});
    // Scoring reads the record (its chunks, the positions recorded in
    // them) first thing: asked for now, while the fetch and the lists'
    // contexts take their time, the misses overlap rather than meet one
    // group at a time.
    for (size_t line = 0; line < sizeof(PostingsGroup); line += 64) {
      __builtin_prefetch(reinterpret_cast<const char*>(group.record) + line);
    }
  }
  // Fewer, larger requests where the round's cost model says a wave is
  // worth the gap bytes; each merged request covers its parts' slices.
  const std::vector<size_t> into = planner.Coalesce();
  for (ChunkSlice& slice : slices_) slice.request = into[slice.request];
  requests_ = planner.Take();
  stage_ = Stage::kChunks;
  if (requests_.empty()) stage_ = Stage::kDone;  // nothing probed holds postings
  return Status::Ok();
}

Status QueryRun::Supply(std::vector<std::vector<uint8_t>> responses) {
  std::vector<std::span<const uint8_t>> views(responses.begin(), responses.end());
  return Supply(std::span<const std::span<const uint8_t>>(views));
}

Status QueryRun::Supply(std::span<const std::span<const uint8_t>> responses) {
  if (failed_) return Internal("QueryRun::Supply after an error");
  if (done()) return Internal("QueryRun::Supply after the run finished");
  if (Status accepted = AcceptResponses(requests_, responses, result_.bytes_fetched, result_.requests);
      !accepted.ok()) {
    failed_ = accepted.code() != StatusCode::kInternal;  // a miscount leaves the run as it was
    return accepted;
  }
  const Manifest& m = reader_.manifest();
  Status s = Status::Ok();
  switch (stage_) {
    case Stage::kCentroids: {
      auto centroids = DecodeCentroids(m, responses[0]);
      if (!centroids.ok()) {
        s = centroids.status();
        break;
      }
      reader_.state().centroids = std::move(centroids->decoded);
      reader_.state().centroid_offsets = std::move(centroids->offsets);
      reader_.state().centroid_scales = std::move(centroids->scales);
      reader_.state().centroid_codes = std::move(centroids->codes);
      reader_.state().centroid_code_sums.resize(m.index.nlist);
      ComputeCodeSums(Encoding::kLvq8, m.index.dimension, m.index.nlist, reader_.state().centroid_codes.data(),
                      m.index.dimension, reader_.state().centroid_code_sums.data());
      s = Advance();
      break;
    }
    case Stage::kFooters: {
      std::vector<size_t> again;
      std::vector<ObjectRange> more;
      for (size_t i = 0; i < responses.size(); ++i) {
        size_t file = footer_files_[i];
        const PostingsFile& f = m.postings[file];
        auto step = ReadFooterTail(f.object, responses[i]);
        if (!step.ok()) {
          s = step.status();
          break;
        }
        if (step->footer) {
          parquet::Footer* footer = &*step->footer;
          // Cached first: the groups point into the cached footer.
          const parquet::Footer& cached = reader_.state().footers.emplace(file, std::move(*footer)).first->second;
          // The columns are read by position: they must be the manifest's
          // (its source-key above all), exactly as `index verify` checks.
          Status schema = CheckSchema(cached, PostingsColumns(m), f.object.path);
          auto groups = schema.ok() ? IndexPostingsFooter(m, f, cached) : Result<std::vector<PostingsGroup>>(schema);
          std::vector<parquet::ColumnDescriptor> columns;
          for (size_t leaf = 1; leaf < 5 && groups.ok(); ++leaf) {
            auto column = parquet::DescribeColumn(cached.metadata.schema, cached.schema, leaf);
            if (!column.ok()) {
              groups = std::move(column).take_status().PrependPath(f.object.path + ": ");
            } else {
              columns.push_back(std::move(*column));
            }
          }
          if (!groups.ok()) {
            s = groups.status();
            reader_.state().footers.erase(file);
            break;
          }
          reader_.state().postings_columns.emplace(file, std::move(columns));
          std::vector<PostingsGroup>& indexed = reader_.state().groups.emplace(file, std::move(*groups)).first->second;
          // The CIDs were checked against the bucket's interval, which lies within [0, nlist).
          reader_.state().cid_groups.resize(m.index.nlist);
          for (size_t g = 0; g < indexed.size(); ++g) {
            PostingsGroup& group = indexed[g];
            uint64_t begin = group.chunks[0].offset, end = begin;
            for (const parquet::ByteRange& r : group.chunks) {
              begin = std::min(begin, r.offset);
              end = std::max(end, r.offset + r.length);
            }
            reader_.state().cid_groups[group.cid].push_back(PublicationReader::State::PlannedGroup{
                static_cast<uint32_t>(file), static_cast<uint32_t>(g), group.cid, group.first_row, begin, end, &group});
          }
        } else {
          again.push_back(file);
          more.push_back(std::move(*step->more));
        }
      }
      if (!s.ok()) break;
      if (!more.empty()) {
        footer_files_ = std::move(again);
        requests_ = std::move(more);
      } else {
        requests_.clear();
        s = PlanChunks();
      }
      break;
    }
    case Stage::kChunks:
      s = Score(responses);
      if (s.ok()) {
        requests_.clear();
        stage_ = Stage::kDone;
      }
      break;
    case Stage::kDone: break;
  }
  if (!s.ok()) failed_ = true;
  return s;
}

Status QueryRun::Score(std::span<const std::span<const uint8_t>> responses) {
  const Manifest& m = reader_.manifest();
  const size_t d = m.index.dimension;
  const Kind key_kind = m.index.source_key[0].type.kind;
  const size_t code_bytes = static_cast<size_t>(CodeBytes(m.index.encoding, d));
  // Which queries probe each CID, and each (query, list) context: prepared
  // up front, a query's lists side by side (PrepareLists), when they fit a
  // cache-sized budget (one query up to nprobe ~660 at d = 784), else one at a
  // time as each slice is scored.
  const size_t context_bytes = d * sizeof(float) * (m.index.encoding == Encoding::kLvq4 ? 2 : 1);
  size_t probe_count = 0;
  for (const auto& p : probes_) probe_count += p.size();
  const bool prepared_up_front = probe_count * context_bytes <= (size_t{2} << 20);  // else they leave the cache before use
  PublicationReader::Scratch& scratch = reader_.scratch();
  const size_t prepared_count = prepared_up_front ? probe_count : 0;
  if (scratch.prepared.size() < prepared_count) scratch.prepared.resize(prepared_count);
  if (scratch.screens.size() < prepared_count) scratch.screens.resize(prepared_count);
  const std::span<ListContext> prepared(scratch.prepared.data(), prepared_count);
  // Who probes each CID: (cid, (query, index into prepared)), by CID, queries in order.
  std::vector<std::pair<uint32_t, std::pair<uint32_t, size_t>>> probing;
  probing.reserve(probe_count);
  {
    std::vector<std::span<const float>> centroids;
    // The probed centroids decoded again from their codes (exactly
    // DecodeLvq's floats): a quarter of the bytes of the cached decoded rows,
    // and the codes were just ranked, so they are still in cache.
    std::vector<float>& decoded = scratch.decoded;
    size_t at = 0;
    for (uint32_t q = 0; q < probes_.size(); ++q) {
      centroids.clear();
      if (prepared_up_front) decoded.resize(probes_[q].size() * d);
      for (uint32_t cid : probes_[q]) {
        probing.push_back({cid, {q, at + centroids.size()}});
        if (!prepared_up_front) continue;
        std::span<float> row(decoded.data() + centroids.size() * d, d);
        VIGILO_RETURN_IF_ERROR(DecodeLvq(Encoding::kLvq8,
                                         LvqParams{reader_.state().centroid_offsets[cid], reader_.state().centroid_scales[cid]},
                                         std::span<const uint8_t>(reader_.state().centroid_codes.data() + size_t{cid} * d, d), row));
        centroids.emplace_back(row);
      }
      if (prepared_up_front) {
        VIGILO_RETURN_IF_ERROR(PrepareLists(m.index.metric, m.index.encoding, queries_[q], centroids,
                                            std::span<ListContext>(prepared).subspan(at, centroids.size())));
      }
      at += centroids.size();
    }
  }
  std::stable_sort(probing.begin(), probing.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // A row group's (query, context) pairs, in query order.
  std::vector<std::pair<uint32_t, size_t>> probes_of;
  auto probers = [&](uint32_t cid) -> const std::vector<std::pair<uint32_t, size_t>>& {
    auto it = std::lower_bound(probing.begin(), probing.end(), cid, [](const auto& p, uint32_t c) { return p.first < c; });
    probes_of.clear();
    for (; it != probing.end() && it->first == cid; ++it) probes_of.push_back(it->second);
    return probes_of;
  };
  std::vector<std::vector<Candidate>> top(queries_.size());  // max-heaps by Better
  auto heap_less = [](const Candidate& a, const Candidate& b) { return Better(a, b); };
  ListContext ctx;
  std::vector<float> distance;
  // The screen's contexts, made when a (query, list) is first screened, and its bounds.
  const std::span<screen::ScreenContext> screens(scratch.screens.data(), prepared_count);
  std::vector<uint8_t> screen_ready(prepared_count, 0);
  screen::ScreenContext screen_ctx;
  std::vector<float> lower, upper;
  constexpr size_t kNoSlot = SIZE_MAX;
  // Cosine weighs every list of a query by the query itself, so the lists'
  // screens share one quantization: made for the query's first screened
  // list (quantized[q]), copied for the others (the same bits; at nprobe 64
  // on wink the repeated quantization was 2.8% of a query's instructions).
  std::vector<size_t> quantized(m.index.metric == Metric::kCosine ? queries_.size() : 0, kNoSlot);
  auto ready_screen = [&](uint32_t q, size_t context) -> screen::ScreenContext& {
    if (!screen_ready[context]) {
      if (!quantized.empty() && quantized[q] != kNoSlot) {
        screen::PrepareScreenSharing(prepared[context], screens[quantized[q]], screens[context]);
      } else {
        screen::PrepareScreen(prepared[context], screens[context]);
        if (!quantized.empty()) quantized[q] = context;
      }
      screen_ready[context] = 1;
    }
    return screens[context];
  };
  // A row group's queries screened together (its probe j's slot in the
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
  PostingsGroupColumns columns(key_kind, code_bytes);  // one row group's, its buffers reused
  // Memory is asked for ahead of use, many lines at once, rather than met
  // one dependent miss at a time: every chunk's first bytes (its page
  // header) up front, and each group's offsets and scales (which are read
  // before its codes, and are far from them) kPrefetchGroups groups ahead.
  // On Fashion-MNIST (61 rows a list) the groups' offsets and scales, met
  // cold, took a quarter of a query at nprobe 8; all of them at once at
  // nprobe 256 overflowed L2, hence the window.
  constexpr size_t kPrefetchGroups = 16;
  std::vector<uint32_t>& order = scratch.slice_order;
  order.resize(slices_.size());
  for (size_t t = 0; t < order.size(); ++t) order[t] = static_cast<uint32_t>(t);
  auto prefetch = [&](size_t at_slice, bool headers, bool values) {
    const ChunkSlice& slice = slices_[order[at_slice]];
    const size_t r = slice.request;
    const PostingsGroup& group = *slice.record;
    for (size_t leaf = 1; leaf < 4; ++leaf) {
      const uint64_t at = group.chunks[leaf].offset - requests_[r].offset;
      const uint64_t length = values && leaf < 3 ? group.chunks[leaf].length : headers ? 1 : 0;
      const uint64_t end = std::min<uint64_t>(at + length, responses[r].size());
      for (uint64_t line = at; line < end; line += 64) __builtin_prefetch(responses[r].data() + line);
    }
  };
  if (probes_.size() == 1) {
    std::vector<uint32_t>& cid_of = scratch.slice_cids;
    cid_of.resize(order.size());
    for (size_t t = 0; t < order.size(); ++t) cid_of[t] = slices_[order[t]].cid;
    if (scratch.rank_of.size() != m.index.nlist) scratch.rank_of.assign(m.index.nlist, kNotProbed);
    NearestListsFirst(probes_[0], cid_of, order, scratch.rank_of, scratch.rank_count, scratch.sorted_slices);
  }
  for (size_t t = 0; t < order.size(); ++t) prefetch(t, /*headers=*/true, /*values=*/t < kPrefetchGroups);
  for (size_t t = 0; t < order.size(); ++t) {
    const ChunkSlice& slice = slices_[order[t]];
    const size_t r = slice.request;
    const ObjectRange& request = requests_[r];
    std::span<const uint8_t> bytes = responses[r];
    {  // the row group order[t]
      if (const size_t ahead = t + kPrefetchGroups; ahead < order.size()) {
        prefetch(ahead, /*headers=*/false, /*values=*/true);
      }
      PostingsGroup& group = *slice.record;
      const std::vector<std::pair<uint32_t, size_t>>& probes = probers(slice.cid);
      const std::string& path = m.postings[slice.file].object.path;
      VIGILO_ASSIGN_OR_RETURN(
          const bool in_place,
          columns.Read(PostingsGroupColumns::Source{&group, &reader_.state().postings_columns.at(slice.file), bytes,
                                                    request.offset, &path, slice.row_group, slice.first_row}));
      ++(in_place ? result_.row_groups_in_place : result_.row_groups_decoded);
      const size_t n = columns.rows();
      result_.rows_probed += n * probes.size();
      const std::vector<float>& offsets = columns.offsets();
      const std::vector<float>& scales = columns.scales();
      const std::vector<parquet::ValueRun>& code_runs = columns.code_runs();
      std::span<const float> centroid(reader_.state().centroids.data() + size_t{slice.cid} * d, d);
      distance.resize(n);
      // l2 with the screen and several queries probing the group: its exact
      // code sums, computed once for all of them (the screen and the kernels
      // then skip them). (For one query the screen's own pass is cheaper: it
      // reads the codes once.)
      const bool group_sums = options_.screen && m.index.encoding == Encoding::kLvq8 &&
                              m.index.metric == Metric::kL2Squared && probes.size() > 1;
      if (group_sums) {
        code_sums.resize(n);
        size_t at = 0;
        for (const parquet::ValueRun& run : code_runs) {
          ComputeCodeSums(Encoding::kLvq8, d, run.count, run.first, run.stride, code_sums.data() + at);
          at += run.count;
        }
      }
      auto sums_at = [&](size_t row) { return group_sums ? code_sums.data() + row : nullptr; };
      const bool may_screen = options_.screen && m.index.encoding == Encoding::kLvq8;
      // Several queries probing the group: the bounds of every query that
      // will screen it (its heap full after the rows that fill it: heap size
      // + n > k) are computed first, in one pass over the codes (each row's
      // codes loaded once for several queries). A bound depends only on the
      // row and the query, so each query then screens as it would alone.
      size_t slots = 0;
      const bool group_screen = may_screen && probes.size() > 1;
      if (group_screen) {
        group_slot.assign(probes.size(), kNoSlot);
        group_list_ready.assign(probes.size(), 0);
        if (!prepared_up_front && group_lists.size() < probes.size()) {
          group_lists.resize(probes.size());
          group_screens.resize(probes.size());
        }
        group_screen_ready.assign(probes.size(), 0);
        if (!prepared_up_front) {
          // Every prober's list at once, their sums side by side. A failure
          // is left to each query's own turn below, which meets it again.
          group_queries.clear();
          for (const auto& [q, context] : probes) group_queries.emplace_back(queries_[q]);
          const bool ready = PrepareListsOfCentroid(m.index.metric, m.index.encoding, group_queries, centroid,
                                                    std::span<ListContext>(group_lists).first(probes.size()))
                                 .ok();
          group_list_ready.assign(probes.size(), ready ? 1 : 0);
        }
        group_contexts.clear();
        for (size_t j = 0; j < probes.size(); ++j) {
          const uint32_t q = probes[j].first;
          const size_t context = probes[j].second;
          if (top[q].size() + n <= options_.k) continue;  // never screens this group
          if (prepared_up_front) {
            group_contexts.push_back(&ready_screen(q, context));
          } else {
            if (!group_list_ready[j]) continue;
            screen::PrepareScreen(group_lists[j], group_screens[j]);
            group_screen_ready[j] = 1;
            group_contexts.push_back(&group_screens[j]);
          }
          group_slot[j] = group_contexts.size() - 1;
        }
        slots = group_contexts.size();
        if (slots > 1) {
          group_lower.resize(slots * n);
          group_upper.resize(slots * n);
          lower_at.resize(slots);
          upper_at.resize(slots);
          size_t row = 0;
          for (const parquet::ValueRun& run : code_runs) {
            for (size_t k = 0; k < slots; ++k) {
              lower_at[k] = group_lower.data() + k * n + row;
              upper_at[k] = group_upper.data() + k * n + row;
            }
            screen::ScreenBlockMulti(
                group_contexts.data(), slots,
                RowBlock{run.count, offsets.data() + row, scales.data() + row, run.first, run.stride, sums_at(row)},
                lower_at.data(), upper_at.data());
            row += run.count;
          }
        }
      }
      for (size_t probe = 0; probe < probes.size(); ++probe) {
        const uint32_t q = probes[probe].first;
        const size_t context = probes[probe].second;  // (not a structured binding: the lambdas below capture it)
        const bool list_ready = group_screen && group_list_ready[probe];
        const ListContext* list = prepared_up_front ? &prepared[context] : list_ready ? &group_lists[probe] : &ctx;
        if (!prepared_up_front && !list_ready) {
          VIGILO_RETURN_IF_ERROR(PrepareList(m.index.metric, m.index.encoding, queries_[q], centroid, ctx));
        }
        auto& heap = top[q];
        auto screen_context = [&]() -> const screen::ScreenContext* {
          if (group_screen && group_screen_ready[probe]) return &group_screens[probe];
          if (!prepared_up_front) {
            screen::PrepareScreen(*list, screen_ctx);
            return &screen_ctx;
          }
          return &ready_screen(q, context);
        };
        // This query's bounds of the group's rows: the group pass's if it
        // made them, else its own, screened on first need.
        const bool group_pass = slots > 1 && group_slot[probe] != kNoSlot;
        const float* lower_of = group_pass ? group_lower.data() + group_slot[probe] * n : nullptr;
        const float* upper_of = group_pass ? group_upper.data() + group_slot[probe] * n : nullptr;
        auto bound_rows = [&]() {
          if (lower_of != nullptr) return;
          const screen::ScreenContext& own = *screen_context();
          lower.resize(n);
          upper.resize(n);
          size_t row = 0;
          for (const parquet::ValueRun& run : code_runs) {
            screen::ScreenBlock(own, RowBlock{run.count, offsets.data() + row, scales.data() + row, run.first,
                                              run.stride, sums_at(row)},
                                lower.data() + row, upper.data() + row);
            row += run.count;
          }
          lower_of = lower.data();
          upper_of = upper.data();
        };
        // Scores the group's rows exactly, or, when `screened`, those whose
        // lower bound is at most `threshold` (bound_rows first), and lists
        // those scored in `considered`.
        auto score_rows = [&](bool screened, float threshold) {
          size_t row = 0;
          for (const parquet::ValueRun& run : code_runs) {
            const size_t from = row, to = row + run.count;
            if (!screened) {
              ScoreBlock(*list, RowBlock{run.count, offsets.data() + from, scales.data() + from, run.first, run.stride,
                                         sums_at(from)},
                         distance.data() + from);
              for (size_t i = from; i < to; ++i) considered.push_back(static_cast<uint32_t>(i));
            } else {
              const float* bound = lower_of;
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
                ScoreBlock(*list,
                           RowBlock{stretch - i, offsets.data() + i, scales.data() + i,
                                    run.first + (i - row) * run.stride, run.stride, sums_at(i)},
                           distance.data() + i);
                for (size_t j = i; j < stretch; ++j) considered.push_back(static_cast<uint32_t>(j));
                scored += stretch - i;
                i = stretch;
              }
              result_.rows_screened_out += run.count - scored;
            }
            row += run.count;
          }
        };
        // The heap code, over the rows in `considered` (in row order).
        auto consider = [&]() -> Status {
          VIGILO_RETURN_IF_ERROR(columns.ConfirmCodes());
          for (const uint32_t i : considered) {
            if (!std::isfinite(distance[i])) {
              // The query is in its domain (ranking checked it), so the row is at fault.
              const bool finite_params = std::isfinite(offsets[i]) && std::isfinite(scales[i]);
              return InvalidFormat("postings row " + std::to_string(slice.first_row + i) +
                                   " scores a non-finite distance (offset or scale " +
                                   (finite_params ? "too large)" : "not finite)"))
                  .WithPath(path);
            }
            const float dist = distance[i];
            if (heap.size() == options_.k) {  // most rows lose to the current k-th at once
              const Candidate& kth = heap.front();
              if (dist > kth.distance ||
                  (dist == kth.distance && !Better({dist, slice.file, slice.first_row + i, 0, {}}, kth))) {
                continue;
              }
            }
            VIGILO_ASSIGN_OR_RETURN(std::string key, columns.Key(i));
            heap.push_back(Candidate{distance[i], slice.file, slice.first_row + i, slice.cid, std::move(key)});
            std::push_heap(heap.begin(), heap.end(), heap_less);
            if (heap.size() > options_.k) {
              std::pop_heap(heap.begin(), heap.end(), heap_less);
              heap.pop_back();
            }
          }
          considered.clear();
          return Status::Ok();
        };
        considered.clear();
        if (may_screen && heap.size() == options_.k) {
          // A full heap: a row whose lower bound exceeds the k-th distance
          // (taken before the rows are screened; it only falls meanwhile)
          // would be rejected by the heap below, so it is screened out and
          // never scored exactly. Its distance is proven finite too, so no
          // error is skipped.
          bound_rows();
          score_rows(true, heap.front().distance);
        } else if (may_screen && heap.size() + n > options_.k) {
          // The group fills the heap. Rather than scoring the rows that fill
          // it whatever they are, every row's bounds first: at least k rows
          // (held or in the group) have a distance at most the k-th smallest
          // of the heap's distances and the rows' upper bounds, so a row whose
          // lower bound exceeds it loses to k rows and is screened out.
          bound_rows();
          score_rows(true, FillThreshold(heap, std::span<const float>(upper_of, n), options_.k, fill));
        } else {
          score_rows(false, 0.0f);  // every row enters the heap (or fails), or the screen is off
        }
        VIGILO_RETURN_IF_ERROR(consider());
      }
    }
  }
  result_.probes = probes_;
  for (uint32_t q = 0; q < top.size(); ++q) {
    std::sort(top[q].begin(), top[q].end(), Better);
    for (uint32_t rank = 0; rank < top[q].size(); ++rank) {
      const Candidate& c = top[q][rank];
      result_.hits.push_back(QueryHit{q, rank, c.distance, c.cid, c.file, c.row});
      KeyColumn& keys = result_.keys;
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
  return Status::Ok();
}

}  // namespace vigilo::ivf
