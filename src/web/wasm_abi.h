// Shared pieces of the WebAssembly C ABI (docs/format/wasm.md, "The C ABI"):
// the last error, the JSON of a request list, and the supply step that
// checks whole-object digests before a state machine sees a byte.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/common/status.h"

namespace vigilo::web {

std::string& LastError();
inline void Fail(const Status& status) { LastError() = status.ToString(); }

// One request as the core hands it to JavaScript. `sha256` is what the
// bytes' SHA-256 must be (64 hex digits), or its first 32 hex digits for an
// embedding range; empty when the bytes are checked by the state machine.
struct WireRequest {
  std::string path;
  uint64_t offset = 0;
  uint64_t length = 0;
  std::string sha256;
};

// [{"path":…,"offset":…,"length":…[,"sha256":…]}, …]
std::string RequestsJson(const std::vector<WireRequest>& requests);

// Splits `size` bytes into one view per request (the ranges concatenated in
// request order) and checks each digest-bearing request's bytes against the
// SHA-256 JavaScript computed of them (`digests`: 64 hex digits per such
// request, in order; WebCrypto, since the core never hashes). The same
// IntegrityError texts as the native drivers'.
Result<std::vector<std::span<const uint8_t>>> SplitAndCheck(const std::vector<WireRequest>& requests,
                                                            const uint8_t* bytes, size_t size,
                                                            std::string_view digests);

}  // namespace vigilo::web
