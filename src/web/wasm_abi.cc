// The shared pieces of the C ABI (wasm_abi.h).
#include "wasm_abi.h"

#include "vigilo/common/result.h"
#include "vigilo/json/write.h"

namespace vigilo::web {

std::string& LastError() {
  static std::string error;
  return error;
}

std::string RequestsJson(const std::vector<WireRequest>& requests) {
  std::string out = "[";
  for (const WireRequest& r : requests) {
    if (out.size() > 1) out += ',';
    out += "{\"path\":";
    json::WriteString(r.path, &out);
    out += ",\"offset\":" + std::to_string(r.offset) + ",\"length\":" + std::to_string(r.length);
    if (!r.sha256.empty()) out += ",\"sha256\":\"" + r.sha256 + "\"";
    out += "}";
  }
  return out + "]";
}

Result<std::vector<std::span<const uint8_t>>> SplitAndCheck(const std::vector<WireRequest>& requests,
                                                            const uint8_t* bytes, size_t size,
                                                            std::string_view digests) {
  std::vector<std::span<const uint8_t>> views;
  size_t at = 0;
  size_t digest_at = 0;
  for (const WireRequest& r : requests) {
    if (r.length > size - at) {
      return InvalidArgument("supplied " + std::to_string(size) + " bytes, fewer than the requests total");
    }
    views.emplace_back(bytes + at, static_cast<size_t>(r.length));
    at += static_cast<size_t>(r.length);
    if (r.sha256.empty()) continue;
    if (digests.size() < digest_at + 64) return InvalidArgument("a SHA-256 is missing for " + r.path);
    const std::string_view got = digests.substr(digest_at, 64);
    digest_at += 64;
    if (r.sha256.size() == 64 && got != r.sha256) {
      return IntegrityError("sha256 of the object is " + std::string(got) + ", expected " + r.sha256 +
                            " (the manifest names another object of this size)")
          .WithPath(r.path);
    }
    if (r.sha256.size() == 32 && got.substr(0, 32) != r.sha256) {
      return IntegrityError("sha256 prefix of bytes [" + std::to_string(r.offset) + ", " +
                            std::to_string(r.offset + r.length) + ") is " + std::string(got.substr(0, 32)) +
                            ", expected " + r.sha256)
          .WithPath(r.path);
    }
  }
  if (at != size) {
    return InvalidArgument("supplied " + std::to_string(size) + " bytes, the requests total " + std::to_string(at));
  }
  return views;
}

}  // namespace vigilo::web
