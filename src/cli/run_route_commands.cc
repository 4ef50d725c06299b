// `vigilo run routes|move`: where a published run's shards execute. A route
// is control-store metadata (control_store.h, "shard routes"), never part of
// an object: moving a shard writes one row of the control database and no
// byte of any store, which is why these commands take no --store.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "context.h"
#include "published_roots.h"
#include "output.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/run_routes.h"

namespace vigilo::cli {
namespace {

struct RouteArgs {
  std::string run;
  int32_t shard = 0;
  std::string route;
  uint64_t epoch = 0;
  bool epoch_given = false;
  OutputFlags output;
};

// The control store if it exists: without one, no run is published, and
// neither command has a reason to create one.
Result<control::ControlStore*> OpenControlForRun(engine::Context& context, const std::string& run) {
  auto opened = context.ExistingControl();
  if (!opened.ok() && opened.status().code() == StatusCode::kNotFound) {
    return NotFound("no run is published under " + run);
  }
  return opened;
}

Record RouteRecord(const control::ShardRoute& route) {
  Record r;
  r.Add("run_shard", json::Value::Uint(static_cast<uint64_t>(route.run_shard)));
  r.Add("route", json::Value(route.route));
  r.Add("epoch", json::Value::Uint(route.epoch));
  r.Add("updated_at", json::Value(control::FormatWallTime(route.updated_at)));
  return r;
}

Status Routes(const RouteArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, OpenControlForRun(*context, args.run));
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::ShardRoute> routes, control->ShardRoutes(args.run));
  if (routes.empty()) {
    // Like `run list`: a sentence for people, zero records for programs.
    return args.output.json ? Status::Ok()
                            : WriteStdout("no shard of " + args.run + " has moved: every shard is on route " +
                                          std::string(control::kDefaultRoute) + " (epoch 0)\n");
  }
  std::vector<Record> rows;
  for (const control::ShardRoute& route : routes) rows.push_back(RouteRecord(route));
  return PrintTable({"run_shard", "route", "epoch", "updated_at"}, rows, args.output);
}

Status Move(const RouteArgs& args) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  VIGILO_RETURN_IF_ERROR(OpenControlForRun(*context, args.run).status());
  std::optional<uint64_t> expected;
  if (args.epoch_given) expected = args.epoch;
  // A stale --epoch is `fenced` (exit 11): another move came first.
  Result<control::ShardRoute> result = engine::MoveRunShard(*context, args.run, args.shard, args.route, expected);
  if (!result.ok()) return UnderFlag(result.status());
  const control::ShardRoute& moved = *result;
  Record r;
  r.Add("name", json::Value(args.run));
  r.Add("run_shard", json::Value::Uint(static_cast<uint64_t>(moved.run_shard)));
  r.Add("route", json::Value(moved.route));
  r.Add("epoch", json::Value::Uint(moved.epoch));
  r.Add("updated_at", json::Value(control::FormatWallTime(moved.updated_at)));
  return PrintRecord(r, args.output);
}

void AddRunName(CLI::App* command, RouteArgs* args) {
  command->add_option("run", args->run, "A published run name")->required()->type_name("NAME");
}

}  // namespace

void RegisterRunRouteCommands(CLI::App* run, Action* action) {
  auto routes_args = std::make_shared<RouteArgs>();
  auto* routes = run->add_subcommand(
      "routes", "List the route and epoch of each moved shard of a published run (others: route default, epoch 0)");
  AddRunName(routes, routes_args.get());
  AddJsonFlag(routes, &routes_args->output);
  routes->callback([routes_args, action] { *action = [routes_args] { return Routes(*routes_args); }; });

  auto move_args = std::make_shared<RouteArgs>();
  auto* move = run->add_subcommand(
      "move", "Move one shard of a published run to another worker route: control metadata only, no object changes");
  AddRunName(move, move_args.get());
  move->add_option("--shard", move_args->shard, "The run shard, 0..127")->required()->type_name("N");
  move->add_option("--to", move_args->route,
                   "The route: a worker-pool name, 1-256 of A-Z a-z 0-9 . _ : / - (no URL, no credentials)")
      ->required()
      ->type_name("ROUTE");
  auto* epoch = move->add_option("--epoch", move_args->epoch,
                                 "Move only if the shard's route epoch is still E (0: never moved); fenced otherwise")
                    ->type_name("E");
  AddJsonFlags(move, &move_args->output);
  move->callback([move_args, epoch, action] {
    move_args->epoch_given = epoch->count() > 0;
    *action = [move_args] { return Move(*move_args); };
  });
}

}  // namespace vigilo::cli
