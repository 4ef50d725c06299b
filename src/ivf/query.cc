#include "vigilo/ivf/query_core.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

#include "column_schema.h"
#include "kth_smallest.h"
#include "lvq_screen_internal.h"
#include "publication_reader_state.h"
#include "query_score.h"
#include "query_scratch.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/postings_cid.h"
#include "vigilo/ivf/types.h"
#include "vigilo/parquet/column_reader.h"

namespace vigilo::ivf {
namespace {

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

PublicationReader::State::State(Manifest m) : manifest(std::move(m)) {
  held.resize(manifest.postings.size());
  objects.emplace(manifest.hierarchy.centroids.path, manifest.hierarchy.centroids);
  for (size_t i = 0; i < manifest.postings.size(); ++i) {
    objects.emplace(manifest.postings[i].object.path, manifest.postings[i].object);
    postings_files.emplace(manifest.postings[i].object.path, i);
  }
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

Status PublicationReader::HoldPostings(std::string_view path, std::shared_ptr<const void> owner,
                                       std::span<const uint8_t> bytes) {
  auto file = state_->postings_files.find(path);
  if (file == state_->postings_files.end()) {
    return InvalidArgument("only a postings file of the manifest can be held").WithPath(std::string(path));
  }
  const uint64_t size = state_->manifest.postings[file->second].object.size;
  if (bytes.size() != size) {
    return InvalidArgument("cannot hold " + std::to_string(bytes.size()) + " bytes: the manifest's object has " +
                           std::to_string(size))
        .WithPath(std::string(path));
  }
  state_->held[file->second] = State::HeldFile{bytes, std::move(owner)};
  return Status::Ok();
}

bool PublicationReader::HoldsPostings(std::string_view path) const {
  auto file = state_->postings_files.find(path);
  return file != state_->postings_files.end() && !state_->held[file->second].bytes.empty();
}

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
    if (const std::span<const uint8_t> held = reader_.state().held[i].bytes; !held.empty()) {
      // A held file's footer is read from its bytes (all of them: the footer is in them).
      VIGILO_ASSIGN_OR_RETURN(FooterStep step, ReadFooterTail(f.object, held));
      if (!step.footer) return Internal("a held file's footer lies outside its bytes").WithPath(f.object.path);
      VIGILO_RETURN_IF_ERROR(IndexFooter(i, std::move(*step.footer)));
      continue;
    }
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
  const std::vector<PublicationReader::State::HeldFile>& held = reader_.state().held;
  for (size_t s = 0; s < selected.size(); ++s) {
    const PublicationReader::State::PlannedGroup& group = selected[s];
    for (size_t line = 0; line < sizeof(PostingsGroup); line += 64) {
      // Scoring reads the record (its chunks, the positions recorded in
      // them) first thing: asked for now, while the fetch and the lists'
      // contexts take their time, the misses overlap rather than meet one
      // group at a time.
      __builtin_prefetch(reinterpret_cast<const char*>(group.record) + line);
    }
    if (!held[group.file].bytes.empty()) {  // (a file is held whole or not at all, so no run spans both)
      slices_.push_back(ChunkSlice{group.file, group.group, group.cid, group.first_row, kHeld, group.record});
      result_.bytes_held += group.end - group.begin;
      continue;
    }
    uint64_t begin = group.begin;
    // A run of adjacent selected row groups is one request: the bytes
    // between them (the next group's cid chunk, 4 bytes a row) are fetched
    // too rather than split the run.
    const bool follows = s > 0 && selected[s - 1].file == group.file && selected[s - 1].group + 1 == group.group;
    if (follows && run_end <= begin) begin = run_end;
    run_end = group.end;
    const size_t request = planner.Add(m.postings[group.file].object.path, begin, group.end - begin);
    slices_.push_back(ChunkSlice{group.file, group.group, group.cid, group.first_row, request, group.record});
  }
  // Fewer, larger requests where the round's cost model says a wave is
  // worth the gap bytes; each merged request covers its parts' slices.
  const std::vector<size_t> into = planner.Coalesce();
  for (ChunkSlice& slice : slices_) {
    if (slice.request != kHeld) slice.request = into[slice.request];
  }
  requests_ = planner.Take();
  stage_ = Stage::kChunks;
  if (!requests_.empty()) return Status::Ok();
  if (slices_.empty()) {  // nothing probed holds postings
    stage_ = Stage::kDone;
    return Status::Ok();
  }
  // Every probed row group lies in held files: scored now, with nothing to fetch.
  VIGILO_RETURN_IF_ERROR(Score({}));
  stage_ = Stage::kDone;
  return Status::Ok();
}

// A postings file's footer, read: checked (columns, row groups' CIDs and
// rows) and indexed for planning, or refused and not cached.
Status QueryRun::IndexFooter(size_t file, parquet::Footer footer) {
  const Manifest& m = reader_.manifest();
  const PostingsFile& f = m.postings[file];
  // Cached first: the groups point into the cached footer.
  const parquet::Footer& cached = reader_.state().footers.emplace(file, std::move(footer)).first->second;
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
    reader_.state().footers.erase(file);
    return groups.status();
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
          s = IndexFooter(file, std::move(*step->footer));
          if (!s.ok()) break;
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
  return QueryScoring(*this, reader_).Run(responses);
}

}  // namespace vigilo::ivf
