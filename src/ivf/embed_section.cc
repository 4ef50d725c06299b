// embedding.json: the importer's output, the manifest's "embedding" member on
// its own (docs/format/embedding.md), read and written by the manifest's own
// section codec (manifest.h), so both documents obey the same rules and spell
// floats the same way. Paths in errors start at "$".
#include <string>

#include "vigilo/ivf/embed_import.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/json/write.h"
#include "vigilo/json/parse.h"

namespace vigilo::ivf {

Result<std::string> EncodeEmbeddingSection(const EmbeddingSpec& spec) {
  VIGILO_RETURN_IF_ERROR(ValidateEmbeddingSection(spec, spec.dimension, "$"));
  VIGILO_ASSIGN_OR_RETURN(std::string out, json::ToCanonical(EmbeddingToJson(spec)));
  out.push_back('\n');
  return out;
}

Result<EmbeddingSpec> ParseEmbeddingSection(std::string_view bytes) {
  VIGILO_ASSIGN_OR_RETURN(json::Value v, json::Parse(bytes));
  VIGILO_ASSIGN_OR_RETURN(EmbeddingSpec spec, DecodeEmbeddingSection(v, "$"));
  VIGILO_RETURN_IF_ERROR(ValidateEmbeddingSection(spec, spec.dimension, "$"));
  return spec;
}

}  // namespace vigilo::ivf
