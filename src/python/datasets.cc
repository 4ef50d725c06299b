// Datasets from Python: open_store, ingest, list, and one dataset's info,
// verify, cases and export (engine/dataset_ingest.h, dataset_read.h). The
// records are the CLI's `--json` records field for field, built here from
// the same engine results (tests/python compares them with the CLI's).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "errors.h"
#include "interrupt.h"
#include "roots.h"
#include "vigilo/cases/dataset_reader.h"
#include "vigilo/engine/dataset_ingest.h"
#include "vigilo/engine/dataset_read.h"
#include "vigilo/json/parse.h"

namespace vigilo::python {
namespace {

json::Value Uint(uint64_t v) { return json::Value::Uint(v); }
json::Value OptionalString(const std::optional<std::string>& s) { return s ? json::Value(*s) : json::Value(); }

// Opens (and so checks) the store a spec names, read-only; what a Store
// object shows. Operations open it again for their own use (writable, or
// within a store set).
py::dict OpenStore(Session& session, const std::string& spec) {
  store::ResolvedStore resolved = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(session.mutex());
    return Unwrap(session.context().OpenStore(spec, store::OpenOptions{}));
  }();
  py::dict out;
  out["alias"] = resolved.alias;
  out["display"] = resolved.display;
  return out;
}

// The CLI's rule: --format, else the file name (.jsonl/.ndjson: JSON Lines).
engine::InputFormat ChooseFormat(const std::string& path, const std::string& format) {
  if (format == "json") return engine::InputFormat::kDatasetJson;
  if (format == "jsonl") return engine::InputFormat::kCaseLines;
  if (!format.empty()) Check(InvalidArgument("expected json or jsonl, got '" + format + "'").WithPath("format"));
  auto ends = [&path](std::string_view s) { return path.size() >= s.size() && path.ends_with(s); };
  return ends(".jsonl") || ends(".ndjson") ? engine::InputFormat::kCaseLines : engine::InputFormat::kDatasetJson;
}

py::object Ingest(Session& session, const std::string& path, const std::string& store, const std::string& name,
                  bool replace, const std::string& format, const std::string& dataset_id,
                  std::optional<std::string> dataset_version, const std::string& derive_ids,
                  const std::map<std::string, std::string>& budget) {
  engine::IngestOptions options;
  options.budget = BudgetFromKeywords(budget);  // as the CLI: the flags first, before the input is looked at
  engine::IngestInput input;
  input.path = path;
  input.format = ChooseFormat(path, format);
  if (input.format == engine::InputFormat::kCaseLines) {
    input.lines.dataset_id = dataset_id;
    input.lines.dataset_version = std::move(dataset_version);
    input.lines.derive_ids_from = derive_ids;
    Check(cases::ValidateCaseLinesOptions(input.lines));
  } else if (!dataset_id.empty() || dataset_version || !derive_ids.empty()) {
    Check(InvalidArgument("dataset_id, dataset_version and derive_ids apply to JSON Lines input only (a dataset "
                          "document carries its own fields)"));
  }
  if (!name.empty()) Check(control::ValidateRootName(name));
  options.name = name;
  options.replace = replace;
  options.scratch_dir = session.scratch();
  store::CancelToken cancel;
  InterruptGuard interrupt(cancel);
  options.cancel = &cancel;
  Result<engine::IngestResult> done = [&]() -> Result<engine::IngestResult> {
    py::gil_scoped_release release;
    std::lock_guard lock(session.mutex());
    VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::WriteSession> write,
                            engine::OpenWriteSession(session.context(), store, /*create_root=*/true));
    return engine::IngestDataset(input, options, write->target);
  }();
  if (!done.ok()) Check(interrupt.Explain(done.status(), "the attempt is kept for a rerun"));
  json::Object o;
  AddPublicationReport(*done, o);
  o.Set("dataset_id", json::Value(done->manifest.dataset_id));
  o.Set("dataset_hash", json::Value(done->manifest.dataset_hash));
  o.Set("dataset_version_id", json::Value(done->manifest.dataset_version_id.ToString()));
  o.Set("case_count", Uint(static_cast<uint64_t>(done->manifest.case_count)));
  o.Set("input_bytes", Uint(done->input_bytes));
  o.Set("verified_bytes", Uint(done->verified_bytes));
  o.Set("cleanup_deleted", Uint(done->cleanup_deleted));
  return ToPython(json::Value(std::move(o)));
}

// `dataset list` / `run list`: one record per published name.
py::object List(Session& session, const std::string& ns_name) {
  control::Namespace ns = Unwrap(control::Namespace::Named(ns_name));
  const std::string object = ns == control::Namespace::kRuns ? "plan" : "manifest";
  std::vector<engine::PublishedName> names;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(session.mutex());
    names = Unwrap(engine::ListPublishedNames(session.context(), ns));
  }
  json::Array rows;
  for (const engine::PublishedName& name : names) {
    const control::RootRecord& root = name.record;
    json::Value value = Unwrap(json::Parse(root.value));
    cases::ObjectRef ref = Unwrap(cases::ObjectRef::FromJson(value, "$"));
    json::Object r;
    r.Set("name", json::Value(root.name));
    r.Set("version", Uint(root.version));
    r.Set("published_at", json::Value(control::FormatWallTime(root.published_at)));
    r.Set("store", json::Value(name.store));
    r.Set(object + "_key", json::Value(ref.key));
    r.Set(object + "_digest", json::Value(ref.digest));
    rows.push_back(json::Value(std::move(r)));
  }
  return ToPython(json::Value(std::move(rows)));
}

json::Value RefJson(const cases::ObjectRef& ref) {
  json::Object o;
  o.Set("storage_alias", json::Value(ref.storage_alias));
  o.Set("key", json::Value(ref.key));
  o.Set("digest", json::Value(ref.digest));
  o.Set("byte_count", Uint(ref.byte_count));
  return json::Value(std::move(o));
}

// `dataset show`.
py::object Info(Root& root) {
  engine::DatasetOverview overview;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(root.mutex);
    overview = Unwrap(engine::ShowDataset(root.opened.resolved.root, root.budget, root.opened.fetch));
  }
  const cases::DatasetManifest& m = overview.manifest;
  json::Object r;
  AddPublication(root.opened.resolved, r);
  r.Set("dataset_id", json::Value(m.dataset_id));
  r.Set("dataset_version", OptionalString(m.dataset_version));
  r.Set("dataset_version_id", json::Value(m.dataset_version_id.ToString()));
  r.Set("dataset_hash", json::Value(m.dataset_hash));
  r.Set("case_count", Uint(static_cast<uint64_t>(m.case_count)));
  json::Array fields;
  for (const auto& [key, value] : overview.source_fields.fields) fields.push_back(json::Value(key));
  r.Set("source_fields", json::Value(std::move(fields)));
  json::Object limits;
  limits.Set("max_cases", Uint(m.batch_limits.max_cases));
  limits.Set("max_bytes", Uint(m.batch_limits.max_bytes));
  r.Set("batch_limits", json::Value(std::move(limits)));
  r.Set("batch_count", Uint(overview.batch_count));
  r.Set("index_levels", Uint(static_cast<uint64_t>(m.batches.level) + 1));
  r.Set("index_page_count", Uint(overview.index_page_count));
  r.Set("object_count", Uint(overview.object_count));
  r.Set("object_bytes", Uint(overview.object_bytes));
  r.Set("root", RefJson(root.opened.resolved.root));
  return ToPython(json::Value(std::move(r)));
}

// `dataset verify`: every object, record and identity.
py::object Verify(Root& root) {
  cases::ReadDatasetSummary summary = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(root.mutex);
    return Unwrap(
        cases::ReadDataset(root.opened.resolved.root, root.budget, root.session->scratch(), root.opened.fetch));
  }();
  json::Object r;
  AddPublication(root.opened.resolved, r);
  r.Set("verified", json::Value(true));
  r.Set("dataset_id", json::Value(summary.manifest.dataset_id));
  r.Set("dataset_hash", json::Value(summary.manifest.dataset_hash));
  r.Set("dataset_version_id", json::Value(summary.manifest.dataset_version_id.ToString()));
  r.Set("case_count", Uint(static_cast<uint64_t>(summary.manifest.case_count)));
  r.Set("batch_count", Uint(summary.batch_count));
  r.Set("index_page_count", Uint(summary.index_page_count));
  r.Set("object_bytes", Uint(summary.object_bytes));
  return ToPython(json::Value(std::move(r)));
}

// `dataset cases --from --to` as a Python iterator: one engine read
// (engine::ReadDatasetCases: only the batches that hold the range, each
// verified) runs on its own thread and hands the canonical lines over a
// queue of kQueuedCases, so memory stays bounded by the queue and the
// batch being read, whatever the range. Python takes them one at a time
// (__next__ waits with the GIL released). Closing the iterator, or
// dropping it, stops the read at its next case.
class CaseStream {
 public:
  static constexpr size_t kQueuedCases = 256;
  // How long __next__ waits with the GIL released before it checks for a
  // signal (Ctrl-C) and waits again.
  static constexpr std::chrono::milliseconds kSignalPoll{100};

  CaseStream(std::shared_ptr<Root> root, int32_t from, int32_t to) : root_(std::move(root)) {
    // The root's store set is not thread-safe: each fetch of this thread
    // holds the root's mutex, and only for that fetch, so other calls on
    // the dataset (and other streams) interleave with it.
    cases::ObjectBytesFetch fetch = [root = root_](const cases::ObjectRef& ref, uint64_t max_bytes) {
      std::lock_guard lock(root->mutex);
      return root->opened.fetch(ref, max_bytes);
    };
    reader_ = std::thread([this, fetch = std::move(fetch), from, to] {
      Result<engine::CasesSummary> read = engine::ReadDatasetCases(
          root_->opened.resolved.root, root_->budget, fetch, from, to,
          [this](const cases::CaseRecord&, std::string_view line) { return Push(line); });
      std::lock_guard lock(mutex_);
      status_ = read.status();
      done_ = true;
      ready_.notify_all();
    });
  }
  CaseStream(const CaseStream&) = delete;
  CaseStream& operator=(const CaseStream&) = delete;
  ~CaseStream() { Close(); }

  // The next case as a dict; StopIteration at the end, the read's error
  // (raised once every case before it was taken) otherwise. While the
  // queue is empty it waits with the GIL released, a short while at a
  // time, and lets Python run its signal handlers in between: Ctrl-C while
  // the reader is slow (a remote batch) raises KeyboardInterrupt promptly,
  // and the generator around this stream closes it.
  py::object Next() {
    std::optional<std::string> line = Pop(std::chrono::milliseconds(0));  // the reader never takes the GIL
    while (!line && !Drained()) {
      {
        py::gil_scoped_release release;
        line = Pop(kSignalPoll);
      }
      if (!line && PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
    if (!line) {
      // done_ was seen under the lock, after status_ was set for good.
      if (!status_.ok() && !closed_) Check(status_);
      throw py::stop_iteration();
    }
    return JsonTextToPython(*line);
  }

  void Close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      room_.notify_all();
    }
    if (reader_.joinable()) {
      py::gil_scoped_release release;
      reader_.join();
    }
  }

 private:
  // Waits up to `wait` for a line; nullopt when none came (or the read is over).
  std::optional<std::string> Pop(std::chrono::milliseconds wait) {
    std::unique_lock lock(mutex_);
    ready_.wait_for(lock, wait, [this] { return !queue_.empty() || done_; });
    if (queue_.empty()) return std::nullopt;
    std::optional<std::string> line(std::move(queue_.front()));
    queue_.pop_front();
    room_.notify_one();
    return line;
  }

  bool Drained() {
    std::lock_guard lock(mutex_);
    return done_ && queue_.empty();
  }

  Status Push(std::string_view line) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [this] { return queue_.size() < kQueuedCases || closed_; });
    if (closed_) return Cancelled("the iterator was closed");
    queue_.emplace_back(line);
    ready_.notify_one();
    return Status::Ok();
  }

  std::shared_ptr<Root> root_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<std::string> queue_;
  bool done_ = false, closed_ = false;
  Status status_;
  std::thread reader_;
};

// `dataset export -o FILE` (engine::ExportDatasetToFile): FILE is either
// as it was or the whole, verified export.
py::object Export(Root& root, const std::string& path) {
  store::CancelToken cancel;
  InterruptGuard interrupt(cancel);
  Result<engine::ExportSummary> exported = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(root.mutex);
    return engine::ExportDatasetToFile(root.opened.resolved.root, root.budget, root.opened.fetch, path, &cancel);
  }();
  if (!exported.ok()) {
    Check(interrupt.Explain(exported.status(), ("nothing was exported, and " + path + " is as it was").c_str()));
  }
  json::Object r;
  r.Set("bytes_written", Uint(exported->bytes_written));
  r.Set("case_count", Uint(exported->case_count));
  r.Set("dataset_hash", json::Value(exported->dataset_hash));
  return ToPython(json::Value(std::move(r)));
}

}  // namespace

std::shared_ptr<Root> OpenRoot(std::shared_ptr<Session> session, const std::string& target, const std::string& store,
                               control::Namespace ns, const std::map<std::string, std::string>& budget) {
  auto root = std::make_shared<Root>(session, ns);
  root->budget = BudgetFromKeywords(budget);
  py::gil_scoped_release release;
  engine::RootLocator locator = Unwrap(engine::ParseRootLocator(target, ns));
  std::lock_guard lock(session->mutex());
  root->opened = Unwrap(engine::OpenPublishedRoot(session->context(), locator, store, ns));
  return root;
}

void AddPublication(const engine::ResolvedRoot& resolved, json::Object& o) {
  if (!resolved.record) return;
  o.Set("name", json::Value(resolved.record->name));
  o.Set("version", json::Value::Uint(resolved.record->version));
  o.Set("published_at", json::Value(control::FormatWallTime(resolved.record->published_at)));
}

void AddPublicationReport(const engine::PublicationReport& report, json::Object& o) {
  o.Set("outcome", json::Value(std::string(engine::RootOutcomeName(report.outcome))));
  o.Set("name", json::Value(report.name));
  o.Set("version", json::Value::Uint(report.root_version));
  o.Set("root", report.root.ToJson());
  o.Set("attempt", json::Value(control::AttemptName(report.attempt)));
  o.Set("resumed", json::Value(report.resumed));
  o.Set("objects_written", json::Value::Uint(report.objects_written));
  o.Set("objects_replayed", json::Value::Uint(report.objects_replayed));
  o.Set("bytes_written", json::Value::Uint(report.bytes_written));
}

void BindDatasets(py::module_& m, py::class_<Session, std::shared_ptr<Session>>& session) {
  session.def("open_store", &OpenStore, py::arg("spec"));
  session.def("ingest", &Ingest, py::arg("path"), py::arg("store"), py::arg("name") = "", py::arg("replace") = false,
              py::arg("format") = "", py::arg("dataset_id") = "", py::arg("dataset_version") = py::none(),
              py::arg("derive_ids") = "", py::arg("budget") = std::map<std::string, std::string>{});
  session.def("list", &List, py::arg("namespace"));
  session.def(
      "open_dataset",
      [](std::shared_ptr<Session> self, const std::string& target, const std::string& store,
         const std::map<std::string, std::string>& budget) {
        return OpenRoot(std::move(self), target, store, control::Namespace::kDatasets, budget);
      },
      py::arg("target"), py::arg("store") = "", py::arg("budget") = std::map<std::string, std::string>{});
  py::class_<CaseStream>(m, "CaseStream")
      .def("__iter__", [](CaseStream& self) -> CaseStream& { return self; })
      .def("__next__", &CaseStream::Next)
      .def("close", &CaseStream::Close);
  py::class_<Root, std::shared_ptr<Root>>(m, "Root")
      .def_property_readonly("ref", [](Root& r) { return ToPython(r.opened.resolved.root.ToJson()); })
      .def("dataset_info", &Info)
      .def("dataset_verify", &Verify)
      .def(
          "dataset_cases",
          [](std::shared_ptr<Root> self, int32_t start, int32_t stop) {
            return std::make_unique<CaseStream>(std::move(self), start, stop);
          },
          py::arg("start"), py::arg("stop"))
      .def("dataset_export", &Export, py::arg("path"));
}

}  // namespace vigilo::python
