#include "vigilo/engine/context.h"

#include <utility>

#include "vigilo/common/paths.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/s3_store.h"

namespace vigilo::engine {

Context::Context(ContextOptions options) : options_(std::move(options)) {
  clock_ = options_.clock != nullptr ? options_.clock : &store::DefaultClock();
  wall_clock_ = options_.wall_clock != nullptr ? options_.wall_clock : &control::DefaultWallClock();
  random_ = options_.random != nullptr ? options_.random : &store::DefaultRandom();
}

Context::~Context() = default;

Result<std::unique_ptr<Context>> Context::Create(ContextOptions options) {
  std::unique_ptr<Context> context(new Context(std::move(options)));
  const ContextOptions& o = context->options_;
  if (o.environment) {
    VIGILO_RETURN_IF_ERROR(context->backends_.Replace("s3", store::MakeS3Backend({.environment = o.environment})));
  }
  VIGILO_ASSIGN_OR_RETURN(context->governor_,
                          store::RequestGovernor::Create(o.limits, *context->clock_, *context->random_));
  store::GovernorLimits reads = o.limits;
  reads.concurrent_remote_requests = o.publication_read_permits;
  VIGILO_ASSIGN_OR_RETURN(context->publication_governor_,
                          store::RequestGovernor::Create(reads, *context->clock_, *context->random_));
  return context;
}

Result<const store::StoreConfig*> Context::StoresConfig() {
  if (config_ == nullptr) {
    const Settings& s = options_.settings;
    store::StoreConfig config;
    if (s.stores_file) {
      VIGILO_ASSIGN_OR_RETURN(config, store::StoreConfig::LoadFile(*s.stores_file, /*missing_is_empty=*/false, backends_));
    } else if (s.default_stores_file) {
      VIGILO_ASSIGN_OR_RETURN(config, store::StoreConfig::LoadFile(*s.default_stores_file, /*missing_is_empty=*/true, backends_));
    }
    config_ = std::make_unique<store::StoreConfig>(std::move(config));
  }
  return config_.get();
}

Status Context::RegisterBackend(std::string scheme, std::shared_ptr<const store::Backend> backend) {
  if (config_ != nullptr) {
    return InvalidArgument("backends are registered before the stores config is read (it checks every entry's scheme)");
  }
  return backends_.Register(std::move(scheme), std::move(backend));
}

Status Context::RegisterStore(std::string alias, store::ObjectStore& store) {
  VIGILO_RETURN_IF_ERROR(ValidateStorageAlias(alias));
  if (alias == store::kDefaultLocalAlias) {
    return InvalidArgument("the alias \"local\" is reserved for stores named by a path");
  }
  registered_[std::move(alias)] = &store;
  return Status::Ok();
}

Result<bool> Context::KnowsAlias(std::string_view alias) {
  if (registered_.contains(alias)) return true;
  VIGILO_ASSIGN_OR_RETURN(const store::StoreConfig* config, StoresConfig());
  return config->Find(alias) != nullptr;
}

Result<store::ResolvedStore> Context::OpenStore(std::string_view spec, const store::OpenOptions& options) {
  if (auto it = registered_.find(spec); it != registered_.end()) {
    auto view = std::make_unique<store::ForwardingStore>(*it->second);
    if (options.writable) VIGILO_RETURN_IF_ERROR(store::RequireWritable(*view, it->first));
    return store::ResolvedStore{it->first, std::move(view), it->first};
  }
  VIGILO_ASSIGN_OR_RETURN(const store::StoreConfig* config, StoresConfig());
  store::OpenOptions governed = options;
  if (governed.governor == nullptr) governed.governor = governor_.get();
  return store::ResolveStore(*config, spec, governed);
}

Result<std::unique_ptr<store::StoreSet>> Context::OpenStoreSet(store::ResolvedStore primary) {
  VIGILO_ASSIGN_OR_RETURN(const store::StoreConfig* config, StoresConfig());
  return std::make_unique<store::StoreSet>(*config, std::move(primary), governor_.get(), registered_);
}

Result<control::ControlStore*> Context::OpenControl(bool create) {
  if (control_ != nullptr) return control_.get();
  const std::string& locator = options_.settings.control;
  if (locator.empty()) {
    return InvalidArgument("no place for the control database: set VIGILO_CONTROL (or XDG_DATA_HOME or HOME)");
  }
  control::SqliteOptions sqlite;
  sqlite.wall_clock = wall_clock_;
  sqlite.random = random_;
  sqlite.create = create;
  VIGILO_ASSIGN_OR_RETURN(control_, control::OpenControlStore(locator, sqlite));
  return control_.get();
}

Result<control::ControlStore*> Context::Control() { return OpenControl(/*create=*/true); }
Result<control::ControlStore*> Context::ExistingControl() { return OpenControl(/*create=*/false); }

void Context::UseControl(std::unique_ptr<control::ControlStore> control) { control_ = std::move(control); }

}  // namespace vigilo::engine
