// What the catalog's files share inside the engine (catalog.h is the API).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/control/control_store.h"
#include "vigilo/engine/catalog.h"
#include "vigilo/engine/publication.h"
#include "vigilo/json/value.h"

namespace vigilo::engine {

// A publication's manifest fetched once: where it lies, its bytes' SHA-256
// and size, and the parsed manifest.
struct FetchedManifest {
  PublicationLocation where;
  std::string sha256;
  uint64_t bytes = 0;
  ivf::Manifest manifest;
};
Result<FetchedManifest> FetchManifest(Context& context, std::string_view location);

// A location as the catalog stores it: a local path made absolute (another
// working directory would name another file), anything else as given.
Result<std::string> AbsoluteLocation(std::string_view location);

// SOURCE.INDEX: a binding's root name in CatalogNamespace().
std::string RootName(const CatalogName& name);
// The canonical JSON value a binding's root holds, and the binding a root
// record holds (its owner read from the record's attempt).
Result<std::string> BindingValue(const CatalogBinding& binding);
Result<CatalogBinding> BindingOfRecord(control::ControlStore& control, const control::RootRecord& record);
// A stored location as printed: a URL never (it may carry a signature): its
// manifest key stands for it, "(url)/manifest.json".
std::string DisplayLocation(const std::string& location);

// A registered source as the canonical JSON the catalog stores, and back.
json::Value RegisteredSourceJson(const RegisteredSource& source);
Result<RegisteredSource> ParseRegisteredSource(const json::Value& value);

// InvalidArgument unless `source` can serve payloads for `manifest`: the
// index's one source-key field a long named as the source's key, and
// source rows = index ntotal.
Status CheckSourceFitsIndex(const RegisteredSource& source, const ivf::Manifest& manifest);

// Publishes `value` under (ns, root) for a catalog change, compare-and-set
// against `seen` (what the caller read first): a lost race is `fenced`
// naming `display`; the attempt records no key.
Result<control::PublishOutcome> RecordCatalogRoot(control::ControlStore& control, const control::Namespace& ns,
                                                  const std::string& root, const std::string& display,
                                                  const std::optional<control::RootRecord>& seen,
                                                  const std::string& value);

// `base` with the registered source's files readable under
// RegisteredSourcePath(i) (each opened from its location; nothing read).
Result<std::unique_ptr<store::ObjectStore>> WithRegisteredSource(Context& context, const RegisteredSource& source,
                                                                 std::unique_ptr<store::ObjectStore> base);

// catalog:SOURCE/INDEX for LocatePublication: the bound location, its store
// refusing a manifest whose bytes are not the bound ones, and the
// registered source the binding holds (if any).
Result<PublicationLocation> LocateCatalogPublication(Context& context, std::string_view name);

}  // namespace vigilo::engine
