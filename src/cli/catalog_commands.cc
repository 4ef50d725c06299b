// `vigilo catalog bind|list|show|history|rollback|unbind|register-source`:
// the native catalog (engine/catalog.h, docs/format/catalog.md). Bindings
// live in the control store beside the case-storage ledger; publications
// are then read as catalog:SOURCE/INDEX wherever a location is taken.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "context.h"
#include "interrupt.h"
#include "output.h"
#include "published_roots.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/catalog.h"

namespace vigilo::cli {
namespace {

struct CatalogArgs {
  std::string source, index, location, to;
  std::vector<std::string> files;
  std::string key;
  uint64_t expect_version = 0;
  bool expect_given = false;
  bool any_uuid = false;
  OutputFlags output;

  Result<engine::CatalogName> Name() const {
    Status s = engine::ValidateCatalogPart(source, "source");
    if (!s.ok()) return std::move(s).WithPath("SOURCE");
    s = engine::ValidateCatalogPart(index, "index");
    if (!s.ok()) return std::move(s).WithPath("INDEX");
    return engine::CatalogName{source, index};
  }
  std::optional<uint64_t> Expected() const { return expect_given ? std::optional<uint64_t>(expect_version) : std::nullopt; }
};

std::string SourceText(const engine::CatalogBinding& b) {
  if (b.source) return b.source->name + " (registered, version " + std::to_string(b.source->version) + ")";
  return "";
}

void AddBinding(Record& r, const engine::CatalogBinding& b) {
  r.Add("name", json::Value(b.name.ToString()));
  r.Add("version", json::Value::Uint(b.version));
  r.Add("location", json::Value(b.display));
  r.Add("artifact_uuid", json::Value(b.artifact_uuid.ToString()));
  r.Add("manifest_sha256", json::Value(b.manifest_sha256));
  r.Add("manifest_bytes", json::Value::Uint(b.manifest_bytes));
  r.Add("registered_source", b.source ? json::Value(SourceText(b)) : json::Value());
  r.Add("bound_at", json::Value(control::FormatWallTime(b.bound_at)));
  r.Add("bound_by", json::Value(b.bound_by));
}

Status PrintBind(const engine::BindResult& result, const OutputFlags& output) {
  Record r;
  r.Add("outcome", json::Value(std::string(engine::BindOutcomeName(result.outcome))));
  AddBinding(r, result.binding);
  r.Add("previous_artifact_uuid",
        result.previous ? json::Value(result.previous->artifact_uuid.ToString()) : json::Value());
  return PrintRecord(r, output);
}

engine::BindOptions BindOptionsOf(const CatalogArgs& a, const store::CancelToken* cancel) {
  engine::BindOptions options;
  options.expected_version = a.Expected();
  options.any_uuid = a.any_uuid;
  options.cancel = cancel;
  return options;
}

Status Bind(const CatalogArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(engine::CatalogName name, a.Name());
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  // SIGINT/SIGTERM stop the publication's checks at the next read; nothing
  // is recorded until they have passed.
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  auto bound = engine::Bind(*context, name, a.location, BindOptionsOf(a, &cancel));
  if (!bound.ok()) return interrupt.Explain(UnderFlag(bound.status()), "nothing was bound");
  return PrintBind(*bound, a.output);
}

Status Rollback(const CatalogArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(engine::CatalogName name, a.Name());
  auto artifact = Uuid::Parse(a.to);
  if (!artifact.ok()) return InvalidArgument("--to is not a UUID (an artifact_uuid from `catalog history`)");
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  auto bound = engine::Rollback(*context, name, *artifact, BindOptionsOf(a, &cancel));
  if (!bound.ok()) return interrupt.Explain(UnderFlag(bound.status()), "nothing was bound");
  return PrintBind(*bound, a.output);
}

Status Unbind(const CatalogArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(engine::CatalogName name, a.Name());
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  auto unbound = engine::Unbind(*context, name, a.Expected());
  if (!unbound.ok()) return UnderFlag(unbound.status());
  Record r;
  r.Add("outcome", json::Value(unbound->already ? "already_unbound" : "unbound"));
  r.Add("name", json::Value(name.ToString()));
  r.Add("version", json::Value::Uint(unbound->binding.version));
  r.Add("artifact_uuid", json::Value(unbound->binding.artifact_uuid.ToString()));
  r.Add("unbound_at", unbound->binding.unbound_at ? json::Value(control::FormatWallTime(*unbound->binding.unbound_at))
                                                  : json::Value());
  return PrintRecord(r, a.output);
}

Status Show(const CatalogArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(engine::CatalogName name, a.Name());
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  VIGILO_ASSIGN_OR_RETURN(engine::CatalogBinding b, engine::GetBinding(*context, name));
  Record r;
  AddBinding(r, b);
  return PrintRecord(r, a.output);
}

Record HistoryRow(const engine::CatalogBinding& b) {
  Record r;
  r.Add("version", json::Value::Uint(b.version));
  r.Add("artifact_uuid", json::Value(b.artifact_uuid.ToString()));
  r.Add("location", json::Value(b.display));
  r.Add("bound_at", json::Value(control::FormatWallTime(b.bound_at)));
  r.Add("bound_by", json::Value(b.bound_by));
  r.Add("unbound_at", b.unbound_at ? json::Value(control::FormatWallTime(*b.unbound_at)) : json::Value());
  return r;
}

Status History(const CatalogArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(engine::CatalogName name, a.Name());
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  VIGILO_ASSIGN_OR_RETURN(std::vector<engine::CatalogBinding> history, engine::BindingHistory(*context, name));
  std::vector<Record> rows;
  for (const engine::CatalogBinding& b : history) rows.push_back(HistoryRow(b));
  return PrintTable({"version", "artifact_uuid", "location", "bound_at", "bound_by", "unbound_at"}, rows, a.output);
}

Status List(const CatalogArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  VIGILO_ASSIGN_OR_RETURN(std::vector<engine::CatalogBinding> bindings, engine::ListBindings(*context));
  if (bindings.empty()) {
    return a.output.json ? Status::Ok() : WriteStdout("nothing is bound in the catalog\n");
  }
  std::vector<Record> rows;
  for (const engine::CatalogBinding& b : bindings) {
    Record r;
    r.Add("name", json::Value(b.name.ToString()));
    r.Add("version", json::Value::Uint(b.version));
    r.Add("artifact_uuid", json::Value(b.artifact_uuid.ToString()));
    r.Add("location", json::Value(b.display));
    r.Add("bound_at", json::Value(control::FormatWallTime(b.bound_at)));
    rows.push_back(std::move(r));
  }
  return PrintTable({"name", "version", "artifact_uuid", "location", "bound_at"}, rows, a.output);
}

Status RegisterSource(const CatalogArgs& a) {
  Status name_ok = engine::ValidateCatalogPart(a.source, "source");
  if (!name_ok.ok()) return std::move(name_ok).WithPath("SOURCE");
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  engine::RegisterSourceOptions options;
  options.key = a.key;
  options.cancel = &cancel;
  auto registered = engine::RegisterSource(*context, a.source, a.files, options);
  if (!registered.ok()) return interrupt.Explain(UnderFlag(registered.status()), "nothing was registered");
  const engine::RegisteredSource& s = registered->source;
  Record r;
  r.Add("outcome", json::Value(registered->unchanged ? "unchanged" : "registered"));
  r.Add("source", json::Value(s.name));
  r.Add("version", json::Value::Uint(s.version));
  r.Add("rows", json::Value::Uint(s.rows));
  r.Add("files", json::Value::Uint(s.files.size()));
  r.Add("row_group_rows", json::Value::Uint(s.row_group_rows));
  r.Add("key", json::Value(s.key));
  json::Array columns;
  for (const ivf::Field& f : s.columns) columns.emplace_back(f.name + " " + f.type.ToString());
  r.Add("columns", json::Value(std::move(columns)));
  return PrintRecord(r, a.output);
}

void AddName(CLI::App* command, CatalogArgs* a) {
  command->add_option("source", a->source, "The local source name (1-63 of A-Z a-z 0-9 _ -)")
      ->required()
      ->type_name("SOURCE");
  command->add_option("index", a->index, "The index name (1-63 of A-Z a-z 0-9 _ -)")->required()->type_name("INDEX");
}

CLI::Option* AddExpect(CLI::App* command, CatalogArgs* a, const char* what) {
  return command->add_option("--expect-version", a->expect_version, what)->type_name("N");
}

template <typename Run>
void OnRun(CLI::App* command, std::shared_ptr<CatalogArgs> a, CLI::Option* expect, Action* action, Run run) {
  command->callback([a, expect, action, run] {
    a->expect_given = expect != nullptr && expect->count() > 0;
    *action = [a, run] { return run(*a); };
  });
}

}  // namespace

void RegisterCatalogCommands(CLI::App& app, Action* action) {
  auto* catalog = app.add_subcommand(
      "catalog", "The native catalog: SOURCE/INDEX bound to a publication's location, with history");
  catalog->require_subcommand(1);

  auto bind_args = std::make_shared<CatalogArgs>();
  auto* bind = catalog->add_subcommand(
      "bind", "Check a publication (manifest and every object's footer) and bind SOURCE/INDEX to its location");
  AddName(bind, bind_args.get());
  bind->add_option("location", bind_args->location, "The publication: a directory, manifest, URL or ALIAS:KEY")
      ->required()
      ->type_name("LOCATION");
  auto* bind_expect = AddExpect(bind, bind_args.get(), "Bind only if the current binding is version N (0: unbound)");
  bind->add_flag("--any-uuid", bind_args->any_uuid, "Accept an artifact-uuid not derived from the manifest");
  AddJsonFlags(bind, &bind_args->output);
  OnRun(bind, bind_args, bind_expect, action, Bind);

  auto list_args = std::make_shared<CatalogArgs>();
  auto* list = catalog->add_subcommand("list", "List the current bindings");
  AddJsonFlag(list, &list_args->output);
  OnRun(list, list_args, nullptr, action, List);

  auto show_args = std::make_shared<CatalogArgs>();
  auto* show = catalog->add_subcommand("show", "Show the current binding of SOURCE/INDEX");
  AddName(show, show_args.get());
  AddJsonFlags(show, &show_args->output);
  OnRun(show, show_args, nullptr, action, Show);

  auto history_args = std::make_shared<CatalogArgs>();
  auto* history = catalog->add_subcommand("history", "List every binding SOURCE/INDEX ever had, oldest first");
  AddName(history, history_args.get());
  AddJsonFlag(history, &history_args->output);
  OnRun(history, history_args, nullptr, action, History);

  auto rollback_args = std::make_shared<CatalogArgs>();
  auto* rollback = catalog->add_subcommand(
      "rollback", "Bind SOURCE/INDEX again to an earlier artifact (checked again: refused if it changed)");
  AddName(rollback, rollback_args.get());
  rollback->add_option("--to", rollback_args->to, "The artifact_uuid to bind again (see `catalog history`)")
      ->required()
      ->type_name("ARTIFACT_UUID");
  auto* rollback_expect =
      AddExpect(rollback, rollback_args.get(), "Roll back only if the current binding is version N (0: unbound)");
  rollback->add_flag("--any-uuid", rollback_args->any_uuid, "Accept an artifact-uuid not derived from the manifest");
  AddJsonFlags(rollback, &rollback_args->output);
  OnRun(rollback, rollback_args, rollback_expect, action, Rollback);

  auto unbind_args = std::make_shared<CatalogArgs>();
  auto* unbind = catalog->add_subcommand("unbind", "Take SOURCE/INDEX out of service (its history stays)");
  AddName(unbind, unbind_args.get());
  auto* unbind_expect = AddExpect(unbind, unbind_args.get(), "Unbind only if the current binding is version N");
  AddJsonFlags(unbind, &unbind_args->output);
  OnRun(unbind, unbind_args, unbind_expect, action, Unbind);

  auto register_args = std::make_shared<CatalogArgs>();
  auto* reg = catalog->add_subcommand(
      "register-source",
      "Register Parquet files (in row order) as SOURCE's source table, for publications bound without one");
  reg->add_option("source", register_args->source, "The local source name")->required()->type_name("SOURCE");
  reg->add_option("files", register_args->files, "The table's Parquet files in row order: paths or ALIAS:KEY")
      ->required()
      ->type_name("FILE");
  reg->add_option("--key", register_args->key, "The key column: a non-null long, dense from 0 (default: id)")
      ->type_name("COLUMN");
  AddJsonFlags(reg, &register_args->output);
  OnRun(reg, register_args, nullptr, action, RegisterSource);
}

}  // namespace vigilo::cli
