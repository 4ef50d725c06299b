// One grammar for everything an operation can be pointed at
// (docs/format/stores.md, "Locators"): a local path, a file:// URL, an
// http(s):// URL, ALIAS:KEY in a configured (or registered) store, and —
// reserved for the native catalog — catalog:NAME. Parsing reads no file
// and no environment; resolving is the caller's (a Context's) business.
#pragma once

#include <string>
#include <string_view>

#include "vigilo/common/result.h"

namespace vigilo::engine {

enum class LocatorKind {
  kPath,     // a local path (a file:// URL is decoded into one)
  kUrl,      // http:// or https://, read where it lies
  kAliasKey, // ALIAS:KEY: KEY inside the store a storage alias names
  kCatalog,  // catalog:NAME (reserved: the native catalog is not built yet)
};

struct Locator {
  LocatorKind kind = LocatorKind::kPath;
  std::string path;   // kPath: the path as given or decoded from file://
  std::string url;    // kUrl: as given (secret: never printed)
  std::string alias;  // kAliasKey
  std::string key;    // kAliasKey (may be empty: the store's top), kCatalog: the name
};

// http(s):// (any case) is a URL; file:// is decoded (store::DecodeFileUrl);
// catalog:NAME is the catalog form; TEXT whose part before the first ':'
// is a valid storage alias (1–128 of [A-Za-z0-9_-]) is ALIAS:KEY; another
// SCHEME:// is InvalidArgument (it belongs in the stores config, under an
// alias; the message never quotes it); anything else is a local path (a
// path whose first segment holds ':' is written ./NAME). Empty text is
// InvalidArgument.
Result<Locator> ParseLocator(std::string_view text);

}  // namespace vigilo::engine
