// SHA-256 over OpenSSL's EVP interface (uses SHA-NI / AVX2 where available).
//
// Error policy: OpenSSL calls can fail in principle (allocation failure, a
// broken provider configuration), so they are checked, but construction and
// Update stay infallible so streaming code reads simply. The first failure is
// remembered and reported by Finalize as a Status (kInternal) — errors are
// values in vigilo, and aborting would take the whole CLI or server down for
// what is an environment problem the caller can report.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace vigilo {

inline constexpr size_t kSha256DigestSize = 32;

// Streaming SHA-256. Move-only (owns an EVP_MD_CTX); a moved-from hasher
// reports an error from Finalize.
//
// Like Blake3Hasher, Finalize does not consume the state: it finalizes a copy,
// so Update may continue and a later Finalize covers all input so far.
class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(Sha256Hasher&& other) noexcept;
  Sha256Hasher& operator=(Sha256Hasher&& other) noexcept;
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(std::span<const uint8_t> data);
  void Update(std::string_view data);

  Result<std::array<uint8_t, kSha256DigestSize>> Finalize() const;

 private:
  struct CtxDeleter {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  void UpdateBytes(const void* data, size_t size);

  std::unique_ptr<evp_md_ctx_st, CtxDeleter> ctx_;
  Status error_;  // first OpenSSL failure; sticky
};

Result<std::array<uint8_t, kSha256DigestSize>> Sha256(std::span<const uint8_t> data);
Result<std::array<uint8_t, kSha256DigestSize>> Sha256(std::string_view data);
// Lowercase hex of the 32-byte digest (64 characters).
Result<std::string> Sha256Hex(std::span<const uint8_t> data);
Result<std::string> Sha256Hex(std::string_view data);

}  // namespace vigilo
