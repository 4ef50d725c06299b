// `vigilo dataset ingest` (in progress).
#include "commands.h"

namespace vigilo::cli {
void RegisterDatasetIngestCommand(CLI::App* /*dataset*/, Action* /*action*/) {}
}  // namespace vigilo::cli
