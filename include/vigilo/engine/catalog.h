// The native catalog (seed 002, "Catalog Binding"; docs/format/catalog.md):
// a mutable control-plane map from a local source and index name,
// SOURCE/INDEX, to the current manifest location of an immutable
// publication, with the history of every earlier binding. It lives inside
// the control store — the same SQLite file or PostgreSQL database as the
// case-storage ledger — as named roots of the namespace "catalog": a
// binding is a root value, a rebind a compare-and-set on it, the history
// the root history, an unbind a retired root. So both backends hold it
// with the fencing, CAS and append-only history they already prove.
//
// A binding records where the manifest is and what it was when bound — its
// artifact-uuid, SHA-256 and size — and never an object list: the manifest
// stays the only inventory. Reading through the catalog (`catalog:SOURCE/INDEX`
// wherever a publication is taken) fetches the manifest again and refuses
// it when its bytes are not the ones bound ("publication changed behind the
// catalog"): immutable data that changed is an error, not a new version.
//
// A publication without a source table may be bound to a source table
// registered under SOURCE (RegisterSource): Parquet files named one by one
// (nothing is listed), whose key is a non-null long dense from 0, checked
// against the publication's ntotal when bound; queries through the catalog
// then return its payload columns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/common/uuid.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/context.h"
#include "vigilo/ivf/manifest.h"

namespace vigilo::engine {

// SOURCE/INDEX. Each part: 1-63 of [A-Za-z0-9_-], starting with a letter or
// digit (no '.', which joins the two in the root name, and no '/').
struct CatalogName {
  std::string source;
  std::string index;
  std::string ToString() const { return source + "/" + index; }
  friend bool operator==(const CatalogName&, const CatalogName&) = default;
};
// InvalidArgument naming the rule (and the setting `name`).
Result<CatalogName> ParseCatalogName(std::string_view text);
Status ValidateCatalogPart(std::string_view part, std::string_view what);

// One registered source file: where it is and what it was when registered.
struct RegisteredSourceFile {
  std::string location;  // a path (absolute), an http(s) URL or ALIAS:KEY
  uint64_t size = 0;
  std::string sha256;
  uint64_t row_begin = 0, row_end = 0;
  friend bool operator==(const RegisteredSourceFile&, const RegisteredSourceFile&) = default;
};

// A registered source table, as a manifest's source section would describe
// it (publication-v1.md §2.6), its files by location instead of by path.
struct RegisteredSource {
  std::string name;      // SOURCE
  uint64_t version = 0;  // the registration's version (1, 2, …)
  uint64_t rows = 0;
  uint64_t row_group_rows = 0;
  std::vector<ivf::Field> columns;
  std::string key;
  std::vector<RegisteredSourceFile> files;
  friend bool operator==(const RegisteredSource&, const RegisteredSource&) = default;
};

struct CatalogBinding {
  CatalogName name;
  uint64_t version = 0;    // 1 for the first binding, +1 per rebind, rollback or bind after an unbind
  std::string location;    // as stored: a local path made absolute, a URL or ALIAS:KEY (a URL is never printed)
  std::string display;     // printable: the location, or for a URL its manifest key
  Uuid artifact_uuid;
  std::string manifest_sha256;
  uint64_t manifest_bytes = 0;
  std::optional<RegisteredSource> source;  // a registered source table it is bound to
  store::Micros bound_at = 0;
  std::string bound_by;                    // the binding process's owner ("host:pid")
  std::optional<store::Micros> unbound_at; // set on the entry an unbind retired
};

enum class BindOutcome { kBound, kRebound, kUnchanged };
std::string_view BindOutcomeName(BindOutcome outcome);  // "bound", "rebound", "unchanged"

struct BindOptions {
  // Bind only if the current binding is this version (0: only if unbound);
  // `fenced` otherwise. None: over whatever is bound now, but still
  // compare-and-set against what this bind read first.
  std::optional<uint64_t> expected_version;
  // Accept an artifact-uuid that is not derived from the manifest's content.
  bool any_uuid = false;
  // The longest read while checking the publication (quick verification).
  uint64_t max_buffer = uint64_t{256} << 20;
  const store::CancelToken* cancel = nullptr;
};

struct BindResult {
  BindOutcome outcome = BindOutcome::kBound;
  CatalogBinding binding;
  std::optional<CatalogBinding> previous;  // what was bound before (rebound)
};

// Fetches the manifest at `location` (a path, URL or ALIAS:KEY; not a
// catalog name), validates it and quick-verifies the publication (every
// object's size, footer, schema, statistics and row counts), binds SOURCE's
// registered source table when the publication has none and SOURCE has
// one (refused when incompatible), then records the binding — a
// compare-and-set against the binding read first: a concurrent bind wins
// or loses cleanly (`fenced`), and the history keeps every entry.
// kUnchanged when exactly this binding is current already.
Result<BindResult> Bind(Context& context, const CatalogName& name, std::string_view location,
                        const BindOptions& options = {});

// Binds again the latest earlier entry with `artifact` (a new version, the
// manifest fetched and checked again: refused if it changed since).
Result<BindResult> Rollback(Context& context, const CatalogName& name, const Uuid& artifact,
                            const BindOptions& options = {});

// Takes the name out of service; its history stays. NotFound when nothing
// is bound; `already` when it was unbound before.
struct UnbindResult {
  CatalogBinding binding;  // the entry that was current, with unbound_at
  bool already = false;
};
Result<UnbindResult> Unbind(Context& context, const CatalogName& name, std::optional<uint64_t> expected_version);

// The current binding (NotFound "nothing is bound to S/I", also without
// control state: reading never creates one).
Result<CatalogBinding> GetBinding(Context& context, const CatalogName& name);
// Every current binding, by name; empty without control state.
Result<std::vector<CatalogBinding>> ListBindings(Context& context);
// Every entry ever bound under the name, oldest first (NotFound if none).
Result<std::vector<CatalogBinding>> BindingHistory(Context& context, const CatalogName& name);

// Registers (or re-registers, as a new version) the source table SOURCE:
// `files` in row order, each read once whole (size, SHA-256) and by its
// footer: one schema across files, the key column a non-null long (int64)
// whose values are 0, 1, … in file order, every row group but each file's
// last of one size. Nothing is listed: files are named one by one.
struct RegisterSourceOptions {
  std::string key;  // the key column; empty: the only int64 column named "id", else refused
  const store::CancelToken* cancel = nullptr;
};
struct RegisterSourceResult {
  RegisteredSource source;
  bool unchanged = false;  // exactly this registration is current already
};
Result<RegisterSourceResult> RegisterSource(Context& context, std::string_view source,
                                            const std::vector<std::string>& files,
                                            const RegisterSourceOptions& options = {});
// The current registration of SOURCE (NotFound if none).
Result<RegisteredSource> GetRegisteredSource(Context& context, std::string_view source);

// ---- For the publication reader (publication.cc) ----
// A registered source as a manifest source section: file paths are
// RegisteredSourcePath(file) — "catalog-source/<sha256>/<file name>",
// content-addressed, so a cache keyed by the publication never mixes two
// tables — which the reader routes to the file's location.
ivf::SourceSpec RegisteredSourceSpec(const RegisteredSource& source);
std::string RegisteredSourcePath(const RegisteredSourceFile& file);

// The control-store namespaces of bindings (root name SOURCE.INDEX) and of
// registered source tables (root name SOURCE).
inline const control::Namespace& CatalogNamespace() {
  static const control::Namespace ns = control::Namespace::Named("catalog").value();
  return ns;
}
inline const control::Namespace& CatalogSourcesNamespace() {
  static const control::Namespace ns = control::Namespace::Named("catalog_sources").value();
  return ns;
}

}  // namespace vigilo::engine
