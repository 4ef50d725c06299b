// WebAssembly build only: UTF-8 validation (the simdjson.h shim), so the
// read core builds without simdjson's sources (docs/format/wasm.md); zlib,
// zstd and snappy are compiled from their own sources (codecs.cmake).
#include <cstddef>
#include <string_view>

#include "shim/simdjson.h"
#include "vigilo/common/utf8.h"

namespace simdjson {

bool validate_utf8(const char* buf, size_t len) noexcept {
  const std::string_view s(buf, len);
  for (size_t i = 0; i < len;) {
    const size_t n = vigilo::Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace simdjson
