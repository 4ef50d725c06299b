// `vigilo run list|show|verify|chunks|chunk`: published run plans read back
// (engine/run_read.h). A NAME is looked up in the control store's `runs`
// namespace and read from the store its publishing attempt wrote to; a REF
// (@FILE, -, inline JSON, or a path) from --store, or from the configured
// alias its storage_alias names. Every object is verified before it is used.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "budget_flags.h"
#include "commands.h"
#include "output.h"
#include "published_roots.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/control_store.h"
#include "vigilo/json/parse.h"
#include "vigilo/engine/dataset_read.h"
#include "vigilo/engine/run_read.h"
#include "vigilo/store/config.h"

namespace vigilo::cli {
namespace {

struct RunArgs {
  std::string target;  // NAME|REF
  std::string store;
  std::string stores_file;
  BudgetFlags budget;
  OutputFlags output;
  bool cases = false;       // verify --cases
  int32_t chunk_index = 0;  // chunk --index
  int32_t shard = 0;        // chunks --shard
  bool quiet = false;       // chunk -q
};

Result<OpenedRoot> OpenRun(const RunArgs& args) {
  return OpenPublishedRoot(args.target, args.store, args.stores_file, args.budget, control::Namespace::kRuns);
}

Record RefRecord(const cases::ObjectRef& ref) {
  Record r;
  r.Add("storage_alias", json::Value(ref.storage_alias));
  r.Add("key", json::Value(ref.key));
  r.Add("digest", json::Value(ref.digest));
  r.Add("byte_count", json::Value::Uint(ref.byte_count));
  return r;
}

json::Value Count(int64_t n) { return json::Value::Uint(static_cast<uint64_t>(n)); }

Status List(const RunArgs& args) {
  return ListPublished(control::Namespace::kRuns, "plan", "no runs are published", args.output);
}

Status Show(const RunArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened, OpenRun(args));
  auto overview = engine::ShowRun(opened.resolved.root, opened.budget, opened.fetch);
  if (!overview.ok()) return UnderFlag(overview.status());
  const cases::RunPlanManifest& plan = overview->plan;
  const cases::RunSnapshot& snapshot = overview->configuration.snapshot;
  const cases::DatasetManifest& dataset = overview->dataset;
  Record r;
  AddPublication(opened.resolved, &r);
  r.Add("run_id", json::Value(plan.run_id.ToString()));
  r.Add("dataset_id", json::Value(dataset.dataset_id));
  r.Add("dataset_version", dataset.dataset_version ? json::Value(*dataset.dataset_version) : json::Value());
  r.Add("dataset_version_id", json::Value(dataset.dataset_version_id.ToString()));
  r.Add("dataset_hash", json::Value(dataset.dataset_hash));
  r.Add("case_count", Count(plan.planned_case_count()));
  r.Add("chunk_count", Count(plan.chunk_count));
  r.Add("chunk_size", Count(snapshot.chunk_size));
  r.Add("shard_count", json::Value::Uint(plan.shards.size()));
  r.Add("agent", snapshot.agent);
  r.Add("profile_version_id", json::Value(snapshot.profile_version_id.ToString()));
  r.Add("profile_hash", json::Value(plan.profile_hash));
  r.Add("aggregation_policy_hash", json::Value(plan.aggregation_policy_hash));
  r.Add("execution_plan_hash", json::Value(plan.execution_plan_hash));
  json::Array shards;
  for (const cases::RunPlanShard& shard : plan.shards) {
    json::Object s;
    s.Set("run_shard", Count(shard.run_shard));
    s.Set("case_count", Count(shard.case_count));
    s.Set("chunk_count", Count(shard.chunk_count));
    s.Set("gate_count", Count(shard.gate_counts.entry_count));
    shards.push_back(json::Value(std::move(s)));
  }
  r.Add("shards", json::Value(std::move(shards)));
  r.Add("chunk_index_levels", Count(plan.chunks.level + 1));
  r.Add("root", RefRecord(opened.resolved.root));
  r.Add("configuration", RefRecord(plan.configuration));
  r.Add("dataset", RefRecord(plan.dataset));
  return PrintRecord(r, args.output);
}

// Activation: every run object, every cross-object agreement, and with
// --cases every chunk's projection against the (fully verified) dataset.
Status Verify(const RunArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened, OpenRun(args));
  auto summary = engine::VerifyRun(opened.resolved.root, opened.budget, ScratchDirFromFlags(args.budget),
                                    opened.fetch, args.cases);
  if (!summary.ok()) return UnderFlag(summary.status());
  Record r;
  AddPublication(opened.resolved, &r);
  r.Add("verified", json::Value(true));
  r.Add("cases_checked", json::Value(summary->cases_checked));
  r.Add("chunk_count", Count(summary->chunk_count));
  r.Add("chunk_page_count", json::Value::Uint(summary->chunk_page_count));
  r.Add("index_page_count", json::Value::Uint(summary->index_page_count));
  r.Add("shard_count", json::Value::Uint(summary->shard_count));
  r.Add("gate_page_count", json::Value::Uint(summary->gate_page_count));
  r.Add("bytes_fetched", json::Value::Uint(summary->bytes_fetched));
  return PrintRecord(r, args.output);
}

// The worker read: the chunk's stored records as JSON lines on stdout (as
// they are verified; a projection mismatch found after the last one still
// exits non-zero), a summary on stderr.
Status Chunk(const RunArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened, OpenRun(args));
  std::string line_out;
  auto read = engine::ReadRunChunk(opened.resolved.root, opened.budget, opened.fetch, args.chunk_index,
                                    [&](const cases::CaseRecord&, std::string_view line) {
                                      line_out.assign(line);
                                      line_out.push_back('\n');
                                      return WriteStdout(line_out);
                                    });
  if (!read.ok()) return UnderFlag(read.status());
  if (!args.quiet) {
    const cases::RunChunk& c = read->chunk;
    std::fprintf(stderr,
                 "vigilo: chunk %d (%s, shard %d, profile group %s): cases [%d, %d) from %llu batches, %llu bytes "
                 "fetched, projection verified\n",
                 c.chunk_index, c.chunk_id.ToString().c_str(), c.run_shard, c.profile_group_id.c_str(),
                 c.ordinal_start, c.ordinal_end, static_cast<unsigned long long>(read->batches_fetched),
                 static_cast<unsigned long long>(read->bytes_fetched));
  }
  return Status::Ok();
}

// What a worker of one shard runs (issue 34): the shard's chunks in chunk
// order, each with its route and epoch when the run is named (routes belong
// to a run name: control metadata, never part of the plan's objects).
Status Chunks(const RunArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(OpenedRoot opened, OpenRun(args));
  std::optional<control::ShardRoute> route;
  if (opened.resolved.record) {
    VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, opened.context->ExistingControl());
    VIGILO_ASSIGN_OR_RETURN(std::vector<control::ShardRoute> routes, control->ShardRoutes(opened.resolved.record->name));
    for (const control::ShardRoute& r : routes) {
      if (r.run_shard == args.shard) route = r;
    }
  }
  const bool named = opened.resolved.record.has_value();
  std::vector<Record> rows;
  auto listed = engine::ListShardChunks(opened.resolved.root, opened.budget, opened.fetch, args.shard,
                                        [&](const cases::RunChunk& c) -> Status {
                                          Record r;
                                          r.Add("chunk_index", Count(c.chunk_index));
                                          r.Add("chunk_id", json::Value(c.chunk_id.ToString()));
                                          r.Add("run_shard", Count(c.run_shard));
                                          r.Add("ordinal_start", Count(c.ordinal_start));
                                          r.Add("ordinal_end", Count(c.ordinal_end));
                                          r.Add("case_count", Count(c.case_count()));
                                          r.Add("profile_group_id", json::Value(c.profile_group_id));
                                          if (named) {
                                            r.Add("route", json::Value(route ? route->route
                                                                             : std::string(control::kDefaultRoute)));
                                            r.Add("epoch", json::Value::Uint(route ? route->epoch : 0));
                                          }
                                          rows.push_back(std::move(r));
                                          return Status::Ok();
                                        });
  if (!listed.ok()) return UnderFlag(listed.status());
  std::vector<std::string> columns = {"chunk_index", "chunk_id",   "run_shard",       "ordinal_start",
                                      "ordinal_end", "case_count", "profile_group_id"};
  if (named) {
    columns.push_back("route");
    columns.push_back("epoch");
  }
  return PrintTable(columns, rows, args.output);
}

// NAME|REF, --store and --stores: what every command reading one run takes.
void AddTargetFlags(CLI::App* command, RunArgs* args) {
  AddRootTargetFlags(command, "run", "A published run name, or the run-plan manifest's reference: @FILE, - (stdin) or inline JSON", &args->target, &args->store, &args->stores_file);
}

}  // namespace

void RegisterRunCommands(CLI::App& app, Action* action) {
  auto* run = app.add_subcommand(
      "run", "Run plans: plan one over a published dataset, list, show, verify, list a shard's chunks, read a "
             "worker's chunk, route shards");
  run->require_subcommand(1);
  RegisterRunPlanCommand(run, action);
  RegisterRunRouteCommands(run, action);

  auto list_args = std::make_shared<RunArgs>();
  auto* list = run->add_subcommand("list", "List the published run names, their versions, stores and roots");
  AddJsonFlag(list, &list_args->output);
  list->callback([list_args, action] { *action = [list_args] { return List(*list_args); }; });

  auto retire_args = std::make_shared<RunArgs>();
  auto* retire = run->add_subcommand(
      "retire",
      "Take a run name out of service: it no longer resolves and its shards take no routes (a later plan under it "
      "starts the next version); its history and every object stay");
  retire->add_option("NAME", retire_args->target, "The run's published name")->required()->type_name("NAME");
  AddJsonFlags(retire, &retire_args->output);
  retire->callback([retire_args, action] {
    *action = [retire_args] {
      return RetireName(control::Namespace::kRuns, retire_args->target, false, retire_args->output);
    };
  });

  auto show_args = std::make_shared<RunArgs>();
  auto* show = run->add_subcommand(
      "show", "Print a run plan's identities, dataset, configuration hashes and shards (chunk pages are not read)");
  AddTargetFlags(show, show_args.get());
  AddReaderBudgetFlags(show, &show_args->budget);
  AddJsonFlags(show, &show_args->output);
  show->callback([show_args, action] { *action = [show_args] { return Show(*show_args); }; });

  auto verify_args = std::make_shared<RunArgs>();
  auto* verify = run->add_subcommand(
      "verify",
      "Activation checks: exact chunk coverage, shard hashes, gate chains and agreement with the configuration and "
      "dataset; --cases also recomputes every chunk's case projection");
  AddTargetFlags(verify, verify_args.get());
  verify->add_flag("--cases", verify_args->cases,
                   "Also read and verify the whole dataset and every chunk's case_projection_hash");
  AddReaderBudgetFlags(verify, &verify_args->budget);
  AddJsonFlags(verify, &verify_args->output);
  verify->callback([verify_args, action] { *action = [verify_args] { return Verify(*verify_args); }; });

  auto chunk_args = std::make_shared<RunArgs>();
  auto* chunk = run->add_subcommand(
      "chunk",
      "Print one execution chunk's case records as JSON lines, reading only its batches and verifying its projection");
  AddTargetFlags(chunk, chunk_args.get());
  chunk->add_option("--index", chunk_args->chunk_index, "The chunk index, 0..chunk_count-1")
      ->required()
      ->type_name("N");
  chunk->add_flag("-q,--quiet", chunk_args->quiet, "No summary on stderr");
  AddReaderBudgetFlags(chunk, &chunk_args->budget);
  chunk->callback([chunk_args, action] { *action = [chunk_args] { return Chunk(*chunk_args); }; });

  auto chunks_args = std::make_shared<RunArgs>();
  auto* chunks = run->add_subcommand(
      "chunks",
      "List one shard's chunks (index, id, case range, profile group) with the shard's route and epoch: what a "
      "worker of that shard runs, chunk by chunk, with run chunk --index");
  AddTargetFlags(chunks, chunks_args.get());
  chunks->add_option("--shard", chunks_args->shard, "The run shard, 0..127 (run show lists the run's shards)")
      ->required()
      ->type_name("N");
  AddReaderBudgetFlags(chunks, &chunks_args->budget);
  AddJsonFlag(chunks, &chunks_args->output);
  chunks->callback([chunks_args, action] { *action = [chunks_args] { return Chunks(*chunks_args); }; });
}

}  // namespace vigilo::cli
