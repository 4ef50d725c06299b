// `vigilo dataset list|show|verify|export|cases` (in progress).
#include "commands.h"

namespace vigilo::cli {
void RegisterDatasetReadCommands(CLI::App* /*dataset*/, Action* /*action*/) {}
}  // namespace vigilo::cli
