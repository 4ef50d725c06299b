// The one object a caller builds at its edge (the CLI per command, later a
// binding per session), as DuckDB's ClientContext: it owns what every
// operation of both halves shares — the stores config and in-process
// stores, the control state, the request governors, the clocks, the random
// source and the settings — so that nothing below it is a process global
// a test or a second caller in the same process cannot replace.
//
// Opened lazily: a command that touches no store never reads the stores
// config, and a read never creates control state. Not thread-safe while
// opening; what it hands out says its own thread rules.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/settings.h"
#include "vigilo/ivf/range_plan.h"
#include "vigilo/store/backends.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/config.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/object_store.h"

namespace vigilo::engine {

// Request permits of publication reads over http(s): a query's round (its
// footers, its selected row-group runs, merged by the range planner's cost
// model for this width) is fetched at once (docs/format/http-reading.md,
// decision 7 and "Coalescing"); 64 is the ceiling of seed 004's budget
// range. Case storage keeps the seed's 4.
inline constexpr uint64_t kPublicationReadPermits = ivf::kRoundWidth;

struct ContextOptions {
  Settings settings;
  // Injected time and randomness; null: the system's stateless clocks
  // (store::DefaultClock() for the governors, control::DefaultWallClock()
  // for leases) and store::DefaultRandom(). They outlive the context.
  store::Clock* clock = nullptr;
  store::Clock* wall_clock = nullptr;
  store::RandomSource* random = nullptr;
  // Case storage's remote budgets (seed 004 defaults), validated by Create.
  store::GovernorLimits limits;
  // The process environment as the edge read it (null: none). Only backends
  // that name variables in their settings consult it (an s3 alias's
  // "credentials":{"source":"environment"}).
  std::function<std::optional<std::string>(std::string_view name)> environment;
  uint64_t publication_read_permits = kPublicationReadPermits;
};

class Context {
 public:
  // InvalidArgument for governor limits out of range (before any I/O).
  static Result<std::unique_ptr<Context>> Create(ContextOptions options);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  const Settings& settings() const { return options_.settings; }
  store::Clock& wall_clock() const { return *wall_clock_; }
  store::RandomSource& random() const { return *random_; }
  // Case storage's governor, and the publication readers' (more permits).
  store::RequestGovernor& governor() const { return *governor_; }
  store::RequestGovernor& publication_governor() const { return *publication_governor_; }

  // ---- Stores ----
  // A backend for stores config entries whose URL has `scheme` (beside the
  // builtin file, http, https and s3), before the config is first read;
  // InvalidArgument after, or for a scheme that is taken.
  Status RegisterBackend(std::string scheme, std::shared_ptr<const store::Backend> backend);
  const store::BackendRegistry& backends() const { return backends_; }
  // The stores config the settings name, read on first use.
  Result<const store::StoreConfig*> StoresConfig();
  // An in-process store (a memory store, a test's fault wrapper) under a
  // storage alias: `--store ALIAS` and references recording ALIAS resolve to
  // it before the config is consulted. It outlives the context.
  Status RegisterStore(std::string alias, store::ObjectStore& store);
  // Whether `alias` is registered or configured (reads the config).
  Result<bool> KnowsAlias(std::string_view alias);
  // `spec` as docs/format/stores.md says: a registered or configured alias,
  // or a directory (a path with '/', or file://). Remote aliases are
  // governed by governor().
  Result<store::ResolvedStore> OpenStore(std::string_view spec, const store::OpenOptions& options);
  // The stores one reading operation uses: `primary`, plus registered and
  // configured aliases opened read-only on demand.
  Result<std::unique_ptr<store::StoreSet>> OpenStoreSet(store::ResolvedStore primary);

  // ---- Control state ----
  // Opened (created if missing) on first use from settings().control.
  Result<control::ControlStore*> Control();
  // The control state if it exists (a read never creates one): NotFound
  // when there is none yet.
  Result<control::ControlStore*> ExistingControl();
  // Use `control` instead of opening settings().control (embedding, tests).
  void UseControl(std::unique_ptr<control::ControlStore> control);

 private:
  explicit Context(ContextOptions options);
  Result<control::ControlStore*> OpenControl(bool create);

  ContextOptions options_;
  store::Clock* clock_ = nullptr;
  store::Clock* wall_clock_ = nullptr;
  store::RandomSource* random_ = nullptr;
  std::unique_ptr<store::RequestGovernor> governor_, publication_governor_;
  store::BackendRegistry backends_ = store::BackendRegistry::Builtin();
  std::unique_ptr<store::StoreConfig> config_;
  std::map<std::string, store::ObjectStore*, std::less<>> registered_;
  std::unique_ptr<control::ControlStore> control_;
};

}  // namespace vigilo::engine
