// One store dispatcher by registered scheme. A stores config entry names a
// URL; its scheme picks a Backend from a BackendRegistry, which checks the
// entry when the config is read and opens it on use. The core parses only
// what every entry has (url, writable, guarantees); whatever else a backend
// needs (region, endpoint, addressing, credential source) lives in the
// entry's "backend" object, which only that backend reads. A backend makes
// one attempt per call; the dispatcher (OpenConfiguredStore, config.h)
// puts a remote one behind the request governor and every one behind the
// capabilities its operator declared. Format: docs/format/stores.md.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/json/value.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

class RequestGovernor;
class BackendRegistry;

struct StoreEntry {
  std::string alias;
  std::string scheme;      // the URL's scheme, lowercase: "file", "http", "https", "s3"…
  std::string url;         // as configured (secret: never printed)
  std::string local_root;  // file: the absolute directory the URL names (percent-decoded)
  // The entry's "backend" member (null when absent): settings only its
  // scheme's backend reads.
  json::Value backend;
  // What the operator declares for this alias/endpoint: `writable` and the
  // two guarantees; single_ranges and revisions come from the backend.
  Capabilities declared;
};

struct OpenOptions {
  bool writable = false;     // refuse (RequireWritable) a store that cannot be written safely
  bool create_root = false;  // local directories: create the root if missing
  // Every request of a remote backend runs under it (it outlives the store);
  // opening a remote alias without one is InvalidArgument.
  RequestGovernor* governor = nullptr;
  // The backends by scheme; null: BackendRegistry::Builtin().
  const BackendRegistry* backends = nullptr;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Reached over a network: opened behind the request governor.
  virtual bool remote() const = 0;
  // The entry's URL and "backend" settings, checked when the config is
  // read. `path` is the entry's JSON path ("$.stores.ALIAS"): errors name
  // the field (path + ".backend.region"), never quote the URL.
  virtual Status CheckEntry(const StoreEntry& entry, const std::string& path) const = 0;
  // The bare store, one attempt per call (writable only if
  // options.writable and the entry declares it).
  virtual Result<std::unique_ptr<ObjectStore>> Open(const StoreEntry& entry, const OpenOptions& options) const = 0;
};

class BackendRegistry {
 public:
  // The backends this build has: file, http and https, and s3, which is
  // not built yet (opening an s3 alias is Unimplemented). Immutable.
  static const BackendRegistry& Builtin();

  BackendRegistry() = default;
  // InvalidArgument for a scheme that is not lowercase [a-z][a-z0-9+.-]* or
  // is registered already.
  Status Register(std::string scheme, std::shared_ptr<const Backend> backend);
  // The backend of a registered scheme, replaced (the edge gives the s3
  // backend its environment); InvalidArgument for a scheme not registered.
  Status Replace(std::string_view scheme, std::shared_ptr<const Backend> backend);
  const Backend* Find(std::string_view scheme) const;
  // "file://, http://, https://" for messages.
  std::string SchemeList() const;

 private:
  std::map<std::string, std::shared_ptr<const Backend>, std::less<>> backends_;
};

}  // namespace vigilo::store
