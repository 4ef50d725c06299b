#include "vigilo/ivf/builder.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include "builder_dirs.h"
#include "builder_spill.h"
#include "source_copy.h"
#include "text_build.h"
#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Every progress point is also where a cancelled build stops (BuildOptions::cancel).
Status Report(const BuildOptions& o, std::string_view phase, uint64_t done, uint64_t total) {
  if (o.progress) o.progress(phase, done, total);
  return CheckCancelled(o);
}

// Pass 0 (JSONL only): the row count, which the sample size and defaults need.
Result<uint64_t> CountRows(VectorInput& input, const BuildOptions& o) {
  if (input.rows()) return *input.rows();
  InputBlock block;
  uint64_t n = 0;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, input.Next(&block));
    if (!more) break;
    n += block.rows;
    VIGILO_RETURN_IF_ERROR(Report(o, "count", n, 0));
  }
  VIGILO_RETURN_IF_ERROR(input.Rewind());
  return n;
}

// Pass 1: a uniform reservoir sample (Algorithm R), normalized for cosine.
Result<std::vector<float>> Sample(VectorInput& input, const BuildOptions& o, uint64_t n, uint64_t size) {
  const size_t d = input.dimension();
  std::vector<float> sample(size * d);
  Xoshiro256 rng(DeriveSeed(o.seed, 0x5a4d504c45ull));  // "SAMPLE": a stream of its own
  InputBlock block;
  uint64_t seen = 0;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, input.Next(&block));
    if (!more) break;
    if (o.metric == Metric::kCosine) VIGILO_RETURN_IF_ERROR(NormalizeL2Rows(block.vectors, d));
    for (size_t i = 0; i < block.rows; ++i, ++seen) {
      uint64_t slot = seen < size ? seen : rng.Below(seen + 1);
      if (slot < size) std::copy_n(block.vectors.begin() + static_cast<std::ptrdiff_t>(i * d), d,
                                   sample.begin() + static_cast<std::ptrdiff_t>(slot * d));
    }
    VIGILO_RETURN_IF_ERROR(Report(o, "sample", seen, n));
  }
  VIGILO_RETURN_IF_ERROR(input.Rewind());
  return sample;
}

struct Trained {
  std::vector<uint64_t> cid_offsets;
  LvqRows leaves;  // LVQ8 codes and their decoded values
};

// Pass 3: assign, encode residuals, spill by bucket.
Status AssignAndSpill(VectorInput& input, const BuildOptions& o, const Trained& t, uint64_t n, SpillWriter& spill) {
  const size_t d = input.dimension();
  const size_t nlist = t.leaves.params.size();
  const size_t code_bytes = static_cast<size_t>(CodeBytes(o.encoding, d));
  // bucket_of[cid]
  std::vector<uint32_t> bucket_of(nlist);
  for (size_t r = 0; r + 1 < t.cid_offsets.size(); ++r) {
    for (uint64_t c = t.cid_offsets[r]; c < t.cid_offsets[r + 1]; ++c) bucket_of[c] = static_cast<uint32_t>(r);
  }
  AssignOptions assign;
  assign.threads = o.threads;
  assign.cancel = o.cancel;
  InputBlock block;
  std::vector<uint8_t> code(code_bytes);
  uint64_t done = 0;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, input.Next(&block));
    if (!more) break;
    if (o.metric == Metric::kCosine) VIGILO_RETURN_IF_ERROR(NormalizeL2Rows(block.vectors, d));
    if (o.source && block.keys.size() > 0) {
      // A source table needs keys 0, 1, 2, … in row order: fail before any object is written.
      for (size_t i = 0; i < block.rows; ++i) {
        if (block.keys.type.kind != ColumnType::Kind::kLong ||
            block.keys.integers[i] != static_cast<int64_t>(block.first_row + i)) {
          return InvalidArgument("`source` needs a long key equal to the row position (0, 1, 2, …); row " +
                                 std::to_string(block.first_row + i) + " has another key" +
                                 KeepIdsHint(input.key_field() ? input.key_field()->name : "KEY"));
        }
      }
    }
    VIGILO_ASSIGN_OR_RETURN(Assignment a, AssignNearest(block.vectors, block.rows, d, t.leaves.decoded, nlist, assign));
    for (size_t i = 0; i < block.rows; ++i) {
      uint32_t cid = a.labels[i];
      std::span<const float> x(block.vectors.data() + i * d, d);
      std::span<const float> c(t.leaves.decoded.data() + size_t{cid} * d, d);
      VIGILO_ASSIGN_OR_RETURN(LvqParams p, EncodeResidual(o.encoding, x, c, code));
      VIGILO_RETURN_IF_ERROR(spill.Append(bucket_of[cid], cid, block.keys, i, block.first_row + i, p, code.data()));
    }
    done += block.rows;
    VIGILO_RETURN_IF_ERROR(Report(o, "assign", done, n));
  }
  return spill.Flush();
}

// Pass 4: each bucket's leaves in CID order, gathering as many leaves per
// scan of the bucket's spill file as fit the spill buffer.
Result<std::vector<PostingsFile>> WritePostings(const BuildOptions& o, const IndexSpec& index, const Trained& t,
                                                const SpillWriter& spill, store::OwnedWrites& writes) {
  VIGILO_ASSIGN_OR_RETURN(auto writer, PostingsWriter::Open(writes, index, t.cid_offsets, o.layout));
  const size_t code_bytes = static_cast<size_t>(CodeBytes(index.encoding, index.dimension));
  const auto& rows = spill.cid_rows();
  const auto& bytes = spill.cid_bytes();
  uint64_t written = 0;
  std::vector<LeafRows> gathered;
  for (size_t b = 0; b + 1 < t.cid_offsets.size(); ++b) {
    auto first = static_cast<uint32_t>(t.cid_offsets[b]), end = static_cast<uint32_t>(t.cid_offsets[b + 1]);
    uint32_t c = first;
    while (c < end) {
      // [c, last]: at least one leaf, more while they fit the buffer.
      uint32_t last = c;
      uint64_t batch = bytes[c];
      while (last + 1 < end && batch + bytes[last + 1] <= o.spill_buffer_bytes) batch += bytes[++last];
      bool any = false;
      for (uint32_t k = c; k <= last; ++k) any |= rows[k] > 0;
      if (any) {
        VIGILO_RETURN_IF_ERROR(
            GatherBucketRows(spill.BucketPath(b), index.source_key[0].type, code_bytes, c, last, gathered));
        for (uint32_t k = c; k <= last; ++k) {
          if (gathered[k - c].rows() == 0) continue;
          VIGILO_RETURN_IF_ERROR(writer->AddLeaf(k, gathered[k - c]));
          written += gathered[k - c].rows();
        }
        gathered.clear();
      }
      VIGILO_RETURN_IF_ERROR(Report(o, "write", written, index.ntotal));
      c = last + 1;
    }
  }
  return writer->Finish();
}

// publication-v1.md §2.6 (P-SRC-03): row-group-rows is 1…2^31 − 1.
constexpr uint64_t kMaxSourceRowGroupRows = 2147483647;

Status CheckOptions(const BuildOptions& o, uint64_t n, uint32_t nlist, uint32_t roots, uint64_t sample) {
  if (nlist == 0 || nlist > n) {
    return InvalidArgument("`nlist` must be 1 to the number of vectors (" + std::to_string(n) + "), got " +
                           std::to_string(nlist));
  }
  if (roots == 0 || roots > nlist) {
    return InvalidArgument("`roots` must be 1 to nlist (" + std::to_string(nlist) + "), got " + std::to_string(roots));
  }
  if (sample < nlist || sample > n) {
    return InvalidArgument("`sample` must be nlist (" + std::to_string(nlist) + ") to the number of vectors (" +
                           std::to_string(n) + "), got " + std::to_string(sample));
  }
  if (o.iterations == 0) return InvalidArgument("`iterations` must be positive");
  if (o.threads == 0) return InvalidArgument("threads must be positive");
  return Status::Ok();
}

// Without a key column the key is kGeneratedKeyName; an input column of
// that name would be shadowed by it (in query output, in the source table),
// so it is refused, saying what to do.
Status RefuseShadowedColumn(const VectorInput& input) {
  VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> names, InputColumnNames(input));
  for (const std::string& name : names) {
    if (name == kGeneratedKeyName) {
      return InvalidArgument("the input has a column named \"" + name + "\", the name of the row-position key " +
                             "a build without `key` publishes; pass `key` COLUMN to key the publication by a " +
                             "column of yours, or rename \"" + name + "\"")
          .WithPath(input.path());
    }
  }
  return Status::Ok();
}

// manifest.json is refused before anything is read or written. A zero-byte
// range answers "is it there" without a HEAD and without reading it.
Status RefuseExistingManifest(store::ObjectStore& store, const BuildOptions& o) {
  store::GetOptions probe;
  probe.range = ByteRange{0, 0};
  auto existing = store.Get(kManifestKey, probe);
  if (existing.ok()) {
    return AlreadyExists("a publication already exists in " + (o.out.empty() ? std::string("the store") : o.out) +
                         " (manifest.json is never overwritten)");
  }
  if (existing.status().code() == StatusCode::kNotFound) return Status::Ok();
  return existing.status();
}

// Passes 4 and 5, the self-check, then manifest.json: every object is
// created (through `writes`) and checked before the manifest makes the
// publication visible.
Status WriteObjects(VectorInput& input, const BuildOptions& o, const IndexSpec& index,
                    const std::optional<SourcePlan>& source_plan, const Trained& t, const SpillWriter& spill,
                    const BuildAddition* addition, store::OwnedWrites& writes, BuildSummary& summary) {
  const uint64_t n = index.ntotal;
  auto t3 = Clock::now();
  Manifest m;
  m.index = index;
  VIGILO_ASSIGN_OR_RETURN(ObjectDescriptor centroids,
                          WriteCentroids(writes, t.cid_offsets, t.leaves, index.dimension, o.layout.codec));
  m.hierarchy = Hierarchy{t.cid_offsets, centroids};
  VIGILO_ASSIGN_OR_RETURN(m.postings, WritePostings(o, index, t, spill, writes));
  summary.seconds_write = Since(t3);
  if (source_plan) {
    auto t4 = Clock::now();
    VIGILO_RETURN_IF_ERROR(Report(o, "source", 0, n));
    VIGILO_ASSIGN_OR_RETURN(SourceSpec source, CopySource(input, *source_plan, writes, o.source_layout));
    VIGILO_RETURN_IF_ERROR(Report(o, "source", n, n));
    m.source = std::move(source);
    summary.seconds_source = Since(t4);
  }
  if (addition != nullptr) {
    // Created before the self-check, which verifies them with the rest.
    VIGILO_RETURN_IF_ERROR(addition->write(writes));
    m.embedding = addition->embedding;
  }
  // The manifest is complete and valid in memory; the objects it names are
  // read back and checked in full (footers, values, SHA-256: a store that
  // stored other bytes than it acknowledged is caught here, for a small
  // fraction of the build's time) before it is created.
  VIGILO_ASSIGN_OR_RETURN(summary.manifest, SealManifest(std::move(m)));
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, EncodeManifest(summary.manifest));
  auto check = CheckPublicationObjects(summary.manifest, writes.store(), true);
  if (!check.ok()) {
    const Status& s = check.status();
    // Bytes that break the format are this build's bug (or a store that
    // stored other bytes than it acknowledged); the store's own errors
    // (unavailable, not found, I/O) are passed on as they are.
    StatusCode c = s.code();
    if (c == StatusCode::kParseError || c == StatusCode::kInvalidFormat || c == StatusCode::kIntegrityError ||
        c == StatusCode::kLimitExceeded || c == StatusCode::kNotCanonical) {
      return Internal("the publication just written fails its own check: " + s.ToString());
    }
    return s;
  }
  std::span<const uint8_t> view(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  VIGILO_RETURN_IF_ERROR(writes.CreateIfAbsent(kManifestKey, view).status());
  // Read back, as every object was: a store that stored other bytes than it
  // acknowledged must not leave a broken manifest behind a successful build.
  store::GetOptions get;
  get.max_bytes = bytes.size();
  get.expected_size = bytes.size();
  VIGILO_ASSIGN_OR_RETURN(store::Bytes stored, writes.store().Get(kManifestKey, get));
  if (stored.view() != bytes) {
    return IntegrityError("the store holds other bytes than were written").WithPath(std::string(kManifestKey));
  }
  return Status::Ok();
}

}  // namespace

Status RefuseExistingPublication(store::ObjectStore& store, const BuildOptions& o) {
  VIGILO_RETURN_IF_ERROR(store::RequireWritable(store, o.out.empty() ? "output" : o.out));
  return RefuseExistingManifest(store, o);
}

Result<BuildSummary> BuildPublication(const BuildOptions& o, store::ObjectStore& store) {
  if (!o.embed_model.empty() || !o.text_field.empty() || o.skip_unembeddable) return BuildFromText(o, store);
  return BuildPublicationWith(o, store, nullptr);
}

Result<BuildSummary> BuildPublicationWith(const BuildOptions& o, store::ObjectStore& store,
                                          const BuildAddition* addition) {
  VIGILO_RETURN_IF_ERROR(RefuseExistingPublication(store, o));
  if (!o.id_column.empty() && o.input_options.key_field) {
    return InvalidArgument("`id_column` keys the publication by row position and returns \"" + o.id_column +
                           "\" with every hit; it cannot be combined with `key`");
  }
  VIGILO_ASSIGN_OR_RETURN(auto input, OpenVectorInput(o.input, o.input_options));
  Field key{std::string(kGeneratedKeyName), ColumnType{ColumnType::Kind::kLong, 0}};
  if (input->key_field()) {
    key = Field{input->key_field()->name, input->key_field()->type};
  } else {
    VIGILO_RETURN_IF_ERROR(RefuseShadowedColumn(*input));
  }
  IndexSpec index{input->vector_field(), o.metric, o.encoding, input->dimension(), 0, 0, {key}};
  // The manifest's name rules, before any work.
  Manifest probe;
  probe.artifact_uuid = Uuid::V8FromHash({});
  probe.index = index;
  probe.index.nlist = probe.index.ntotal = 1;
  if (Status s = ValidateManifest(probe); s.path().rfind("$.index", 0) == 0) {
    return InvalidArgument(std::string(s.message())).WithPath(std::string(s.path()));
  }
  // What the source table will hold is known from the schema: refused now, not after the passes.
  std::optional<SourcePlan> source;
  if (o.source || !o.id_column.empty()) {
    if (o.source_layout.row_group_rows == 0 || o.source_layout.row_group_rows > kMaxSourceRowGroupRows) {
      return InvalidArgument("`source_row_group_rows` must be 1 to " + std::to_string(kMaxSourceRowGroupRows) +
                             ", got " + std::to_string(o.source_layout.row_group_rows));
    }
    VIGILO_ASSIGN_OR_RETURN(source, PlanSource(*input, key, SourceChoice{o.source_columns, o.id_column, !o.source && o.source_columns.empty()}));
  }

  BuildSummary summary;
  auto t0 = Clock::now();
  VIGILO_ASSIGN_OR_RETURN(uint64_t n, CountRows(*input, o));
  uint32_t nlist = o.nlist.value_or(DefaultNlist(n));
  uint32_t roots = o.roots.value_or(DefaultRoots(nlist));
  // 64 points per leaf (decision: docs/format/ivf-build.md, --sample): flat k-means costs sample × nlist per
  // iteration, and 256 per leaf bought no recall on wink (measured there).
  uint64_t sample_size = o.sample.value_or(std::min<uint64_t>(n, uint64_t{64} * nlist));
  VIGILO_RETURN_IF_ERROR(CheckOptions(o, n, nlist, roots, sample_size));
  index.nlist = nlist;
  index.ntotal = n;
  const size_t d = input->dimension();

  VIGILO_ASSIGN_OR_RETURN(std::vector<float> sample, Sample(*input, o, n, sample_size));
  summary.sample_rows = sample_size;
  summary.seconds_sample = Since(t0);

  auto t1 = Clock::now();
  // Every leaf Lloyd iteration, and the grouping of the leaves into roots, is a step of "train".
  // k-means checks the cancel token at every seeding step, iteration and assignment block.
  const KMeansProgress train_progress = [&o](uint64_t done, uint64_t total) {
    if (o.progress) o.progress("train", done, total);
  };
  VIGILO_ASSIGN_OR_RETURN(TrainedHierarchy h,
                          TrainPartition(sample, sample_size, d, roots, nlist, o.iterations, o.seed, o.threads,
                                         o.metric == Metric::kCosine, train_progress, o.cancel));
  std::vector<float>().swap(sample);  // the sample's memory is not needed past training
  VIGILO_RETURN_IF_ERROR(CheckCancelled(o));
  Trained t;
  t.cid_offsets.assign(h.cid_offsets.begin(), h.cid_offsets.end());
  VIGILO_ASSIGN_OR_RETURN(t.leaves, EncodeLvqRows(Encoding::kLvq8, h.leaf_centroids, d));
  summary.seconds_train = Since(t1);

  // Spill files are local scratch, not objects; their directories go however the build ends.
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ScratchDir> scratch, ScratchDir::CreateBelow(o.scratch));

  auto t2 = Clock::now();
  SpillWriter spill(scratch->path(), roots, nlist, static_cast<size_t>(CodeBytes(o.encoding, d)));
  VIGILO_RETURN_IF_ERROR(AssignAndSpill(*input, o, t, n, spill));
  summary.seconds_assign = Since(t2);
  for (uint64_t r : spill.cid_rows()) summary.empty_leaves += r == 0;

  store::OwnedWrites writes(store);
  Status written = WriteObjects(*input, o, index, source, t, spill, addition, writes, summary);
  if (!written.ok()) {
    // Only the objects this build created go (never one that was there before).
    Status rolled_back = writes.RollBack();
    if (!rolled_back.ok()) {
      return Status(written.code(), std::string(written.message()) + " (removing the objects this build created " +
                                        "failed too: " + rolled_back.ToString() + ")")
          .WithPath(std::string(written.path()));
    }
    return written;
  }
  writes.Release();
  return summary;
}

Result<BuildSummary> BuildPublication(const BuildOptions& o) {
  // What a build of this directory that died left (its scratch, the local
  // store's unfinished temporaries) goes first: a publication directory
  // holds only what its manifest names.
  RemoveDeadBuildLeftovers(o.out, /*temporaries=*/true);
  CreatedDirectories dirs;
  dirs.Note(o.out);
  store::LocalStoreOptions local;
  local.create_root = true;
  auto opened = store::OpenLocalStore(o.out, local);
  if (!opened.ok()) {
    dirs.RemoveEmpty();
    return opened.status();
  }
  DirectoryNotingStore noting(**opened, o.out, dirs);
  BuildOptions in_out = o;
  if (in_out.scratch.empty()) in_out.scratch = o.out;
  auto built = BuildPublication(in_out, noting);
  if (!built.ok()) dirs.RemoveEmpty();
  return built;
}

}  // namespace vigilo::ivf
