// The manifest rules of publication-v1.md §2 over the decoded model.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <unordered_set>

#include "vigilo/common/paths.h"
#include "vigilo/common/utf8.h"
#include "vigilo/ivf/manifest.h"

namespace vigilo::ivf {
namespace {

constexpr uint64_t kMaxCid = 2147483647;
constexpr size_t kMaxNameBytes = 255;
constexpr size_t kMaxSourceColumns = 4096;

std::string Index(std::string_view base, size_t i) { return std::string(base) + "[" + std::to_string(i) + "]"; }

Status Bad(std::string message, std::string path) { return InvalidFormat(std::move(message)).WithPath(std::move(path)); }

Status InRange(uint64_t v, uint64_t lo, uint64_t hi, std::string path) {
  if (v >= lo && v <= hi) return Status::Ok();
  return OutOfRange("must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + std::to_string(v))
      .WithPath(std::move(path));
}

Status ValidateDescriptor(const ObjectDescriptor& d, const std::string& path) {
  if (Status s = ValidateObjectPath(d.path); !s.ok()) return std::move(s).WithPath(path + ".path");
  VIGILO_RETURN_IF_ERROR(InRange(d.size, 1, kMaxSafeInteger, path + ".size"));
  bool hex = d.sha256.size() == 64 && std::all_of(d.sha256.begin(), d.sha256.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
             });
  if (!hex) return Bad("sha256 must be 64 lowercase hexadecimal digits", path + ".sha256");
  return Status::Ok();
}

// Names unique and valid; `reserved` names refused.
Status ValidateFields(const std::vector<Field>& fields, const std::string& path,
                      std::initializer_list<std::string_view> reserved) {
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string at = Index(path, i);
    if (Status s = ValidateColumnName(fields[i].name); !s.ok()) return std::move(s).WithPath(at + ".name");
    if (std::find(reserved.begin(), reserved.end(), fields[i].name) != reserved.end()) {
      return Bad("\"" + fields[i].name + "\" is reserved", at + ".name");
    }
    if (!seen.insert(fields[i].name).second) return Bad("duplicate name \"" + fields[i].name + "\"", at + ".name");
  }
  return Status::Ok();
}

Status ValidateIndex(const IndexSpec& index) {
  if (Status s = ValidateColumnName(index.vector_field); !s.ok()) return std::move(s).WithPath("$.index.vector-field");
  VIGILO_RETURN_IF_ERROR(InRange(index.dimension, 1, kMaxDimension, "$.index.dimension"));
  VIGILO_RETURN_IF_ERROR(InRange(index.nlist, 1, kMaxCid, "$.index.nlist"));
  VIGILO_RETURN_IF_ERROR(InRange(index.ntotal, 1, kMaxSafeInteger, "$.index.ntotal"));
  if (index.source_key.empty() || index.source_key.size() > kMaxSourceKeyFields) {
    return Bad("source-key must list 1 to 16 fields, got " + std::to_string(index.source_key.size()),
               "$.index.source-key");
  }
  VIGILO_RETURN_IF_ERROR(
      ValidateFields(index.source_key, "$.index.source-key", {"cid", "offset", "scale", "code", "_distance"}));
  for (size_t i = 0; i < index.source_key.size(); ++i) {
    if (!index.source_key[i].type.is_key_type()) {
      return Bad("a source-key type must be boolean, int, long, binary, string, date or fixed(L), got " +
                     index.source_key[i].type.ToString(),
                 Index("$.index.source-key", i) + ".type");
    }
  }
  return Status::Ok();
}

Status ValidateHierarchy(const Hierarchy& h, uint64_t nlist) {
  const auto& off = h.cid_offsets;
  const std::string path = "$.hierarchy.cid-offsets";
  if (off.size() < 2) return Bad("cid-offsets needs at least two entries", path);
  if (off.size() - 1 > kMaxRoots) return Bad("more than 1000000 roots", path);
  if (off[0] != 0) return Bad("cid-offsets must start at 0", Index(path, 0));
  for (size_t i = 1; i < off.size(); ++i) {
    if (off[i] <= off[i - 1]) return Bad("cid-offsets must be strictly increasing", Index(path, i));
  }
  if (off.back() != nlist) {
    return Bad("cid-offsets must end at nlist (" + std::to_string(nlist) + "), got " + std::to_string(off.back()),
               Index(path, off.size() - 1));
  }
  return ValidateDescriptor(h.centroids, "$.hierarchy.centroids");
}

bool PostingsLess(const PostingsFile& a, const PostingsFile& b) {
  if (a.cid_bucket != b.cid_bucket) return a.cid_bucket < b.cid_bucket;
  if (a.min_cid != b.min_cid) return a.min_cid < b.min_cid;
  if (a.max_cid != b.max_cid) return a.max_cid < b.max_cid;
  return a.object.path < b.object.path;  // std::string compares bytes as unsigned char
}

Status ValidatePostings(const Manifest& m) {
  const auto& files = m.postings;
  const auto& off = m.hierarchy.cid_offsets;
  if (files.empty()) return Bad("postings.files must not be empty", "$.postings.files");
  uint64_t total = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const PostingsFile& f = files[i];
    std::string at = Index("$.postings.files", i);
    VIGILO_RETURN_IF_ERROR(ValidateDescriptor(f.object, at));
    if (f.cid_bucket >= m.hierarchy.roots()) {
      return Bad("cid-bucket " + std::to_string(f.cid_bucket) + " is not a root (there are " +
                     std::to_string(m.hierarchy.roots()) + ")",
                 at + ".cid-bucket");
    }
    uint64_t lo = off[f.cid_bucket], hi = off[f.cid_bucket + 1];
    if (f.min_cid > f.max_cid) return Bad("min-cid exceeds max-cid", at + ".min-cid");
    if (f.min_cid < lo) {
      return Bad("min-cid " + std::to_string(f.min_cid) + " is outside root " + std::to_string(f.cid_bucket) +
                     "'s interval [" + std::to_string(lo) + ", " + std::to_string(hi) + ")",
                 at + ".min-cid");
    }
    if (f.max_cid >= hi) {
      return Bad("max-cid " + std::to_string(f.max_cid) + " is outside root " + std::to_string(f.cid_bucket) +
                     "'s interval [" + std::to_string(lo) + ", " + std::to_string(hi) + ")",
                 at + ".max-cid");
    }
    VIGILO_RETURN_IF_ERROR(InRange(f.rows, 1, kMaxSafeInteger, at + ".rows"));
    std::string prefix = PostingsBucketPrefix(f.cid_bucket);
    if (f.object.path.size() <= prefix.size() || f.object.path.compare(0, prefix.size(), prefix) != 0) {
      return Bad("a bucket " + std::to_string(f.cid_bucket) + " postings path must start with \"" + prefix + "\"",
                 at + ".path");
    }
    if (i > 0 && !PostingsLess(files[i - 1], f)) {
      return Bad("postings files must be ordered by (cid-bucket, min-cid, max-cid, path)", at);
    }
    total += f.rows;  // ≤ 2^53 each; cannot wrap before exceeding ntotal, checked at once
    if (total > m.index.ntotal) {
      return Bad("postings rows exceed ntotal (" + std::to_string(m.index.ntotal) + ")", at + ".rows");
    }
  }
  if (total != m.index.ntotal) {
    return Bad("postings rows sum to " + std::to_string(total) + "; ntotal is " + std::to_string(m.index.ntotal),
               "$.postings.files");
  }
  return Status::Ok();
}

Status ValidateSource(const SourceSpec& s, const IndexSpec& index) {
  if (s.rows != index.ntotal) {
    return Bad("source rows (" + std::to_string(s.rows) + ") must equal ntotal (" + std::to_string(index.ntotal) + ")",
               "$.source.rows");
  }
  VIGILO_RETURN_IF_ERROR(InRange(s.row_group_rows, 1, kMaxCid, "$.source.row-group-rows"));
  if (s.columns.empty() || s.columns.size() > kMaxSourceColumns) {
    return Bad("source columns must list 1 to 4096 columns", "$.source.columns");
  }
  VIGILO_RETURN_IF_ERROR(ValidateFields(s.columns, "$.source.columns", {"_distance"}));
  auto column = std::find_if(s.columns.begin(), s.columns.end(), [&](const Field& f) { return f.name == s.key; });
  if (column == s.columns.end()) return Bad("the key \"" + s.key + "\" is not a source column", "$.source.key");
  if (column->type.kind != ColumnType::Kind::kLong) {
    return Bad("the source key must be a long column, \"" + s.key + "\" is " + column->type.ToString(),
               "$.source.key");
  }
  auto key = std::find_if(index.source_key.begin(), index.source_key.end(),
                          [&](const Field& f) { return f.name == s.key; });
  if (key == index.source_key.end() || key->type.kind != ColumnType::Kind::kLong) {
    return Bad("the source key \"" + s.key + "\" must also be an index source-key field of type long",
               "$.source.key");
  }
  if (s.files.empty()) return Bad("source files must not be empty", "$.source.files");
  uint64_t expected_begin = 0;
  for (size_t i = 0; i < s.files.size(); ++i) {
    const SourceFile& f = s.files[i];
    std::string at = Index("$.source.files", i);
    VIGILO_RETURN_IF_ERROR(ValidateDescriptor(f.object, at));
    if (f.row_begin != expected_begin) {
      return Bad("row-begin must be " + std::to_string(expected_begin) + " (the files partition [0, rows) in order)",
                 at + ".row-begin");
    }
    if (f.row_end <= f.row_begin) return Bad("row-end must exceed row-begin", at + ".row-end");
    if (f.row_end > s.rows) return Bad("row-end exceeds source rows", at + ".row-end");
    if (f.row_begin % s.row_group_rows != 0) {
      return Bad("row-begin must be a multiple of row-group-rows (" + std::to_string(s.row_group_rows) + ")",
                 at + ".row-begin");
    }
    expected_begin = f.row_end;
  }
  if (expected_begin != s.rows) {
    return Bad("source files end at row " + std::to_string(expected_begin) + "; rows is " + std::to_string(s.rows),
               "$.source.files");
  }
  return Status::Ok();
}

// A required descriptive string: non-empty UTF-8 (JSON strings always are;
// a model built in memory might not be).
Status NonEmptyText(const std::string& s, const std::string& path) {
  if (s.empty()) return Bad("must not be empty", path);
  if (!IsValidUtf8(s)) return Bad("must be UTF-8", path);
  return Status::Ok();
}

constexpr std::string_view kTextPlaceholder = "{text}";
constexpr std::string_view kAssetPrefix = "embedding/";

}  // namespace

// §2.8. The contract's parameters and the assets' bytes are the runtime's
// to check (docs/format/embedding.md); here only what the manifest alone decides.
Status ValidateEmbeddingSection(const EmbeddingSpec& e, uint64_t index_dimension, const std::string& base) {
  VIGILO_RETURN_IF_ERROR(NonEmptyText(e.model.repository, base + ".model.repository"));
  VIGILO_RETURN_IF_ERROR(NonEmptyText(e.model.revision, base + ".model.revision"));
  VIGILO_RETURN_IF_ERROR(NonEmptyText(e.model.integrity, base + ".model.integrity"));
  VIGILO_RETURN_IF_ERROR(NonEmptyText(e.contract, base + ".runtime.contract"));
  if (!e.parameters.is_object()) return Bad("parameters must be an object", base + ".runtime.parameters");
  if (e.dimension != index_dimension) {
    return Bad("the embedding dimension (" + std::to_string(e.dimension) + ") must equal the index dimension (" +
                   std::to_string(index_dimension) + ")",
               base + ".dimension");
  }
  const std::string& t = e.input_template;
  size_t at = t.find(kTextPlaceholder);
  if (at == std::string::npos || t.find(kTextPlaceholder, at + 1) != std::string::npos) {
    return Bad("the input template must contain \"{text}\" exactly once", base + ".input-template");
  }
  if (!IsValidUtf8(t)) return Bad("must be UTF-8", base + ".input-template");
  const std::string parity = base + ".parity-probe";
  if (!std::isfinite(e.tolerance) || e.tolerance < 0 || std::signbit(e.tolerance)) {
    return Bad("the tolerance must be a finite number >= 0", parity + ".tolerance");
  }
  if (e.probes.empty()) return Bad("at least one parity probe is required", parity + ".probes");
  for (size_t i = 0; i < e.probes.size(); ++i) {
    const ParityProbe& probe = e.probes[i];
    std::string probe_at = Index(parity + ".probes", i);
    VIGILO_RETURN_IF_ERROR(NonEmptyText(probe.input, probe_at + ".input"));
    if (probe.vector.size() != e.dimension) {
      return Bad("a probe vector must hold " + std::to_string(e.dimension) + " numbers (the dimension), got " +
                     std::to_string(probe.vector.size()),
                 probe_at + ".vector");
    }
    for (size_t j = 0; j < probe.vector.size(); ++j) {
      if (!std::isfinite(probe.vector[j])) {
        return Bad("a probe vector component must be finite", Index(probe_at + ".vector", j));
      }
    }
  }
  if (e.assets.empty()) return Bad("the asset inventory must not be empty", base + ".assets");
  for (size_t i = 0; i < e.assets.size(); ++i) {
    std::string asset_at = Index(base + ".assets", i);
    VIGILO_RETURN_IF_ERROR(ValidateDescriptor(e.assets[i], asset_at));
    const std::string& path = e.assets[i].path;
    if (path.size() <= kAssetPrefix.size() || path.compare(0, kAssetPrefix.size(), kAssetPrefix) != 0) {
      return Bad("an embedding asset path must start with \"embedding/\"", asset_at + ".path");
    }
  }
  return Status::Ok();
}

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Unique (also after ASCII lowercasing), and no path is a directory of another.
Status ValidatePathSet(const Manifest& m) {
  std::vector<std::pair<const std::string*, std::string>> all;  // (path, JSON path)
  all.emplace_back(&m.hierarchy.centroids.path, "$.hierarchy.centroids.path");
  for (size_t i = 0; i < m.postings.size(); ++i) {
    all.emplace_back(&m.postings[i].object.path, Index("$.postings.files", i) + ".path");
  }
  if (m.source) {
    for (size_t i = 0; i < m.source->files.size(); ++i) {
      all.emplace_back(&m.source->files[i].object.path, Index("$.source.files", i) + ".path");
    }
  }
  if (m.embedding) {
    for (size_t i = 0; i < m.embedding->assets.size(); ++i) {
      all.emplace_back(&m.embedding->assets[i].path, Index("$.embedding.assets", i) + ".path");
    }
  }
  std::unordered_set<std::string> lowered;
  for (const auto& [path, at] : all) {
    if (!lowered.insert(Lower(*path)).second) {
      return Bad("path \"" + *path + "\" is used twice (paths are compared ignoring ASCII case)", at);
    }
  }
  for (const auto& [path, at] : all) {
    for (size_t slash = path->find('/'); slash != std::string::npos; slash = path->find('/', slash + 1)) {
      if (lowered.count(Lower(path->substr(0, slash))) != 0) {
        return Bad("path \"" + *path + "\" lies under another object's path \"" + path->substr(0, slash) + "\"", at);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::string PostingsBucketPrefix(uint64_t bucket) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "ivf_postings/cid_bucket=%06llu/", static_cast<unsigned long long>(bucket));
  return buf;
}

Status ValidateObjectPath(std::string_view path) {
  VIGILO_RETURN_IF_ERROR(ValidatePublicationPath(path));  // docs/format/names.md
  if (path == "manifest.json") return InvalidFormat("manifest.json cannot be an object path");
  return Status::Ok();
}

Status ValidateColumnName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes) return InvalidFormat("a column name must be 1 to 255 bytes");
  if (!IsValidUtf8(name)) return InvalidFormat("a column name must be UTF-8");
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return InvalidFormat("a column name may not contain control characters");
    }
    if (c == '.') return InvalidFormat("a column name may not contain '.' (\"" + std::string(name) + "\")");
  }
  return Status::Ok();
}

Status ValidateManifest(const Manifest& m) {
  if (m.artifact_uuid.is_nil()) return Bad("the nil UUID is not allowed", "$.artifact-uuid");
  VIGILO_RETURN_IF_ERROR(ValidateIndex(m.index));
  VIGILO_RETURN_IF_ERROR(ValidateHierarchy(m.hierarchy, m.index.nlist));
  VIGILO_RETURN_IF_ERROR(ValidatePostings(m));
  if (m.source) VIGILO_RETURN_IF_ERROR(ValidateSource(*m.source, m.index));
  if (m.embedding) VIGILO_RETURN_IF_ERROR(ValidateEmbeddingSection(*m.embedding, m.index.dimension, "$.embedding"));
  return ValidatePathSet(m);
}

}  // namespace vigilo::ivf
