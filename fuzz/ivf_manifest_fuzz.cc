// ParseManifest on arbitrary bytes (publication-v1.md §2). Invariants: no
// crash or sanitizer report; an accepted manifest encodes canonically and
// that encoding parses back to the same model and re-encodes byte for byte.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "vigilo/ivf/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto manifest = vigilo::ivf::ParseManifest(bytes);
  if (!manifest.ok()) return 0;
  auto encoded = vigilo::ivf::EncodeManifest(*manifest);
  if (!encoded.ok()) std::abort();  // a valid model always encodes
  auto again = vigilo::ivf::ParseManifest(*encoded);
  if (!again.ok() || !(*again == *manifest)) std::abort();
  auto encoded_again = vigilo::ivf::EncodeManifest(*again);
  if (!encoded_again.ok() || *encoded_again != *encoded) std::abort();
  return 0;
}
