// Published roots through a Context: the stores a named dataset or run is
// read from, where a publishing operation writes, and the published names.
// What the dataset and run operations of every binding share.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/cases/object_io.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/context.h"
#include "vigilo/engine/dataset_read.h"
#include "vigilo/engine/write_target.h"
#include "vigilo/store/config.h"

namespace vigilo::engine {

// A located root and the stores its objects are read from.
struct OpenedRoot {
  ResolvedRoot resolved;
  std::unique_ptr<store::StoreSet> stores;
  cases::ObjectBytesFetch fetch;  // reads through `stores`
};

// A NAME is looked up in `ns` (NotFound "no dataset is published under
// NAME" also when there is no control state yet) and read from the store
// its publishing attempt wrote to, unless `store_spec` is given; a REF
// needs `store_spec` or a configured alias equal to its storage_alias
// (InvalidArgument naming the setting `store` otherwise).
Result<OpenedRoot> OpenPublishedRoot(Context& context, const RootLocator& locator, std::string_view store_spec,
                                     control::Namespace ns);

// Where a publishing operation writes: the store `store_spec` names, opened
// writable (its root directory created when `create_root`), and the
// WriteTarget over it, the context's control state, governor, wall clock
// and random source. Heap-allocated: the target points into it.
struct WriteSession {
  store::ResolvedStore resolved;
  WriteTarget target;
};
Result<std::unique_ptr<WriteSession>> OpenWriteSession(Context& context, std::string_view store_spec,
                                                       bool create_root);

// The dataset a run plan reads, for a plan written through `session`: its
// root (a NAME looked up in the session's control state, or a REF) and a
// fetch of its objects — from the store its publishing attempt wrote to
// when that is another store than the plan's, else through the plan's store
// and any alias a reference names. Heap-allocated: the fetch points into it.
struct PlanDataset {
  ResolvedRoot resolved;
  std::unique_ptr<store::ObjectStore> other_store;  // set when the dataset lives in another store
  std::unique_ptr<store::StoreSet> stores;
  cases::ObjectBytesFetch fetch;
};
Result<std::unique_ptr<PlanDataset>> OpenPlanDataset(Context& context, const WriteSession& session,
                                                     const RootLocator& locator);

// Every published name of `ns` with its current version; empty when there
// is no control state yet (listing never creates one).
Result<std::vector<control::RootRecord>> ListPublishedRoots(Context& context, control::Namespace ns);

// A published name and the store its current version was written to (the
// ledger id of its publishing attempt's store): `dataset list`, `run list`.
struct PublishedName {
  control::RootRecord record;
  std::string store;
};
Result<std::vector<PublishedName>> ListPublishedNames(Context& context, control::Namespace ns);

// Retiring a name (docs/format/case-storage-ingest.md, "Retiring a name"):
// it no longer resolves, its history and every object stay.
struct RetireOptions {
  // A dataset that live run plans read (or might: a plan that cannot be
  // read here) is refused unless `force`.
  bool force = false;
};
struct RetireResult {
  control::RetiredRoot retired;
  // A dataset's live run plans that read one of its versions, and those
  // whose plan could not be read to tell (name: why); retired anyway only
  // with `force`.
  std::vector<std::string> readers;
  std::vector<std::string> unknown;
};
// InvalidFormat for a malformed name (before anything is opened); NotFound
// when nothing was ever published under it (or no control state exists);
// InvalidArgument naming `force` for a dataset that live plans read.
Result<RetireResult> RetirePublishedRoot(Context& context, control::Namespace ns, const std::string& name,
                                         const RetireOptions& options);

}  // namespace vigilo::engine
