// Where the control database lives ($VIGILO_CONTROL, else the XDG data
// directory), and how a store is named in the ledger.
#include <cstdlib>
#include <filesystem>

#include "vigilo/control/cleanup.h"
#include "vigilo/control/sqlite_control_store.h"

namespace vigilo::control {
namespace {

constexpr std::string_view kDatabaseFile = "control.sqlite3";
constexpr std::string_view kLocalPrefix = "local:";

std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The directory a file:// URL names (RFC 8089: empty host or localhost,
// percent-decoded), as store::ResolveStore reads it.
Result<std::string> FileUrlPath(std::string_view url) {
  std::string_view rest = url.substr(std::string_view("file://").size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return InvalidArgument("a file:// URL needs an absolute path (file:///dir)");
  std::string_view encoded = rest.substr(slash);
  std::string path;
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      path.push_back(encoded[i]);
      continue;
    }
    int hi = i + 2 < encoded.size() ? HexDigit(encoded[i + 1]) : -1;
    int lo = i + 2 < encoded.size() ? HexDigit(encoded[i + 2]) : -1;
    if (hi < 0 || lo < 0) return InvalidArgument("a file:// URL has a '%' not followed by two hex digits");
    path.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return path;
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
    VIGILO_ASSIGN_OR_RETURN(path, FileUrlPath(spec));
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
