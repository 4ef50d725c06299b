// cases::ForEachCaseLine on arbitrary bytes (JSON Lines input of `vigilo
// dataset ingest`). The first byte chooses whether ids are derived from
// metadata.ref. Invariants: no crash or sanitizer report; every case handed
// on is a JSON object; with derived ids every case carries a string `id`;
// an error names its line ("line N").
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "vigilo/cases/case_lines.h"
#include "vigilo/common/byte_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  vigilo::cases::CaseLinesOptions options;
  options.dataset_id = "fuzz";
  if ((data[0] & 1) != 0) options.derive_ids_from = "metadata.ref";
  options.limits.max_case_bytes = 1 << 16;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  vigilo::StringByteSource source(bytes);
  vigilo::Status status = vigilo::cases::ForEachCaseLine(source, options, [&](const vigilo::json::Value& c) {
    if (!c.is_object()) std::abort();
    if (!options.derive_ids_from.empty()) {
      const vigilo::json::Value* id = c.as_object().Find("id");
      if (id == nullptr || !id->is_string()) std::abort();
    }
    return vigilo::Status::Ok();
  });
  if (!status.ok() && status.path().substr(0, 5) != "line ") std::abort();
  return 0;
}
