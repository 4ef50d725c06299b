// What the dataset and run commands share: a NAME|REF opened to its root
// and the stores its objects live in, the store and control store a
// publishing command writes to, the published-names listing, and budget
// errors reported under the flag the user typed.
#pragma once

#include <memory>
#include <string>

#include "budget_flags.h"
#include "output.h"
#include "vigilo/cases/budget.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/context.h"
#include "vigilo/engine/dataset_read.h"
#include "vigilo/engine/roots.h"
#include "vigilo/engine/write_target.h"
#include "vigilo/store/config.h"

namespace vigilo::cli {

// Library errors name settings, never flags: a budget error whose path is a
// setting a flag sets is reported under that flag.
Status UnderFlag(Status s);

// The help of every --stores flag.
inline constexpr const char* kStoresFlagHelp =
    "Stores config mapping aliases to stores (default: $VIGILO_STORES, else $XDG_DATA_HOME/vigilo/stores.json)";

// A read command's NAME|REF positional (named `positional`), --store and --stores.
void AddRootTargetFlags(CLI::App* command, const char* positional, const char* description, std::string* target,
                        std::string* store_spec, std::string* stores_file);

struct OpenedRoot {
  std::unique_ptr<engine::Context> context;  // what `stores` and `fetch` read through
  engine::ResolvedRoot resolved;
  cases::BudgetConfig budget;
  std::unique_ptr<store::StoreSet> stores;
  cases::ObjectBytesFetch fetch;
};

// `target` is NAME|REF. A NAME is looked up in `ns` and read from the store
// its publishing attempt wrote to unless `store_spec` is given; a REF needs
// `store_spec` or a configured alias equal to its storage_alias.
Result<OpenedRoot> OpenPublishedRoot(const std::string& target, const std::string& store_spec,
                                     const std::string& stores_file, const BudgetFlags& budget, control::Namespace ns);

// Where a publishing command writes (engine::OpenWriteSession) and the
// Context it writes through. Heap-allocated: the target points into it.
struct OpenedWriteTarget {
  std::unique_ptr<engine::Context> context;
  std::unique_ptr<engine::WriteSession> session;
  engine::WriteTarget& target;
};
Result<std::unique_ptr<OpenedWriteTarget>> OpenWriteTarget(const std::string& store_spec,
                                                           const std::string& stores_file, bool create_root);

// What a publishing command's --json record shares: outcome, name, version,
// root, attempt, resumed, objects_written, objects_replayed, bytes_written.
void AddPublicationReport(const engine::PublicationReport& report, Record* r);

// The name, version and publication time of a named root (nothing for a REF).
void AddPublication(const engine::ResolvedRoot& resolved, Record* r);

// `dataset list` / `run list`: every published name of `ns` with the store
// it was written to and its root's key and digest under "<object>_key" /
// "<object>_digest"; with no names, `empty_sentence` for people and nothing
// with --json.
Status ListPublished(control::Namespace ns, const std::string& object, const std::string& empty_sentence,
                     const OutputFlags& output);

// `dataset retire NAME [--force]` / `run retire NAME`
// (engine::RetirePublishedRoot): the name stops resolving, its history and
// objects stay; a record of the version retired (and, for a dataset, the
// live runs that read it when --force overrode them).
Status RetireName(control::Namespace ns, const std::string& name, bool force, const OutputFlags& output);

}  // namespace vigilo::cli
