// What a process's environment says about where vigilo's state lives, as
// plain data. Only the edge reads the environment (the CLI, later the
// bindings): it calls SettingsFromEnvironment with a lookup function and
// hands the result to a Context. Tests pass a map; nothing below the edge
// calls getenv, so two Contexts in one process can differ.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"

namespace vigilo::engine {

// The value of an environment variable, nullopt when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

struct Settings {
  // The stores config (docs/format/stores.md): `stores_file` must exist
  // (--stores FILE, else $VIGILO_STORES); otherwise `default_stores_file`,
  // where a missing file is an empty config; neither: an empty config.
  std::optional<std::string> stores_file;
  std::optional<std::string> default_stores_file;
  // The control state's locator (control::OpenControlStore): $VIGILO_CONTROL,
  // else $XDG_DATA_HOME/vigilo/control.sqlite3, else
  // ~/.local/share/vigilo/control.sqlite3. Empty when none can be placed:
  // a command that needs control state then fails, naming the variables.
  std::string control;
  // The cache directory of http(s) publication reads
  // (docs/format/http-reading.md, "The cache directory"); empty: no cache.
  std::string cache_directory;
  // $VIGILO_CACHE_MAX_BYTES as given (checked when the cache is used).
  std::optional<std::string> cache_max_bytes;
  // Where `index eval --base` keeps exact neighbours ($XDG_CACHE_HOME/vigilo/
  // ground-truth, else ~/.cache/vigilo/ground-truth; VIGILO_CACHE does not
  // apply); empty when neither variable names an absolute directory.
  std::string ground_truth_directory;
  // This machine's name, which qualifies the ledger id of a directory store
  // ("local://<host>/<path>", docs/format/stores.md "Ledger store ids") so
  // that hosts sharing one control database never take each other's
  // directories for their own. Not from the environment: the edge reads
  // gethostname(2) (the CLI's context.cc); tests and bindings set their
  // own. Empty: writing to or cleaning a directory store is refused.
  std::string host;
};

// The lookup order of docs/format/stores.md and http-reading.md: empty
// values count as unset, and relative XDG directories are ignored (the XDG
// base-directory rule).
Settings SettingsFromEnvironment(const EnvironmentLookup& env);

// The cache bound: `cache_max_bytes`, else store::kDefaultCacheMaxBytes;
// InvalidArgument (naming VIGILO_CACHE_MAX_BYTES) unless a positive decimal.
Result<uint64_t> CacheMaxBytes(const Settings& settings);

}  // namespace vigilo::engine
