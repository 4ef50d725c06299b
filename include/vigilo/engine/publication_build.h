// Building a publication into wherever a locator says (seed 002: the
// manifest is created last, after every object was written and checked;
// a failed build removes exactly what it created): a local directory, or
// ALIAS:KEY in a writable store — a configured alias or one a library
// caller registered (a memory store, a fault wrapper).
#pragma once

#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/engine/context.h"
#include "vigilo/ivf/builder.h"

namespace vigilo::engine {

struct BuiltPublication {
  ivf::BuildSummary summary;
  std::string manifest;  // where its manifest is, safe to print: DIR/manifest.json or ALIAS:KEY/manifest.json
};

// `options.out` is ignored: `out` says where. A path is a directory
// (created if absent, ivf::BuildPublication(options)); ALIAS:KEY builds under
// that key prefix of the alias's store, opened writable (a store that does
// not guarantee conditional creates and read-after-create is refused before
// the input is read). An http(s) URL or a catalog name is InvalidArgument
// naming the setting `out`.
Result<BuiltPublication> BuildPublicationAt(Context& context, ivf::BuildOptions options, std::string_view out);

}  // namespace vigilo::engine
