// What the dataset and run read commands share: a NAME|REF opened to its
// root and the stores its objects live in, the published-names listing,
// and budget errors reported under the flag the user typed.
#pragma once

#include <memory>
#include <string>

#include "budget_flags.h"
#include "output.h"
#include "vigilo/cases/budget.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/control/control_store.h"
#include "vigilo/service/dataset_read.h"
#include "vigilo/store/config.h"

namespace vigilo::cli {

// Library errors name settings, never flags: a budget error whose path is a
// setting a flag sets is reported under that flag.
Status UnderFlag(Status s);

// The control store if it exists (a read never creates one).
Result<std::unique_ptr<control::ControlStore>> OpenExistingControl();

struct OpenedRoot {
  service::ResolvedRoot resolved;
  cases::BudgetConfig budget;
  std::unique_ptr<store::StoreSet> stores;
  cases::ObjectBytesFetch fetch;
};

// `target` is NAME|REF. A NAME is looked up in `ns` and read from the store
// its publishing attempt wrote to unless `store_spec` is given; a REF needs
// `store_spec` or a configured alias equal to its storage_alias.
Result<OpenedRoot> OpenPublishedRoot(const std::string& target, const std::string& store_spec,
                                     const std::string& stores_file, const BudgetFlags& budget, control::Namespace ns);

// The name, version and publication time of a named root (nothing for a REF).
void AddPublication(const service::ResolvedRoot& resolved, Record* r);

// `dataset list` / `run list`: every published name of `ns` with its root's
// key and digest under "<object>_key" / "<object>_digest"; with no names,
// `empty_sentence` for people and nothing with --json.
Status ListPublished(control::Namespace ns, const std::string& object, const std::string& empty_sentence,
                     const OutputFlags& output);

}  // namespace vigilo::cli
