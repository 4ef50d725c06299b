// The publication manifest (docs/format/publication-v1.md §2): the model,
// its strict decoder (every rule that needs only the manifest bytes) and its
// canonical encoder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/common/uuid.h"
#include "vigilo/ivf/types.h"
#include "vigilo/json/value.h"

namespace vigilo::ivf {

inline constexpr size_t kMaxManifestBytes = 64u << 20;
inline constexpr uint64_t kMaxDimension = 65536;
inline constexpr uint64_t kMaxRoots = 1'000'000;
inline constexpr size_t kMaxSourceKeyFields = 16;

struct ObjectDescriptor {
  std::string path;
  uint64_t size = 0;
  std::string sha256;  // 64 lowercase hex digits
  friend bool operator==(const ObjectDescriptor&, const ObjectDescriptor&) = default;
};

struct Field {
  std::string name;
  ColumnType type;
  friend bool operator==(const Field&, const Field&) = default;
};

struct IndexSpec {
  std::string vector_field;
  Metric metric = Metric::kL2Squared;
  Encoding encoding = Encoding::kLvq8;
  uint64_t dimension = 0;
  uint64_t nlist = 0;
  uint64_t ntotal = 0;
  std::vector<Field> source_key;
  friend bool operator==(const IndexSpec&, const IndexSpec&) = default;
};

struct Hierarchy {
  std::vector<uint64_t> cid_offsets;  // roots + 1 entries, 0 … nlist
  ObjectDescriptor centroids;
  uint64_t roots() const { return cid_offsets.empty() ? 0 : cid_offsets.size() - 1; }
  friend bool operator==(const Hierarchy&, const Hierarchy&) = default;
};

struct PostingsFile {
  ObjectDescriptor object;
  uint64_t cid_bucket = 0;
  uint64_t min_cid = 0;
  uint64_t max_cid = 0;
  uint64_t rows = 0;
  friend bool operator==(const PostingsFile&, const PostingsFile&) = default;
};

struct SourceFile {
  ObjectDescriptor object;
  uint64_t row_begin = 0;
  uint64_t row_end = 0;
  friend bool operator==(const SourceFile&, const SourceFile&) = default;
};

struct SourceSpec {
  uint64_t rows = 0;
  uint64_t row_group_rows = 0;
  std::vector<Field> columns;
  std::string key;
  std::vector<SourceFile> files;
  friend bool operator==(const SourceSpec&, const SourceSpec&) = default;
};

// The optional embedding section (seed 002 "Optional Embedding Model";
// docs/format/publication-v1.md §2.8, docs/format/embedding.md): the pinned model,
// the runtime contract that turns text into a vector with the publication's
// own assets, and the parity probe that proves a reader's runtime reproduces
// the builder's vectors. The manifest checks the shape and what needs only
// the manifest (dimension equal to the index's, asset paths unique across the
// publication, probe vectors of that dimension, finite values); the contract
// checks its own parameters and assets.
struct EmbeddingModel {
  std::string repository;  // "npm:NAME" for a registry package, else a repository URL
  std::string revision;    // the package's exact version, or a commit
  std::string integrity;   // the package's integrity digest ("sha512-…")
  friend bool operator==(const EmbeddingModel&, const EmbeddingModel&) = default;
};

struct ParityProbe {
  std::string input;          // the text, before the input template is applied
  std::vector<float> vector;  // what the builder's runtime made of it
  friend bool operator==(const ParityProbe&, const ParityProbe&) = default;
};

struct EmbeddingSpec {
  EmbeddingModel model;
  std::string contract;        // the runtime contract, e.g. "static-word-vectors-v1"
  json::Value parameters;      // an object: the contract's parameters (the manifest does not interpret them)
  uint64_t dimension = 0;      // equals the index dimension
  std::string input_template;  // holds "{text}" exactly once
  double tolerance = 0;        // max |difference| per component, finite, >= 0 (not -0); 0: bit-identical
  std::vector<ParityProbe> probes;
  std::vector<ObjectDescriptor> assets;  // the complete asset inventory, every path under "embedding/"
  friend bool operator==(const EmbeddingSpec&, const EmbeddingSpec&) = default;
};

struct Manifest {
  Uuid artifact_uuid;
  IndexSpec index;
  Hierarchy hierarchy;
  std::vector<PostingsFile> postings;
  std::optional<SourceSpec> source;
  std::optional<EmbeddingSpec> embedding;
  friend bool operator==(const Manifest&, const Manifest&) = default;
};

// Parses and validates manifest.json: strict JSON (≤ 64 MiB), then every
// rule of publication-v1.md §2. Errors are InvalidFormat (OutOfRange for an
// integer beyond its bound, ParseError for broken JSON, LimitExceeded for
// size) with the JSON path of the offending member.
Result<Manifest> ParseManifest(std::string_view bytes);

// The §2 rules over an already-built model (ParseManifest runs it too; the
// builder runs it on what it is about to write).
Status ValidateManifest(const Manifest& manifest);

json::Value ManifestToJson(const Manifest& manifest);

// The embedding section on its own, for documents that carry it outside a
// manifest (an importer's output). Errors name JSON paths under `path`
// ("$.embedding" in a manifest). The decoder checks the shape (members,
// kinds, integers, float32 probe components); the validator checks the other
// §2.8 rules against the index dimension — but not path uniqueness across a
// publication, which needs the whole manifest (ValidateManifest).
Result<EmbeddingSpec> DecodeEmbeddingSection(const json::Value& section, const std::string& path);
Status ValidateEmbeddingSection(const EmbeddingSpec& embedding, uint64_t index_dimension, const std::string& path);
json::Value EmbeddingToJson(const EmbeddingSpec& embedding);
// Validates, then writes the canonical JSON followed by one LF.
Result<std::string> EncodeManifest(const Manifest& manifest);

// Path rules (§2.7, P-PATH-01…04) for one object path.
Status ValidateObjectPath(std::string_view path);
// Column-name rules (P-NAME-01).
Status ValidateColumnName(std::string_view name);
// "ivf_postings/cid_bucket=000042/"
std::string PostingsBucketPrefix(uint64_t bucket);

}  // namespace vigilo::ivf
