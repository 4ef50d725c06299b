// Vector publications from Python: open (a directory, a URL, ALIAS:KEY),
// info, search by vectors or texts with payload columns, verify, and build
// (engine/publication*.h), as `vigilo index query|verify|build` use them.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "errors.h"
#include "evaluation.h"
#include "interrupt.h"
#include "session.h"
#include "vigilo/engine/budget_overrides.h"
#include "vigilo/engine/publication.h"
#include "vigilo/engine/publication_build.h"
#include "vigilo/engine/publication_publish.h"
#include "vigilo/engine/publication_verify.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/json/value.h"

namespace vigilo::python {
namespace {

// An open publication and the session (Context) it reads through, which
// must outlive it. Search is thread-safe (engine::Publication), so it runs
// without the session's mutex.
struct OpenPublication {
  std::shared_ptr<Session> session;
  std::unique_ptr<engine::Publication> publication;
  std::string locator;
};

// resident_max_bytes: PublicationOpenOptions', as the CLI's byte sizes
// ("0", "512MiB"); a bad one is refused naming the keyword, before any read.
std::shared_ptr<OpenPublication> Open(std::shared_ptr<Session> session, const std::string& locator, bool use_cache,
                                      const std::string& resident_max_bytes) {
  Result<uint64_t> resident = engine::ParseByteSize(resident_max_bytes);
  if (!resident.ok()) Check(InvalidArgument("resident_max_bytes: " + std::string(resident.status().message())));
  auto open = std::make_shared<OpenPublication>();
  open->session = session;
  open->locator = locator;
  py::gil_scoped_release release;
  std::lock_guard lock(session->mutex());
  open->publication = Unwrap(engine::Publication::Open(
      session->context(), locator, engine::PublicationOpenOptions{.use_cache = use_cache, .resident_max_bytes = *resident}));
  return open;
}

// The manifest's summary: the fields every `index` command's record starts
// with, the key and the source columns.
py::dict Info(OpenPublication& open) {
  const ivf::Manifest& m = open.publication->manifest();
  py::dict d;
  d["artifact_uuid"] = m.artifact_uuid.ToString();
  d["metric"] = std::string(ivf::MetricName(m.index.metric));
  d["encoding"] = std::string(ivf::EncodingName(m.index.encoding));
  d["dimension"] = m.index.dimension;
  d["ntotal"] = m.index.ntotal;
  d["nlist"] = m.index.nlist;
  d["roots"] = m.hierarchy.roots();
  d["vector_field"] = m.index.vector_field;
  d["key"] = m.index.source_key[0].name;
  d["key_type"] = m.index.source_key[0].type.ToString();
  d["source_rows"] = m.source ? py::object(py::int_(m.source->rows)) : py::object(py::none());
  py::list source_columns;  // what `columns` may name (the key among them)
  if (m.source) {
    for (const ivf::Field& f : m.source->columns) source_columns.append(f.name);
  }
  d["source_columns"] = source_columns;
  d["text_model"] = m.embedding ? py::object(py::str(m.embedding->model.repository + "@" +
                                                     m.embedding->model.revision))
                                : py::object(py::none());
  d["manifest_bytes"] = open.publication->manifest_bytes();
  return d;
}

// Hit i's key as a Python value: integers (int, long, date: days since
// 1970-01-01) and booleans as they are, strings as str, binary and
// fixed(L) as bytes.
py::object KeyValue(const ivf::KeyColumn& keys, size_t i) {
  using K = ivf::ColumnType::Kind;
  switch (keys.type.kind) {
    case K::kBoolean: return py::bool_(keys.booleans[i] != 0);
    case K::kInt:
    case K::kLong:
    case K::kDate: return py::int_(keys.integers[i]);
    case K::kString: {
      std::string_view b = keys.Bytes(i);
      return py::str(b.data(), b.size());
    }
    default: {
      std::string_view b = keys.Bytes(i);
      return py::bytes(b.data(), b.size());
    }
  }
}

bool IntegerKeys(const ivf::ColumnType& type) {
  using K = ivf::ColumnType::Kind;
  return type.kind == K::kInt || type.kind == K::kLong || type.kind == K::kDate;
}

// The queries of one engine call. A long batch is cut into slices of this
// many queries so that Ctrl-C is seen between them (a search holds no
// cancel token: it writes nothing, so stopping between slices leaves
// nothing behind). Queries are answered independently, so the slices'
// answers are the whole batch's (test_batched_search_equals_one_at_a_time).
constexpr size_t kSliceQueries = 1024;

// What the caller passed, as the engine takes it: vectors (rows of a
// float32 array) or texts.
engine::SearchRequest RequestOf(py::object vectors, std::vector<std::string> texts, uint32_t k, uint32_t nprobe,
                                std::vector<std::string> columns, bool screen) {
  engine::SearchRequest request;
  request.k = k;
  request.nprobe = nprobe;
  request.screen = screen;
  request.columns = std::move(columns);
  request.texts = std::move(texts);
  if (!vectors.is_none()) {
    auto array = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(vectors);
    if (!array || (array.ndim() != 1 && array.ndim() != 2)) {
      Check(InvalidArgument("expected a 1- or 2-dimensional array of numbers").WithPath("vectors"));
    }
    const size_t rows = array.ndim() == 1 ? 1 : static_cast<size_t>(array.shape(0));
    const size_t dim = static_cast<size_t>(array.shape(array.ndim() - 1));
    const float* data = array.data();
    request.vectors.reserve(rows);
    for (size_t r = 0; r < rows; ++r) request.vectors.emplace_back(data + r * dim, data + (r + 1) * dim);
  }
  return request;
}

// Queries [begin, end) of `request` as a request of their own.
engine::SearchRequest Slice(const engine::SearchRequest& request, size_t begin, size_t end) {
  engine::SearchRequest slice;
  slice.k = request.k;
  slice.nprobe = request.nprobe;
  slice.screen = request.screen;
  slice.columns = request.columns;
  if (!request.vectors.empty()) {
    slice.vectors.assign(request.vectors.begin() + static_cast<ptrdiff_t>(begin),
                         request.vectors.begin() + static_cast<ptrdiff_t>(end));
  } else {
    slice.texts.assign(request.texts.begin() + static_cast<ptrdiff_t>(begin),
                       request.texts.begin() + static_cast<ptrdiff_t>(end));
  }
  return slice;
}

// The answer arrays of a batch, filled slice by slice: keys and distances
// (queries, k) padded past each query's hits (-1 and +inf; None in an
// object array of keys that are not integers), hits per query, and per
// payload column a list per query of the hits' values.
struct Answers {
  Answers(size_t queries, uint32_t per_query, bool integers)
      : k(per_query),
        integer_keys(integers),
        keys(integers ? py::array(py::dtype::of<int64_t>(), Shape(queries, per_query))
                      : py::array(py::dtype("O"), Shape(queries, per_query))),
        distances(py::dtype::of<float>(), Shape(queries, per_query)),
        counts(static_cast<py::ssize_t>(queries)) {
    auto d = distances.mutable_unchecked<float, 2>();
    auto c = counts.mutable_unchecked<1>();
    for (size_t q = 0; q < queries; ++q) {
      c(q) = 0;
      for (uint32_t r = 0; r < k; ++r) d(q, r) = std::numeric_limits<float>::infinity();
    }
    if (integer_keys) {  // an object array starts as None everywhere
      auto kk = keys.mutable_unchecked<int64_t, 2>();
      for (size_t q = 0; q < queries; ++q) {
        for (uint32_t r = 0; r < k; ++r) kk(q, r) = -1;
      }
    }
  }

  static std::vector<py::ssize_t> Shape(size_t queries, uint32_t k) {
    return {static_cast<py::ssize_t>(queries), static_cast<py::ssize_t>(k)};
  }

  // One slice's answer, whose query 0 is query `first` of the batch.
  void Add(const engine::SearchResult& found, size_t first) {
    if (columns.empty() && !found.payload_columns.empty()) {
      columns = found.payload_columns;
      const auto queries = static_cast<size_t>(counts.shape(0));
      for (size_t col = 0; col < columns.size(); ++col) {
        py::list by_query;
        for (size_t q = 0; q < queries; ++q) by_query.append(py::list());
        payload.append(by_query);
      }
    }
    auto d = distances.mutable_unchecked<float, 2>();
    auto c = counts.mutable_unchecked<1>();
    const ivf::QueryResult& result = found.result;
    for (size_t i = 0; i < result.hits.size(); ++i) {
      const ivf::QueryHit& h = result.hits[i];
      if (h.query >= found.queries || h.rank >= k) Check(Internal("a hit outside the queries asked for"));
      const size_t q = first + h.query;
      d(q, h.rank) = h.distance;
      c(q) = c(q) + 1;
      if (integer_keys) {
        keys.mutable_unchecked<int64_t, 2>()(q, h.rank) = result.keys.integers[i];
      } else {
        keys.attr("__setitem__")(py::make_tuple(q, h.rank), KeyValue(result.keys, i));
      }
      for (size_t col = 0; col < columns.size(); ++col) {
        py::list(py::list(payload[col])[q]).append(JsonTextToPython(found.payload.Value(i, col)));
      }
    }
  }

  uint32_t k;
  bool integer_keys;
  py::array keys, distances;
  py::array_t<int64_t> counts;
  std::vector<std::string> columns;
  py::list payload;
};

// Every query of the batch, slice by slice. Returns (keys, distances,
// counts, columns, payload) (Answers).
py::tuple Search(OpenPublication& open, py::object vectors, std::vector<std::string> texts, uint32_t k,
                 uint32_t nprobe, std::vector<std::string> columns, bool screen) {
  const engine::SearchRequest request =
      RequestOf(std::move(vectors), std::move(texts), k, nprobe, std::move(columns), screen);
  const size_t queries = std::max(request.vectors.size(), request.texts.size());
  // Neither or both kinds of queries: one call, for the engine's error.
  const bool one_call = request.vectors.empty() == request.texts.empty();
  const ivf::ColumnType& key_type = open.publication->manifest().index.source_key[0].type;
  Answers answers(queries, k, IntegerKeys(key_type));
  for (size_t first = 0; first < queries || (one_call && first == 0); first += kSliceQueries) {
    const size_t end = std::min(queries, first + kSliceQueries);
    engine::SearchResult found = [&] {
      py::gil_scoped_release release;
      return Unwrap(open.publication->Search(one_call ? request : Slice(request, first, end)));
    }();
    answers.Add(found, first);
    if (end < queries && PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  return py::make_tuple(answers.keys, answers.distances, answers.counts, answers.columns, answers.payload);
}

engine::VerifyLevel Level(const std::string& level) {
  for (engine::VerifyLevel l : {engine::VerifyLevel::kManifest, engine::VerifyLevel::kQuick, engine::VerifyLevel::kFull}) {
    if (engine::VerifyLevelName(l) == level) return l;
  }
  Check(InvalidArgument("expected manifest, quick or full, got '" + level + "'").WithPath("level"));
  return engine::VerifyLevel::kFull;
}

// `index verify --level L [--all]`: failures are in the result (the first
// only unless `all`); locating the publication or a cancel is the error.
py::dict Verify(OpenPublication& open, const std::string& level, bool all, bool any_uuid) {
  engine::VerifyRequest request;
  request.level = Level(level);
  request.all = all;
  request.any_uuid = any_uuid;
  store::CancelToken cancel;
  InterruptGuard interrupt(cancel);
  request.cancel = &cancel;
  Result<engine::VerifyOutcome> outcome = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(open.session->mutex());
    return engine::VerifyPublication(open.session->context(), open.locator, request);
  }();
  if (!outcome.ok()) Check(interrupt.Explain(outcome.status(), "nothing was verified"));
  py::dict d;
  d["level"] = std::string(engine::VerifyLevelName(outcome->level));
  d["ok"] = outcome->report.ok();
  py::list failures;
  for (const Status& s : outcome->report.failures) failures.append(s.ToString());
  d["failures"] = failures;
  d["checked"] = outcome->checked;
  d["not_checked"] = outcome->not_checked;
  d["objects"] = outcome->report.objects;
  d["bytes_read"] = outcome->report.bytes_read;
  d["bytes_hashed"] = outcome->report.bytes_hashed;
  return d;
}

json::Value SizeJson(const ivf::SizeSummary& s) {
  json::Object r;
  r.Set("count", json::Value::Uint(s.count));
  r.Set("min", json::Value::Uint(s.min));
  r.Set("mean", json::Value::Double(s.mean));
  r.Set("p50", json::Value::Uint(s.p50));
  r.Set("p90", json::Value::Uint(s.p90));
  r.Set("p99", json::Value::Uint(s.p99));
  r.Set("max", json::Value::Uint(s.max));
  return json::Value(std::move(r));
}

json::Value SourceColumnsJson(const std::vector<ivf::SourceColumnShape>& columns) {
  auto or_null = [](const std::optional<std::string>& v) { return v ? json::Value(*v) : json::Value(); };
  json::Array out;
  for (const ivf::SourceColumnShape& c : columns) {
    json::Object o;
    o.Set("name", json::Value(c.name));
    o.Set("type", json::Value(c.type));
    o.Set("physical_type", or_null(c.physical_type));
    o.Set("logical_type", or_null(c.logical_type));
    out.emplace_back(std::move(o));
  }
  return json::Value(std::move(out));
}

json::Value EmbeddingJson(const ivf::Manifest& m) {
  if (!m.embedding) return json::Value();
  const ivf::EmbeddingSpec& e = *m.embedding;
  json::Object o;
  o.Set("model", json::Value(e.model.repository + "@" + e.model.revision));
  o.Set("integrity", json::Value(e.model.integrity));
  o.Set("contract", json::Value(e.contract));
  o.Set("dimension", json::Value::Uint(e.dimension));
  o.Set("input_template", json::Value(e.input_template));
  o.Set("parity_probes", json::Value::Uint(e.probes.size()));
  o.Set("assets", json::Value::Uint(e.assets.size()));
  return json::Value(std::move(o));
}

// `index inspect --json` (engine::Publication::Inspect): counts, list
// sizes and bytes per part, from the manifest and the postings footers.
py::object Inspect(OpenPublication& open) {
  ivf::PublicationShape shape = [&] {
    py::gil_scoped_release release;
    return Unwrap(open.publication->Inspect());
  }();
  const ivf::Manifest& m = open.publication->manifest();
  const uint64_t manifest_bytes = open.publication->manifest_bytes();
  json::Object bytes;
  bytes.Set("manifest", json::Value::Uint(manifest_bytes));
  bytes.Set("centroids", json::Value::Uint(shape.centroids_bytes));
  bytes.Set("postings", json::Value::Uint(shape.postings_bytes));
  bytes.Set("source", json::Value::Uint(shape.source_bytes));
  bytes.Set("embedding", json::Value::Uint(shape.embedding_bytes));
  bytes.Set("total", json::Value::Uint(shape.centroids_bytes + shape.postings_bytes + shape.source_bytes +
                                       shape.embedding_bytes + manifest_bytes));
  json::Object r;
  r.Set("artifact_uuid", json::Value(m.artifact_uuid.ToString()));
  r.Set("metric", json::Value(std::string(ivf::MetricName(m.index.metric))));
  r.Set("encoding", json::Value(std::string(ivf::EncodingName(m.index.encoding))));
  r.Set("dimension", json::Value::Uint(m.index.dimension));
  r.Set("ntotal", json::Value::Uint(m.index.ntotal));
  r.Set("nlist", json::Value::Uint(m.index.nlist));
  r.Set("roots", json::Value::Uint(m.hierarchy.roots()));
  r.Set("empty_lists", json::Value::Uint(shape.empty_lists));
  r.Set("postings_files", json::Value::Uint(m.postings.size()));
  r.Set("postings_row_groups", json::Value::Uint(shape.postings_row_groups));
  r.Set("source_rows", m.source ? json::Value::Uint(m.source->rows) : json::Value());
  r.Set("source_key", m.source ? json::Value(m.source->key) : json::Value());
  r.Set("source_columns", SourceColumnsJson(shape.source_columns));
  r.Set("embedding", EmbeddingJson(m));
  r.Set("lists", SizeJson(shape.lists));
  r.Set("buckets", SizeJson(shape.buckets));
  r.Set("bytes", json::Value(std::move(bytes)));
  r.Set("footer_bytes_read", json::Value::Uint(shape.footer_bytes_read));
  return ToPython(json::Value(std::move(r)));
}

// `index publish SRC DEST --json` (engine::PublishPublication): every
// object, then the manifest last. Ctrl-C cancels it as the CLI's does:
// DEST has no manifest, and a rerun skips what was copied.
py::object Publish(Session& session, const std::string& source, const std::string& destination) {
  store::CancelToken cancel;
  InterruptGuard interrupt(cancel);
  engine::PublishOptions options;
  options.cancel = &cancel;
  Result<engine::PublishReport> published = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(session.mutex());
    return engine::PublishPublication(session.context(), source, destination, options);
  }();
  if (!published.ok()) {
    Check(interrupt.Explain(published.status(),
                            "DEST has no manifest; the objects copied so far stay, and a rerun skips them"));
  }
  json::Object r;
  r.Set("outcome", json::Value(std::string(engine::PublishOutcomeName(published->outcome))));
  r.Set("manifest", json::Value(published->manifest));
  r.Set("artifact_uuid", json::Value(published->artifact_uuid));
  r.Set("objects", json::Value::Uint(published->objects));
  r.Set("copied", json::Value::Uint(published->copied));
  r.Set("already_present", json::Value::Uint(published->already_present));
  r.Set("bytes", json::Value::Uint(published->bytes_total));
  r.Set("bytes_copied", json::Value::Uint(published->bytes_copied));
  return ToPython(json::Value(std::move(r)));
}

struct BuildRequest {
  std::string input, out, vector_field, key, id_column, metric, encoding, format, scratch, embed_model, text_field;
  std::optional<uint32_t> nlist, roots, threads;
  std::optional<uint64_t> sample;
  uint32_t iterations = 10;
  uint64_t seed = 1;
  bool source = false, skip_unembeddable = false;
  std::vector<std::string> columns;
  uint64_t source_row_group_rows = 1024;
};

// `index build`: the CLI's options by their setting names.
py::dict Build(Session& session, const BuildRequest& a) {
  ivf::BuildOptions o;
  o.input = a.input;
  o.input_options.vector_field = a.vector_field.empty() ? "vector" : a.vector_field;
  o.input_options.detect_vector_field = a.vector_field.empty();
  if (!a.key.empty()) o.input_options.key_field = a.key;
  if (!a.embed_model.empty() && !a.vector_field.empty()) {
    Check(InvalidArgument("vector_field cannot be used with embed_model: the vectors are the embeddings of "
                          "text_field").WithPath("vector_field"));
  }
  o.embed_model = a.embed_model;
  o.text_field = a.text_field;
  o.skip_unembeddable = a.skip_unembeddable;
  if (!a.format.empty()) o.input_options.format = Unwrap(ivf::ParseInputFormat(a.format));
  Result<ivf::Metric> metric = ivf::ParseMetric(a.metric);
  if (!metric.ok()) Check(InvalidArgument(std::string(metric.status().message())).WithPath("metric"));
  Result<ivf::Encoding> encoding = ivf::ParseEncoding(a.encoding);
  if (!encoding.ok()) Check(InvalidArgument(std::string(encoding.status().message())).WithPath("encoding"));
  o.metric = *metric;
  o.encoding = *encoding;
  o.nlist = a.nlist;
  o.roots = a.roots;
  o.sample = a.sample;
  o.iterations = a.iterations;
  o.seed = a.seed;
  o.threads = a.threads ? *a.threads : std::max(1u, std::thread::hardware_concurrency());
  if (o.threads == 0) Check(InvalidArgument("must be at least 1").WithPath("threads"));
  o.scratch = a.scratch;
  if (!a.columns.empty() && !a.source && a.id_column.empty()) {
    Check(InvalidArgument("columns needs source (or id_column)").WithPath("columns"));
  }
  o.source = a.source;
  o.source_columns = a.columns;
  o.id_column = a.id_column;
  o.source_layout.row_group_rows = a.source_row_group_rows;
  store::CancelToken cancel;
  InterruptGuard interrupt(cancel);
  o.cancel = &cancel;
  Result<engine::BuiltPublication> at = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(session.mutex());
    return engine::BuildPublicationAt(session.context(), std::move(o), a.out);
  }();
  if (!at.ok()) {
    Check(interrupt.Explain(at.status(), "nothing was published, and what this build had created was removed"));
  }
  const ivf::BuildSummary& built = at->summary;
  const ivf::Manifest& m = built.manifest;
  py::dict r;
  r["manifest"] = at->manifest;
  r["artifact_uuid"] = m.artifact_uuid.ToString();
  r["metric"] = std::string(ivf::MetricName(m.index.metric));
  r["encoding"] = std::string(ivf::EncodingName(m.index.encoding));
  r["dimension"] = m.index.dimension;
  r["ntotal"] = m.index.ntotal;
  r["nlist"] = m.index.nlist;
  r["roots"] = m.hierarchy.roots();
  r["sample"] = built.sample_rows;
  r["empty_leaves"] = built.empty_leaves;
  r["postings_files"] = m.postings.size();
  if (m.source) r["source_files"] = m.source->files.size();
  if (m.embedding) r["skipped_rows"] = built.skipped_rows;
  return r;
}

}  // namespace

void BindPublications(py::module_& m, py::class_<Session, std::shared_ptr<Session>>& session) {
  session.def("open_publication", &Open, py::arg("locator"), py::arg("use_cache") = true,
              py::arg("resident_max_bytes") = "0");
  session.def("publish", &Publish, py::arg("source"), py::arg("destination"));
  session.def(
      "build_index",
      [](Session& self, std::string input, std::string out, std::string vector_field, std::string key,
         std::string id_column, std::string metric, std::string encoding, std::string format,
         std::optional<uint32_t> nlist, std::optional<uint32_t> roots, std::optional<uint64_t> sample,
         uint32_t iterations, uint64_t seed, std::optional<uint32_t> threads, std::string scratch, bool source,
         std::vector<std::string> columns, uint64_t source_row_group_rows, std::string embed_model,
         std::string text_field, bool skip_unembeddable) {
        BuildRequest a{std::move(input), std::move(out), std::move(vector_field), std::move(key),
                       std::move(id_column), std::move(metric), std::move(encoding), std::move(format),
                       std::move(scratch), std::move(embed_model), std::move(text_field), nlist, roots, threads,
                       sample, iterations, seed, source, skip_unembeddable, std::move(columns),
                       source_row_group_rows};
        return Build(self, a);
      },
      py::arg("input"), py::arg("out"), py::arg("vector_field") = "", py::arg("key") = "",
      py::arg("id_column") = "", py::arg("metric") = "cosine", py::arg("encoding") = "lvq8", py::arg("format") = "",
      py::arg("nlist") = py::none(), py::arg("roots") = py::none(), py::arg("sample") = py::none(),
      py::arg("iterations") = 10, py::arg("seed") = 1, py::arg("threads") = py::none(), py::arg("scratch") = "",
      py::arg("source") = false, py::arg("columns") = std::vector<std::string>{},
      py::arg("source_row_group_rows") = 1024, py::arg("embed_model") = "", py::arg("text_field") = "",
      py::arg("skip_unembeddable") = false);
  py::class_<OpenPublication, std::shared_ptr<OpenPublication>>(m, "Publication")
      .def("info", &Info)
      .def_property_readonly("locator", [](OpenPublication& p) { return p.locator; })
      .def_property_readonly("manifest_text",
                             [](OpenPublication& p) { return std::string(p.publication->manifest_text()); })
      .def("search", &Search, py::arg("vectors"), py::arg("texts"), py::arg("k"), py::arg("nprobe"),
           py::arg("columns"), py::arg("screen") = true)
      .def("inspect", &Inspect)
      .def(
          "evaluate",
          [](OpenPublication& p, py::object queries, py::object ground_truth, std::string base,
             std::string base_format, std::string base_vector_field, uint32_t k, std::vector<uint32_t> nprobes,
             size_t batch, size_t warmup, bool screen, std::optional<uint32_t> threads) {
            EvalRequest request{std::move(queries), std::move(ground_truth), std::move(base), std::move(base_format),
                                std::move(base_vector_field), k, std::move(nprobes), batch, warmup, screen, threads};
            return Evaluate(*p.session, *p.publication, request);
          },
          py::arg("queries"), py::arg("ground_truth"), py::arg("base"), py::arg("base_format"),
          py::arg("base_vector_field"), py::arg("k"), py::arg("nprobes"), py::arg("batch"), py::arg("warmup"),
          py::arg("screen"), py::arg("threads"))
      .def("verify", &Verify, py::arg("level") = "full", py::arg("all") = false, py::arg("any_uuid") = false);
}

}  // namespace vigilo::python
