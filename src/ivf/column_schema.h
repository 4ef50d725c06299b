// The column layouts the publication format fixes (publication-v1.md §3),
// checked against a Parquet footer. Shared by the verifier and the query
// core, so that a reader refuses exactly what `index verify` refuses: a
// postings file whose key column is not the manifest's source-key is never
// read by position as if it were (issue 34).
#pragma once

#include <string>
#include <vector>

#include "vigilo/common/status.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::ivf {

// One expected leaf column: its name, manifest type and whether it is REQUIRED.
struct ExpectedColumn {
  std::string name;
  ColumnType type;
  bool required;
};

// The footer's leaves are exactly `columns`, in order (names, nesting,
// physical and logical types, REQUIRED where asked): InvalidFormat naming
// the column and `where` otherwise.
Status CheckSchema(const parquet::Footer& footer, const std::vector<ExpectedColumn>& columns, const std::string& where);

// offset, scale, code: the LVQ columns every centroids and postings file ends with.
std::vector<ExpectedColumn> LvqColumns();
// A postings file's columns: cid, the manifest's source-key fields, the LVQ columns.
std::vector<ExpectedColumn> PostingsColumns(const Manifest& manifest);

}  // namespace vigilo::ivf
