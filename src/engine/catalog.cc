// The catalog's bindings: names, the binding value stored as a root of the
// namespace "catalog", and bind/rebind/rollback/unbind as compare-and-sets
// on it (catalog.h; docs/format/catalog.md).
#include "vigilo/engine/catalog.h"

#include <algorithm>
#include <filesystem>

#include "catalog_internal.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/engine/locator.h"
#include "vigilo/engine/publication.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/ivf/publication_verify.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::engine {
namespace {

// A binding's attempt holds the lease only from its begin to its publish
// (the publication is checked before): a minute is ample, and a bind killed
// in between leaves an expired attempt without keys, which `store cleanup`
// abandons.
constexpr store::Micros kBindLease = store::Micros{60} * 1'000'000;

bool IsNamePartChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// The control state for a read: NotFound naming the binding when there is
// none (reading never creates one).
Result<control::ControlStore*> ControlForRead(Context& context, const CatalogName& name) {
  Result<control::ControlStore*> control = context.ExistingControl();
  if (!control.ok() && control.status().code() == StatusCode::kNotFound) {
    return NotFound("nothing is bound to " + name.ToString() + " in the catalog");
  }
  return control;
}

// A local path stored as given would name another directory from another
// working directory (or machine): it is made absolute. ALIAS:KEY and URLs
// are stored as given; a catalog name is refused (a binding names a
// publication, not another binding).
Result<std::string> StoredLocation(std::string_view location) {
  VIGILO_ASSIGN_OR_RETURN(Locator l, ParseLocator(location));
  if (l.kind == LocatorKind::kCatalog) {
    return InvalidArgument("a catalog name is bound to a publication's location, not to another catalog name")
        .WithPath("location");
  }
  return AbsoluteLocation(location);
}

// The current binding's root record, or nullopt (unbound or never bound).
Result<std::optional<control::RootRecord>> CurrentRecord(control::ControlStore& control, const CatalogName& name) {
  return control.GetRoot(CatalogNamespace(), RootName(name));
}

Status CheckExpectedVersion(const CatalogName& name, const std::optional<control::RootRecord>& current,
                            std::optional<uint64_t> expected) {
  if (!expected) return Status::Ok();
  const uint64_t now = current ? current->version : 0;
  if (now == *expected) return Status::Ok();
  return Fenced("the binding of " + name.ToString() + " is " +
                (current ? "version " + std::to_string(now) : std::string("unbound")) + ", not " +
                (*expected == 0 ? std::string("unbound") : "version " + std::to_string(*expected)) +
                ": nothing was bound")
      .WithPath(name.ToString());
}

// Checks the publication at `stored` and makes the binding it would record.
Result<CatalogBinding> CheckedBinding(Context& context, const CatalogName& name, const std::string& stored,
                                      const BindOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(FetchedManifest fetched, FetchManifest(context, stored));
  if (!options.any_uuid) {
    Status s = ivf::CheckDerivedArtifactUuid(fetched.manifest);
    if (!s.ok()) return std::move(s).PrependPath(fetched.where.display + ": ");
  }
  ivf::ObjectCheckOptions checks;
  checks.deep = false;
  checks.max_read = options.max_buffer;
  checks.cancel = options.cancel;
  ivf::ObjectCheckReport counts;
  Status checked = ivf::CheckObjects(fetched.manifest, *fetched.where.store, checks, &counts);
  if (!checked.ok()) {
    if (checked.code() == StatusCode::kCancelled) return checked;
    return std::move(checked).PrependPath(fetched.where.display + ": ");
  }
  CatalogBinding b;
  b.name = name;
  b.location = stored;
  b.display = DisplayLocation(stored);
  b.artifact_uuid = fetched.manifest.artifact_uuid;
  b.manifest_sha256 = fetched.sha256;
  b.manifest_bytes = fetched.bytes;
  if (!fetched.manifest.source) {
    Result<RegisteredSource> registered = GetRegisteredSource(context, name.source);
    if (registered.ok()) {
      VIGILO_RETURN_IF_ERROR(CheckSourceFitsIndex(*registered, fetched.manifest));
      b.source = std::move(*registered);
    } else if (registered.status().code() != StatusCode::kNotFound) {
      return registered.status();
    }
  }
  return b;
}

Result<BindResult> BindChecked(Context& context, const CatalogName& name, CatalogBinding binding,
                               const BindOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, context.Control());
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> current, CurrentRecord(*control, name));
  VIGILO_RETURN_IF_ERROR(CheckExpectedVersion(name, current, options.expected_version));
  VIGILO_ASSIGN_OR_RETURN(std::string value, BindingValue(binding));
  BindResult out;
  if (current) {
    VIGILO_ASSIGN_OR_RETURN(out.previous, BindingOfRecord(*control, *current));
  }
  VIGILO_ASSIGN_OR_RETURN(control::PublishOutcome outcome,
                          RecordCatalogRoot(*control, CatalogNamespace(), RootName(name), name.ToString(), current, value));
  out.outcome = outcome == control::PublishOutcome::kPublished  ? BindOutcome::kBound
                : outcome == control::PublishOutcome::kReplaced ? BindOutcome::kRebound
                                                                : BindOutcome::kUnchanged;
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> now, CurrentRecord(*control, name));
  if (!now) return Internal("the binding of " + name.ToString() + " vanished after it was recorded");
  VIGILO_ASSIGN_OR_RETURN(out.binding, BindingOfRecord(*control, *now));
  if (out.outcome == BindOutcome::kUnchanged) out.previous.reset();
  return out;
}

}  // namespace

Result<control::PublishOutcome> RecordCatalogRoot(control::ControlStore& control, const control::Namespace& ns,
                                                  const std::string& root, const std::string& display,
                                                  const std::optional<control::RootRecord>& seen,
                                                  const std::string& value) {
  control::AttemptSpec spec;
  spec.ns = ns;
  spec.name = root;
  spec.store = std::string(control::kNoObjectsStoreId);
  spec.owner = control::ProcessOwner();
  spec.lease_duration = kBindLease;
  VIGILO_ASSIGN_OR_RETURN(control::Lease lease, control.BeginAttempt(spec));
  Result<control::PublishOutcome> outcome =
      seen ? control.ReplaceRoot(lease, seen->value, value) : control.PublishRoot(lease, value);
  if (outcome.ok()) return outcome;
  (void)control.Abandon(lease);  // it recorded no keys: nothing becomes cleanup work
  const StatusCode code = outcome.status().code();
  if (code != StatusCode::kAlreadyExists && code != StatusCode::kNotFound) return outcome.status();
  // Another change came between this one's read and its compare-and-set.
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> now, control.GetRoot(ns, root));
  return Fenced(display + " changed meanwhile (" +
                (now ? "now version " + std::to_string(now->version) : std::string("now absent")) +
                "): nothing was recorded; run again to replace it")
      .WithPath(display);
}

Result<std::string> AbsoluteLocation(std::string_view location) {
  VIGILO_ASSIGN_OR_RETURN(Locator l, ParseLocator(location));
  if (l.kind != LocatorKind::kPath) return std::string(location);
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(l.path, ec);
  if (ec) return IoError("cannot make the path absolute: " + ec.message()).WithPath(l.path);
  return absolute.lexically_normal().string();
}

Status ValidateCatalogPart(std::string_view part, std::string_view what) {
  const bool ok = !part.empty() && part.size() <= 63 && part.front() != '-' && part.front() != '_' &&
                  std::all_of(part.begin(), part.end(), IsNamePartChar);
  if (ok) return Status::Ok();
  return InvalidArgument("a catalog " + std::string(what) +
                         " name is 1-63 of A-Z a-z 0-9 _ -, starting with a letter or digit");
}

Result<CatalogName> ParseCatalogName(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return InvalidArgument("a catalog name is SOURCE/INDEX").WithPath("name");
  }
  CatalogName name{std::string(text.substr(0, slash)), std::string(text.substr(slash + 1))};
  Status s = ValidateCatalogPart(name.source, "source");
  if (s.ok()) s = ValidateCatalogPart(name.index, "index");
  if (!s.ok()) return std::move(s).WithPath("name");
  return name;
}

std::string_view BindOutcomeName(BindOutcome outcome) {
  switch (outcome) {
    case BindOutcome::kBound: return "bound";
    case BindOutcome::kRebound: return "rebound";
    case BindOutcome::kUnchanged: return "unchanged";
  }
  return "bound";
}

Result<FetchedManifest> FetchManifest(Context& context, std::string_view location) {
  FetchedManifest out;
  VIGILO_ASSIGN_OR_RETURN(out.where, LocatePublication(context, location));
  store::GetOptions get;
  get.max_bytes = ivf::kMaxManifestBytes;
  Result<store::Bytes> bytes = out.where.store->Get(out.where.manifest_key, get);
  if (!bytes.ok()) {
    Status s = bytes.status();
    return s.path() == out.where.manifest_key && out.where.display != out.where.manifest_key
               ? std::move(s).WithPath(out.where.display)
               : s;
  }
  VIGILO_ASSIGN_OR_RETURN(out.sha256, Sha256Hex(bytes->view()));
  out.bytes = bytes->size();
  Result<ivf::Manifest> manifest = ivf::ParseManifest(bytes->view());
  if (!manifest.ok()) return Status(manifest.status()).PrependPath(out.where.display + ": ");
  out.manifest = std::move(*manifest);
  return out;
}

Result<BindResult> Bind(Context& context, const CatalogName& name, std::string_view location,
                        const BindOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(std::string stored, StoredLocation(location));
  VIGILO_ASSIGN_OR_RETURN(CatalogBinding binding, CheckedBinding(context, name, stored, options));
  return BindChecked(context, name, std::move(binding), options);
}

Result<BindResult> Rollback(Context& context, const CatalogName& name, const Uuid& artifact,
                            const BindOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(std::vector<CatalogBinding> history, BindingHistory(context, name));
  auto earlier = std::find_if(history.rbegin(), history.rend(),
                              [&](const CatalogBinding& b) { return b.artifact_uuid == artifact; });
  if (earlier == history.rend()) {
    return NotFound("no binding of " + name.ToString() + " was to artifact " + artifact.ToString())
        .WithPath("to");
  }
  // The same checks as a bind, against what was bound then: a manifest
  // that changed since is refused, not bound anew.
  VIGILO_ASSIGN_OR_RETURN(CatalogBinding again, CheckedBinding(context, name, earlier->location, options));
  if (again.manifest_sha256 != earlier->manifest_sha256 || again.manifest_bytes != earlier->manifest_bytes) {
    return IntegrityError("the publication changed behind the catalog: its manifest is not the one bound as version " +
                          std::to_string(earlier->version) + " (SHA-256 " + earlier->manifest_sha256 + ", " +
                          std::to_string(earlier->manifest_bytes) + " bytes)")
        .WithPath(earlier->display);
  }
  again.source = earlier->source;  // the registration it was bound with, not a later one
  return BindChecked(context, name, std::move(again), options);
}

Result<UnbindResult> Unbind(Context& context, const CatalogName& name, std::optional<uint64_t> expected_version) {
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, ControlForRead(context, name));
  Result<control::RetiredRoot> retired = control->RetireRoot(CatalogNamespace(), RootName(name), expected_version);
  if (!retired.ok()) {
    if (retired.status().code() == StatusCode::kNotFound) {
      return NotFound("nothing is bound to " + name.ToString() + " in the catalog").WithPath(name.ToString());
    }
    if (retired.status().code() == StatusCode::kAlreadyExists) {
      return Fenced(std::string(retired.status().message())).WithPath(name.ToString());
    }
    return retired.status();
  }
  UnbindResult out;
  out.already = retired->already;
  VIGILO_ASSIGN_OR_RETURN(out.binding, BindingOfRecord(*control, retired->record));
  return out;
}

Result<CatalogBinding> GetBinding(Context& context, const CatalogName& name) {
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, ControlForRead(context, name));
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> current, CurrentRecord(*control, name));
  if (!current) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> retired,
                            control->GetRetiredRoot(CatalogNamespace(), RootName(name)));
    std::string why = retired ? " (it was unbound at " + control::FormatWallTime(*retired->retired_at) + ")" : "";
    return NotFound("nothing is bound to " + name.ToString() + " in the catalog" + why).WithPath(name.ToString());
  }
  return BindingOfRecord(*control, *current);
}

Result<std::vector<CatalogBinding>> ListBindings(Context& context) {
  std::vector<CatalogBinding> out;
  Result<control::ControlStore*> control = context.ExistingControl();
  if (!control.ok()) {
    if (control.status().code() == StatusCode::kNotFound) return out;
    return control.status();
  }
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::RootRecord> roots, (*control)->ListRoots(CatalogNamespace()));
  for (const control::RootRecord& r : roots) {
    VIGILO_ASSIGN_OR_RETURN(CatalogBinding b, BindingOfRecord(**control, r));
    out.push_back(std::move(b));
  }
  return out;
}

Result<std::vector<CatalogBinding>> BindingHistory(Context& context, const CatalogName& name) {
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, ControlForRead(context, name));
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::RootRecord> records,
                          control->RootHistory(CatalogNamespace(), RootName(name)));
  if (records.empty()) {
    return NotFound("nothing was ever bound to " + name.ToString() + " in the catalog").WithPath(name.ToString());
  }
  std::vector<CatalogBinding> out;
  for (const control::RootRecord& r : records) {
    VIGILO_ASSIGN_OR_RETURN(CatalogBinding b, BindingOfRecord(*control, r));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace vigilo::engine
