// A published dataset or run opened through a Session: the located root,
// the stores its objects are read from, and the case-storage budget. What
// vigilo.Dataset and vigilo.Run hold. Its store set opens aliases on
// demand, so calls on one root take its mutex (the GIL released).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "session.h"
#include "vigilo/cases/budget.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/roots.h"

namespace vigilo::python {

struct Root {
  Root(std::shared_ptr<Session> s, control::Namespace n) : session(std::move(s)), ns(n) {}
  std::shared_ptr<Session> session;
  engine::OpenedRoot opened;
  control::Namespace ns;
  cases::BudgetConfig budget = cases::BudgetConfig::Defaults();
  std::mutex mutex;
};

// `target` is a name or a reference's JSON text (engine::ParseRootLocator);
// `store` as engine::OpenPublishedRoot takes it ("" for none); `budget` the
// reader's overrides (BudgetFromKeywords), checked before anything is opened.
std::shared_ptr<Root> OpenRoot(std::shared_ptr<Session> session, const std::string& target, const std::string& store,
                               control::Namespace ns, const std::map<std::string, std::string>& budget);

// The root's name, version and publication time when opened by name (the
// CLI's AddPublication), into `o`.
void AddPublication(const engine::ResolvedRoot& resolved, json::Object& o);
// What publishing did (the CLI's AddPublicationReport).
void AddPublicationReport(const engine::PublicationReport& report, json::Object& o);

void BindDatasets(py::module_& m, py::class_<Session, std::shared_ptr<Session>>& session);
void BindRuns(py::module_& m, py::class_<Session, std::shared_ptr<Session>>& session);

}  // namespace vigilo::python
