// The sans-IO query core (query_core.h, docs/format/ivf-query.md) and its
// drivers over the ObjectStore seam.
//
// RunQuery is the loop of query_core.h over the seam (FetchRequests): the
// local store hands out views of a cached mapping, so a native query costs
// no copy and no system call per range.
#pragma once

#include <span>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/query_core.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

// A driver's fetch: every request, in order, as one ranged Get through the
// seam whose expected size is the object's manifest size (no HEAD; a store
// holding another size is IntegrityError). `bytes` owns the answers (views of
// the local store's mapping, or buffers), `views` are what Supply takes;
// both are replaced. Internal for a path the manifest does not name.
Status FetchRequests(store::ObjectStore& store, const PublicationReader& reader,
                     const std::vector<ObjectRange>& requests, std::vector<store::Bytes>& bytes,
                     std::vector<std::span<const uint8_t>>& views);

// Drives a run to the end, fetching through `store` (keys = manifest paths:
// a local publication is a store rooted at the manifest's directory).
Result<QueryResult> RunQuery(PublicationReader& reader, store::ObjectStore& store,
                             std::vector<std::vector<float>> queries, QueryOptions options);

}  // namespace vigilo::ivf
