// A publication's shape from its manifest and footers alone (no data pages):
// list sizes per leaf, bucket sizes, bytes per part, the source table's
// columns as its first footer types them (`vigilo index inspect`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_check.h"

namespace vigilo::ivf {

struct SizeSummary {
  uint64_t count = 0, min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  double mean = 0;
};

// A source-table column: its manifest name and type, and the Parquet
// physical type of its leaf (a list's element) and logical type as the
// first source file's footer states them (none when the footer has none).
struct SourceColumnShape {
  std::string name;
  std::string type;  // the manifest's type
  std::optional<std::string> physical_type;  // "INT64", "BYTE_ARRAY", …
  std::optional<std::string> logical_type;   // "STRING", "INT(64, signed)", "UTF8", …
};

struct PublicationShape {
  std::vector<uint64_t> list_rows;  // per leaf CID
  SizeSummary lists;                // over all nlist leaves, empty ones included
  uint64_t empty_lists = 0;
  SizeSummary buckets;              // rows per root bucket
  uint64_t postings_row_groups = 0;
  uint64_t centroids_bytes = 0, postings_bytes = 0, source_bytes = 0, embedding_bytes = 0;
  std::vector<SourceColumnShape> source_columns;  // manifest order; empty without a source table
  uint64_t footer_bytes_read = 0;  // postings footers and the first source footer
};

// Summary of `values` (nearest-rank percentiles).
SizeSummary Summarize(std::vector<uint64_t> values);

// Reads only the postings footers and the first source file's footer,
// through `store` (keys = manifest paths).
Result<PublicationShape> InspectPublication(const Manifest& manifest, store::ObjectStore& store);

}  // namespace vigilo::ivf
