#include "published_roots.h"

#include <optional>
#include <utility>
#include <vector>

#include "commands.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/json/parse.h"
#include "vigilo/store/governor.h"

namespace vigilo::cli {

Status UnderFlag(Status s) {
  if (s.ok() || (s.code() != StatusCode::kLimitExceeded && s.code() != StatusCode::kInvalidArgument)) return s;
  std::string flag = FlagForSetting(s.path());
  if (flag.empty()) return s;
  return Status(s.code(), std::string(s.message())).WithPath(flag);
}

void AddRootTargetFlags(CLI::App* command, const char* positional, const char* description, std::string* target,
                        std::string* store_spec, std::string* stores_file) {
  command->add_option(positional, *target, description)->required()->type_name("NAME|REF");
  command->add_option("--store", *store_spec,
                      "Store holding the objects: a configured alias, or a directory (a path with '/', or file://); "
                      "default: where NAME was written, or the REF's configured storage alias")
      ->type_name("SPEC");
  command->add_option("--stores", *stores_file, kStoresFlagHelp);
}

Result<std::unique_ptr<OpenedWriteTarget>> OpenWriteTarget(const std::string& store_spec,
                                                           const std::string& stores_file, bool create_root) {
  auto opened = std::make_unique<OpenedWriteTarget>();
  std::optional<std::string> config_file;
  if (!stores_file.empty()) config_file = stores_file;
  VIGILO_ASSIGN_OR_RETURN(opened->config, store::StoreConfig::Load(config_file));
  VIGILO_ASSIGN_OR_RETURN(opened->resolved,
                          store::ResolveStore(opened->config, store_spec,
                                              store::OpenOptions{.writable = true, .create_root = create_root}));
  VIGILO_ASSIGN_OR_RETURN(std::string ledger_id, control::LedgerStoreId(store_spec, opened->resolved));
  VIGILO_ASSIGN_OR_RETURN(opened->control, control::OpenDefaultControlStore());
  service::WriteTarget& t = opened->target;
  t.control = opened->control.get();
  t.store = opened->resolved.store.get();
  t.governor = &store::DefaultGovernor();
  t.alias = opened->resolved.alias;
  t.ledger_store_id = std::move(ledger_id);
  t.wall_clock = &control::DefaultWallClock();
  return opened;
}

Result<std::unique_ptr<control::ControlStore>> OpenExistingControl() {
  control::SqliteOptions options;
  options.create = false;
  return control::OpenDefaultControlStore(options);
}

Result<OpenedRoot> OpenPublishedRoot(const std::string& target, const std::string& store_spec,
                                     const std::string& stores_file, const BudgetFlags& budget,
                                     control::Namespace ns) {
  OpenedRoot opened;
  VIGILO_ASSIGN_OR_RETURN(opened.budget, BudgetFromFlags(budget));
  std::unique_ptr<FileByteSource> stdin_source = FileByteSource::Stdin();
  VIGILO_ASSIGN_OR_RETURN(service::RootLocator locator, service::ParseRootLocator(target, stdin_source.get(), ns));
  std::unique_ptr<control::ControlStore> control;
  if (!locator.ref) {
    auto control_store = OpenExistingControl();
    if (!control_store.ok() && control_store.status().code() == StatusCode::kNotFound) {
      return NotFound(std::string("no ") + (ns == control::Namespace::kRuns ? "run" : "dataset") +
                      " is published under " + locator.name);
    }
    VIGILO_ASSIGN_OR_RETURN(control, std::move(control_store));
  }
  VIGILO_ASSIGN_OR_RETURN(opened.resolved, service::ResolveRoot(locator, control.get(), ns));

  std::optional<std::string> config_file;
  if (!stores_file.empty()) config_file = stores_file;
  VIGILO_ASSIGN_OR_RETURN(store::StoreConfig config, store::StoreConfig::Load(config_file));
  std::string spec = store_spec;
  if (spec.empty() && !opened.resolved.ledger_store_id.empty()) {
    spec = control::StoreSpecForLedgerId(opened.resolved.ledger_store_id);
  }
  if (spec.empty()) {
    const std::string& alias = opened.resolved.root.storage_alias;
    if (config.Find(alias) == nullptr) {
      std::string where = config.origin().empty() ? "" : " in " + config.origin();
      return InvalidArgument("a reference needs --store SPEC: its storage alias \"" + alias + "\" is not configured" +
                             where);
    }
    spec = alias;
  }
  VIGILO_ASSIGN_OR_RETURN(store::ResolvedStore resolved, store::ResolveStore(config, spec, store::OpenOptions{}));
  opened.stores = std::make_unique<store::StoreSet>(std::move(config), std::move(resolved));
  store::StoreSet* stores = opened.stores.get();
  opened.fetch = cases::StoreBytesFetch([stores](std::string_view alias) { return stores->ForAlias(alias); });
  return opened;
}

void AddPublication(const service::ResolvedRoot& resolved, Record* r) {
  if (!resolved.record) return;
  r->Add("name", json::Value(resolved.record->name));
  r->Add("version", json::Value::Uint(resolved.record->version));
  r->Add("published_at", json::Value(control::FormatWallTime(resolved.record->published_at)));
}

Status ListPublished(control::Namespace ns, const std::string& object, const std::string& empty_sentence,
                     const OutputFlags& output) {
  auto control_store = OpenExistingControl();
  std::vector<control::RootRecord> roots;
  if (control_store.ok()) {
    VIGILO_ASSIGN_OR_RETURN(roots, (*control_store)->ListRoots(ns));
  } else if (control_store.status().code() != StatusCode::kNotFound) {
    return control_store.status();
  }
  if (roots.empty()) {
    // Like `store cleanup`: a sentence for people, zero records for programs.
    return output.json ? Status::Ok() : WriteStdout(empty_sentence + "\n");
  }
  std::vector<Record> rows;
  for (const control::RootRecord& root : roots) {
    VIGILO_ASSIGN_OR_RETURN(json::Value value, json::Parse(root.value));
    const std::string where = std::string(control::NamespaceName(ns)) + "/" + root.name;
    auto ref = cases::ObjectRef::FromJson(value, "$");
    if (!ref.ok()) return std::move(ref).take_status().PrependPath(where + ": ");
    Record r;
    r.Add("name", json::Value(root.name));
    r.Add("version", json::Value::Uint(root.version));
    r.Add("published_at", json::Value(control::FormatWallTime(root.published_at)));
    r.Add(object + "_key", json::Value(ref->key));
    r.Add(object + "_digest", json::Value(ref->digest));
    rows.push_back(std::move(r));
  }
  return PrintTable({"name", "version", "published_at", object + "_key", object + "_digest"}, rows, output);
}

}  // namespace vigilo::cli
