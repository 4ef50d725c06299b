// The builder's source-table pass (private to src/ivf): copies the key and
// the selected input columns into source/ (docs/format/ivf-build.md).
#pragma once

#include <string>
#include <vector>

#include "vigilo/ivf/input.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/source_writer.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {

// `columns` empty: every input column (Parquet) or the vector (other
// formats). The key comes first: the input's --key (a long, which must be
// 0, 1, 2, … in row order) or the generated `id`.
Result<SourceSpec> CopySource(VectorInput& input, const Field& key, const std::vector<std::string>& columns,
                              store::OwnedWrites& writes, const SourceLayout& layout);

}  // namespace vigilo::ivf
