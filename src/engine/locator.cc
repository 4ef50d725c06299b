#include "vigilo/engine/locator.h"

#include "vigilo/common/paths.h"
#include "vigilo/store/config.h"
#include "vigilo/store/http_store.h"

namespace vigilo::engine {
namespace {

constexpr std::string_view kCatalogPrefix = "catalog:";

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

}  // namespace

Result<Locator> ParseLocator(std::string_view text) {
  Locator out;
  if (text.empty()) return InvalidArgument("the location is empty");
  if (store::IsHttpUrl(text)) {
    out.kind = LocatorKind::kUrl;
    out.url = std::string(text);
    return out;
  }
  if (StartsWithNoCase(text, "file://")) {
    VIGILO_ASSIGN_OR_RETURN(out.path, store::DecodeFileUrl(text));
    return out;
  }
  if (text.starts_with(kCatalogPrefix)) {
    out.kind = LocatorKind::kCatalog;
    out.key = std::string(text.substr(kCatalogPrefix.size()));
    return out;
  }
  const size_t colon = text.find(':');
  if (colon != std::string_view::npos && text.find('/') > colon) {
    if (text.substr(colon).starts_with("://")) {
      // Not echoed: such a URL may carry a bucket, an endpoint or a signature.
      return InvalidArgument(
          "only http(s):// and file:// URLs are read directly; configure another store under an alias in the "
          "stores config and write ALIAS:KEY");
    }
    if (ValidateStorageAlias(text.substr(0, colon)).ok()) {
      out.kind = LocatorKind::kAliasKey;
      out.alias = std::string(text.substr(0, colon));
      out.key = std::string(text.substr(colon + 1));
      return out;
    }
  }
  out.path = std::string(text);
  return out;
}

}  // namespace vigilo::engine
