// CLI exit statuses: one per Status code family, stable and documented in
// docs/cli.md so that scripts can branch on them.
#pragma once

#include "vigilo/common/status.h"

namespace vigilo::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;  // also what CLI11 uses for bad command lines

int ExitCodeFor(const Status& status);

// Prints "vigilo: <status>" to stderr and returns its exit code.
int ReportError(const Status& status);

}  // namespace vigilo::cli
