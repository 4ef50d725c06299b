#include "vigilo/store/config.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <initializer_list>
#include <utility>

#include "json_fields.h"
#include "vigilo/common/file.h"
#include "vigilo/common/paths.h"
#include "vigilo/json/parse.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/local_store.h"

namespace vigilo::store {
namespace {

// Every config error says which file it came from. The message never
// quotes a URL: errors name the alias and the JSON field instead.
Status InConfig(const Status& s, std::string_view origin) {
  Status out(s.code(), std::string(s.message()) + " (in stores config " + std::string(origin) + ")");
  if (!s.path().empty()) out = std::move(out).WithPath(std::string(s.path()));
  if (s.offset()) out = std::move(out).WithOffset(*s.offset());
  return out;
}

using json_fields::BoolAt;
using json_fields::CheckMembers;
using json_fields::FieldError;
using json_fields::ObjectAt;


int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}


// "s3://…" and the like: a scheme (RFC 3986: a letter, then letters, digits,
// '+', '-', '.') followed by "://".
std::optional<std::string_view> UrlScheme(std::string_view s) {
  size_t sep = s.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::nullopt;
  std::string_view scheme = s.substr(0, sep);
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!letter(scheme[0])) return std::nullopt;
  for (char c : scheme) {
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') return std::nullopt;
  }
  return scheme;
}

Result<StoreEntry> ParseEntry(const std::string& alias, const json::Value& value, const std::string& path,
                              const BackendRegistry& backends) {
  VIGILO_ASSIGN_OR_RETURN(const json::Object* object, ObjectAt(value, path));
  VIGILO_RETURN_IF_ERROR(CheckMembers(*object, path, {"url"}, {"backend", "guarantees", "writable"}));
  StoreEntry entry;
  entry.alias = alias;

  const std::string url_path = path + ".url";
  const json::Value& url = *object->Find("url");
  if (!url.is_string()) return FieldError(url_path, "expected a string, got " + std::string(json::KindName(url.kind())));
  entry.url = url.as_string();
  std::optional<std::string_view> scheme = UrlScheme(entry.url);
  if (!scheme) return FieldError(url_path, "not a URL (expected " + backends.SchemeList() + ")");
  entry.scheme = std::string(*scheme);  // case-sensitive: FILE:// is no scheme of ours
  const Backend* backend = backends.Find(entry.scheme);
  if (backend == nullptr) return FieldError(url_path, "unsupported URL scheme (expected " + backends.SchemeList() + ")");
  if (entry.scheme == "file") {
    Result<std::string> root = DecodeFileUrl(entry.url);
    if (!root.ok()) return FieldError(url_path, std::string(root.status().message()));
    entry.local_root = std::move(root).value();
  }

  VIGILO_ASSIGN_OR_RETURN(entry.declared.writable, BoolAt(*object, path, "writable", false));
  entry.declared.conditional_create = false;
  entry.declared.read_after_create = false;
  if (const json::Value* guarantees = object->Find("guarantees")) {
    const std::string g_path = path + ".guarantees";
    VIGILO_ASSIGN_OR_RETURN(const json::Object* g, ObjectAt(*guarantees, g_path));
    VIGILO_RETURN_IF_ERROR(CheckMembers(*g, g_path, {"conditional_create", "read_after_create"}, {}));
    VIGILO_ASSIGN_OR_RETURN(entry.declared.conditional_create, BoolAt(*g, g_path, "conditional_create", false));
    VIGILO_ASSIGN_OR_RETURN(entry.declared.read_after_create, BoolAt(*g, g_path, "read_after_create", false));
  }
  if (const json::Value* settings = object->Find("backend")) {
    VIGILO_RETURN_IF_ERROR(ObjectAt(*settings, path + ".backend").status());
    entry.backend = *settings;
  }
  VIGILO_RETURN_IF_ERROR(backend->CheckEntry(entry, path));
  return entry;
}

// Reads a whole config file (at most kMaxStoresConfigBytes).
Result<std::string> ReadConfigFile(const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path));
  if (file.size > kMaxStoresConfigBytes) {
    return LimitExceeded("a stores config is at most " + std::to_string(kMaxStoresConfigBytes) + " bytes")
        .WithPath(path);
  }
  std::string bytes(static_cast<size_t>(file.size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(file.fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, "cannot read the stores config", path);
    if (n == 0) break;  // shrank while reading: parse what is there
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

// A configured store behind the capabilities its operator declared: a
// guarantee counts only if declared and the backend has it too.
class DeclaredStore final : public ForwardingStore {
 public:
  DeclaredStore(std::unique_ptr<ObjectStore> inner, const Capabilities& declared) : ForwardingStore(std::move(inner)) {
    const Capabilities& own = ForwardingStore::capabilities();
    capabilities_ = own;
    capabilities_.writable = own.writable && declared.writable;
    capabilities_.conditional_create = own.conditional_create && declared.conditional_create;
    capabilities_.read_after_create = own.read_after_create && declared.read_after_create;
  }

  const Capabilities& capabilities() const override { return capabilities_; }

 private:
  Capabilities capabilities_;
};

std::string Quoted(std::string_view alias) { return "\"" + std::string(alias) + "\""; }

Result<ResolvedStore> OpenLocalPath(std::string root, std::string display, const OpenOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> store,
                          OpenLocalStore(root, {.writable = options.writable, .create_root = options.create_root}));
  if (options.writable) VIGILO_RETURN_IF_ERROR(RequireWritable(*store, kDefaultLocalAlias));
  return ResolvedStore{std::string(kDefaultLocalAlias), std::move(store), std::move(display)};
}

}  // namespace

Result<std::string> DecodeFileUrl(std::string_view url) {
  constexpr std::string_view kPrefix = "file://";
  std::string_view rest = url.substr(kPrefix.size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return InvalidArgument("a file:// URL needs an absolute path (file:///dir)");
  std::string_view host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") {
    return InvalidArgument("a file:// URL may name no host but localhost (file:///dir)");
  }
  std::string_view encoded = rest.substr(slash);
  if (encoded.find_first_of("?#") != std::string_view::npos) {
    return InvalidArgument("a file:// URL may have no query or fragment");
  }
  std::string path;
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      path.push_back(encoded[i]);
      continue;
    }
    int hi = i + 2 < encoded.size() ? HexDigit(encoded[i + 1]) : -1;
    int lo = i + 2 < encoded.size() ? HexDigit(encoded[i + 2]) : -1;
    if (hi < 0 || lo < 0) return InvalidArgument("a file:// URL has a '%' not followed by two hex digits");
    if (hi == 0 && lo == 0) return InvalidArgument("a file:// URL may not contain %00");
    path.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return path;
}

Result<StoreConfig> StoreConfig::Parse(std::string_view json, std::string_view origin,
                                       const BackendRegistry& backends) {
  json::ParseOptions parse_options;
  parse_options.max_bytes = kMaxStoresConfigBytes;
  Result<json::Value> parsed = json::Parse(json, parse_options);
  if (!parsed.ok()) {
    Status s = parsed.status();
    // The parser quotes a duplicated key, which may be a URL typed as an alias.
    if (s.message().starts_with("duplicate object key")) {
      Status bare(s.code(), "duplicate object key");
      s = s.offset() ? std::move(bare).WithOffset(*s.offset()) : std::move(bare);
    }
    return InConfig(s, origin);
  }
  StoreConfig config;
  config.origin_ = std::string(origin);
  config.backends_ = &backends;
  auto parse = [&]() -> Status {
    VIGILO_ASSIGN_OR_RETURN(const json::Object* top, ObjectAt(*parsed, "$"));
    VIGILO_RETURN_IF_ERROR(CheckMembers(*top, "$", {"stores", "version"}, {}));
    const json::Value& version = *top->Find("version");
    if (!version.is_number() || version.as_number().kind() != json::Number::Kind::kU64 ||
        version.as_number().u64() != 1) {
      return FieldError("$.version", "unsupported stores config version (this build reads version 1)");
    }
    VIGILO_ASSIGN_OR_RETURN(const json::Object* stores, ObjectAt(*top->Find("stores"), "$.stores"));
    size_t index = 0;
    for (const auto& [alias, value] : *stores) {
      if (Status s = ValidateStorageAlias(alias); !s.ok()) {
        return FieldError("$.stores", "member #" + std::to_string(index) + " (in key order) is not a valid storage alias: " +
                                          std::string(s.message()));
      }
      const std::string path = "$.stores." + alias;
      if (alias == kDefaultLocalAlias) {
        return FieldError(path, "the alias \"local\" is reserved for stores named by a path");
      }
      VIGILO_ASSIGN_OR_RETURN(StoreEntry entry, ParseEntry(alias, value, path, backends));
      config.entries_.emplace(alias, std::move(entry));
      ++index;
    }
    return Status::Ok();
  };
  if (Status s = parse(); !s.ok()) return InConfig(s, origin);
  return config;
}

Result<StoreConfig> StoreConfig::LoadFile(const std::string& path, bool missing_is_empty,
                                          const BackendRegistry& backends) {
  Result<std::string> bytes = ReadConfigFile(path);
  if (!bytes.ok()) {
    if (missing_is_empty && bytes.status().code() == StatusCode::kNotFound) {
      StoreConfig empty;
      empty.origin_ = path;
      empty.backends_ = &backends;
      return empty;
    }
    return bytes.status();
  }
  return Parse(*bytes, path, backends);
}

std::unique_ptr<ObjectStore> DeclareCapabilities(std::unique_ptr<ObjectStore> inner, const Capabilities& declared) {
  return std::make_unique<DeclaredStore>(std::move(inner), declared);
}

const StoreEntry* StoreConfig::Find(std::string_view alias) const {
  auto it = entries_.find(alias);
  return it == entries_.end() ? nullptr : &it->second;
}

Result<std::unique_ptr<ObjectStore>> OpenConfiguredStore(const StoreEntry& entry, const OpenOptions& options) {
  const BackendRegistry& backends = options.backends != nullptr ? *options.backends : BackendRegistry::Builtin();
  auto named = [&](const Status& s) {
    Status out(s.code(), "store alias " + Quoted(entry.alias) + ": " + std::string(s.message()));
    return s.path().empty() ? out : std::move(out).WithPath(std::string(s.path()));
  };
  const Backend* backend = backends.Find(entry.scheme);
  if (backend == nullptr) return named(InvalidArgument("no backend serves " + entry.scheme + ":// stores here"));
  if (backend->remote() && options.governor == nullptr) {
    return named(InvalidArgument("a remote store is opened with a request governor"));
  }
  Result<std::unique_ptr<ObjectStore>> opened = backend->Open(entry, options);
  if (!opened.ok()) return named(opened.status());
  std::unique_ptr<ObjectStore> store = std::move(opened).value();
  if (backend->remote()) store = std::make_unique<GovernedStore>(std::move(store), *options.governor);
  store = DeclareCapabilities(std::move(store), entry.declared);
  if (options.writable) VIGILO_RETURN_IF_ERROR(RequireWritable(*store, entry.alias));
  return store;
}

Result<ResolvedStore> ResolveStore(const StoreConfig& config, std::string_view spec, const OpenOptions& options) {
  if (spec.empty()) return InvalidArgument("the store is empty: give a configured alias or a directory");
  if (const StoreEntry* entry = config.Find(spec)) {
    OpenOptions with_backends = options;
    if (with_backends.backends == nullptr) with_backends.backends = &config.backends();
    VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> store, OpenConfiguredStore(*entry, with_backends));
    return ResolvedStore{entry->alias, std::move(store), entry->alias};
  }
  if (std::optional<std::string_view> scheme = UrlScheme(spec)) {
    if (*scheme != "file") {
      // Not echoed: such a URL may carry a bucket, an endpoint or a signature.
      return InvalidArgument(
          "a store URL other than file:// is not accepted here: configure it under an alias in the stores config "
          "and name the alias");
    }
    VIGILO_ASSIGN_OR_RETURN(std::string root, DecodeFileUrl(spec));
    return OpenLocalPath(std::move(root), std::string(spec), options);
  }
  if (spec.find('/') != std::string_view::npos || spec == "." || spec == "..") {
    return OpenLocalPath(std::string(spec), std::string(spec), options);
  }
  std::string where = config.origin().empty() ? "" : " in " + config.origin();
  if (ValidateStorageAlias(spec).ok()) {
    return InvalidArgument("no store alias " + Quoted(spec) + " is configured" + where + "; for a directory write ./" +
                           std::string(spec));
  }
  return InvalidArgument("the store is neither a configured alias nor a path containing '/'; for a directory "
                         "in the current one, put ./ before its name");
}

StoreSet::StoreSet(StoreConfig config, ResolvedStore primary, RequestGovernor* governor,
                   InProcessStores in_process)
    : config_(std::move(config)), primary_(std::move(primary)), governor_(governor),
      in_process_(std::move(in_process)) {}

Result<ObjectStore*> StoreSet::ForAlias(std::string_view alias) {
  VIGILO_RETURN_IF_ERROR(ValidateStorageAlias(alias));
  if (alias == primary_.alias) return primary_.store.get();
  if (auto it = in_process_.find(alias); it != in_process_.end()) return it->second;
  std::lock_guard lock(mu_);
  if (auto it = opened_.find(alias); it != opened_.end()) return it->second.get();
  const StoreEntry* entry = config_.Find(alias);
  if (entry == nullptr) {
    std::string where = config_.origin().empty() ? " (no stores config was found)" : " in " + config_.origin();
    return NotFound("a reference names store alias " + Quoted(alias) + ", which is not configured" + where +
                    "; the store in use is " + Quoted(primary_.alias));
  }
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> store, OpenConfiguredStore(*entry, OpenOptions{.governor = governor_, .backends = &config_.backends()}));
  ObjectStore* raw = store.get();
  opened_.emplace(std::string(alias), std::move(store));
  return raw;
}

}  // namespace vigilo::store
