#include "vigilo/hash/sha1.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <memory>
#include <utility>

#include "vigilo/common/hex.h"

namespace vigilo {
namespace {

// "<what> failed: <OpenSSL's reason>"; drains OpenSSL's thread-local error
// queue so a stale entry cannot be blamed on a later call.
Status OpenSslError(std::string_view what) {
  std::string message(what);
  message += " failed";
  unsigned long code = ERR_get_error();
  if (code != 0) {
    char reason[256];
    ERR_error_string_n(code, reason, sizeof(reason));
    message += ": ";
    message += reason;
  }
  ERR_clear_error();
  return Internal(std::move(message));
}

struct CtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

}  // namespace

Result<std::array<uint8_t, kSha1DigestSize>> Sha1(std::span<const std::string_view> parts) {
  std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx(EVP_MD_CTX_new());
  if (ctx == nullptr) return OpenSslError("EVP_MD_CTX_new");
  if (EVP_DigestInit_ex(ctx.get(), EVP_sha1(), nullptr) != 1) return OpenSslError("EVP_DigestInit_ex(SHA-1)");
  for (std::string_view part : parts) {
    if (EVP_DigestUpdate(ctx.get(), part.data(), part.size()) != 1) return OpenSslError("EVP_DigestUpdate");
  }
  std::array<uint8_t, kSha1DigestSize> out;
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), out.data(), &len) != 1) return OpenSslError("EVP_DigestFinal_ex");
  if (len != out.size()) return Internal("SHA-1 produced " + std::to_string(len) + " bytes, expected 20");
  return out;
}

Result<std::array<uint8_t, kSha1DigestSize>> Sha1(std::string_view data) {
  return Sha1(std::span<const std::string_view>(&data, 1));
}

Result<std::string> Sha1Hex(std::string_view data) {
  VIGILO_ASSIGN_OR_RETURN(auto digest, Sha1(data));
  return HexEncode(digest);
}

}  // namespace vigilo
