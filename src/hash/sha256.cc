#include "vigilo/hash/sha256.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <type_traits>
#include <utility>

#include "vigilo/common/hex.h"

namespace vigilo {
namespace {

static_assert(std::is_same_v<EVP_MD_CTX, evp_md_ctx_st>);

// "<what> failed: <OpenSSL's reason>"; also drains OpenSSL's thread-local
// error queue so a stale entry cannot be blamed on a later call.
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

}  // namespace

void Sha256Hasher::CtxDeleter::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

Sha256Hasher::Sha256Hasher() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) {
    error_ = OpenSslError("EVP_MD_CTX_new");
  } else if (EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) {
    error_ = OpenSslError("EVP_DigestInit_ex(SHA-256)");
  }
}

Sha256Hasher::~Sha256Hasher() = default;

Sha256Hasher::Sha256Hasher(Sha256Hasher&& other) noexcept = default;
Sha256Hasher& Sha256Hasher::operator=(Sha256Hasher&& other) noexcept = default;

void Sha256Hasher::UpdateBytes(const void* data, size_t size) {
  if (!error_.ok() || ctx_ == nullptr) return;  // Finalize reports it
  if (EVP_DigestUpdate(ctx_.get(), data, size) != 1) error_ = OpenSslError("EVP_DigestUpdate");
}

void Sha256Hasher::Update(std::span<const uint8_t> data) { UpdateBytes(data.data(), data.size()); }
void Sha256Hasher::Update(std::string_view data) { UpdateBytes(data.data(), data.size()); }

Result<std::array<uint8_t, kSha256DigestSize>> Sha256Hasher::Finalize() const {
  if (!error_.ok()) return error_;
  if (ctx_ == nullptr) return Internal("Sha256Hasher used after move");
  // EVP_DigestFinal_ex ends the context, so finalize a copy and keep ours live.
  std::unique_ptr<evp_md_ctx_st, CtxDeleter> copy(EVP_MD_CTX_new());
  if (copy == nullptr) return OpenSslError("EVP_MD_CTX_new");
  if (EVP_MD_CTX_copy_ex(copy.get(), ctx_.get()) != 1) return OpenSslError("EVP_MD_CTX_copy_ex");
  std::array<uint8_t, kSha256DigestSize> out;
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(copy.get(), out.data(), &len) != 1) return OpenSslError("EVP_DigestFinal_ex");
  if (len != out.size()) return Internal("SHA-256 produced " + std::to_string(len) + " bytes, expected 32");
  return out;
}

Result<std::array<uint8_t, kSha256DigestSize>> Sha256(std::span<const uint8_t> data) {
  Sha256Hasher h;
  h.Update(data);
  return h.Finalize();
}

Result<std::array<uint8_t, kSha256DigestSize>> Sha256(std::string_view data) {
  Sha256Hasher h;
  h.Update(data);
  return h.Finalize();
}

Result<std::string> Sha256Hex(std::span<const uint8_t> data) {
  VIGILO_ASSIGN_OR_RETURN(auto digest, Sha256(data));
  return HexEncode(digest);
}

Result<std::string> Sha256Hex(std::string_view data) {
  VIGILO_ASSIGN_OR_RETURN(auto digest, Sha256(data));
  return HexEncode(digest);
}

}  // namespace vigilo
