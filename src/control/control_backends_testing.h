// The control backends every test suite that uses control state runs over
// (control's own suite, the engine's): a backend is a way to make an empty
// control store location and to open connections to it. SQLite (a file)
// and PostgreSQL (a fresh schema in one server per test process) are the
// two; every suite parameterized by ControlBackends() runs against both.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "vigilo/control/control_store.h"
#include "vigilo/store/clock.h"

namespace vigilo::control::testing_support {

struct ControlBackend {
  std::string name;
  // The locator (what control::OpenControlStore and engine::Settings::control
  // take) of a new, empty control store under `scratch`.
  std::function<std::string(const std::filesystem::path& scratch)> create;
  // A connection to the store at `location` (created on first open).
  std::function<Result<std::unique_ptr<ControlStore>>(const std::string& location, store::Clock& wall,
                                                      store::RandomSource& random)>
      open;
};

// gtest prints a parameter with this (the backend's name, not its bytes).
inline void PrintTo(const ControlBackend& backend, std::ostream* os) { *os << backend.name; }

std::vector<ControlBackend> ControlBackends();
std::string BackendName(const ::testing::TestParamInfo<ControlBackend>& info);

}  // namespace vigilo::control::testing_support
