// A Parquet file offered as part of a source table that no builder wrote (a
// native catalog's registered source: engine/catalog.h): which source
// columns it holds, in the builder's own terms (docs/format/ivf-inputs.md,
// "Payload columns"), so that a registered table is described exactly as a
// manifest's source section would describe it.
#pragma once

#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::ivf {

// The file's top-level columns with their source types, in file order.
// InvalidArgument naming the column for one no source table holds (a
// nested column, a list of anything but FLOAT or DOUBLE, an annotation
// without a source type); `where` names the file.
Result<std::vector<Field>> SourceColumnsOf(const parquet::Footer& footer, const std::string& where);

}  // namespace vigilo::ivf
