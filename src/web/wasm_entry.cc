// The WebAssembly read core's C ABI (docs/format/wasm.md): the sans-IO query
// state machine of query_core.h, driven from JavaScript, which does every
// fetch itself. Handles are opaque pointers; strings returned stay valid
// until the next call on the same handle (or, for vigilo_error, any call).
//
//   reader = vigilo_reader_open(manifest bytes)
//   run = vigilo_query_start(reader, vectors, count, dimension, k, nprobe)
//   while (!vigilo_query_done(run)) {
//     JSON.parse(vigilo_query_requests(run))  → [{path, offset, length}, …]
//     vigilo_query_supply(run, the requested bytes concatenated in order)
//   }
//   JSON.parse(vigilo_query_result(run))      → {kernel, hits: […]}
// vigilo_lookup_* drive a payload lookup (SourceLookup) the same way.
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

namespace {

using vigilo::ivf::QueryRun;

std::string& LastError() {
  static std::string error;
  return error;
}

void Fail(const vigilo::Status& status) { LastError() = status.ToString(); }

// A running state machine (QueryRun or SourceLookup) and the last string handed out.
template <class Machine>
struct Handle {
  std::unique_ptr<Machine> run;
  std::string text;
};
using Run = Handle<QueryRun>;
using Lookup = Handle<vigilo::ivf::SourceLookup>;

template <class Machine>
const char* RequestsJson(Handle<Machine>& r) {
  r.text = "[";
  for (const vigilo::ivf::ObjectRange& req : r.run->requests()) {
    if (r.text.size() > 1) r.text += ',';
    r.text += "{\"path\":";
    vigilo::json::WriteString(req.path, &r.text);
    r.text += ",\"offset\":" + std::to_string(req.offset) + ",\"length\":" + std::to_string(req.length) + "}";
  }
  r.text += "]";
  return r.text.c_str();
}

template <class Machine>
int SupplyConcatenated(Handle<Machine>& r, const uint8_t* bytes, size_t size) {
  std::vector<std::span<const uint8_t>> views;
  size_t at = 0;
  for (const vigilo::ivf::ObjectRange& req : r.run->requests()) {
    const size_t length = req.length <= size - at ? static_cast<size_t>(req.length) : size - at;
    views.emplace_back(bytes + at, length);  // a short total leaves the last views short: Supply names the path
    at += length;
  }
  if (at != size) {
    LastError() = "supplied " + std::to_string(size) + " bytes, the requests total " + std::to_string(at);
    return -1;
  }
  vigilo::Status status = r.run->Supply(std::span<const std::span<const uint8_t>>(views));
  if (!status.ok()) {
    Fail(status);
    return -1;
  }
  return 0;
}

// A hit's key as JSON: integers and booleans as the CLI prints them; byte
// keys (string, binary, fixed) as a JSON string of their hex.
std::string KeyText(const vigilo::ivf::KeyColumn& keys, size_t i) {
  using K = vigilo::ivf::ColumnType::Kind;
  switch (keys.type.kind) {
    case K::kBoolean: return keys.booleans[i] ? "true" : "false";
    case K::kInt:
    case K::kLong:
    case K::kDate: return std::to_string(keys.integers[i]);
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

}  // namespace

extern "C" {

const char* vigilo_error() { return LastError().c_str(); }

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
  return new Run{std::move(*run), {}};
}

int vigilo_query_done(void* run) { return static_cast<Run*>(run)->run->done() ? 1 : 0; }

// The next requests as JSON: [{"path":…,"offset":…,"length":…}, …].
const char* vigilo_query_requests(void* run) { return RequestsJson(*static_cast<Run*>(run)); }

// Every request's bytes, concatenated in request order; 0 on success, else
// -1 (vigilo_error says why; the run is failed).
int vigilo_query_supply(void* run, const uint8_t* bytes, size_t size) {
  return SupplyConcatenated(*static_cast<Run*>(run), bytes, size);
}

// {"kernel":…,"bytes_fetched":…,"requests":…,"hits":[{"query","rank","key",
// "distance_bits" (the float32's bits: exact, unlike any decimal text),"cid","file","row"}, …]}
const char* vigilo_query_result(void* handle) {
  Run& r = *static_cast<Run*>(handle);
  const vigilo::ivf::QueryResult& result = r.run->result();
  r.text = "{\"kernel\":\"" + std::string(vigilo::ivf::KernelName()) +
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
  return new Lookup{std::move(*lookup), {}};
}

int vigilo_lookup_done(void* lookup) { return static_cast<Lookup*>(lookup)->run->done() ? 1 : 0; }
const char* vigilo_lookup_requests(void* lookup) { return RequestsJson(*static_cast<Lookup*>(lookup)); }
int vigilo_lookup_supply(void* lookup, const uint8_t* bytes, size_t size) {
  return SupplyConcatenated(*static_cast<Lookup*>(lookup), bytes, size);
}

// [[value of column 0, …] per key] (canonical JSON values).
const char* vigilo_lookup_result(void* handle) {
  Lookup& l = *static_cast<Lookup*>(handle);
  const vigilo::ivf::SourceRows& rows = l.run->result();
  const size_t keys = rows.columns.empty() ? 0 : rows.values.size() / rows.columns.size();
  l.text = "[";
  for (size_t k = 0; k < keys; ++k) {
    l.text += k == 0 ? "[" : ",[";
    for (size_t c = 0; c < rows.columns.size(); ++c) l.text += (c == 0 ? "" : ",") + rows.Value(k, c);
    l.text += "]";
  }
  l.text += "]";
  return l.text.c_str();
}

void vigilo_lookup_free(void* lookup) { delete static_cast<Lookup*>(lookup); }

}  // extern "C"
