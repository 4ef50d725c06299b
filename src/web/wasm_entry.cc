// The WebAssembly read core's C ABI (docs/format/wasm.md): the sans-IO query
// and payload-lookup state machines of query_core.h and source_lookup_core.h,
// driven from JavaScript (web/vigilo.mjs), which does every fetch itself.
// Handles are opaque pointers; strings returned stay valid until the next
// call on the same handle (or, for vigilo_error, any call).
//
//   reader = vigilo_reader_open(manifest bytes);  vigilo_reader_info(reader)
//   run = vigilo_query_start(reader, vectors, count, dimension, k, nprobe)
//   while (!vigilo_query_done(run)) {
//     JSON.parse(vigilo_query_requests(run))  → [{path, offset, length[, sha256]}, …]
//     vigilo_query_supply(run, the requested bytes concatenated in order,
//                         the SHA-256 hex of each request that names one)
//   }
//   JSON.parse(vigilo_query_result(run))      → {kernel, key_type, hits: […]}
// vigilo_lookup_* drive a payload lookup (SourceLookup) the same way; the
// text embedding (wasm_text.cc) and the HTTP answer rules (wasm_http.cc) too.
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/query_core.h"
#include "vigilo/ivf/source_lookup_core.h"
#include "vigilo/json/write.h"
#include "wasm_abi.h"

namespace {

using vigilo::ivf::QueryRun;

using vigilo::web::Fail;
using vigilo::web::LastError;
using vigilo::web::WireRequest;

// A running state machine (QueryRun or SourceLookup), its reader (for the
// manifest's digests) and the last string handed out.
template <class Machine>
struct Handle {
  std::unique_ptr<Machine> run;
  const vigilo::ivf::PublicationReader* reader = nullptr;
  std::string text;
  std::vector<WireRequest> wire;
};
using Run = Handle<QueryRun>;
using Lookup = Handle<vigilo::ivf::SourceLookup>;

// The machine's requests; a whole object carries the manifest's SHA-256,
// checked before the core sees a byte of it, as the native driver does
// (query_local.cc: the centroids always, a small file a footer read covered).
template <class Machine>
const char* RequestsJson(Handle<Machine>& r) {
  r.wire.clear();
  for (const vigilo::ivf::ObjectRange& req : r.run->requests()) {
    WireRequest w{req.path, req.offset, req.length, {}};
    if (req.offset == 0 && r.reader->ObjectSize(req.path) == req.length) w.sha256 = r.reader->ObjectSha256(req.path);
    r.wire.push_back(std::move(w));
  }
  r.text = vigilo::web::RequestsJson(r.wire);
  return r.text.c_str();
}

template <class Machine>
int SupplyConcatenated(Handle<Machine>& r, const uint8_t* bytes, size_t size, const char* digests) {
  if (r.wire.size() != r.run->requests().size()) RequestsJson(r);
  auto views = vigilo::web::SplitAndCheck(r.wire, bytes, size, digests == nullptr ? "" : digests);
  vigilo::Status status = views.ok() ? r.run->Supply(std::span<const std::span<const uint8_t>>(*views))
                                     : views.status();
  if (!status.ok()) {
    Fail(status);
    return -1;
  }
  r.wire.clear();
  return 0;
}

// A hit's key as JSON, as the CLI prints it (cli/index_io.cc KeyJson),
// except that an integer key is a JSON string of its decimal digits: the
// module turns a long into a BigInt and an int or date into a number, never
// through a double.
std::string KeyText(const vigilo::ivf::KeyColumn& keys, size_t i) {
  using K = vigilo::ivf::ColumnType::Kind;
  switch (keys.type.kind) {
    case K::kBoolean: return keys.booleans[i] ? "true" : "false";
    case K::kInt:
    case K::kLong:
    case K::kDate: return "\"" + std::to_string(keys.integers[i]) + "\"";
    case K::kString: {
      std::string out;
      vigilo::json::WriteString(keys.Bytes(i), &out);
      return out;
    }
    default: break;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex = "\"";
  for (unsigned char c : keys.Bytes(i)) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return hex + "\"";
}

std::string VectorFieldJson(const vigilo::ivf::Manifest& m) {
  std::string out;
  vigilo::json::WriteString(m.index.vector_field, &out);
  return out;
}

}  // namespace

extern "C" {

const char* vigilo_error() { return LastError().c_str(); }

// What the module's `info` shows, and every object with its size and
// digest (for `verify`): {"ntotal","nlist","dimension","vector_field","metric","encoding",
// "key":[{name,type}],"columns":[{name,type}],"embedding":{…}|null,"objects":[…]}.
const char* vigilo_reader_info(void* handle) {
  static std::string text;
  const vigilo::ivf::Manifest& m = static_cast<vigilo::ivf::PublicationReader*>(handle)->manifest();
  auto fields = [](const std::vector<vigilo::ivf::Field>& list) {
    std::string out = "[";
    for (const vigilo::ivf::Field& f : list) {
      if (out.size() > 1) out += ',';
      out += "{\"name\":";
      vigilo::json::WriteString(f.name, &out);
      out += ",\"type\":";
      vigilo::json::WriteString(f.type.ToString(), &out);
      out += "}";
    }
    return out + "]";
  };
  std::vector<const vigilo::ivf::ObjectDescriptor*> objects{&m.hierarchy.centroids};
  for (const auto& p : m.postings) objects.push_back(&p.object);
  if (m.source) {
    for (const auto& f : m.source->files) objects.push_back(&f.object);
  }
  if (m.embedding) {
    for (const auto& a : m.embedding->assets) objects.push_back(&a);
  }
  text = "{\"ntotal\":" + std::to_string(m.index.ntotal) + ",\"nlist\":" + std::to_string(m.index.nlist) +
         ",\"dimension\":" + std::to_string(m.index.dimension) + ",\"vector_field\":" + VectorFieldJson(m) +
         ",\"metric\":\"" +
         std::string(vigilo::ivf::MetricName(m.index.metric)) + "\",\"encoding\":\"" +
         std::string(vigilo::ivf::EncodingName(m.index.encoding)) + "\",\"key\":" + fields(m.index.source_key) +
         ",\"columns\":" + (m.source ? fields(m.source->columns) : "[]") + ",\"embedding\":";
  if (m.embedding) {
    text += "{\"contract\":";
    vigilo::json::WriteString(m.embedding->contract, &text);
    text += ",\"repository\":";
    vigilo::json::WriteString(m.embedding->model.repository, &text);
    text += ",\"revision\":";
    vigilo::json::WriteString(m.embedding->model.revision, &text);
    text += ",\"probes\":" + std::to_string(m.embedding->probes.size()) + "}";
  } else {
    text += "null";
  }
  text += ",\"objects\":[";
  for (size_t i = 0; i < objects.size(); ++i) {
    if (i > 0) text += ',';
    text += "{\"path\":";
    vigilo::json::WriteString(objects[i]->path, &text);
    text += ",\"size\":" + std::to_string(objects[i]->size) + ",\"sha256\":\"" + objects[i]->sha256 + "\"}";
  }
  text += "]}";
  return text.c_str();
}

const char* vigilo_kernel() {
  static const std::string name(vigilo::ivf::KernelName());
  return name.c_str();
}

// The manifest's bytes; null on error (vigilo_error says why).
void* vigilo_reader_open(const uint8_t* manifest, size_t size) {
  auto parsed = vigilo::ivf::ParseManifest(std::string_view(reinterpret_cast<const char*>(manifest), size));
  if (!parsed.ok()) {
    Fail(parsed.status());
    return nullptr;
  }
  return new vigilo::ivf::PublicationReader(std::move(*parsed));
}

void vigilo_reader_free(void* reader) { delete static_cast<vigilo::ivf::PublicationReader*>(reader); }

// count × dimension floats, row-major; null on error.
void* vigilo_query_start(void* reader, const float* vectors, uint32_t count, uint32_t dimension, uint32_t k,
                         uint32_t nprobe) {
  std::vector<std::vector<float>> queries(count);
  for (uint32_t q = 0; q < count; ++q) {
    queries[q].assign(vectors + size_t{q} * dimension, vectors + size_t{q + 1} * dimension);
  }
  vigilo::ivf::QueryOptions options;
  options.k = k;
  options.nprobe = nprobe;
  auto run = QueryRun::Start(*static_cast<vigilo::ivf::PublicationReader*>(reader), std::move(queries), options);
  if (!run.ok()) {
    Fail(run.status());
    return nullptr;
  }
  return new Run{std::move(*run), static_cast<vigilo::ivf::PublicationReader*>(reader), {}, {}};
}

int vigilo_query_done(void* run) { return static_cast<Run*>(run)->run->done() ? 1 : 0; }

// The next requests as JSON: [{"path":…,"offset":…,"length":…}, …].
const char* vigilo_query_requests(void* run) { return RequestsJson(*static_cast<Run*>(run)); }

// Every request's bytes, concatenated in request order, and the SHA-256 (64
// hex digits each, concatenated) of each request that names one; 0 on
// success, else -1 (vigilo_error says why; the run is failed).
int vigilo_query_supply(void* run, const uint8_t* bytes, size_t size, const char* digests) {
  return SupplyConcatenated(*static_cast<Run*>(run), bytes, size, digests);
}

// {"kernel":…,"bytes_fetched":…,"requests":…,"hits":[{"query","rank","key",
// "distance_bits" (the float32's bits: exact, unlike any decimal text),"cid","file","row"}, …]}
const char* vigilo_query_result(void* handle) {
  Run& r = *static_cast<Run*>(handle);
  const vigilo::ivf::QueryResult& result = r.run->result();
  r.text = "{\"kernel\":\"" + std::string(vigilo::ivf::KernelName()) + "\",\"key_type\":\"" +
           result.keys.type.ToString() +
           "\",\"bytes_fetched\":" + std::to_string(result.bytes_fetched) +
           ",\"requests\":" + std::to_string(result.requests) + ",\"hits\":[";
  for (size_t i = 0; i < result.hits.size(); ++i) {
    const vigilo::ivf::QueryHit& h = result.hits[i];
    uint32_t bits = 0;
    std::memcpy(&bits, &h.distance, 4);
    if (i > 0) r.text += ',';
    r.text += "{\"query\":" + std::to_string(h.query) + ",\"rank\":" + std::to_string(h.rank) +
              ",\"key\":" + KeyText(result.keys, i) + ",\"distance_bits\":" + std::to_string(bits) +
              ",\"cid\":" + std::to_string(h.cid) +
              ",\"file\":" + std::to_string(h.file) + ",\"row\":" + std::to_string(h.row) + "}";
  }
  r.text += "]}";
  return r.text.c_str();
}

void vigilo_query_free(void* run) { delete static_cast<Run*>(run); }

// Payload lookup (source_lookup_core.h): `count` keys, the columns as one
// comma-separated string; null on error. Driven like a query.
void* vigilo_lookup_start(void* reader, const int64_t* keys, uint32_t count, const char* columns) {
  std::vector<std::string> names;
  for (std::string_view rest = columns; !rest.empty();) {
    const size_t comma = rest.find(',');
    names.emplace_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  auto lookup = vigilo::ivf::SourceLookup::Start(*static_cast<vigilo::ivf::PublicationReader*>(reader),
                                                 std::vector<int64_t>(keys, keys + count), std::move(names));
  if (!lookup.ok()) {
    Fail(lookup.status());
    return nullptr;
  }
  return new Lookup{std::move(*lookup), static_cast<vigilo::ivf::PublicationReader*>(reader), {}, {}};
}

int vigilo_lookup_done(void* lookup) { return static_cast<Lookup*>(lookup)->run->done() ? 1 : 0; }
const char* vigilo_lookup_requests(void* lookup) { return RequestsJson(*static_cast<Lookup*>(lookup)); }
int vigilo_lookup_supply(void* lookup, const uint8_t* bytes, size_t size, const char* digests) {
  return SupplyConcatenated(*static_cast<Lookup*>(lookup), bytes, size, digests);
}

// [[value of column 0, …] per key] (canonical JSON values), except that a
// column of type long has its non-null values as JSON strings of their
// digits, which the module turns into BigInts (JSON.parse would round them).
const char* vigilo_lookup_result(void* handle) {
  Lookup& l = *static_cast<Lookup*>(handle);
  const vigilo::ivf::SourceRows& rows = l.run->result();
  const size_t keys = rows.columns.empty() ? 0 : rows.values.size() / rows.columns.size();
  std::vector<bool> quoted(rows.columns.size(), false);
  for (size_t c = 0; c < rows.columns.size(); ++c) {
    for (const vigilo::ivf::Field& f : l.reader->manifest().source->columns) {
      if (f.name == rows.columns[c]) quoted[c] = f.type.kind == vigilo::ivf::ColumnType::Kind::kLong;
    }
  }
  l.text = "[";
  for (size_t k = 0; k < keys; ++k) {
    l.text += k == 0 ? "[" : ",[";
    for (size_t c = 0; c < rows.columns.size(); ++c) {
      const std::string& v = rows.Value(k, c);
      l.text += c == 0 ? "" : ",";
      l.text += quoted[c] && v != "null" ? "\"" + v + "\"" : v;
    }
    l.text += "]";
  }
  l.text += "]";
  return l.text.c_str();
}

void vigilo_lookup_free(void* lookup) { delete static_cast<Lookup*>(lookup); }

}  // extern "C"
