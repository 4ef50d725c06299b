// `index eval` from Python: recall@k, single-thread QPS and bytes read per
// query for each nprobe (ivf::EvaluateRecall), as `vigilo index eval
// --json` measures them. The queries come as an array (the CLI reads them
// from --queries); the exact neighbours as an array or a file of row ids
// (--ground-truth), or computed over the build's input and cached
// (--base: engine::BaseGroundTruth). Ground truth in the user's own ids
// (--id-column) is not bound.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "errors.h"
#include "interrupt.h"
#include "evaluation.h"
#include "vigilo/engine/ground_truth.h"
#include "vigilo/ivf/eval.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/query_core.h"
#include "vigilo/json/value.h"

namespace vigilo::python {

namespace {

std::vector<std::vector<float>> Rows(py::object vectors, const char* setting) {
  auto array = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(vectors);
  if (!array || array.ndim() != 2) {
    Check(InvalidArgument("expected a 2-dimensional array of numbers").WithPath(setting));
  }
  const auto rows = static_cast<size_t>(array.shape(0)), dim = static_cast<size_t>(array.shape(1));
  std::vector<std::vector<float>> out;
  out.reserve(rows);
  for (size_t r = 0; r < rows; ++r) out.emplace_back(array.data() + r * dim, array.data() + (r + 1) * dim);
  return out;
}

// An (queries, k) array of row ids, nearest first.
ivf::GroundTruth TruthOf(py::object ids) {
  auto array = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(ids);
  if (!array || array.ndim() != 2) {
    Check(InvalidArgument("expected a 2-dimensional array of row ids").WithPath("ground_truth"));
  }
  ivf::GroundTruth truth;
  truth.queries = static_cast<size_t>(array.shape(0));
  truth.k = static_cast<size_t>(array.shape(1));
  truth.ids.assign(array.data(), array.data() + truth.queries * truth.k);
  return truth;
}

json::Value PointJson(const ivf::EvalPoint& p, uint32_t k) {
  json::Object r;
  for (auto& [key, value] : ivf::EvalPointFields(p, k)) r.Set(key, std::move(value));
  return json::Value(std::move(r));
}

}  // namespace

py::object Evaluate(Session& session, engine::Publication& publication, const EvalRequest& a) {
  const ivf::Manifest& manifest = publication.manifest();
  const std::vector<std::vector<float>> queries = Rows(a.queries, "queries");
  const bool truth_given = !a.ground_truth.is_none();
  if (truth_given == !a.base.empty()) {
    Check(InvalidArgument("give the exact neighbours (ground_truth) or the build's input (base), once")
              .WithPath("ground_truth"));
  }
  std::optional<ivf::GroundTruth> truth;
  std::string truth_file;
  if (py::isinstance<py::str>(a.ground_truth)) {
    truth_file = a.ground_truth.cast<std::string>();
  } else if (truth_given) {
    truth = TruthOf(a.ground_truth);
  }
  store::CancelToken cancel;
  InterruptGuard interrupt(cancel);
  Result<std::vector<ivf::EvalPoint>> points = [&]() -> Result<std::vector<ivf::EvalPoint>> {
    py::gil_scoped_release release;
    if (!truth_file.empty()) {
      VIGILO_ASSIGN_OR_RETURN(truth, ivf::ReadGroundTruth(truth_file));
    } else if (!truth) {
      engine::GroundTruthRequest request;
      request.base = engine::BaseVectors{a.base, a.base_format, a.base_vector_field};
      request.k = a.k;
      request.threads = a.threads ? *a.threads : std::max(1u, std::thread::hardware_concurrency());
      request.cancel = &cancel;
      std::lock_guard lock(session.mutex());  // the context's ground-truth directory
      VIGILO_ASSIGN_OR_RETURN(engine::GroundTruthOutcome computed,
                              engine::BaseGroundTruth(session.context(), manifest, queries, request));
      truth = std::move(computed.truth);
    }
    ivf::PublicationReader reader(manifest);
    ivf::EvalOptions o;
    o.k = a.k;
    if (!a.nprobes.empty()) o.nprobes = a.nprobes;
    o.batch = a.batch;
    o.warmup = a.warmup;
    o.screen = a.screen;
    o.hold_postings_max_bytes = publication.resident_max_bytes();
    o.cancel = &cancel;
    return ivf::EvaluateRecall(reader, publication.store(), queries, *truth, o);
  }();
  if (!points.ok()) {
    Check(interrupt.Explain(points.status(), "no result was returned, and nothing was written (a ground truth is "
                                             "cached only once complete)"));
  }
  json::Array rows;
  for (const ivf::EvalPoint& p : *points) rows.push_back(PointJson(p, a.k));
  return ToPython(json::Value(std::move(rows)));
}

}  // namespace vigilo::python
