// Storage aliases (seed 004: 1–128 of [A-Za-z0-9_-]) and the JSON config
// that maps them to backends with their declared guarantees. A reference
// records only the alias; buckets, endpoints, credentials and signed URLs
// live here and never appear in a reference, a manifest, a log line or an
// error message (errors name the alias and the JSON field instead). Format
// and lookup order: docs/format/stores.md.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/store/backends.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

// The alias a store named by a plain path or file:// URL records. Reserved:
// a config may not define it, so it always means "the directory given".
inline constexpr std::string_view kDefaultLocalAlias = "local";

// A config file larger than this is LimitExceeded (it lists aliases, not data).
inline constexpr size_t kMaxStoresConfigBytes = 1 << 20;

class StoreConfig {
 public:
  // The config file at `path` (which file is in force is the edge's
  // decision: engine::Settings, docs/format/stores.md). A missing file is
  // NotFound, or an empty config that still names `path` as its origin when
  // `missing_is_empty` (the default location). Nothing here reads the
  // environment.
  // Each entry's scheme must be one of `backends`, which checks the entry.
  static Result<StoreConfig> LoadFile(const std::string& path, bool missing_is_empty,
                                      const BackendRegistry& backends = BackendRegistry::Builtin());
  // Strict parse (unknown fields invalid); `origin` names the file in errors.
  static Result<StoreConfig> Parse(std::string_view json, std::string_view origin,
                                   const BackendRegistry& backends = BackendRegistry::Builtin());

  const StoreEntry* Find(std::string_view alias) const;
  size_t size() const { return entries_.size(); }
  // The file the config came from ("" when none was read).
  const std::string& origin() const { return origin_; }
  // The backends its entries were checked against (they open them too).
  const BackendRegistry& backends() const { return *backends_; }

 private:
  std::map<std::string, StoreEntry, std::less<>> entries_;
  std::string origin_;
  const BackendRegistry* backends_ = &BackendRegistry::Builtin();
};

struct ResolvedStore {
  std::string alias;                   // what references written to it record
  std::unique_ptr<ObjectStore> store;
  std::string display;                 // safe to print: the alias, or the local path the user typed
};

// The absolute directory a file:// URL names (RFC 8089: an empty host or
// "localhost", percent-decoded; no query, fragment or %00). InvalidArgument
// otherwise; the message never quotes the URL.
Result<std::string> DecodeFileUrl(std::string_view url);

// `--store SPEC`: a configured alias first; else a file:// URL, ".", ".."
// or a value containing '/' is a local directory (alias "local"); another
// URL is refused (it belongs in the config, under an alias); anything else
// is InvalidArgument, suggesting "./SPEC" when SPEC is alias-shaped.
Result<ResolvedStore> ResolveStore(const StoreConfig& config, std::string_view spec, const OpenOptions& options);

// `inner` behind the capabilities an operator declared for it: a guarantee
// (writable, conditional create, read after create) counts only if declared
// and the backend has it too. Every call forwards, a batch as one batch.
std::unique_ptr<ObjectStore> DeclareCapabilities(std::unique_ptr<ObjectStore> inner, const Capabilities& declared);

// The dispatcher: the store of one configured alias, opened by the backend
// its scheme names (options.backends), behind the capabilities its operator
// declared and, for a remote backend, behind options.governor
// (GovernedStore: the only place that retries). Errors name the alias.
Result<std::unique_ptr<ObjectStore>> OpenConfiguredStore(const StoreEntry& entry, const OpenOptions& options);

// The stores one reading command uses: the one it was pointed at, plus any
// configured alias a reference's storage_alias names, opened read-only on
// first use and kept. Thread-safe.
class StoreSet {
 public:
  // `governor` (may be null when no remote alias is used) governs the
  // aliases opened later; it outlives the set. `in_process` are stores a
  // caller registered under an alias (engine::Context::RegisterStore), found
  // before the config; they outlive the set.
  using InProcessStores = std::map<std::string, ObjectStore*, std::less<>>;
  StoreSet(StoreConfig config, ResolvedStore primary, RequestGovernor* governor = nullptr,
           InProcessStores in_process = {});

  ResolvedStore& primary() { return primary_; }

  // The primary store when `alias` is the one it records, else a configured
  // alias; NotFound for an alias nobody configured, InvalidFormat for one
  // that is not an alias at all.
  Result<ObjectStore*> ForAlias(std::string_view alias);

 private:
  StoreConfig config_;
  ResolvedStore primary_;
  RequestGovernor* governor_;
  InProcessStores in_process_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<ObjectStore>, std::less<>> opened_;
};

}  // namespace vigilo::store
