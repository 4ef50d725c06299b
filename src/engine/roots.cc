#include "vigilo/engine/roots.h"

#include <utility>

#include "vigilo/control/cleanup.h"

namespace vigilo::engine {

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
  VIGILO_ASSIGN_OR_RETURN(opened.resolved, ResolveRoot(locator, control, ns));

  VIGILO_ASSIGN_OR_RETURN(const store::StoreConfig* config, context.StoresConfig());
  std::string spec(store_spec);
  if (spec.empty() && !opened.resolved.ledger_store_id.empty()) {
    spec = control::StoreSpecForLedgerId(opened.resolved.ledger_store_id);
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
  VIGILO_ASSIGN_OR_RETURN(std::string ledger_id, control::LedgerStoreId(store_spec, session->resolved));
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, context.Control());
  WriteTarget& t = session->target;
  t.control = control;
  t.store = session->resolved.store.get();
  t.governor = &context.governor();
  t.alias = session->resolved.alias;
  t.ledger_store_id = std::move(ledger_id);
  t.wall_clock = &context.wall_clock();
  t.random = &context.random();
  return session;
}

Result<std::vector<control::RootRecord>> ListPublishedRoots(Context& context, control::Namespace ns) {
  auto existing = context.ExistingControl();
  if (!existing.ok() && existing.status().code() == StatusCode::kNotFound) return std::vector<control::RootRecord>{};
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, std::move(existing));
  return control->ListRoots(ns);
}

}  // namespace vigilo::engine
