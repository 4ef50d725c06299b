// CLI exit statuses: one per Status code family, stable and documented in
// docs/cli.md so that scripts can branch on them.
#pragma once

#include <string>
#include <string_view>

#include "vigilo/common/status.h"

namespace vigilo::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;  // also what CLI11 uses for bad command lines

int ExitCodeFor(const Status& status);

// Library errors name settings, never flags (docs/errors.md, "Settings and
// flags"): a setting in a message is written `name`; these print it as the
// flag that sets it (`nlist` → --nlist, `text_field` → --text-field). A
// backquoted word that is no such setting is left as it is.
std::string FlagForLibrarySetting(std::string_view setting);  // "" when no flag sets it
std::string RenderSettings(std::string_view text);
// The line a failure prints as (without "vigilo: "): status.ToString() with
// its settings rendered as flags.
std::string ErrorText(const Status& status);

// Prints "vigilo: <status>" to stderr (ErrorText) and returns its exit code.
int ReportError(const Status& status);

}  // namespace vigilo::cli
