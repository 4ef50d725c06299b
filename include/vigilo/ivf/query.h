// The sans-IO query core (query_core.h, docs/format/ivf-query.md) and its
// drivers over the ObjectStore seam.
//
// RunQuery is the loop of query_core.h over the seam (FetchRequests): the
// local store hands out views of a cached mapping, so a native query costs
// no copy and no system call per range.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/query_core.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

// What a driver sent through the seam (`index query --stats`;
// docs/format/http-reading.md, "Counting"). Counted by the driver, so the
// numbers are the same whichever store answers.
struct FetchStats {
  uint64_t requests = 0;     // Gets through the seam (one ranged request each; retries inside the store not counted)
  uint64_t round_trips = 0;  // dependent rounds: batches that could start only once the previous batch was answered
  uint64_t bytes = 0;        // bytes the store returned
  // Objects a run needed but did not fetch, because the reader held them
  // from an earlier run in this process (the centroids, and the footer of a
  // postings or source file whose other ranges were fetched), and Gets a
  // cache directory answered (store::GetResponse::cached).
  uint64_t cache_hits = 0;
  FetchStats& operator+=(const FetchStats& other);
};

// Adds one round's answered Gets to `stats` (null: nothing): an answer a
// cache gave (GetResponse::cached) is a hit, not a request or bytes, and the
// round is a round trip only if some answer was sent for.
void CountRound(const std::vector<store::GetResponse>& answers, FetchStats* stats);

// A driver's fetch: every request, in order, as one ranged Get through the
// seam whose expected size is the object's manifest size (no HEAD; a store
// holding another size is IntegrityError). `bytes` owns the answers (views of
// the local store's mapping, or buffers), `views` are what Supply takes;
// both are replaced. Internal for a path the manifest does not name.
Status FetchRequests(store::ObjectStore& store, const PublicationReader& reader,
                     const std::vector<ObjectRange>& requests, std::vector<store::Bytes>& bytes,
                     std::vector<std::span<const uint8_t>>& views, FetchStats* stats = nullptr);

// Postings files read whole through a store and checked against the
// manifest's SHA-256, ready to be held by any number of readers of that
// manifest (PublicationReader::HoldPostings; docs/format/ivf-query.md, "Held
// postings"): a host that keeps several readers reads and checks each file
// once, and they share its bytes.
struct CheckedPostings {
  struct File {
    std::string path;
    std::shared_ptr<const store::Bytes> bytes;
  };
  std::vector<File> files;
  uint64_t bytes = 0;  // their sizes' sum
};
// The manifest's postings files in manifest order, each that still fits in
// `max_bytes` with those before it, read whole through `store` (a
// store::ResidentStore answers from its memory) and checked before anything
// is returned (IntegrityError for the first file that differs: then none is).
Result<CheckedPostings> ReadPostingsToHold(const Manifest& manifest, store::ObjectStore& store, uint64_t max_bytes);
// `reader` holds every file of `postings` (read for its manifest).
Status HoldPostings(PublicationReader& reader, const CheckedPostings& postings);
// Both: `reader` holds the files ReadPostingsToHold returns, or, when that
// fails, nothing more than before. Returns the bytes it holds.
Result<uint64_t> HoldPostings(PublicationReader& reader, store::ObjectStore& store, uint64_t max_bytes);

// Drives a run to the end, fetching through `store` (keys = manifest paths:
// a local publication is a store rooted at the manifest's directory). When
// `stats` is given, the run's fetches are added to it.
Result<QueryResult> RunQuery(PublicationReader& reader, store::ObjectStore& store,
                             std::vector<std::vector<float>> queries, QueryOptions options,
                             FetchStats* stats = nullptr);

}  // namespace vigilo::ivf
