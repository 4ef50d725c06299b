// Text builds (private to src/ivf; docs/format/ivf-build.md, "Building from
// text"): `vigilo index build … --embed-model DIR --text-field NAME`. The
// model is checked, the text column embedded into a scratch Parquet file,
// and the ordinary build runs on that file with one addition: the model's
// assets, created through the build's OwnedWrites, and the embedding section.
#pragma once

#include <functional>

#include "vigilo/ivf/builder.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {

// What a build adds to the objects it writes: `write` creates them (after
// the source table, before the self-check that verifies them), `embedding`
// goes into the manifest.
struct BuildAddition {
  EmbeddingSpec embedding;
  std::function<Status(store::OwnedWrites&)> write;
};

// builder.cc: the checks every build starts with (a writable store without
// manifest.json), and the build itself with an optional addition.
Status RefuseExistingPublication(store::ObjectStore& store, const BuildOptions& o);

// `cancelled` once BuildOptions::cancel is set; checked at every progress point.
inline Status CheckCancelled(const BuildOptions& o) {
  if (o.cancel != nullptr && o.cancel->cancelled()) return Cancelled("the build was cancelled");
  return Status::Ok();
}
Result<BuildSummary> BuildPublicationWith(const BuildOptions& o, store::ObjectStore& store,
                                          const BuildAddition* addition);

// text_build.cc: the text build (BuildPublication calls it when
// embed_model, text_field or skip_unembeddable is set).
Result<BuildSummary> BuildFromText(const BuildOptions& o, store::ObjectStore& store);

}  // namespace vigilo::ivf
