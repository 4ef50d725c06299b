// vigilo: the command-line front end. Parsing and dispatch only; the work is
// in the libraries, and every failure arrives here as a Status. The
// conventions every command follows are in docs/cli.md.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "commands.h"
#include "exit_codes.h"
#include "usage.h"
#include "vigilo/ivf/lvq_kernels.h"

#ifndef VIGILO_VERSION
#define VIGILO_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  // Line-sized writes (json canon --lines, parquet cat) go out in 1 MiB
  // chunks instead of one write(2) per 4 KiB.
  static char stdout_buffer[1 << 20];
  std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
  CLI::App app{"vigilo: immutable, content-addressed vector publications and case storage", "vigilo"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", std::string("vigilo ") + VIGILO_VERSION);
  app.footer("Run 'vigilo help COMMAND' for a command's flags. Conventions: docs/cli.md");
  vigilo::cli::Action action;
  vigilo::cli::RegisterHelpCommand(app, &action);
  vigilo::cli::RegisterVersionCommand(app, &action);
  vigilo::cli::RegisterHashCommand(app, &action);
  vigilo::cli::RegisterJsonCommands(app, &action);
  vigilo::cli::RegisterDatasetCommands(app, &action);
  vigilo::cli::RegisterRunCommands(app, &action);
  vigilo::cli::RegisterParquetCommands(app, &action);
  vigilo::cli::RegisterIndexCommands(app, &action);
  vigilo::cli::RegisterCatalogCommands(app, &action);
  vigilo::cli::RegisterEmbedCommands(app, &action);
  vigilo::cli::RegisterStoreCommands(app, &action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help after a word that names no command ("vigilo index nosuch
    // --help", "vigilo catalog --help") would print a parent's help and
    // exit 0: it is the usage error the same line without --help is.
    if (e.get_exit_code() == 0 && !app.remaining(true).empty()) {
      std::fprintf(stderr, "vigilo: %s\n", vigilo::cli::UsageMessage(app, e).c_str());
      return vigilo::cli::kExitUsage;
    }
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "vigilo: %s\n", vigilo::cli::UsageMessage(app, e).c_str());
    return vigilo::cli::kExitUsage;
  }
  if (!action) return vigilo::cli::kExitUsage;
  // VIGILO_KERNEL picks another LVQ kernel path (benchmarks compare flavours
  // on one binary; the results are the same bits). Read here, at the edge.
  if (const char* kernel = std::getenv("VIGILO_KERNEL"); kernel != nullptr && *kernel != '\0') {
    if (!vigilo::ivf::ForceKernelPath(kernel)) {
      std::fprintf(stderr, "vigilo: note: VIGILO_KERNEL=%s is not a kernel path this CPU has (scalar, portable, avx2, "
                   "avx512); using %s\n", kernel, std::string(vigilo::ivf::KernelName()).c_str());
    }
  }
  vigilo::Status status = action();
  if (!status.ok()) return vigilo::cli::ReportError(status);
  return std::fflush(stdout) == 0 ? 0 : vigilo::cli::ReportError(vigilo::IoError("cannot write to stdout"));
}
