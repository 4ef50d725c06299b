// Opening the control state a locator names, and how a store is named in
// the ledger.
#include <filesystem>

#include "sqlite_db.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/store/config.h"

namespace vigilo::control {
namespace {

constexpr std::string_view kLocalPrefix = "local:";

}  // namespace

Result<std::unique_ptr<ControlStore>> OpenControlStore(std::string_view locator, const SqliteOptions& options) {
  if (locator == kMemoryControlLocator) return OpenSqliteControlStore(std::string(sqlite::kInMemoryDatabase), options);
  if (locator.empty()) return InvalidArgument("the control locator is empty");
  std::filesystem::path path(locator);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) path /= kControlDatabaseFile;
  return OpenSqliteControlStore(path.string(), options);
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
