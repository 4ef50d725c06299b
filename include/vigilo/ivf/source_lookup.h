// Payload lookup in a publication's source table: the sans-IO core
// (source_lookup_core.h) and its driver over the ObjectStore seam.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/query.h"
#include "vigilo/ivf/source_lookup_core.h"

namespace vigilo::ivf {

// Drives a lookup to the end, fetching through `store` (FetchRequests);
// its fetches are added to `stats` when given.
Result<SourceRows> LookupSource(PublicationReader& reader, store::ObjectStore& store, std::vector<int64_t> keys,
                                std::vector<std::string> columns, FetchStats* stats = nullptr);

}  // namespace vigilo::ivf
