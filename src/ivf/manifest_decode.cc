// manifest.json → Manifest: the shape of every member (exact member sets,
// JSON kinds, integers within 0…2^53−1, enum and UUID spellings). The
// remaining rules are ValidateManifest's.
#include <cmath>
#include <string>

#include "exact_float32.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/json/fields.h"
#include "vigilo/json/parse.h"

namespace vigilo::ivf {
namespace {

using json::Fields;

constexpr int64_t kSafe = static_cast<int64_t>(kMaxSafeInteger);

Result<uint64_t> Count(const Fields& f, std::string_view name) {
  VIGILO_ASSIGN_OR_RETURN(int64_t v, f.Int(name, 0, kSafe));
  return static_cast<uint64_t>(v);
}

// Wraps an error from a nested parser with the member's path.
Status At(Status s, const std::string& path) { return s.ok() || !s.path().empty() ? s : std::move(s).WithPath(path); }

Result<ObjectDescriptor> DecodeDescriptorFields(const Fields& f) {
  ObjectDescriptor d;
  VIGILO_ASSIGN_OR_RETURN(d.path, f.String("path"));
  VIGILO_ASSIGN_OR_RETURN(d.size, Count(f, "size"));
  VIGILO_ASSIGN_OR_RETURN(d.sha256, f.String("sha256"));
  return d;
}

Result<Field> DecodeField(const json::Value& v, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(v, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"name", "type"}));
  Field out;
  VIGILO_ASSIGN_OR_RETURN(out.name, f.String("name"));
  VIGILO_ASSIGN_OR_RETURN(std::string type, f.String("type"));
  auto parsed = ParseColumnType(type);
  if (!parsed.ok()) return At(parsed.status(), f.PathOf("type"));
  out.type = *parsed;
  return out;
}

Result<std::vector<Field>> DecodeFieldList(const Fields& f, std::string_view name) {
  VIGILO_ASSIGN_OR_RETURN(const json::Array* items, f.Array(name));
  std::vector<Field> out;
  for (size_t i = 0; i < items->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(Field field, DecodeField((*items)[i], f.PathOf(name) + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(field));
  }
  return out;
}

Result<IndexSpec> DecodeIndex(const Fields& f) {
  VIGILO_RETURN_IF_ERROR(
      f.ExpectExactly({"vector-field", "metric", "encoding", "dimension", "nlist", "ntotal", "source-key"}));
  IndexSpec index;
  VIGILO_ASSIGN_OR_RETURN(index.vector_field, f.String("vector-field"));
  VIGILO_ASSIGN_OR_RETURN(std::string metric, f.String("metric"));
  auto m = ParseMetric(metric);
  if (!m.ok()) return At(m.status(), f.PathOf("metric"));
  index.metric = *m;
  VIGILO_ASSIGN_OR_RETURN(std::string encoding, f.String("encoding"));
  auto e = ParseEncoding(encoding);
  if (!e.ok()) return At(e.status(), f.PathOf("encoding"));
  index.encoding = *e;
  VIGILO_ASSIGN_OR_RETURN(index.dimension, Count(f, "dimension"));
  VIGILO_ASSIGN_OR_RETURN(index.nlist, Count(f, "nlist"));
  VIGILO_ASSIGN_OR_RETURN(index.ntotal, Count(f, "ntotal"));
  VIGILO_ASSIGN_OR_RETURN(index.source_key, DecodeFieldList(f, "source-key"));
  return index;
}

Result<Hierarchy> DecodeHierarchy(const Fields& f) {
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"cid-offsets", "centroids"}));
  Hierarchy h;
  VIGILO_ASSIGN_OR_RETURN(const json::Array* offsets, f.Array("cid-offsets"));
  for (size_t i = 0; i < offsets->size(); ++i) {
    const json::Value& v = (*offsets)[i];
    std::string path = f.PathOf("cid-offsets") + "[" + std::to_string(i) + "]";
    if (!v.is_number() || !v.as_number().is_integer()) return InvalidFormat("expected an integer").WithPath(path);
    auto n = v.as_number().AsUint64();
    if (!n.ok() || *n > kMaxSafeInteger) return OutOfRange("integer out of range [0, 9007199254740991]").WithPath(path);
    h.cid_offsets.push_back(*n);
  }
  VIGILO_ASSIGN_OR_RETURN(Fields c, f.Object("centroids"));
  VIGILO_RETURN_IF_ERROR(c.ExpectExactly({"path", "size", "sha256"}));
  VIGILO_ASSIGN_OR_RETURN(h.centroids, DecodeDescriptorFields(c));
  return h;
}

Result<std::vector<PostingsFile>> DecodePostings(const Fields& f) {
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"files"}));
  VIGILO_ASSIGN_OR_RETURN(const json::Array* items, f.Array("files"));
  std::vector<PostingsFile> out;
  out.reserve(items->size());
  for (size_t i = 0; i < items->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(Fields p, Fields::Of((*items)[i], f.PathOf("files") + "[" + std::to_string(i) + "]"));
    VIGILO_RETURN_IF_ERROR(p.ExpectExactly({"path", "size", "sha256", "cid-bucket", "min-cid", "max-cid", "rows"}));
    PostingsFile file;
    VIGILO_ASSIGN_OR_RETURN(file.object, DecodeDescriptorFields(p));
    VIGILO_ASSIGN_OR_RETURN(file.cid_bucket, Count(p, "cid-bucket"));
    VIGILO_ASSIGN_OR_RETURN(file.min_cid, Count(p, "min-cid"));
    VIGILO_ASSIGN_OR_RETURN(file.max_cid, Count(p, "max-cid"));
    VIGILO_ASSIGN_OR_RETURN(file.rows, Count(p, "rows"));
    out.push_back(std::move(file));
  }
  return out;
}

Result<SourceSpec> DecodeSource(const Fields& f) {
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"rows", "row-group-rows", "columns", "key", "files"}));
  SourceSpec s;
  VIGILO_ASSIGN_OR_RETURN(s.rows, Count(f, "rows"));
  VIGILO_ASSIGN_OR_RETURN(s.row_group_rows, Count(f, "row-group-rows"));
  VIGILO_ASSIGN_OR_RETURN(s.columns, DecodeFieldList(f, "columns"));
  VIGILO_ASSIGN_OR_RETURN(s.key, f.String("key"));
  VIGILO_ASSIGN_OR_RETURN(const json::Array* items, f.Array("files"));
  for (size_t i = 0; i < items->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(Fields p, Fields::Of((*items)[i], f.PathOf("files") + "[" + std::to_string(i) + "]"));
    VIGILO_RETURN_IF_ERROR(p.ExpectExactly({"path", "size", "sha256", "row-begin", "row-end"}));
    SourceFile file;
    VIGILO_ASSIGN_OR_RETURN(file.object, DecodeDescriptorFields(p));
    VIGILO_ASSIGN_OR_RETURN(file.row_begin, Count(p, "row-begin"));
    VIGILO_ASSIGN_OR_RETURN(file.row_end, Count(p, "row-end"));
    s.files.push_back(std::move(file));
  }
  return s;
}

Result<ParityProbe> DecodeProbe(const json::Value& v, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(v, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"input", "vector"}));
  ParityProbe probe;
  VIGILO_ASSIGN_OR_RETURN(probe.input, f.String("input"));
  VIGILO_ASSIGN_OR_RETURN(const json::Array* values, f.Array("vector"));
  probe.vector.reserve(values->size());
  for (size_t i = 0; i < values->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(float x, DecodeExactFloat32((*values)[i], f.PathOf("vector") + "[" + std::to_string(i) + "]",
                                                      "a probe vector component"));
    probe.vector.push_back(x);
  }
  return probe;
}

// publication-v1.md §2.8: the shape only; the parameters object is the
// contract's and is kept as it is.
Result<EmbeddingSpec> DecodeEmbeddingFields(const Fields& f) {
  VIGILO_RETURN_IF_ERROR(
      f.ExpectExactly({"model", "runtime", "dimension", "input-template", "parity-probe", "assets"}));
  EmbeddingSpec e;
  VIGILO_ASSIGN_OR_RETURN(Fields model, f.Object("model"));
  VIGILO_RETURN_IF_ERROR(model.ExpectExactly({"repository", "revision", "integrity"}));
  VIGILO_ASSIGN_OR_RETURN(e.model.repository, model.String("repository"));
  VIGILO_ASSIGN_OR_RETURN(e.model.revision, model.String("revision"));
  VIGILO_ASSIGN_OR_RETURN(e.model.integrity, model.String("integrity"));
  VIGILO_ASSIGN_OR_RETURN(Fields runtime, f.Object("runtime"));
  VIGILO_RETURN_IF_ERROR(runtime.ExpectExactly({"contract", "parameters"}));
  VIGILO_ASSIGN_OR_RETURN(e.contract, runtime.String("contract"));
  VIGILO_ASSIGN_OR_RETURN(Fields parameters, runtime.Object("parameters"));
  e.parameters = json::Value(parameters.object());
  VIGILO_ASSIGN_OR_RETURN(e.dimension, Count(f, "dimension"));
  VIGILO_ASSIGN_OR_RETURN(e.input_template, f.String("input-template"));
  VIGILO_ASSIGN_OR_RETURN(Fields parity, f.Object("parity-probe"));
  VIGILO_RETURN_IF_ERROR(parity.ExpectExactly({"tolerance", "probes"}));
  VIGILO_ASSIGN_OR_RETURN(const json::Value* tolerance, parity.Get("tolerance"));
  if (!tolerance->is_number()) {
    return InvalidFormat("expected a number, got " + std::string(json::KindName(tolerance->kind())))
        .WithPath(parity.PathOf("tolerance"));
  }
  e.tolerance = tolerance->as_number().AsDouble();
  VIGILO_ASSIGN_OR_RETURN(const json::Array* probes, parity.Array("probes"));
  for (size_t i = 0; i < probes->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(ParityProbe probe,
                            DecodeProbe((*probes)[i], parity.PathOf("probes") + "[" + std::to_string(i) + "]"));
    e.probes.push_back(std::move(probe));
  }
  VIGILO_ASSIGN_OR_RETURN(const json::Array* assets, f.Array("assets"));
  for (size_t i = 0; i < assets->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(Fields a, Fields::Of((*assets)[i], f.PathOf("assets") + "[" + std::to_string(i) + "]"));
    VIGILO_RETURN_IF_ERROR(a.ExpectExactly({"path", "size", "sha256"}));
    VIGILO_ASSIGN_OR_RETURN(ObjectDescriptor d, DecodeDescriptorFields(a));
    e.assets.push_back(std::move(d));
  }
  return e;
}

Result<Manifest> DecodeManifest(const json::Value& root) {
  VIGILO_ASSIGN_OR_RETURN(Fields top, Fields::Of(root, "$"));
  VIGILO_RETURN_IF_ERROR(
      top.ExpectOnly({"format-version", "artifact-uuid", "index", "hierarchy", "postings"}, {"source", "embedding"}));
  VIGILO_ASSIGN_OR_RETURN(const json::Value* version, top.Get("format-version"));
  if (!version->is_number() || !version->as_number().is_integer() || version->as_number().u64() != 1 ||
      version->as_number().kind() != json::Number::Kind::kU64) {
    return InvalidFormat("format-version must be exactly 1").WithPath("$.format-version");
  }
  Manifest m;
  VIGILO_ASSIGN_OR_RETURN(std::string uuid, top.String("artifact-uuid"));
  auto parsed_uuid = Uuid::Parse(uuid);
  if (!parsed_uuid.ok()) return At(parsed_uuid.status(), "$.artifact-uuid");
  m.artifact_uuid = *parsed_uuid;
  VIGILO_ASSIGN_OR_RETURN(Fields index, top.Object("index"));
  VIGILO_ASSIGN_OR_RETURN(m.index, DecodeIndex(index));
  VIGILO_ASSIGN_OR_RETURN(Fields hierarchy, top.Object("hierarchy"));
  VIGILO_ASSIGN_OR_RETURN(m.hierarchy, DecodeHierarchy(hierarchy));
  VIGILO_ASSIGN_OR_RETURN(Fields postings, top.Object("postings"));
  VIGILO_ASSIGN_OR_RETURN(m.postings, DecodePostings(postings));
  if (top.Has("source")) {
    VIGILO_ASSIGN_OR_RETURN(Fields source, top.Object("source"));
    VIGILO_ASSIGN_OR_RETURN(SourceSpec s, DecodeSource(source));
    m.source = std::move(s);
  }
  if (top.Has("embedding")) {
    VIGILO_ASSIGN_OR_RETURN(Fields embedding, top.Object("embedding"));
    VIGILO_ASSIGN_OR_RETURN(EmbeddingSpec e, DecodeEmbeddingFields(embedding));
    m.embedding = std::move(e);
  }
  return m;
}

}  // namespace

Result<EmbeddingSpec> DecodeEmbeddingSection(const json::Value& section, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(section, path));
  return DecodeEmbeddingFields(f);
}

Result<Manifest> ParseManifest(std::string_view bytes) {
  if (bytes.size() > kMaxManifestBytes) {
    return LimitExceeded("manifest.json is " + std::to_string(bytes.size()) + " bytes; the limit is 64 MiB");
  }
  json::ParseOptions options;
  options.max_bytes = kMaxManifestBytes;
  VIGILO_ASSIGN_OR_RETURN(json::Value root, json::Parse(bytes, options));
  VIGILO_ASSIGN_OR_RETURN(Manifest m, DecodeManifest(root));
  VIGILO_RETURN_IF_ERROR(ValidateManifest(m));
  return m;
}

}  // namespace vigilo::ivf
