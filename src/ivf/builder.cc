#include "vigilo/ivf/builder.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "builder_spill.h"
#include "source_copy.h"
#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/publication_check.h"

namespace vigilo::ivf {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void Report(const BuildOptions& o, std::string_view phase, uint64_t done, uint64_t total) {
  if (o.progress) o.progress(phase, done, total);
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
    Report(o, "count", n, 0);
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
    Report(o, "sample", seen, n);
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
          return InvalidArgument("--source needs a long key equal to the row position (0, 1, 2, …); row " +
                                 std::to_string(block.first_row + i) + " has another key");
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
    Report(o, "assign", done, n);
  }
  return spill.Flush();
}

// Pass 4: each bucket's leaves in CID order, gathering as many leaves per
// scan of the bucket's spill file as fit the spill buffer.
Result<std::vector<PostingsFile>> WritePostings(const BuildOptions& o, const IndexSpec& index, const Trained& t,
                                                const SpillWriter& spill) {
  VIGILO_ASSIGN_OR_RETURN(auto writer, PostingsWriter::Open(o.out, index, t.cid_offsets, o.layout));
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
      Report(o, "write", written, index.ntotal);
      c = last + 1;
    }
  }
  return writer->Finish();
}

Status CheckOptions(const BuildOptions& o, uint64_t n, uint32_t nlist, uint32_t roots, uint64_t sample) {
  if (nlist == 0 || nlist > n) {
    return InvalidArgument("--nlist must be 1 to the number of vectors (" + std::to_string(n) + "), got " +
                           std::to_string(nlist));
  }
  if (roots == 0 || roots > nlist) {
    return InvalidArgument("--roots must be 1 to nlist (" + std::to_string(nlist) + "), got " + std::to_string(roots));
  }
  if (sample < nlist || sample > n) {
    return InvalidArgument("--sample must be nlist (" + std::to_string(nlist) + ") to the number of vectors (" +
                           std::to_string(n) + "), got " + std::to_string(sample));
  }
  if (o.iterations == 0) return InvalidArgument("--iterations must be positive");
  if (o.threads == 0) return InvalidArgument("threads must be positive");
  return Status::Ok();
}

// Removes the scratch directory however the build ends.
struct ScratchDir {
  std::filesystem::path path;
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

Result<BuildSummary> BuildPublication(const BuildOptions& o) {
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::path(o.out) / "manifest.json", ec)) {
    return AlreadyExists("a publication already exists in " + o.out + " (manifest.json is never overwritten)");
  }
  VIGILO_ASSIGN_OR_RETURN(auto input, OpenVectorInput(o.input, o.input_options));
  Field key{"id", ColumnType{ColumnType::Kind::kLong, 0}};
  if (input->key_field()) key = Field{input->key_field()->name, input->key_field()->type};
  IndexSpec index{input->vector_field(), o.metric, o.encoding, input->dimension(), 0, 0, {key}};
  // The manifest's name rules, before any work.
  Manifest probe;
  probe.artifact_uuid = Uuid::V8FromHash({});
  probe.index = index;
  probe.index.nlist = probe.index.ntotal = 1;
  if (Status s = ValidateManifest(probe); s.path().rfind("$.index", 0) == 0) {
    return InvalidArgument(std::string(s.message())).WithPath(std::string(s.path()));
  }

  BuildSummary summary;
  auto t0 = Clock::now();
  VIGILO_ASSIGN_OR_RETURN(uint64_t n, CountRows(*input, o));
  uint32_t nlist = o.nlist.value_or(DefaultNlist(n));
  uint32_t roots = o.roots.value_or(DefaultRoots(nlist));
  uint64_t sample_size = o.sample.value_or(std::min<uint64_t>(n, uint64_t{256} * nlist));
  VIGILO_RETURN_IF_ERROR(CheckOptions(o, n, nlist, roots, sample_size));
  index.nlist = nlist;
  index.ntotal = n;
  const size_t d = input->dimension();

  VIGILO_ASSIGN_OR_RETURN(std::vector<float> sample, Sample(*input, o, n, sample_size));
  summary.sample_rows = sample_size;
  summary.seconds_sample = Since(t0);

  auto t1 = Clock::now();
  Report(o, "train", 0, 1);
  VIGILO_ASSIGN_OR_RETURN(TrainedHierarchy h,
                          TrainHierarchy(sample, sample_size, d, roots, nlist, o.iterations, o.seed, o.threads));
  std::vector<float>().swap(sample);  // the sample's memory is not needed past training
  Trained t;
  t.cid_offsets.assign(h.cid_offsets.begin(), h.cid_offsets.end());
  VIGILO_ASSIGN_OR_RETURN(t.leaves, EncodeLvqRows(Encoding::kLvq8, h.leaf_centroids, d));
  Report(o, "train", 1, 1);
  summary.seconds_train = Since(t1);

  std::filesystem::create_directories(o.out, ec);
  if (ec) return IoError("cannot create " + o.out + ": " + ec.message());
  ScratchDir scratch{o.scratch.empty() ? std::filesystem::path(o.out) / (".vigilo-build-" + std::to_string(::getpid()))
                                       : std::filesystem::path(o.scratch)};
  std::filesystem::create_directories(scratch.path, ec);
  if (ec) return IoError("cannot create scratch directory " + scratch.path.string() + ": " + ec.message());

  auto t2 = Clock::now();
  SpillWriter spill(scratch.path, roots, nlist, static_cast<size_t>(CodeBytes(o.encoding, d)));
  VIGILO_RETURN_IF_ERROR(AssignAndSpill(*input, o, t, n, spill));
  summary.seconds_assign = Since(t2);
  for (uint64_t r : spill.cid_rows()) summary.empty_leaves += r == 0;

  auto t3 = Clock::now();
  Manifest m;
  m.index = index;
  VIGILO_ASSIGN_OR_RETURN(ObjectDescriptor centroids, WriteCentroids(o.out, t.cid_offsets, t.leaves, d, o.layout.codec));
  m.hierarchy = Hierarchy{t.cid_offsets, centroids};
  VIGILO_ASSIGN_OR_RETURN(m.postings, WritePostings(o, index, t, spill));
  summary.seconds_write = Since(t3);
  if (o.source) {
    auto t4 = Clock::now();
    Report(o, "source", 0, n);
    VIGILO_ASSIGN_OR_RETURN(SourceSpec source, CopySource(*input, key, o.source_columns, o.out, o.source_layout));
    Report(o, "source", n, n);
    m.source = std::move(source);
    summary.seconds_source = Since(t4);
  }
  VIGILO_ASSIGN_OR_RETURN(summary.manifest, PublishManifest(o.out, std::move(m)));

  // The builder validates its own output (footers; --deep is the CLI's).
  DirectoryObjectReader reader(o.out);
  auto check = CheckPublicationObjects(summary.manifest, reader, false);
  if (!check.ok()) return Internal("the publication just written fails its own check: " + check.status().ToString());
  return summary;
}

}  // namespace vigilo::ivf
