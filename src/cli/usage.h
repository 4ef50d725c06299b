// Usage errors and help (docs/cli.md "Usage errors", "Help"): one stderr line
// "vigilo: invalid_argument: <command>: <message>", with a "did you mean"
// suggestion for a misspelled command or flag, and exit status 2.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"

namespace vigilo::cli {

// The closest of `candidates` to `given` (edit distance with transpositions,
// at most 2, or a third of the longer word), or "" when none is close.
std::string ClosestMatch(std::string_view given, const std::vector<std::string>& candidates);

// The deepest subcommand the parse reached ("index build"), "" for the root.
CLI::App* DeepestCommand(CLI::App& app);
std::string CommandPath(const CLI::App* command);

// Formats a CLI11 parse error as the one stderr line (without "vigilo: ").
std::string UsageMessage(CLI::App& app, const CLI::ParseError& error);

// The README's command table, from the same command model `--help` prints:
// one row per command (synopsis with its required arguments, description,
// optional flags). `vigilo help --markdown` prints it; a test keeps the
// README's copy current (scripts/cli-table).
std::string CommandTableMarkdown(CLI::App& root);

// `vigilo help [COMMAND…]`: the help of the root or of a (sub)command.
void RegisterHelpCommand(CLI::App& app, Action* action);

}  // namespace vigilo::cli
