// The engine::Context a Python `vigilo.Context` owns, built once at this
// edge from what Python hands over (os.environ as a dict, the host name,
// the temporary directory): nothing below reads the process environment,
// so two contexts in one interpreter can differ (a test's private control
// state beside the default one).
//
// Threads: the context opens its stores config and control state lazily and
// is not thread-safe while doing so, so every operation that may open
// something holds the session's mutex (with the GIL released). Searches of
// an open publication do not: engine::Publication::Search is thread-safe.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "vigilo/cases/budget.h"
#include "vigilo/engine/context.h"
#include "vigilo/json/value.h"

namespace vigilo::python {

namespace py = pybind11;

struct SessionOptions {
  std::map<std::string, std::string> environ;  // the process environment, as Python sees it
  std::string host;                            // socket.gethostname()
  std::string scratch;                         // tempfile.gettempdir(): spools, sorts
  std::optional<std::string> stores;           // the stores config file (as --stores)
  std::optional<std::string> control;          // the control state's locator (as $VIGILO_CONTROL)
};

class Session {
 public:
  explicit Session(SessionOptions options);  // throws StatusError
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  engine::Context& context() { return *context_; }
  std::mutex& mutex() { return mutex_; }
  const std::filesystem::path& scratch() const { return scratch_; }

 private:
  std::map<std::string, std::string> environ_;
  std::filesystem::path scratch_;
  std::unique_ptr<engine::Context> context_;
  std::mutex mutex_;
};

// The case-storage budget: the defaults plus the keywords' overrides
// (max_cases, max_bytes, resident_batches, staging_spool, validation_spool:
// the CLI's budget flags), parsed and validated by the engine
// (engine::BudgetFromOverrides), so a bad value has the CLI's message.
cases::BudgetConfig BudgetFromKeywords(const std::map<std::string, std::string>& overrides);

// A json::Value as Python values (json.loads of its canonical text, so
// integers stay exact Python ints). Call with the GIL held.
py::object ToPython(const json::Value& value);
// Text the engine hands out as JSON (a payload value, a canonical case line).
py::object JsonTextToPython(std::string_view text);

}  // namespace vigilo::python
