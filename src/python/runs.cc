// Runs from Python: plan, and one run's info, verify, a shard's chunks and
// a chunk's cases (engine/run_planner.h, run_read.h), as `vigilo run plan|
// show|verify|chunks|chunk` give them.
#include <string>
#include <vector>

#include "errors.h"
#include "interrupt.h"
#include "roots.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/engine/run_planner.h"
#include "vigilo/engine/run_profile.h"
#include "vigilo/engine/run_read.h"
#include "vigilo/engine/run_routes.h"

namespace vigilo::python {
namespace {

json::Value Count(int64_t n) { return json::Value::Uint(static_cast<uint64_t>(n)); }

json::Value RefJson(const cases::ObjectRef& ref) {
  json::Object o;
  o.Set("storage_alias", json::Value(ref.storage_alias));
  o.Set("key", json::Value(ref.key));
  o.Set("digest", json::Value(ref.digest));
  o.Set("byte_count", json::Value::Uint(ref.byte_count));
  return json::Value(std::move(o));
}

// `run plan`: the profile is a file (as --profile) or the document's text
// (a binding's caller often holds it in memory). Returns the plan record
// and ChunkSizeWarning's text ("" when none).
py::tuple Plan(Session& session, const std::string& dataset, const std::string& profile_file,
               const std::string& profile_text, const std::string& store, const std::string& name, bool replace,
               const std::map<std::string, std::string>& budget) {
  engine::PlanRunOptions options;
  options.budget = BudgetFromKeywords(budget);  // as the CLI: the flags first
  std::string text = profile_text;
  if (profile_file.empty() == profile_text.empty()) {
    Check(InvalidArgument("give the profile as a file or as text, once").WithPath("profile"));
  }
  if (!profile_file.empty()) {
    Result<std::string> read = ReadFileToString(profile_file, engine::kMaxProfileBytes);
    if (!read.ok()) Check(Status(read.status().code(), std::string(read.status().message())).WithPath(profile_file));
    text = std::move(*read);
  }
  Result<engine::EvaluationProfile> profile = engine::ParseProfile(text);
  if (!profile.ok()) {
    const Status& s = profile.status();
    const std::string where = profile_file.empty() ? "profile" : profile_file;
    Check(Status(s.code(), std::string(s.message())).WithPath(where + ": " + std::string(s.path())));
  }
  if (!name.empty()) Check(control::ValidateRootName(name));
  engine::DatasetLocator locator = Unwrap(engine::ParseDatasetLocator(dataset));
  options.name = name;
  options.replace = replace;
  options.scratch_dir = session.scratch();
  store::CancelToken cancel;
  InterruptGuard interrupt(cancel);
  options.cancel = &cancel;
  Result<engine::PlanRunResult> done = [&]() -> Result<engine::PlanRunResult> {
    py::gil_scoped_release release;
    std::lock_guard lock(session.mutex());
    VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::WriteSession> write,
                            engine::OpenWriteSession(session.context(), store, /*create_root=*/true));
    VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::PlanDataset> planned,
                            engine::OpenPlanDataset(session.context(), *write, locator));
    return engine::PlanRun(planned->resolved.root, planned->fetch, *profile, options, write->target);
  }();
  if (!done.ok()) Check(interrupt.Explain(done.status(), "the attempt is kept for a rerun"));
  json::Object o;
  AddPublicationReport(*done, o);
  o.Set("run_id", json::Value(done->plan.run_id.ToString()));
  o.Set("chunk_count", Count(done->plan.chunk_count));
  o.Set("shard_count", json::Value::Uint(done->plan.shards.size()));
  o.Set("cases_read", json::Value::Uint(done->cases_read));
  o.Set("chunk_pages", json::Value::Uint(done->chunk_pages));
  o.Set("gate_pages", json::Value::Uint(done->gate_pages));
  return py::make_tuple(ToPython(json::Value(std::move(o))), engine::ChunkSizeWarning(*done, *profile));
}

// `run show`.
py::object Info(Root& root) {
  engine::RunOverview overview = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(root.mutex);
    return Unwrap(engine::ShowRun(root.opened.resolved.root, root.budget, root.opened.fetch));
  }();
  const cases::RunPlanManifest& plan = overview.plan;
  const cases::RunSnapshot& snapshot = overview.configuration.snapshot;
  const cases::DatasetManifest& dataset = overview.dataset;
  json::Object r;
  AddPublication(root.opened.resolved, r);
  r.Set("run_id", json::Value(plan.run_id.ToString()));
  r.Set("dataset_id", json::Value(dataset.dataset_id));
  r.Set("dataset_version", dataset.dataset_version ? json::Value(*dataset.dataset_version) : json::Value());
  r.Set("dataset_version_id", json::Value(dataset.dataset_version_id.ToString()));
  r.Set("dataset_hash", json::Value(dataset.dataset_hash));
  r.Set("case_count", Count(plan.planned_case_count()));
  r.Set("chunk_count", Count(plan.chunk_count));
  r.Set("chunk_size", Count(snapshot.chunk_size));
  r.Set("shard_count", json::Value::Uint(plan.shards.size()));
  r.Set("agent", snapshot.agent);
  r.Set("profile_version_id", json::Value(snapshot.profile_version_id.ToString()));
  r.Set("profile_hash", json::Value(plan.profile_hash));
  r.Set("aggregation_policy_hash", json::Value(plan.aggregation_policy_hash));
  r.Set("execution_plan_hash", json::Value(plan.execution_plan_hash));
  json::Array shards;
  for (const cases::RunPlanShard& shard : plan.shards) {
    json::Object s;
    s.Set("run_shard", Count(shard.run_shard));
    s.Set("case_count", Count(shard.case_count));
    s.Set("chunk_count", Count(shard.chunk_count));
    s.Set("gate_count", Count(shard.gate_counts.entry_count));
    shards.push_back(json::Value(std::move(s)));
  }
  r.Set("shards", json::Value(std::move(shards)));
  r.Set("chunk_index_levels", Count(plan.chunks.level + 1));
  r.Set("root", RefJson(root.opened.resolved.root));
  r.Set("configuration", RefJson(plan.configuration));
  r.Set("dataset", RefJson(plan.dataset));
  return ToPython(json::Value(std::move(r)));
}

// `run verify [--cases]`: activation.
py::object Verify(Root& root, bool with_cases) {
  engine::RunVerifySummary summary = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(root.mutex);
    return Unwrap(engine::VerifyRun(root.opened.resolved.root, root.budget, root.session->scratch(),
                                    root.opened.fetch, with_cases));
  }();
  json::Object r;
  AddPublication(root.opened.resolved, r);
  r.Set("verified", json::Value(true));
  r.Set("cases_checked", json::Value(summary.cases_checked));
  r.Set("chunk_count", Count(summary.chunk_count));
  r.Set("chunk_page_count", json::Value::Uint(summary.chunk_page_count));
  r.Set("index_page_count", json::Value::Uint(summary.index_page_count));
  r.Set("shard_count", json::Value::Uint(summary.shard_count));
  r.Set("gate_page_count", json::Value::Uint(summary.gate_page_count));
  r.Set("bytes_fetched", json::Value::Uint(summary.bytes_fetched));
  return ToPython(json::Value(std::move(r)));
}

json::Value ChunkJson(const cases::RunChunk& c) {
  json::Object r;
  r.Set("chunk_index", Count(c.chunk_index));
  r.Set("chunk_id", json::Value(c.chunk_id.ToString()));
  r.Set("run_shard", Count(c.run_shard));
  r.Set("ordinal_start", Count(c.ordinal_start));
  r.Set("ordinal_end", Count(c.ordinal_end));
  r.Set("case_count", Count(c.case_count()));
  r.Set("profile_group_id", json::Value(c.profile_group_id));
  return json::Value(std::move(r));
}

// `run chunk --index N`: the chunk's records, returned only once its case
// projection hash was recomputed and matched (a chunk holds at most 100
// cases, so they are held whole until then).
py::tuple Chunk(Root& root, int32_t index) {
  std::vector<std::string> lines;
  engine::ChunkReadSummary summary = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(root.mutex);
    return Unwrap(engine::ReadRunChunk(root.opened.resolved.root, root.budget, root.opened.fetch, index,
                                       [&lines](const cases::CaseRecord&, std::string_view line) {
                                         lines.emplace_back(line);
                                         return Status::Ok();
                                       }));
  }();
  py::list cases;
  for (const std::string& line : lines) cases.append(JsonTextToPython(line));
  return py::make_tuple(ToPython(ChunkJson(summary.chunk)), cases);
}

// `run chunks --shard N` (without routes: Run.routes() has them).
py::object ShardChunks(Root& root, int32_t shard) {
  json::Array rows;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(root.mutex);
    Unwrap(engine::ListShardChunks(root.opened.resolved.root, root.budget, root.opened.fetch, shard,
                                   [&rows](const cases::RunChunk& c) {
                                     rows.push_back(ChunkJson(c));
                                     return Status::Ok();
                                   }));
  }
  return ToPython(json::Value(std::move(rows)));
}

json::Value RouteJson(const control::ShardRoute& route) {
  json::Object o;
  o.Set("run_shard", Count(route.run_shard));
  o.Set("route", json::Value(route.route));
  o.Set("epoch", json::Value::Uint(route.epoch));
  o.Set("updated_at", json::Value(control::FormatWallTime(route.updated_at)));
  return json::Value(std::move(o));
}

// The run's name: routes belong to a name (control metadata), not to a plan.
std::string RunName(const Root& root) {
  if (!root.opened.resolved.record) Check(InvalidArgument("shard routes belong to a run name; this run was opened "
                                                          "by its reference").WithPath("run"));
  return root.opened.resolved.record->name;
}

// `run routes --json`: each moved shard's route and epoch (the others are
// on route default, epoch 0).
py::object Routes(Root& root) {
  const std::string name = RunName(root);
  json::Array rows;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(root.session->mutex());
    control::ControlStore* control = Unwrap(root.session->context().ExistingControl());
    for (const control::ShardRoute& r : Unwrap(control->ShardRoutes(name))) rows.push_back(RouteJson(r));
  }
  return ToPython(json::Value(std::move(rows)));
}

// `run move --shard N --to ROUTE [--epoch E]` (engine::MoveRunShard): a
// stale `epoch` is vigilo.Fenced.
py::object Move(Root& root, int32_t shard, const std::string& route, std::optional<uint64_t> epoch) {
  const std::string name = RunName(root);
  control::ShardRoute moved = [&] {
    py::gil_scoped_release release;
    std::lock_guard lock(root.session->mutex());
    return Unwrap(engine::MoveRunShard(root.session->context(), name, shard, route, epoch));
  }();
  py::dict record = ToPython(RouteJson(moved));
  py::dict out;
  out["name"] = name;  // first, as `run move` prints it
  for (auto item : record) out[item.first] = item.second;
  return out;
}

}  // namespace

void BindRuns(py::module_& m, py::class_<Session, std::shared_ptr<Session>>& session) {
  session.def("plan", &Plan, py::arg("dataset"), py::arg("profile_file"), py::arg("profile_text"), py::arg("store"),
              py::arg("name") = "", py::arg("replace") = false,
              py::arg("budget") = std::map<std::string, std::string>{});
  session.def(
      "open_run",
      [](std::shared_ptr<Session> self, const std::string& target, const std::string& store,
         const std::map<std::string, std::string>& budget) {
        return OpenRoot(std::move(self), target, store, control::Namespace::kRuns, budget);
      },
      py::arg("target"), py::arg("store") = "", py::arg("budget") = std::map<std::string, std::string>{});
  py::class_<Root, std::shared_ptr<Root>> root(m.attr("Root"));
  root.def("run_info", &Info)
      .def("run_verify", &Verify, py::arg("cases") = false)
      .def("run_chunk", &Chunk, py::arg("index"))
      .def("run_shard_chunks", &ShardChunks, py::arg("shard"))
      .def("run_routes", &Routes)
      .def("run_move", &Move, py::arg("shard"), py::arg("route"), py::arg("epoch") = py::none());
}

}  // namespace vigilo::python
