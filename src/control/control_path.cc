// Where the control database lives ($VIGILO_CONTROL, else the XDG data
// directory), and how a store is named in the ledger.
#include <cstdlib>
#include <filesystem>

#include "vigilo/control/cleanup.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/store/config.h"

namespace vigilo::control {
namespace {

constexpr std::string_view kDatabaseFile = "control.sqlite3";
constexpr std::string_view kLocalPrefix = "local:";

std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

Result<std::string> ControlDatabasePath() {
  if (std::optional<std::string> explicit_path = Env("VIGILO_CONTROL")) {
    std::error_code ec;
    if (std::filesystem::is_directory(*explicit_path, ec)) {
      return (std::filesystem::path(*explicit_path) / kDatabaseFile).string();
    }
    return *explicit_path;
  }
  std::optional<std::string> data_home = Env("XDG_DATA_HOME");
  if (data_home.has_value() && data_home->front() == '/') {
    return (std::filesystem::path(*data_home) / "vigilo" / kDatabaseFile).string();
  }
  if (std::optional<std::string> home = Env("HOME")) {
    return (std::filesystem::path(*home) / ".local/share/vigilo" / kDatabaseFile).string();
  }
  return InvalidArgument("no place for the control database: set VIGILO_CONTROL (or XDG_DATA_HOME or HOME)");
}

Result<std::unique_ptr<ControlStore>> OpenDefaultControlStore(const SqliteOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(std::string path, ControlDatabasePath());
  return OpenSqliteControlStore(path, options);
}

Result<std::string> LedgerStoreId(std::string_view spec, const store::ResolvedStore& resolved) {
  if (resolved.alias != store::kDefaultLocalAlias) return resolved.alias;
  std::string path;
  if (spec.starts_with("file://")) {
    VIGILO_ASSIGN_OR_RETURN(path, store::DecodeFileUrl(spec));
  } else {
    path = std::string(spec);
  }
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  if (ec) return IoError("cannot resolve the store directory " + path + ": " + ec.message());
  std::string text = absolute.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return std::string(kLocalPrefix) + text;
}

std::string StoreSpecForLedgerId(std::string_view store_id) {
  if (store_id.starts_with(kLocalPrefix)) return std::string(store_id.substr(kLocalPrefix.size()));
  return std::string(store_id);
}

}  // namespace vigilo::control
