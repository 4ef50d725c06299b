// vigilo._vigilo: the extension the `vigilo` package wraps (docs/python.md).
// One Session per vigilo.Context; every operation is a call into the
// engine with the GIL released around its I/O and scoring.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "errors.h"
#include "roots.h"
#include "session.h"

namespace py = pybind11;

namespace vigilo::python {
void BindPublications(py::module_& m, py::class_<Session, std::shared_ptr<Session>>& session);
void BindMaintenance(py::class_<Session, std::shared_ptr<Session>>& session);
}  // namespace vigilo::python

PYBIND11_MODULE(_vigilo, m) {
  namespace vp = vigilo::python;
  m.doc() = "vigilo's engine: datasets, runs and vector publications (docs/python.md)";
  vp::RegisterErrorTranslator();
  py::class_<vp::Session, std::shared_ptr<vp::Session>> session(m, "Session");
  session.def(py::init([](std::map<std::string, std::string> environment, std::string host, std::string scratch,
                          std::optional<std::string> stores, std::optional<std::string> control) {
                return std::make_shared<vp::Session>(vp::SessionOptions{std::move(environment), std::move(host),
                                                                        std::move(scratch), std::move(stores),
                                                                        std::move(control)});
              }),
              py::arg("environ"), py::arg("host"), py::arg("scratch"), py::arg("stores") = py::none(),
              py::arg("control") = py::none());
  session.def_property_readonly("control", [](vp::Session& s) { return s.context().settings().control; });
  vp::BindDatasets(m, session);
  vp::BindRuns(m, session);
  vp::BindPublications(m, session);
  vp::BindMaintenance(session);
}
