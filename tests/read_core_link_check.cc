// Links vigilo_read_core alone and runs a query on an empty manifest's
// reader far enough to pull in the planner, the kernels and source lookup
// (tests/read_core_deps.sh checks this binary's link line).
#include <cstdio>

#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/query_core.h"
#include "vigilo/ivf/source_lookup_core.h"

int main() {
  using namespace vigilo::ivf;
  auto manifest = ParseManifest("{}");
  if (manifest.ok()) return 1;  // an empty object is not a manifest
  PublicationReader reader{Manifest{}};
  auto run = QueryRun::Start(reader, {{1.0f}}, QueryOptions{});
  auto lookup = SourceLookup::Start(reader, {0}, {"x"});
  std::printf("kernel=%s query=%d lookup=%d\n", std::string(KernelName()).c_str(), run.ok() ? 1 : 0,
              lookup.ok() ? 1 : 0);
  return 0;
}
