#include "vigilo/engine/publication.h"

#include <filesystem>
#include <mutex>
#include <utility>

#include "catalog_internal.h"
#include "vigilo/engine/locator.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/source_lookup.h"
#include "vigilo/ivf/text_query.h"
#include "vigilo/store/caching_store.h"
#include "vigilo/store/http_store.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/prefixed_store.h"
#include "vigilo/store/resident_store.h"

namespace vigilo::engine {
namespace {

Result<PublicationLocation> LocateUrl(Context& context, const std::string& url) {
  // The store's base is the manifest's "directory": everything up to the
  // last '/'. A last segment that names no .json file is the publication's
  // directory, whose manifest is manifest.json (decision, issue 34:
  // `http://host/pub` is `http://host/pub/`, instead of a GET of /pub that a
  // server answers with a redirect to /pub/). Nothing is listed or probed.
  std::string directory = url;
  const size_t last = url.rfind('/');
  const std::string_view name = std::string_view(url).substr(last + 1);
  if (!name.empty() && !name.ends_with(".json")) directory += '/';
  const size_t slash = directory.rfind('/');
  PublicationLocation out;
  out.manifest_key = directory.substr(slash + 1);
  if (out.manifest_key.empty()) out.manifest_key = "manifest.json";
  out.cache_base = directory.substr(0, slash + 1);
  VIGILO_ASSIGN_OR_RETURN(out.store, store::OpenHttpStore({.base_url = out.cache_base,
                                                           .governor = &context.publication_governor(),
                                                           .cancel = nullptr}));
  out.display = out.manifest_key;  // a URL is never echoed
  out.remote = true;
  return out;
}

Result<PublicationLocation> LocatePath(const std::string& given) {
  std::filesystem::path path(given);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) path /= "manifest.json";  // the publication directory
  std::string root = path.has_parent_path() ? path.parent_path().string() : std::string(".");
  PublicationLocation out;
  VIGILO_ASSIGN_OR_RETURN(out.store, store::OpenLocalStore(root, store::LocalStoreOptions{.writable = false}));
  out.manifest_key = path.filename().string();
  out.display = std::filesystem::is_directory(given, ec) ? (std::filesystem::path(given) / "manifest.json").string()
                                                         : given;
  return out;
}

Result<PublicationLocation> LocateAliasKey(Context& context, const Locator& locator) {
  // KEY is the manifest when its last segment names a .json file, else the
  // publication's prefix.
  std::string_view key = locator.key;
  while (!key.empty() && key.back() == '/') key.remove_suffix(1);
  const size_t slash = key.rfind('/');
  std::string_view last = slash == std::string_view::npos ? key : key.substr(slash + 1);
  std::string prefix(key), name = "manifest.json";
  if (last.ends_with(".json") && locator.key.back() != '/') {
    prefix = slash == std::string_view::npos ? "" : std::string(key.substr(0, slash));
    name = std::string(last);
  }
  VIGILO_ASSIGN_OR_RETURN(bool known, context.KnowsAlias(locator.alias));
  if (!known) {
    VIGILO_ASSIGN_OR_RETURN(const store::StoreConfig* config, context.StoresConfig());
    const std::string where = config->origin().empty() ? "" : " in " + config->origin();
    return InvalidArgument("no store alias \"" + locator.alias + "\" is configured" + where +
                           "; for a local path write ./" + locator.alias + ":" + locator.key);
  }
  VIGILO_ASSIGN_OR_RETURN(store::ResolvedStore resolved,
                          context.OpenStore(locator.alias, store::OpenOptions{.governor = &context.publication_governor()}));
  PublicationLocation out;
  Result<std::unique_ptr<store::ObjectStore>> prefixed = store::MakePrefixedStore(std::move(resolved.store), prefix);
  if (!prefixed.ok()) {
    return Status(prefixed.status().code(), std::string(prefixed.status().message()))
        .WithPath(locator.alias + ":" + locator.key);
  }
  out.store = std::move(prefixed).value();
  out.manifest_key = name;
  out.display = locator.alias + ":" + (prefix.empty() ? name : prefix + "/" + name);
  VIGILO_ASSIGN_OR_RETURN(const store::StoreConfig* config, context.StoresConfig());
  if (const store::StoreEntry* entry = config->Find(locator.alias)) {
    out.remote = entry->scheme != "file";
    out.cache_base = entry->url + "/" + prefix;
  }
  return out;
}

// Wraps a remote publication's store in the cache directory, keyed by the
// artifact-uuid (which commits to every object's size and digest) and the
// base's hash (two servers may publish one artifact-uuid with different
// bytes; the URL itself is never written to disk).
Status UseCacheDirectory(const Context& context, const std::string& cache_base, const ivf::Manifest& manifest,
                         std::unique_ptr<store::ObjectStore>& objects) {
  const std::string& directory = context.settings().cache_directory;
  if (directory.empty()) return Status::Ok();
  VIGILO_ASSIGN_OR_RETURN(uint64_t max_bytes, CacheMaxBytes(context.settings()));
  VIGILO_ASSIGN_OR_RETURN(std::string base_hash, Sha256Hex(cache_base));
  objects = std::make_unique<store::CachingStore>(
      std::move(objects), store::CachingStoreOptions{.directory = directory,
                                                     .cache_namespace = manifest.artifact_uuid.ToString() + " " + base_hash,
                                                     .max_bytes = max_bytes});
  return Status::Ok();
}

}  // namespace

Result<PublicationLocation> LocatePublication(Context& context, std::string_view text) {
  VIGILO_ASSIGN_OR_RETURN(Locator locator, ParseLocator(text));
  switch (locator.kind) {
    case LocatorKind::kUrl: return LocateUrl(context, locator.url);
    case LocatorKind::kPath: return LocatePath(locator.path);
    case LocatorKind::kAliasKey: return LocateAliasKey(context, locator);
    case LocatorKind::kCatalog: return LocateCatalogPublication(context, locator.key);
  }
  return InvalidArgument("unknown locator");
}

// The manifest and a pool of readers: each Search borrows one (its decoded
// centroids, cached footers and scratch buffers are per reader), so
// concurrent searches run side by side and each answers as a lone one.
struct Publication::State {
  std::unique_ptr<store::ObjectStore> store;
  ivf::Manifest manifest;
  // What searches read: the manifest, plus a registered source table the
  // catalog binding adds (engine/catalog.h).
  ivf::Manifest read_manifest;
  uint64_t manifest_bytes = 0;
  store::Bytes manifest_text;  // exactly as read
  uint64_t resident_max_bytes = 0;  // the store's bound when it is a ResidentStore, else 0
  std::mutex mu;
  std::vector<std::unique_ptr<ivf::PublicationReader>> idle;  // guarded by mu
  // Resident: the postings files every reader holds, read from the resident
  // store's memory and checked once, by the first search.
  std::mutex hold_mu;
  std::optional<ivf::CheckedPostings> held;  // guarded by hold_mu

  Status HoldPostings(ivf::PublicationReader& reader);
};

// A reader of a resident publication reads its probed lists in place from
// the memory the resident store holds (docs/format/ivf-query.md, "Held
// postings"), as `index eval` does: a search then plans, fetches and touches
// nothing for them. The first search reads and checks the files (their
// SHA-256) once for every reader; a file that fails its check fails that
// search, nothing is held, and the next search checks again (the resident
// store answers with the bytes it read: objects are immutable).
Status Publication::State::HoldPostings(ivf::PublicationReader& reader) {
  if (resident_max_bytes == 0) return Status::Ok();
  std::lock_guard lock(hold_mu);
  if (!held) {
    VIGILO_ASSIGN_OR_RETURN(ivf::CheckedPostings checked, ivf::ReadPostingsToHold(read_manifest, *store, resident_max_bytes));
    held = std::move(checked);
  }
  // (A reader holds all of them or, new, none.)
  if (held->files.empty() || reader.HoldsPostings(held->files[0].path)) return Status::Ok();
  return ivf::HoldPostings(reader, *held);
}

namespace {

// A reader borrowed from the pool for one call, returned when it ends.
class BorrowedReader {
 public:
  BorrowedReader(std::mutex& mu, std::vector<std::unique_ptr<ivf::PublicationReader>>& idle,
                 const ivf::Manifest& manifest)
      : mu_(mu), idle_(idle) {
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        reader_ = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!reader_) reader_ = std::make_unique<ivf::PublicationReader>(manifest);
  }
  ~BorrowedReader() {
    std::lock_guard lock(mu_);
    idle_.push_back(std::move(reader_));
  }
  BorrowedReader(const BorrowedReader&) = delete;
  BorrowedReader& operator=(const BorrowedReader&) = delete;
  ivf::PublicationReader& operator*() { return *reader_; }

 private:
  std::mutex& mu_;
  std::vector<std::unique_ptr<ivf::PublicationReader>>& idle_;
  std::unique_ptr<ivf::PublicationReader> reader_;
};

}  // namespace

Publication::Publication(std::unique_ptr<State> state) : state_(std::move(state)) {}
Publication::~Publication() = default;

const ivf::Manifest& Publication::manifest() const { return state_->manifest; }
uint64_t Publication::manifest_bytes() const { return state_->manifest_bytes; }
std::string_view Publication::manifest_text() const { return state_->manifest_text.view(); }
store::ObjectStore& Publication::store() { return *state_->store; }
uint64_t Publication::resident_max_bytes() const { return state_->resident_max_bytes; }
ivf::FetchStats Publication::manifest_fetch() const {
  return ivf::FetchStats{.requests = 1, .round_trips = 1, .bytes = state_->manifest_bytes, .cache_hits = 0};
}

Result<std::unique_ptr<Publication>> Publication::Open(Context& context, std::string_view locator,
                                                       const PublicationOpenOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(PublicationLocation where, LocatePublication(context, locator));
  store::GetOptions get;
  get.max_bytes = ivf::kMaxManifestBytes;
  auto bytes = where.store->Get(where.manifest_key, get);
  if (!bytes.ok()) {
    // The store names the key; the user named the location (a URL is not
    // echoed: errors never carry one, so the key stays).
    Status s = bytes.status();
    if (s.path() != where.manifest_key || where.display == where.manifest_key) return s;
    return std::move(s).WithPath(where.display);
  }
  auto manifest = ivf::ParseManifest(bytes->view());
  if (!manifest.ok()) {
    Status s = manifest.status();
    return s.path().empty() ? std::move(s).WithPath(where.display) : std::move(s).PrependPath(where.display + ": ");
  }
  if (options.use_cache && where.remote) {
    VIGILO_RETURN_IF_ERROR(UseCacheDirectory(context, where.cache_base, *manifest, where.store));
  }
  const bool resident = options.resident_max_bytes > 0 && !where.remote;
  if (resident) {
    where.store = std::make_unique<store::ResidentStore>(std::move(where.store),
                                                         store::ResidentStoreOptions{.max_bytes = options.resident_max_bytes});
  }
  auto state = std::make_unique<State>();
  state->resident_max_bytes = resident ? options.resident_max_bytes : 0;
  state->store = std::move(where.store);
  state->manifest = std::move(*manifest);
  state->read_manifest = state->manifest;
  if (where.registered_source) state->read_manifest.source = std::move(where.registered_source);
  state->manifest_bytes = bytes->size();
  state->manifest_text = *std::move(bytes);
  return std::unique_ptr<Publication>(new Publication(std::move(state)));
}

Result<ivf::PublicationShape> Publication::Inspect() { return ivf::InspectPublication(manifest(), *state_->store); }

namespace {

// The payload columns a search returns: the requested ones, or for a
// generated key the first payload column that is not a list. Decided from
// the manifest alone, so every refusal comes before any query runs.
Result<std::vector<std::string>> PayloadColumns(const ivf::Manifest& m, const std::vector<std::string>& requested) {
  const std::string& key = m.index.source_key[0].name;
  std::vector<std::string> columns = requested;
  if (requested.empty() && m.source && m.source->key == ivf::kGeneratedKeyName) {
    for (const ivf::Field& f : m.source->columns) {
      if (f.name == m.source->key || f.type.kind == ivf::ColumnType::Kind::kFloatList) continue;
      columns.push_back(f.name);
      break;
    }
  }
  for (const std::string& c : requested) {
    if (c == key || c == "_distance" || c == "query" || c == "rank") {
      return InvalidArgument("'" + c + "' is printed already").WithPath("columns");
    }
  }
  if (!columns.empty() && m.source && m.source->key != key) {
    return Unimplemented("payload lookup by source key '" + m.source->key + "', which is not the first index key");
  }
  return columns;
}

}  // namespace

Result<SearchResult> Publication::Search(const SearchRequest& request) {
  if (request.vectors.empty() == request.texts.empty()) {
    return InvalidArgument("give query vectors or query texts, not both and not neither");
  }
  const ivf::Manifest& m = state_->read_manifest;
  SearchResult out;
  VIGILO_ASSIGN_OR_RETURN(out.payload_columns, PayloadColumns(m, request.columns));
  BorrowedReader reader(state_->mu, state_->idle, m);
  VIGILO_RETURN_IF_ERROR(state_->HoldPostings(*reader));
  // Texts: the publication's own model embeds each one (its parity probe
  // first); its first round also fetches the centroids, which the query run
  // then reads from `text_store` without a request.
  std::unique_ptr<store::ObjectStore> text_store;
  std::vector<std::vector<float>> queries;
  if (!request.texts.empty()) {
    VIGILO_ASSIGN_OR_RETURN(ivf::EmbeddedQueries e,
                            ivf::EmbedQueryTexts(*reader, *state_->store, request.texts, &out.embed));
    queries = std::move(e.vectors);
    text_store = std::move(e.store);
  } else {
    queries = request.vectors;
  }
  store::ObjectStore& objects = text_store ? *text_store : *state_->store;
  out.queries = queries.size();
  ivf::QueryOptions options;
  options.k = request.k;
  options.nprobe = request.nprobe;
  options.screen = request.screen;
  if (request.exact_ranges) options.ranges.round_width = 0;
  VIGILO_ASSIGN_OR_RETURN(out.result, ivf::RunQuery(*reader, objects, std::move(queries), options, &out.query));
  if (out.payload_columns.empty()) return out;
  VIGILO_ASSIGN_OR_RETURN(out.payload, ivf::LookupSource(*reader, objects, out.result.keys.integers,
                                                         out.payload_columns, &out.lookup));
  return out;
}

}  // namespace vigilo::engine
