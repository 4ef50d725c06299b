#include "vigilo/engine/settings.h"

#include <charconv>

#include "vigilo/store/caching_store.h"

namespace vigilo::engine {
namespace {

std::optional<std::string> NonEmpty(const EnvironmentLookup& env, std::string_view name) {
  std::optional<std::string> value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

// $XDG_<kind>_HOME when absolute, else $HOME/<fallback>; nullopt when neither.
std::optional<std::string> XdgDirectory(const EnvironmentLookup& env, std::string_view variable,
                                        std::string_view home_fallback) {
  std::optional<std::string> xdg = NonEmpty(env, variable);
  if (xdg && xdg->front() == '/') return xdg;
  std::optional<std::string> home = NonEmpty(env, "HOME");
  if (home && home->front() == '/') return *home + "/" + std::string(home_fallback);
  return std::nullopt;
}

}  // namespace

Settings SettingsFromEnvironment(const EnvironmentLookup& env) {
  Settings s;
  s.stores_file = NonEmpty(env, "VIGILO_STORES");
  if (std::optional<std::string> data = XdgDirectory(env, "XDG_DATA_HOME", ".local/share")) {
    s.default_stores_file = *data + "/vigilo/stores.json";
    s.control = *data + "/vigilo/control.sqlite3";
  }
  if (std::optional<std::string> control = NonEmpty(env, "VIGILO_CONTROL")) s.control = *control;
  const std::optional<std::string> cache = XdgDirectory(env, "XDG_CACHE_HOME", ".cache");
  const std::optional<std::string> cache_switch = env("VIGILO_CACHE");
  if (cache && !(cache_switch && *cache_switch == "off")) s.cache_directory = *cache + "/vigilo/ranges";
  if (cache) s.ground_truth_directory = *cache + "/vigilo/ground-truth";
  s.cache_max_bytes = env("VIGILO_CACHE_MAX_BYTES");
  return s;
}

Result<uint64_t> CacheMaxBytes(const Settings& settings) {
  if (!settings.cache_max_bytes) return store::kDefaultCacheMaxBytes;
  std::string_view v = *settings.cache_max_bytes;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || value == 0) {
    return InvalidArgument("VIGILO_CACHE_MAX_BYTES: '" + std::string(v) + "' is not a positive number of bytes");
  }
  return value;
}

}  // namespace vigilo::engine
