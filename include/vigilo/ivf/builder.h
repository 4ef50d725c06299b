// `vigilo index build`: a version 1 publication from a vector file
// (docs/format/ivf-build.md). Three passes over the input:
//
//   1. sample   reservoir-sample the training vectors (deterministic for a seed)
//   2. train    flat k-means of the nlist leaves on the sample (spherical for cosine),
//               then the leaves grouped into balanced root buckets; leaf centroids
//               LVQ8-coded, the decoded ones are the assignment targets
//   3. assign   every vector to its globally nearest decoded leaf centroid (exact),
//               encoded as an LVQ residual, spilled to a per-bucket temporary file
//   4. write    centroids; per bucket, leaves in CID order into postings files;
//   5. source   (--source) the key and the selected columns into source/;
//               then every object is read back and checked in full (footers,
//               values, SHA-256) against the complete manifest (in memory),
//               and manifest.json is created last (create-if-absent) and read
//               back, so a publication is visible whole or not at all.
//
// Objects go through the ObjectStore seam (keys = manifest paths); the spill
// files are local scratch, not objects.
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
#include "vigilo/store/clock.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

// The key a build without a key column publishes: the row position, a
// `long`. Its leading underscore keeps it apart from the names users give
// their columns (like `_distance`, the query's own column); an input that
// has a column of this name anyway is refused (pass a key column, or rename
// it), so an input column is never shadowed.
inline constexpr std::string_view kGeneratedKeyName = "_row";

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
  std::optional<uint64_t> sample;  // training vectors; default min(N, 64·nlist)
  uint32_t iterations = 10;
  uint64_t seed = 1;
  uint32_t threads = 2;
  // BuildPublication(options): the publication directory (created if absent).
  std::string out;
  // Spill files go into a fresh directory .vigilo-build-<pid>-<n> below this
  // one, removed however the build ends; default: `out` for a local build,
  // else the temporary directory.
  std::string scratch;
  uint64_t spill_buffer_bytes = 256u << 20;  // rows gathered at once while sorting a bucket by CID
  PostingsLayout layout;
  // --source: also copy a source table: the key, then `source_columns`;
  // empty = every input column but the key and the vector column, or the
  // vector column when the input has no other (.fvecs, .bvecs, .npy, JSONL).
  bool source = false;
  std::vector<std::string> source_columns;
  SourceLayout source_layout;
  // The input's own id column (setting `id_column`; docs/format/ivf-build.md,
  // "Your own ids"): ids of any id type (strings, integers that are not the
  // row positions, dates, bytes) that a source table cannot be keyed by. The
  // publication is keyed by row position (kGeneratedKeyName) and this column
  // is the source table's first payload column, which every query hit
  // returns and `index eval` compares ground truth by. It implies a source
  // table: without `source` and `source_columns` it holds the key and this
  // column alone; else this column first, then `source_columns` (or with
  // `source` alone the default ones). Not with
  // a key column (input_options.key_field). A text build may leave rows out
  // (skip_unembeddable) with it: the id still names each row kept.
  std::string id_column;
  // Vectors from text (docs/format/ivf-build.md, "Building from text"): the
  // directory `vigilo embed import` wrote (embedding.json and embedding/…)
  // and the input's string column to embed with it. Both or neither; the
  // metric must be cosine and the input (JSONL objects or Parquet) has no
  // vector column: the vectors are the embeddings, in a column "vector".
  // The publication carries the model's embedding section and assets.
  std::string embed_model;
  std::string text_field;
  // Leave out rows whose text has no word in the model's vocabulary (or is
  // null) instead of failing; needs a key column (input_options.key_field).
  bool skip_unembeddable = false;
  BuildProgress progress;
  // Set from another thread (the CLI's signal watcher) to stop the build at
  // its next progress point, or in k-means training at its next seeding
  // step, iteration or assignment block. The build then fails with
  // `cancelled`, and like every failed build removes
  // what it created (objects, scratch, directories): nothing is left.
  const store::CancelToken* cancel = nullptr;
};

struct BuildSummary {
  Manifest manifest;
  uint64_t sample_rows = 0;
  uint64_t empty_leaves = 0;  // leaves no vector was assigned to
  uint64_t skipped_rows = 0;  // text builds with skip_unembeddable: rows left out
  double seconds_embed = 0;   // text builds: the model check and the embedding pass
  double seconds_sample = 0, seconds_train = 0, seconds_assign = 0, seconds_write = 0, seconds_source = 0;
};

// Builds into `store` (which must be writable: RequireWritable).
//
// A text build (embed_model) first checks its arguments and the model
// (every asset's size and SHA-256, then the parity probe), embeds the text
// column into a scratch Parquet file (the build's scratch directory) and
// builds from that; the model's assets are created with the other objects
// (and rolled back with them) and the embedding section is in the manifest.
//
// Errors: the input's (with its file and row), InvalidArgument for options
// (nlist > N, roots > nlist, sample < nlist …) and for what the input's
// schema rules out (an input column named kGeneratedKeyName without a key
// column; with `source`, a key that is not a long or whose Parquet
// statistics or key chunks, or JSONL lines, show it is not the row
// position — the message names `id_column`, the layout that keeps such
// ids —, a source or id column the input does not have or whose type a
// source table (an id) cannot hold) — all before the first pass over the
// input —, AlreadyExists when the store
// already holds manifest.json (refused before anything is read; nothing is
// changed) or an object with other bytes at a key the build writes, the
// store's errors, and any failure of the self-check (a bug: Internal).
//
// Failure semantics: manifest.json is created only after every object was
// written and passed the self-check. A build that fails removes the objects
// it created (store::OwnedWrites::RollBack: never an object that existed
// before it) and its scratch directory, so a retry works. An object that
// already holds exactly the bytes the build writes (a crashed build of the
// same input, options and seed) is a verified replay, not a failure.
Result<BuildSummary> BuildPublication(const BuildOptions& options, store::ObjectStore& store);

// The same into the local directory `options.out` (a local store; the
// directory is created if absent). A failed build also removes the
// directories it created that are left empty.
Result<BuildSummary> BuildPublication(const BuildOptions& options);

// An input row whose text the model cannot embed: its 0-based row (the row a
// text build's refusal names) and why (null, or no word in the vocabulary).
struct UnembeddableRow {
  uint64_t row = 0;
  std::string why;
};
struct TextCheck {
  uint64_t rows = 0;  // rows read
  std::vector<UnembeddableRow> unembeddable;
};
// Every row of options.input whose options.text_field options.embed_model
// cannot embed, found by the same checks and embedding pass a text build
// runs (the model's assets verified, its parity probes run), building
// nothing (`vigilo embed check`): what a caller must leave out before a
// build whose keys have to stay dense. Reads options.input, input_options
// (format, key_field), embed_model, text_field and progress only.
Result<TextCheck> CheckTextInput(const BuildOptions& options);

}  // namespace vigilo::ivf
