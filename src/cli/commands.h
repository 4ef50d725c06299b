// Each command group registers its subcommands on the CLI11 app. A command's
// action returns a Status; main() maps it to the exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string_view>

#include "vigilo/common/status.h"

namespace vigilo::cli {

// The action chosen by the command line, run after parsing.
using Action = std::function<Status()>;

// Writes bytes to stdout (buffered by main); IoError if they cannot all be written.
Status WriteStdout(std::string_view bytes);

void RegisterVersionCommand(CLI::App& app, Action* action);
void RegisterHashCommand(CLI::App& app, Action* action);
void RegisterJsonCommands(CLI::App& app, Action* action);
void RegisterDatasetCommands(CLI::App& app, Action* action);
// `vigilo dataset ingest` (dataset_ingest_command.cc), on the `dataset` subcommand.
void RegisterDatasetIngestCommand(CLI::App* dataset, Action* action);
// `vigilo dataset list|show|verify|export|cases` (dataset_read_commands.cc).
void RegisterDatasetReadCommands(CLI::App* dataset, Action* action);
void RegisterParquetCommands(CLI::App& app, Action* action);
void RegisterIndexCommands(CLI::App& app, Action* action);
// `vigilo run` and its list|show|verify|chunk (run_commands.cc); it calls
// RegisterRunPlanCommand on the group it creates.
void RegisterRunCommands(CLI::App& app, Action* action);
// `vigilo run plan` (run_plan_command.cc), on the `run` subcommand.
void RegisterRunPlanCommand(CLI::App* run, Action* action);
// `vigilo run routes|move` (run_route_commands.cc), on the `run` subcommand.
void RegisterRunRouteCommands(CLI::App* run, Action* action);
// `vigilo store cleanup` (store_commands.cc).
void RegisterStoreCommands(CLI::App& app, Action* action);
// `vigilo index eval` (index_eval.cc), on the `index` subcommand.
void RegisterIndexEval(CLI::App* index, Action* action);
// `vigilo index verify` (index_verify.cc), on the `index` subcommand.
void RegisterIndexVerify(CLI::App* index, Action* action);
// `vigilo index publish` (index_publish.cc), on the `index` subcommand.
void RegisterIndexPublish(CLI::App* index, Action* action);
void RegisterEmbedCommands(CLI::App& app, Action* action);
// `vigilo catalog …` (catalog_commands.cc).
void RegisterCatalogCommands(CLI::App& app, Action* action);

}  // namespace vigilo::cli
