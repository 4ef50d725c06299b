// WebAssembly build only (docs/format/wasm.md): the one simdjson function
// the common layer uses (FindInvalidUtf8's fast path), implemented in
// src/web/shims.cc with the layer's own strict sequence check.
#pragma once

#include <cstddef>

namespace simdjson {
bool validate_utf8(const char* buf, size_t len) noexcept;
}  // namespace simdjson
