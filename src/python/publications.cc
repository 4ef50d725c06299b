// Vector publications from Python: open (a directory, a URL, ALIAS:KEY),
// info, search by vectors or texts with payload columns, verify, and build
// (engine/publication*.h), as `vigilo index query|verify|build` use them.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "errors.h"
#include "interrupt.h"
#include "session.h"
#include "vigilo/engine/publication.h"
#include "vigilo/engine/publication_build.h"
#include "vigilo/engine/publication_verify.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/manifest.h"

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

std::shared_ptr<OpenPublication> Open(std::shared_ptr<Session> session, const std::string& locator, bool use_cache) {
  auto open = std::make_shared<OpenPublication>();
  open->session = session;
  open->locator = locator;
  py::gil_scoped_release release;
  std::lock_guard lock(session->mutex());
  open->publication =
      Unwrap(engine::Publication::Open(session->context(), locator, engine::PublicationOpenOptions{use_cache}));
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

// Every query in one engine call. Returns (keys, distances, counts,
// columns, payload): keys and distances are (queries, k) arrays padded
// past each query's hits (-1 and +inf; None in an object array of keys
// that are not integers), counts the hits per query, payload a list per
// column of lists per query.
py::tuple Search(OpenPublication& open, py::object vectors, std::vector<std::string> texts, uint32_t k,
                 uint32_t nprobe, std::vector<std::string> columns, bool screen) {
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
  engine::SearchResult found = [&] {
    py::gil_scoped_release release;
    return Unwrap(open.publication->Search(request));
  }();
  const size_t queries = found.queries;
  const ivf::QueryResult& result = found.result;
  const bool integer_keys = IntegerKeys(result.keys.type) ||
                            (result.hits.empty() && IntegerKeys(open.publication->manifest().index.source_key[0].type));
  py::array distances(py::dtype::of<float>(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(queries), k});
  py::array keys = integer_keys ? py::array(py::dtype::of<int64_t>(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(queries), k})
                                : py::array(py::dtype("O"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(queries), k});
  py::array_t<int64_t> counts(static_cast<py::ssize_t>(queries));
  auto d = distances.mutable_unchecked<float, 2>();
  auto c = counts.mutable_unchecked<1>();
  for (size_t q = 0; q < queries; ++q) {
    c(q) = 0;
    for (uint32_t r = 0; r < k; ++r) d(q, r) = std::numeric_limits<float>::infinity();
  }
  py::list payload;
  std::vector<py::list> per_column;
  for (size_t col = 0; col < found.payload_columns.size(); ++col) {
    py::list by_query;
    for (size_t q = 0; q < queries; ++q) by_query.append(py::list());
    payload.append(by_query);
    per_column.push_back(by_query);
  }
  if (integer_keys) {  // an object array starts as None everywhere
    auto kk = keys.mutable_unchecked<int64_t, 2>();
    for (size_t q = 0; q < queries; ++q) {
      for (uint32_t r = 0; r < k; ++r) kk(q, r) = -1;
    }
  }
  for (size_t i = 0; i < result.hits.size(); ++i) {
    const ivf::QueryHit& h = result.hits[i];
    if (h.query >= queries || h.rank >= k) Check(Internal("a hit outside the queries asked for"));
    d(h.query, h.rank) = h.distance;
    c(h.query) = c(h.query) + 1;
    if (integer_keys) {
      keys.mutable_unchecked<int64_t, 2>()(h.query, h.rank) = result.keys.integers[i];
    } else {
      keys.attr("__setitem__")(py::make_tuple(h.query, h.rank), KeyValue(result.keys, i));
    }
    for (size_t col = 0; col < found.payload_columns.size(); ++col) {
      py::list(per_column[col][h.query]).append(JsonTextToPython(found.payload.Value(i, col)));
    }
  }
  return py::make_tuple(keys, distances, counts, found.payload_columns, payload);
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
  session.def("open_publication", &Open, py::arg("locator"), py::arg("use_cache") = true);
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
      .def("verify", &Verify, py::arg("level") = "full", py::arg("all") = false, py::arg("any_uuid") = false);
}

}  // namespace vigilo::python
