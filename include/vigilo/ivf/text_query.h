// Text queries (docs/format/embedding.md, "Querying with text"): the
// publication's own embedding model turns each text into its query vector,
// after the model's parity probe proved this runtime reproduces the
// builder's vectors. Over the ObjectStore seam, so a local directory and an
// http(s) publication run the same code.
//
// Rounds: the model's top object goes out with the centroids (which the
// vector query then finds already fetched), then the pages, then the
// buckets, for the probes' texts and the query texts together: a cold text
// query costs the vector query's round trips plus 2.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/query.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

struct EmbeddedQueries {
  std::vector<std::vector<float>> vectors;  // one per text, unit length
  // What the embedding rounds fetched for the query run (the centroids), to
  // be read through `store` by RunQuery: its Gets of them are answered here
  // and counted as held, not fetched again.
  std::unique_ptr<store::ObjectStore> store;
};

// InvalidArgument when the publication has no embedding section, for a text
// with no word in the model's vocabulary ("text 0: …") and for the
// tokenizer's limits; IntegrityError when an asset's bytes do not match
// their digest or a parity probe fails (text queries are refused; vector
// queries are unaffected). `stats` counts the embedding rounds.
Result<EmbeddedQueries> EmbedQueryTexts(PublicationReader& reader, store::ObjectStore& store,
                                        const std::vector<std::string>& texts, FetchStats* stats = nullptr);

}  // namespace vigilo::ivf
