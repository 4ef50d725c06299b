// Strict parser + canonical writer on arbitrary bytes. Invariants: no crash or
// sanitizer report; anything accepted canonicalizes to bytes that parse back to
// the same value, are themselves canonical, and canonicalize to themselves.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "vigilo/json/canonical.h"
#include "vigilo/json/write.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  vigilo::json::ParseOptions options;
  options.max_bytes = 1 << 20;
  auto value = vigilo::json::Parse(input, options);
  if (!value.ok()) {
    if (!value.status().offset().has_value() &&
        value.status().code() != vigilo::StatusCode::kLimitExceeded) {
      std::abort();  // every parse error must say where
    }
    return 0;
  }
  auto canonical = vigilo::json::ToCanonical(*value);
  if (!canonical.ok()) std::abort();
  auto again = vigilo::json::Parse(*canonical, options);
  if (!again.ok() || !(*again == *value)) std::abort();
  if (!vigilo::json::CheckCanonical(*canonical, options).ok()) std::abort();
  bool same = *canonical == input;
  if (same != vigilo::json::CheckCanonical(input, options).ok()) std::abort();
  return 0;
}
