// Vector publications through a Context (seed 002): open one wherever a
// locator says it lies — a directory or its manifest, an http(s) URL, or
// ALIAS:KEY in a configured store — and search it by vectors or texts with
// payload columns, or summarize it. What `vigilo index query|inspect` and
// the bindings call; they only format.
//
// Thread-safe: Search may be called from several threads at once. Each call
// borrows a reader from the publication's pool (decoded centroids, cached
// footers, scratch buffers: a reader keeps them between the calls it
// serves), so concurrent searches run side by side and each answers exactly
// as a lone search would; the pool grows to the number of concurrent calls.
// The store it reads through must take concurrent Gets (every backend does).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/engine/context.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_inspect.h"
#include "vigilo/ivf/query.h"
#include "vigilo/ivf/source_lookup_core.h"
#include "vigilo/store/object_store.h"

namespace vigilo::engine {

struct PublicationOpenOptions {
  // Over http(s), read objects through the context's cache directory
  // (Settings::cache_directory; the manifest itself never is).
  bool use_cache = true;
  // A local publication's objects (not over http(s) or s3) are held whole in
  // memory on 2 MiB pages once first read, up to this many bytes
  // (store::ResidentStore; docs/format/ivf-build-algorithms.md, "Resident
  // objects"): for a reader that answers many queries. Its searches then
  // read the postings files that fit in place from that memory (held
  // postings, docs/format/ivf-query.md; read and checked against the
  // manifest's SHA-256 by the first search). 0: read in place through the
  // file mapping (a one-off query reads only what it needs).
  uint64_t resident_max_bytes = 0;
};

struct SearchRequest {
  // Exactly one of the two: query vectors, or texts the publication's own
  // model embeds (after its parity probe).
  std::vector<std::vector<float>> vectors;
  std::vector<std::string> texts;
  uint32_t k = 10;
  uint32_t nprobe = 16;
  bool screen = true;  // false: score every probed row exactly (same results)
  // true: each run of adjacent row groups its own request, no gap merged by
  // the range planner's cost model (measurements: the minimal plan; same
  // results).
  bool exact_ranges = false;
  // Payload columns from the source table. Empty: none, except that a
  // publication whose key was generated (_row) answers with the first
  // payload column that is not a list (the user's own id, when it is the
  // input's first column: docs/cli.md).
  std::vector<std::string> columns;
};

struct SearchResult {
  ivf::QueryResult result;               // hits query by query, rank by rank, and their keys
  size_t queries = 0;
  std::vector<std::string> payload_columns;  // the columns `payload` holds, in order
  ivf::SourceRows payload;                   // payload.Value(hit, column): JSON text
  // What each phase fetched (docs/format/http-reading.md, "Counting").
  ivf::FetchStats embed, query, lookup;
};

// Where a publication lies, before anything is read: the store its
// objects are read through (keys: manifest paths) and the manifest's key in
// it. Nothing is fetched.
struct PublicationLocation {
  std::unique_ptr<store::ObjectStore> store;
  std::string manifest_key;
  std::string display;     // safe to print: the path, the manifest key of a URL, or ALIAS:KEY
  bool remote = false;     // read over the network (http(s), directly or through an alias)
  std::string cache_base;  // remote: what the cache namespace hashes (never written)
  // Through the catalog, a registered source table the binding adds to a
  // publication without one: searched as if the manifest declared it
  // (engine/catalog.h); its files are read through `store`.
  std::optional<ivf::SourceSpec> registered_source;
};
// `locator` as engine::ParseLocator reads it: a directory (its
// manifest.json) or a manifest file; an http(s) URL of either (a URL ending
// in '/' is the publication's base); ALIAS:KEY where KEY is the manifest's
// key (its last segment ends in .json) or the publication's key prefix
// (its manifest.json inside); catalog:SOURCE/INDEX, the location bound in
// the native catalog (engine/catalog.h), whose manifest must still be the
// bytes bound (IntegrityError otherwise).
Result<PublicationLocation> LocatePublication(Context& context, std::string_view locator);

class Publication {
 public:
  // The manifest is read (one Get capped at ivf::kMaxManifestBytes),
  // parsed and validated (publication-v1.md §2); errors name the location
  // as given (a URL is never echoed: the key stays).
  static Result<std::unique_ptr<Publication>> Open(Context& context, std::string_view locator,
                                                   const PublicationOpenOptions& options = {});
  ~Publication();

  const ivf::Manifest& manifest() const;
  uint64_t manifest_bytes() const;
  // The manifest's bytes exactly as read (what a publish copies).
  std::string_view manifest_text() const;
  // The store its objects are read through (keys: manifest paths).
  store::ObjectStore& store();
  // How many bytes of objects store() holds in memory (PublicationOpenOptions::
  // resident_max_bytes), 0 when it reads them in place (remote, or not asked).
  uint64_t resident_max_bytes() const;
  // The manifest's own fetch, for counting.
  ivf::FetchStats manifest_fetch() const;

  // InvalidArgument (before any object is read) for a request with no or
  // both kinds of queries, or a payload column that is printed already
  // (the key, _distance, query, rank); the query run's errors otherwise.
  Result<SearchResult> Search(const SearchRequest& request);

  // Counts, list-size distribution and bytes per part (manifest and
  // postings footers).
  Result<ivf::PublicationShape> Inspect();

 private:
  struct State;
  explicit Publication(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace vigilo::engine
