#include "vigilo/engine/publication_build.h"

#include <filesystem>
#include <utility>

#include "vigilo/engine/locator.h"
#include "vigilo/store/prefixed_store.h"

namespace vigilo::engine {

Result<BuiltPublication> BuildPublicationAt(Context& context, ivf::BuildOptions options, std::string_view out) {
  VIGILO_ASSIGN_OR_RETURN(Locator locator, ParseLocator(out));
  BuiltPublication built;
  switch (locator.kind) {
    case LocatorKind::kPath: {
      options.out = locator.path;
      VIGILO_ASSIGN_OR_RETURN(built.summary, ivf::BuildPublication(options));
      built.manifest = (std::filesystem::path(locator.path) / "manifest.json").string();
      return built;
    }
    case LocatorKind::kAliasKey: {
      VIGILO_ASSIGN_OR_RETURN(store::ResolvedStore resolved,
                              context.OpenStore(locator.alias, store::OpenOptions{.writable = true}));
      VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<store::ObjectStore> prefixed,
                              store::MakePrefixedStore(std::move(resolved.store), locator.key));
      options.out.clear();
      VIGILO_ASSIGN_OR_RETURN(built.summary, ivf::BuildPublication(options, *prefixed));
      std::string key = locator.key;
      while (!key.empty() && key.back() == '/') key.pop_back();
      built.manifest = locator.alias + ":" + (key.empty() ? "" : key + "/") + "manifest.json";
      return built;
    }
    case LocatorKind::kUrl:
      return InvalidArgument("an http(s) URL is read-only: build into a directory or ALIAS:KEY of a writable store")
          .WithPath("out");
    case LocatorKind::kCatalog:
      return InvalidArgument("a catalog name is bound to a publication, not built into: build into a directory or "
                             "ALIAS:KEY")
          .WithPath("out");
  }
  return InvalidArgument("unknown locator").WithPath("out");
}

}  // namespace vigilo::engine
