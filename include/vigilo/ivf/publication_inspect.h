// A publication's shape from its manifest and footers alone (no data pages):
// list sizes per leaf, bucket sizes, bytes per part (`vigilo index inspect`).
#pragma once

#include <cstdint>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_check.h"

namespace vigilo::ivf {

struct SizeSummary {
  uint64_t count = 0, min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  double mean = 0;
};

struct PublicationShape {
  std::vector<uint64_t> list_rows;  // per leaf CID
  SizeSummary lists;                // over all nlist leaves, empty ones included
  uint64_t empty_lists = 0;
  SizeSummary buckets;              // rows per root bucket
  uint64_t postings_row_groups = 0;
  uint64_t centroids_bytes = 0, postings_bytes = 0, source_bytes = 0, embedding_bytes = 0;
  uint64_t footer_bytes_read = 0;
};

// Summary of `values` (nearest-rank percentiles).
SizeSummary Summarize(std::vector<uint64_t> values);

// Reads only the postings footers, through `store` (keys = manifest paths).
Result<PublicationShape> InspectPublication(const Manifest& manifest, store::ObjectStore& store);

}  // namespace vigilo::ivf
