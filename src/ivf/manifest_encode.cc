// Manifest → canonical JSON (publication-v1.md §2.1).
#include "vigilo/ivf/manifest.h"
#include "vigilo/json/write.h"

namespace vigilo::ivf {
namespace {

using json::Array;
using json::Object;
using json::Value;

void PutDescriptor(Object& o, const ObjectDescriptor& d) {
  o.Set("path", Value(d.path));
  o.Set("size", Value::Uint(d.size));
  o.Set("sha256", Value(d.sha256));
}

Value FieldsValue(const std::vector<Field>& fields) {
  Array a;
  for (const Field& f : fields) {
    Object o;
    o.Set("name", Value(f.name));
    o.Set("type", Value(f.type.ToString()));
    a.push_back(Value(std::move(o)));
  }
  return Value(std::move(a));
}

}  // namespace

// Probe components as JSON doubles: the writer's shortest round-trip form of
// the float's exact double value parses back to that double, which a float
// holds exactly (publication-v1.md §2.8).
json::Value EmbeddingToJson(const EmbeddingSpec& e) {
  Object model;
  model.Set("repository", Value(e.model.repository));
  model.Set("revision", Value(e.model.revision));
  model.Set("integrity", Value(e.model.integrity));
  Object runtime;
  runtime.Set("contract", Value(e.contract));
  runtime.Set("parameters", e.parameters);
  Array probes;
  for (const ParityProbe& p : e.probes) {
    Array vector;
    vector.reserve(p.vector.size());
    for (float x : p.vector) vector.push_back(Value::Double(static_cast<double>(x)));
    Object probe;
    probe.Set("input", Value(p.input));
    probe.Set("vector", Value(std::move(vector)));
    probes.push_back(Value(std::move(probe)));
  }
  Object parity;
  parity.Set("tolerance", Value::Double(e.tolerance));
  parity.Set("probes", Value(std::move(probes)));
  Array assets;
  for (const ObjectDescriptor& d : e.assets) {
    Object o;
    PutDescriptor(o, d);
    assets.push_back(Value(std::move(o)));
  }
  Object embedding;
  embedding.Set("model", Value(std::move(model)));
  embedding.Set("runtime", Value(std::move(runtime)));
  embedding.Set("dimension", Value::Uint(e.dimension));
  embedding.Set("input-template", Value(e.input_template));
  embedding.Set("parity-probe", Value(std::move(parity)));
  embedding.Set("assets", Value(std::move(assets)));
  return Value(std::move(embedding));
}

json::Value ManifestToJson(const Manifest& m) {
  Object index;
  index.Set("vector-field", Value(m.index.vector_field));
  index.Set("metric", Value(MetricName(m.index.metric)));
  index.Set("encoding", Value(EncodingName(m.index.encoding)));
  index.Set("dimension", Value::Uint(m.index.dimension));
  index.Set("nlist", Value::Uint(m.index.nlist));
  index.Set("ntotal", Value::Uint(m.index.ntotal));
  index.Set("source-key", FieldsValue(m.index.source_key));

  Array offsets;
  for (uint64_t o : m.hierarchy.cid_offsets) offsets.push_back(Value::Uint(o));
  Object centroids;
  PutDescriptor(centroids, m.hierarchy.centroids);
  Object hierarchy;
  hierarchy.Set("cid-offsets", Value(std::move(offsets)));
  hierarchy.Set("centroids", Value(std::move(centroids)));

  Array files;
  for (const PostingsFile& f : m.postings) {
    Object o;
    PutDescriptor(o, f.object);
    o.Set("cid-bucket", Value::Uint(f.cid_bucket));
    o.Set("min-cid", Value::Uint(f.min_cid));
    o.Set("max-cid", Value::Uint(f.max_cid));
    o.Set("rows", Value::Uint(f.rows));
    files.push_back(Value(std::move(o)));
  }
  Object postings;
  postings.Set("files", Value(std::move(files)));

  Object top;
  top.Set("format-version", Value::Uint(1));
  top.Set("artifact-uuid", Value(m.artifact_uuid.ToString()));
  top.Set("index", Value(std::move(index)));
  top.Set("hierarchy", Value(std::move(hierarchy)));
  top.Set("postings", Value(std::move(postings)));
  if (m.source) {
    const SourceSpec& s = *m.source;
    Array source_files;
    for (const SourceFile& f : s.files) {
      Object o;
      PutDescriptor(o, f.object);
      o.Set("row-begin", Value::Uint(f.row_begin));
      o.Set("row-end", Value::Uint(f.row_end));
      source_files.push_back(Value(std::move(o)));
    }
    Object source;
    source.Set("rows", Value::Uint(s.rows));
    source.Set("row-group-rows", Value::Uint(s.row_group_rows));
    source.Set("columns", FieldsValue(s.columns));
    source.Set("key", Value(s.key));
    source.Set("files", Value(std::move(source_files)));
    top.Set("source", Value(std::move(source)));
  }
  if (m.embedding) top.Set("embedding", EmbeddingToJson(*m.embedding));
  return Value(std::move(top));
}

Result<std::string> EncodeManifest(const Manifest& m) {
  VIGILO_RETURN_IF_ERROR(ValidateManifest(m));
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, json::ToCanonical(ManifestToJson(m)));
  bytes.push_back('\n');
  return bytes;
}

}  // namespace vigilo::ivf
