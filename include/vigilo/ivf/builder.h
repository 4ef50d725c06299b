// `vigilo index build`: a version 1 publication from a vector file
// (docs/format/ivf-build.md). Three passes over the input:
//
//   1. sample   reservoir-sample the training vectors (deterministic for a seed)
//   2. train    hierarchical k-means on the sample: roots, then leaves per root;
//               leaf centroids LVQ8-coded, the decoded ones are the assignment targets
//   3. assign   every vector to its globally nearest decoded leaf centroid (exact),
//               encoded as an LVQ residual, spilled to a per-bucket temporary file
//   4. write    per bucket, leaves in CID order into postings files; centroids;
//   5. source   (--source) the key and the selected columns into source/;
//               the manifest last (create-if-absent); then the footers are checked.
//
// Memory: the training sample, one input block, and a bounded per-bucket
// sort buffer (spill_buffer_bytes); never O(N·d).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_writer.h"
#include "vigilo/ivf/source_writer.h"

namespace vigilo::ivf {

// Called now and then with the phase, units done and units in total (0 when
// unknown) — the CLI draws a progress bar on stderr.
using BuildProgress = std::function<void(std::string_view phase, uint64_t done, uint64_t total)>;

struct BuildOptions {
  std::string input;
  InputOptions input_options;  // vector field, key field, format
  Metric metric = Metric::kL2Squared;
  Encoding encoding = Encoding::kLvq8;
  std::optional<uint32_t> nlist;   // default DefaultNlist(N)
  std::optional<uint32_t> roots;   // default DefaultRoots(nlist)
  std::optional<uint64_t> sample;  // training vectors; default min(N, 256·nlist)
  uint32_t iterations = 10;
  uint64_t seed = 1;
  uint32_t threads = 2;
  std::string out;      // the publication directory (created if absent)
  std::string scratch;  // spill files; default: <out>/.vigilo-build-<pid>, removed afterwards
  uint64_t spill_buffer_bytes = 256u << 20;  // rows gathered at once while sorting a bucket by CID
  PostingsLayout layout;
  // --source: also copy a source table (the key and `source_columns`; empty =
  // every input column, or the vector for formats without names).
  bool source = false;
  std::vector<std::string> source_columns;
  SourceLayout source_layout;
  BuildProgress progress;
};

struct BuildSummary {
  Manifest manifest;
  uint64_t sample_rows = 0;
  uint64_t empty_leaves = 0;  // leaves no vector was assigned to
  double seconds_sample = 0, seconds_train = 0, seconds_assign = 0, seconds_write = 0, seconds_source = 0;
};

// Errors: the input's (with its file and row), InvalidArgument for options
// (nlist > N, roots > nlist, sample < nlist …), AlreadyExists when the
// output already holds a publication (nothing of it is changed), and any
// failure of the self-check after writing (a bug: Internal).
Result<BuildSummary> BuildPublication(const BuildOptions& options);

}  // namespace vigilo::ivf
