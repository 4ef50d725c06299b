// The CLI's edge: the one place the command line reads the environment and
// builds the engine::Context a command runs against (docs/architecture.md,
// "The engine and its Context").
#pragma once

#include <memory>
#include <string>

#include "vigilo/common/result.h"
#include "vigilo/engine/context.h"

namespace vigilo::cli {

// This machine's name (gethostname(2)); empty if it has none.
std::string HostName();

// The process environment as engine::Settings, with `host` = HostName().
engine::Settings SettingsFromProcessEnvironment();

// A Context over the process's settings; `stores_flag` (--stores FILE),
// when given, is the stores config in force.
Result<std::unique_ptr<engine::Context>> MakeContext(const std::string& stores_flag = "");

}  // namespace vigilo::cli
