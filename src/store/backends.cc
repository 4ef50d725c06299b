#include "vigilo/store/backends.h"

#include <utility>
#include <vector>

#include "vigilo/store/http_store.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/s3_store.h"

namespace vigilo::store {
namespace {

Status NoSettings(const StoreEntry& entry, const std::string& path) {
  if (entry.backend.is_null()) return Status::Ok();
  return InvalidFormat(entry.scheme + ":// stores take no backend settings").WithPath(path + ".backend");
}

// file://: a directory on this host (local_store.h).
class FileBackend final : public Backend {
 public:
  bool remote() const override { return false; }
  Status CheckEntry(const StoreEntry& entry, const std::string& path) const override {
    return NoSettings(entry, path);
  }
  Result<std::unique_ptr<ObjectStore>> Open(const StoreEntry& entry, const OpenOptions& options) const override {
    return OpenLocalStore(entry.local_root, {.writable = options.writable && entry.declared.writable,
                                             .create_root = options.create_root});
  }
};

// http:// and https://: a read-only static web server (http_store.h).
class HttpBackend final : public Backend {
 public:
  bool remote() const override { return true; }
  Status CheckEntry(const StoreEntry& entry, const std::string& path) const override {
    return NoSettings(entry, path);
  }
  Result<std::unique_ptr<ObjectStore>> Open(const StoreEntry& entry, const OpenOptions&) const override {
    return OpenHttpBackend(entry.url);
  }
};

bool IsSchemeName(std::string_view scheme) {
  if (scheme.empty() || scheme[0] < 'a' || scheme[0] > 'z') return false;
  for (char c : scheme) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

BackendRegistry MakeBuiltin() {
  BackendRegistry registry;
  auto http = std::make_shared<HttpBackend>();
  (void)registry.Register("file", std::make_shared<FileBackend>());
  (void)registry.Register("http", http);
  (void)registry.Register("https", http);
  (void)registry.Register("s3", MakeS3Backend());  // without the environment: s3_store.h
  return registry;
}

}  // namespace

const BackendRegistry& BackendRegistry::Builtin() {
  static const BackendRegistry builtin = MakeBuiltin();
  return builtin;
}

Status BackendRegistry::Register(std::string scheme, std::shared_ptr<const Backend> backend) {
  if (!IsSchemeName(scheme)) return InvalidArgument("a backend scheme is lowercase [a-z][a-z0-9+.-]*");
  if (backend == nullptr) return InvalidArgument("no backend given for scheme " + scheme);
  if (backends_.contains(scheme)) return InvalidArgument("a backend for " + scheme + ":// is registered already");
  backends_.emplace(std::move(scheme), std::move(backend));
  return Status::Ok();
}

Status BackendRegistry::Replace(std::string_view scheme, std::shared_ptr<const Backend> backend) {
  auto it = backends_.find(scheme);
  if (it == backends_.end()) return InvalidArgument("no backend for " + std::string(scheme) + ":// to replace");
  if (backend == nullptr) return InvalidArgument("no backend given for scheme " + std::string(scheme));
  it->second = std::move(backend);
  return Status::Ok();
}

const Backend* BackendRegistry::Find(std::string_view scheme) const {
  auto it = backends_.find(scheme);
  return it == backends_.end() ? nullptr : it->second.get();
}

std::string BackendRegistry::SchemeList() const {
  // The conventional order first, then any other scheme alphabetically;
  // "a://, b:// or c://".
  std::vector<std::string> names;
  for (std::string_view known : {"file", "http", "https", "s3"}) {
    if (backends_.contains(known)) names.push_back(std::string(known) + "://");
  }
  for (const auto& [scheme, _] : backends_) {
    if (scheme != "file" && scheme != "http" && scheme != "https" && scheme != "s3") names.push_back(scheme + "://");
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace vigilo::store
