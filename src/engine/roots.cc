#include "vigilo/engine/roots.h"

#include <utility>

#include "vigilo/control/cleanup.h"
#include "vigilo/engine/cleanup.h"
#include "vigilo/engine/run_read.h"
#include "vigilo/json/parse.h"

namespace vigilo::engine {
namespace {

// The `store` spec that opens the store a named root was written to; a
// directory of another host is refused naming the root, the host and the
// path (never opened: here that path is another directory).
Result<std::string> SpecOfWrittenStore(Context& context, const std::string& ledger_id, control::Namespace ns,
                                       const std::string& name) {
  const std::string& host = context.settings().host;
  Result<control::LedgerStore> parsed = control::ParseLedgerStoreId(ledger_id);
  if (parsed.ok() && parsed->IsAnotherHostsDirectory(host)) {
    return InvalidArgument(std::string("the ") + (ns == control::Namespace::kRuns ? "run" : "dataset") + " '" + name +
                           "' was written to the directory " + parsed->path + " on the host " + parsed->host +
                           ", not on this host (" + (host.empty() ? "unnamed" : host) +
                           "), where that path is another directory: read it on " + parsed->host +
                           ", or name a copy of that directory here with `store`")
        .WithPath("store");
  }
  return control::StoreSpecForLedgerId(ledger_id, host);
}

// ResolveRoot, and a retired name's not_found says when it was retired.
Result<ResolvedRoot> ResolveLive(const RootLocator& locator, control::ControlStore* control, control::Namespace ns) {
  Result<ResolvedRoot> located = ResolveRoot(locator, control, ns);
  if (!located.ok() && located.status().code() == StatusCode::kNotFound && control != nullptr && !locator.ref) {
    Result<std::optional<control::RootRecord>> retired = control->GetRetiredRoot(ns, locator.name);
    if (retired.ok() && retired->has_value()) {
      return NotFound(std::string(located.status().message()) + ": the name was retired at " +
                      control::FormatWallTime(*(*retired)->retired_at) + " (version " +
                      std::to_string((*retired)->version) + "); its versions' references are kept in its history");
    }
  }
  return located;
}

}  // namespace

Result<OpenedRoot> OpenPublishedRoot(Context& context, const RootLocator& locator, std::string_view store_spec,
                                     control::Namespace ns) {
  OpenedRoot opened;
  control::ControlStore* control = nullptr;
  if (!locator.ref) {
    auto existing = context.ExistingControl();
    if (!existing.ok() && existing.status().code() == StatusCode::kNotFound) {
      return NotFound(std::string("no ") + (ns == control::Namespace::kRuns ? "run" : "dataset") +
                      " is published under " + locator.name);
    }
    VIGILO_ASSIGN_OR_RETURN(control, std::move(existing));
  }
  VIGILO_ASSIGN_OR_RETURN(opened.resolved, ResolveLive(locator, control, ns));

  VIGILO_ASSIGN_OR_RETURN(const store::StoreConfig* config, context.StoresConfig());
  std::string spec(store_spec);
  if (spec.empty() && !opened.resolved.ledger_store_id.empty()) {
    VIGILO_ASSIGN_OR_RETURN(spec, SpecOfWrittenStore(context, opened.resolved.ledger_store_id, ns, locator.name));
  }
  if (spec.empty()) {
    const std::string& alias = opened.resolved.root.storage_alias;
    if (config->Find(alias) == nullptr) {
      Result<store::ResolvedStore> in_process = context.OpenStore(alias, store::OpenOptions{});
      if (!in_process.ok()) {
        std::string where = config->origin().empty() ? "" : " in " + config->origin();
        return InvalidArgument("a reference needs a store to read from: its storage alias \"" + alias + "\" is not configured" +
                               where)
            .WithPath("store");
      }
    }
    spec = alias;
  }
  VIGILO_ASSIGN_OR_RETURN(store::ResolvedStore resolved, context.OpenStore(spec, store::OpenOptions{}));
  VIGILO_ASSIGN_OR_RETURN(opened.stores, context.OpenStoreSet(std::move(resolved)));
  store::StoreSet* stores = opened.stores.get();
  opened.fetch = cases::StoreBytesFetch([stores](std::string_view alias) { return stores->ForAlias(alias); });
  return opened;
}

Result<std::unique_ptr<WriteSession>> OpenWriteSession(Context& context, std::string_view store_spec,
                                                       bool create_root) {
  auto session = std::make_unique<WriteSession>();
  VIGILO_ASSIGN_OR_RETURN(session->resolved,
                          context.OpenStore(store_spec, store::OpenOptions{.writable = true, .create_root = create_root}));
  VIGILO_ASSIGN_OR_RETURN(std::string ledger_id,
                          control::LedgerStoreId(store_spec, session->resolved, context.settings().host));
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, context.Control());
  WriteTarget& t = session->target;
  t.control = control;
  t.store = session->resolved.store.get();
  t.governor = &context.governor();
  t.alias = session->resolved.alias;
  t.local_root = LocalRootOfStore(context, ledger_id);
  t.ledger_store_id = std::move(ledger_id);
  t.wall_clock = &context.wall_clock();
  t.random = &context.random();
  return session;
}

Result<std::unique_ptr<PlanDataset>> OpenPlanDataset(Context& context, const WriteSession& session,
                                                     const RootLocator& locator) {
  auto dataset = std::make_unique<PlanDataset>();
  const WriteTarget& target = session.target;
  VIGILO_ASSIGN_OR_RETURN(dataset->resolved, ResolveLive(locator, target.control, control::Namespace::kDatasets));
  // A published root references only objects of published attempts, which
  // cleanup never deletes (docs/format/case-storage-ingest.md, "Cleanup").
  // A REF to an object of an attempt that was never published would make a
  // plan read what `store cleanup` may delete: refused (issue 34).
  if (locator.ref) {
    if (std::optional<control::AttemptKey> owner = control::AttemptOfKey(locator.ref->key)) {
      Result<control::AttemptRecord> attempt =
          target.control->GetAttempt(control::AttemptRef{owner->attempt_id, owner->generation});
      if (attempt.ok() && attempt->key_prefix == owner->prefix && attempt->state != control::AttemptState::kPublished) {
        return InvalidArgument("the dataset reference names " + locator.ref->key + ", an object of attempt " +
                               control::AttemptName(attempt->attempt) + ", which was never published (it is " +
                               std::string(control::AttemptStateName(attempt->state)) +
                               "): cleanup deletes the objects of such attempts, so a run plan must not read "
                               "them; publish the dataset first and plan from its name or the reference that "
                               "prints");
      }
    }
  }
  const std::string& ledger_id = dataset->resolved.ledger_store_id;
  if (!ledger_id.empty() && !control::SameLedgerStore(ledger_id, target.ledger_store_id)) {
    // A dataset in a directory is referenced by the alias "local", which a
    // reader of the plan resolves to the plan's own store: a plan elsewhere
    // would verify here and be unreadable later (issue 34). Refused before
    // anything is written; configured aliases name their store and work.
    if (dataset->resolved.root.storage_alias == store::kDefaultLocalAlias) {
      const std::string dataset_dir = control::DescribeLedgerStore(ledger_id, context.settings().host);
      return InvalidArgument("the dataset '" + locator.name + "' is stored in the directory " + dataset_dir +
                             ", not in " + session.resolved.display +
                             "; its references record only the alias \"local\", which a reader of the plan "
                             "resolves to the plan's own directory, so a plan there could not be read: plan into " +
                             dataset_dir + ", or configure both stores under aliases (docs/format/stores.md)")
          .WithPath("store");
    }
    VIGILO_ASSIGN_OR_RETURN(std::string spec,
                            SpecOfWrittenStore(context, ledger_id, control::Namespace::kDatasets, locator.name));
    VIGILO_ASSIGN_OR_RETURN(store::ResolvedStore other, context.OpenStore(spec, store::OpenOptions{}));
    dataset->other_store = std::move(other.store);
  }
  VIGILO_ASSIGN_OR_RETURN(dataset->stores,
                          context.OpenStoreSet(store::ResolvedStore{target.alias, nullptr, session.resolved.display}));
  PlanDataset* d = dataset.get();
  store::ObjectStore* plan_store = target.store;
  const std::string plan_alias = target.alias;
  dataset->fetch = cases::StoreBytesFetch([d, plan_store, plan_alias](std::string_view alias) -> Result<store::ObjectStore*> {
    if (d->other_store) return d->other_store.get();
    if (alias == plan_alias) return plan_store;
    return d->stores->ForAlias(alias);
  });
  return dataset;
}

Result<std::vector<PublishedName>> ListPublishedNames(Context& context, control::Namespace ns) {
  auto existing = context.ExistingControl();
  if (!existing.ok() && existing.status().code() == StatusCode::kNotFound) return std::vector<PublishedName>{};
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, std::move(existing));
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::RootRecord> roots, control->ListRoots(ns));
  std::vector<PublishedName> out;
  out.reserve(roots.size());
  for (control::RootRecord& root : roots) {
    VIGILO_ASSIGN_OR_RETURN(control::AttemptRecord attempt, control->GetAttempt(root.attempt));
    out.push_back(PublishedName{std::move(root), std::move(attempt.store)});
  }
  return out;
}

namespace {

// The live run plans that read a version of the dataset `name` (its
// history's root references), and those whose plan cannot be read here.
Status FindReaders(Context& context, control::ControlStore& control, const std::string& name, RetireResult& result) {
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::RootRecord> history,
                          control.RootHistory(control::Namespace::kDatasets, name));
  std::vector<cases::ObjectRef> versions;
  for (const control::RootRecord& version : history) {
    Result<json::Value> parsed = json::Parse(version.value);
    if (!parsed.ok()) continue;
    Result<cases::ObjectRef> ref = cases::ObjectRef::FromJson(*parsed, "$");
    if (ref.ok()) versions.push_back(std::move(*ref));
  }
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::RootRecord> runs, control.ListRoots(control::Namespace::kRuns));
  for (const control::RootRecord& run : runs) {
    RootLocator locator;
    locator.name = run.name;
    Result<OpenedRoot> opened = OpenPublishedRoot(context, locator, "", control::Namespace::kRuns);
    Result<cases::RunPlanManifest> plan =
        opened.ok() ? ReadRunPlan(opened->resolved.root, cases::BudgetConfig{}, opened->fetch)
                    : Result<cases::RunPlanManifest>(opened.status());
    if (!plan.ok()) {
      result.unknown.push_back(run.name + ": " + plan.status().ToString());
      continue;
    }
    for (const cases::ObjectRef& version : versions) {
      if (plan->dataset.key == version.key && plan->dataset.digest == version.digest) {
        result.readers.push_back(run.name);
        break;
      }
    }
  }
  return Status::Ok();
}

std::string Quoted(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "'" : ", '") + names[i] + "'";
  return out;
}

}  // namespace

Result<RetireResult> RetirePublishedRoot(Context& context, control::Namespace ns, const std::string& name,
                                         const RetireOptions& options) {
  VIGILO_RETURN_IF_ERROR(control::ValidateRootName(name));
  const std::string noun = ns == control::Namespace::kRuns ? "run" : "dataset";
  auto existing = context.ExistingControl();
  if (!existing.ok() && existing.status().code() == StatusCode::kNotFound) {
    return NotFound("no " + noun + " is published under " + name);
  }
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, std::move(existing));
  RetireResult result;
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> current, control->GetRoot(ns, name));
  if (current && ns == control::Namespace::kDatasets) {
    VIGILO_RETURN_IF_ERROR(FindReaders(context, *control, name, result));
    if (!options.force && (!result.readers.empty() || !result.unknown.empty())) {
      std::string why;
      if (!result.readers.empty()) {
        why = "the live run plans " + Quoted(result.readers) + " read it (a plan references a dataset version, "
              "not its name, so they would go on reading it)";
      }
      if (!result.unknown.empty()) {
        why += std::string(why.empty() ? "" : "; ") + "whether these live run plans read it cannot be told here: " +
               Quoted(result.unknown);
      }
      return InvalidArgument("the dataset '" + name + "' stays in service: " + why +
                             "; retire those runs first (run retire), or retire the dataset anyway with `force`");
    }
  }
  // The version checked is the one retired: a publication in between is
  // refused (compare-and-set), not retired unseen.
  std::optional<uint64_t> expected;
  if (current) expected = current->version;
  Result<control::RetiredRoot> retired = control->RetireRoot(ns, name, expected);
  if (!retired.ok() && retired.status().code() == StatusCode::kNotFound) {
    return NotFound("no " + noun + " is published under " + name);
  }
  VIGILO_ASSIGN_OR_RETURN(result.retired, std::move(retired));
  return result;
}

Result<std::vector<control::RootRecord>> ListPublishedRoots(Context& context, control::Namespace ns) {
  auto existing = context.ExistingControl();
  if (!existing.ok() && existing.status().code() == StatusCode::kNotFound) return std::vector<control::RootRecord>{};
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, std::move(existing));
  return control->ListRoots(ns);
}

}  // namespace vigilo::engine
