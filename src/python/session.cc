#include "session.h"

#include <utility>

#include "errors.h"
#include "vigilo/engine/budget_overrides.h"
#include "vigilo/engine/settings.h"
#include "vigilo/json/write.h"

namespace vigilo::python {

Session::Session(SessionOptions options) : environ_(std::move(options.environ)), scratch_(options.scratch) {
  // A copy of the environment the lookups read, owned here: the engine may
  // consult it after this constructor (an s3 alias's credentials).
  auto lookup = [this](std::string_view name) -> std::optional<std::string> {
    auto it = environ_.find(std::string(name));
    if (it == environ_.end()) return std::nullopt;
    return it->second;
  };
  engine::ContextOptions context_options;
  context_options.settings = engine::SettingsFromEnvironment(lookup);
  context_options.settings.host = options.host;
  if (options.stores) context_options.settings.stores_file = *options.stores;
  if (options.control) context_options.settings.control = *options.control;
  context_options.environment = lookup;
  context_ = Unwrap(engine::Context::Create(std::move(context_options)));
}

cases::BudgetConfig BudgetFromKeywords(const std::map<std::string, std::string>& overrides) {
  engine::BudgetOverrides o;
  for (const auto& [name, value] : overrides) {
    std::optional<std::string>* slot = name == "max_cases"          ? &o.max_cases
                                       : name == "max_bytes"        ? &o.max_bytes
                                       : name == "resident_batches" ? &o.resident_batches
                                       : name == "staging_spool"    ? &o.staging_spool
                                       : name == "validation_spool" ? &o.validation_spool
                                                                    : nullptr;
    if (!slot) Check(InvalidArgument("is not a budget override").WithPath(name));
    *slot = value;
  }
  return Unwrap(engine::BudgetFromOverrides(o));
}

py::object ToPython(const json::Value& value) {
  return JsonTextToPython(Unwrap(json::ToCanonical(value)));
}

py::object JsonTextToPython(std::string_view text) {
  // Looked up once, and never released: a static py::object would be
  // destroyed after the interpreter is finalized.
  static py::object* loads = new py::object(py::module_::import("json").attr("loads"));
  return (*loads)(py::str(text.data(), text.size()));
}

}  // namespace vigilo::python
