// Opening the control state a locator names, and how a store is named in
// the ledger.
#include <filesystem>

#include "sqlite_db.h"
#include "vigilo/common/paths.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/postgres_control_store.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/store/config.h"

namespace vigilo::control {
namespace {

constexpr std::string_view kLocalPrefix = "local:";    // legacy: this host's directory
constexpr std::string_view kHostPrefix = "local://";  // local://<host>/<path>

}  // namespace

Result<std::unique_ptr<ControlStore>> OpenControlStore(std::string_view locator, const SqliteOptions& options) {
  if (locator == kMemoryControlLocator) return OpenSqliteControlStore(std::string(sqlite::kInMemoryDatabase), options);
  if (locator.empty()) return InvalidArgument("the control locator is empty");
  if (IsPostgresLocator(locator)) {
    // The same injected clock and random source, whichever backend.
    PostgresOptions postgres;
    postgres.wall_clock = options.wall_clock;
    postgres.random = options.random;
    postgres.create = options.create;
    return OpenPostgresControlStore(std::string(locator), postgres);
  }
  std::filesystem::path path(locator);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) path /= kControlDatabaseFile;
  return OpenSqliteControlStore(path.string(), options);
}

Status ValidateHostName(std::string_view host) {
  if (host.empty()) {
    return InvalidArgument("this host's name is unknown (`host` is empty), and a directory store's ledger id "
                           "names its host");
  }
  if (host.size() > kMaxHostNameBytes) {
    return InvalidArgument("a host name is at most " + std::to_string(kMaxHostNameBytes) + " bytes, got " +
                           std::to_string(host.size()));
  }
  for (char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return InvalidArgument("a host name is made of [A-Za-z0-9._-]; `host` has another character");
  }
  return Status::Ok();
}

bool LedgerStore::IsDirectoryOf(std::string_view this_host) const {
  return kind == Kind::kLocalDirectory && (host.empty() || host == this_host);
}

bool LedgerStore::IsAnotherHostsDirectory(std::string_view this_host) const {
  return kind == Kind::kLocalDirectory && !host.empty() && host != this_host;
}

Result<LedgerStore> ParseLedgerStoreId(std::string_view id) {
  LedgerStore out;
  auto bad = [&id](std::string_view why) {
    return InvalidFormat("the ledger store id \"" + std::string(id) + "\" " + std::string(why));
  };
  if (id.starts_with(kHostPrefix)) {
    std::string_view rest = id.substr(kHostPrefix.size());
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return bad("names no path after its host");
    out.kind = LedgerStore::Kind::kLocalDirectory;
    out.host = std::string(rest.substr(0, slash));
    out.path = std::string(rest.substr(slash));
    if (!ValidateHostName(out.host).ok()) return bad("has a malformed host name");
    return out;
  }
  if (id.starts_with(kLocalPrefix)) {
    out.kind = LedgerStore::Kind::kLocalDirectory;
    out.path = std::string(id.substr(kLocalPrefix.size()));
    if (!out.path.starts_with('/')) return bad("names no absolute path");
    return out;
  }
  if (!ValidateStorageAlias(id).ok()) return bad("is neither an alias nor a local directory");
  out.alias = std::string(id);
  return out;
}

Result<std::string> LedgerStoreId(std::string_view spec, const store::ResolvedStore& resolved, std::string_view host) {
  if (resolved.alias != store::kDefaultLocalAlias) return resolved.alias;
  VIGILO_RETURN_IF_ERROR(ValidateHostName(host));
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
  return std::string(kHostPrefix) + std::string(host) + text;
}

Result<std::string> StoreSpecForLedgerId(std::string_view id, std::string_view host) {
  VIGILO_ASSIGN_OR_RETURN(LedgerStore parsed, ParseLedgerStoreId(id));
  if (parsed.kind == LedgerStore::Kind::kAlias) return parsed.alias;
  if (parsed.IsDirectoryOf(host)) return parsed.path;
  return InvalidArgument("the store " + std::string(id) + " is the directory " + parsed.path + " on the host " +
                         parsed.host + ", not on this host (" + (host.empty() ? "unnamed" : std::string(host)) +
                         "), where that path is another directory: read it on " + parsed.host +
                         ", or name a copy of it here with `store`")
      .WithPath("store");
}

std::optional<std::string> LocalDirectoryOfLedgerId(std::string_view id, std::string_view host) {
  Result<LedgerStore> parsed = ParseLedgerStoreId(id);
  if (!parsed.ok() || !parsed->IsDirectoryOf(host)) return std::nullopt;
  return parsed->path;
}

bool SameLedgerStore(std::string_view recorded, std::string_view current) {
  if (recorded == current) return true;
  Result<LedgerStore> r = ParseLedgerStoreId(recorded);
  Result<LedgerStore> c = ParseLedgerStoreId(current);
  if (!r.ok() || !c.ok() || !r->legacy() || c->kind != LedgerStore::Kind::kLocalDirectory) return false;
  return r->path == c->path;  // a legacy id is a directory of this host, which made `current`
}

std::vector<std::string> LedgerStoreIdForms(std::string_view current) {
  std::vector<std::string> forms{std::string(current)};
  Result<LedgerStore> c = ParseLedgerStoreId(current);
  if (c.ok() && c->kind == LedgerStore::Kind::kLocalDirectory && !c->legacy()) {
    forms.push_back(std::string(kLocalPrefix) + c->path);
  }
  return forms;
}

std::string DescribeLedgerStore(std::string_view id, std::string_view host) {
  Result<LedgerStore> parsed = ParseLedgerStoreId(id);
  if (!parsed.ok()) return std::string(id);
  if (parsed->kind == LedgerStore::Kind::kAlias) return parsed->alias;
  if (parsed->IsDirectoryOf(host)) return parsed->path;
  return parsed->path + " on host " + parsed->host;
}

}  // namespace vigilo::control
