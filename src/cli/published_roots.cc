#include "published_roots.h"

#include <optional>
#include <utility>
#include <vector>

#include "commands.h"
#include "context.h"
#include "exit_codes.h"
#include "root_target.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/json/parse.h"

namespace vigilo::cli {

Status UnderFlag(Status s) {
  if (s.ok() || (s.code() != StatusCode::kLimitExceeded && s.code() != StatusCode::kInvalidArgument)) return s;
  std::string flag = FlagForSetting(s.path());
  if (flag.empty()) flag = FlagForLibrarySetting(s.path());
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
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext(stores_file));
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::WriteSession> session,
                          engine::OpenWriteSession(*context, store_spec, create_root));
  engine::WriteTarget& target = session->target;
  return std::unique_ptr<OpenedWriteTarget>(new OpenedWriteTarget{std::move(context), std::move(session), target});
}

Result<OpenedRoot> OpenPublishedRoot(const std::string& target, const std::string& store_spec,
                                     const std::string& stores_file, const BudgetFlags& budget,
                                     control::Namespace ns) {
  OpenedRoot opened;
  VIGILO_ASSIGN_OR_RETURN(opened.budget, BudgetFromFlags(budget));
  std::unique_ptr<FileByteSource> stdin_source = FileByteSource::Stdin();
  VIGILO_ASSIGN_OR_RETURN(engine::RootLocator locator, ParseRootTarget(target, stdin_source.get(), ns));
  VIGILO_ASSIGN_OR_RETURN(opened.context, MakeContext(stores_file));
  Result<engine::OpenedRoot> root = engine::OpenPublishedRoot(*opened.context, locator, store_spec, ns);
  if (!root.ok()) return UnderFlag(root.status());
  opened.resolved = std::move(root->resolved);
  opened.stores = std::move(root->stores);
  opened.fetch = std::move(root->fetch);
  return opened;
}

void AddPublicationReport(const engine::PublicationReport& report, Record* r) {
  r->Add("outcome", json::Value(std::string(engine::RootOutcomeName(report.outcome))));
  r->Add("name", json::Value(report.name));
  r->Add("version", json::Value::Uint(report.root_version));
  r->Add("root", report.root.ToJson());
  r->Add("attempt", json::Value(control::AttemptName(report.attempt)));
  r->Add("resumed", json::Value(report.resumed));
  r->Add("objects_written", json::Value::Uint(report.objects_written));
  r->Add("objects_replayed", json::Value::Uint(report.objects_replayed));
  r->Add("bytes_written", json::Value::Uint(report.bytes_written));
}

void AddPublication(const engine::ResolvedRoot& resolved, Record* r) {
  if (!resolved.record) return;
  r->Add("name", json::Value(resolved.record->name));
  r->Add("version", json::Value::Uint(resolved.record->version));
  r->Add("published_at", json::Value(control::FormatWallTime(resolved.record->published_at)));
}

Status ListPublished(control::Namespace ns, const std::string& object, const std::string& empty_sentence,
                     const OutputFlags& output) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  VIGILO_ASSIGN_OR_RETURN(std::vector<engine::PublishedName> names, engine::ListPublishedNames(*context, ns));
  if (names.empty()) {
    // Like `store cleanup`: a sentence for people, zero records for programs.
    return output.json ? Status::Ok() : WriteStdout(empty_sentence + "\n");
  }
  std::vector<Record> rows;
  for (const engine::PublishedName& name : names) {
    const control::RootRecord& root = name.record;
    VIGILO_ASSIGN_OR_RETURN(json::Value value, json::Parse(root.value));
    const std::string where = std::string(control::NamespaceName(ns)) + "/" + root.name;
    auto ref = cases::ObjectRef::FromJson(value, "$");
    if (!ref.ok()) return std::move(ref).take_status().PrependPath(where + ": ");
    Record r;
    r.Add("name", json::Value(root.name));
    r.Add("version", json::Value::Uint(root.version));
    r.Add("published_at", json::Value(control::FormatWallTime(root.published_at)));
    // Where it was written: the ledger's id of that store (an alias, or
    // local://HOST/PATH for a directory; docs/format/stores.md).
    r.Add("store", json::Value(name.store));
    r.Add(object + "_key", json::Value(ref->key));
    r.Add(object + "_digest", json::Value(ref->digest));
    rows.push_back(std::move(r));
  }
  return PrintTable({"name", "version", "published_at", "store", object + "_key", object + "_digest"}, rows, output);
}

Status RetireName(control::Namespace ns, const std::string& name, bool force, const OutputFlags& output) {
  // The name's form first: nothing is opened for a malformed one.
  if (Status s = control::ValidateRootName(name); !s.ok()) {
    return InvalidArgument("\"" + name + "\" is not a name: " + std::string(s.message()));
  }
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  Result<engine::RetireResult> retired =
      engine::RetirePublishedRoot(*context, ns, name, engine::RetireOptions{.force = force});
  if (!retired.ok()) return UnderFlag(retired.status());
  const control::RootRecord& record = retired->retired.record;
  Record r;
  r.Add("outcome", json::Value(retired->retired.already ? "already_retired" : "retired"));
  r.Add("name", json::Value(record.name));
  r.Add("version", json::Value::Uint(record.version));
  r.Add("retired_at", record.retired_at ? json::Value(control::FormatWallTime(*record.retired_at)) : json::Value());
  if (ns == control::Namespace::kDatasets) {
    json::Array readers;
    for (const std::string& run : retired->readers) readers.push_back(json::Value(run));
    r.Add("read_by_runs", json::Value(std::move(readers)));
  }
  return PrintRecord(r, output);
}

}  // namespace vigilo::cli
