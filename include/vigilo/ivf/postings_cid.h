// A postings row group's CID from its statistics: shared by the object
// checks (publication_check.h) and the sans-IO read core (query_core.h).
#pragma once

#include <cstdint>
#include <string>

#include "vigilo/common/result.h"
#include "vigilo/parquet/metadata.h"

namespace vigilo::ivf {

// The single CID a postings row group holds, from its cid chunk's exact
// min = max statistics (publication-v1.md P-POS-03/04); InvalidFormat at
// `where` otherwise.
Result<int32_t> PostingsRowGroupCid(const parquet::RowGroup& row_group, const std::string& where);

}  // namespace vigilo::ivf
