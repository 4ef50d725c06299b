#include "vigilo/hash/blake3.h"

#include <blake3.h>

#include <new>

#include "vigilo/common/hex.h"

namespace vigilo {
namespace {

static_assert(sizeof(blake3_hasher) <= Blake3Hasher::kStateSize,
              "blake3_hasher grew: raise Blake3Hasher::kStateSize in vigilo/hash/blake3.h");
static_assert(alignof(blake3_hasher) <= Blake3Hasher::kStateAlign,
              "blake3_hasher needs stronger alignment than Blake3Hasher::kStateAlign");
static_assert(BLAKE3_KEY_LEN == kBlake3KeySize && BLAKE3_OUT_LEN == kBlake3DigestSize);

// blake3_hasher is a C struct (trivially copyable), so the buffer may be
// copied bytewise by the implicit copy operations.
blake3_hasher* State(unsigned char* buf) { return std::launder(reinterpret_cast<blake3_hasher*>(buf)); }
const blake3_hasher* State(const unsigned char* buf) {
  return std::launder(reinterpret_cast<const blake3_hasher*>(buf));
}

}  // namespace

Blake3Hasher::Blake3Hasher() { blake3_hasher_init(new (state_) blake3_hasher); }

Blake3Hasher Blake3Hasher::Keyed(const std::array<uint8_t, kBlake3KeySize>& key) {
  Blake3Hasher h{UninitializedTag{}};
  blake3_hasher_init_keyed(new (h.state_) blake3_hasher, key.data());
  return h;
}

Blake3Hasher Blake3Hasher::DeriveKey(std::string_view context) {
  Blake3Hasher h{UninitializedTag{}};
  // The _raw variant takes a length, so `context` need not be NUL-terminated.
  blake3_hasher_init_derive_key_raw(new (h.state_) blake3_hasher, context.data(), context.size());
  return h;
}

void Blake3Hasher::Update(std::span<const uint8_t> data) {
  blake3_hasher_update(State(state_), data.data(), data.size());
}

void Blake3Hasher::Update(std::string_view data) {
  blake3_hasher_update(State(state_), data.data(), data.size());
}

std::array<uint8_t, kBlake3DigestSize> Blake3Hasher::Finalize() const {
  std::array<uint8_t, kBlake3DigestSize> out;
  blake3_hasher_finalize(State(state_), out.data(), out.size());
  return out;
}

void Blake3Hasher::FinalizeXof(uint64_t seek, std::span<uint8_t> out) const {
  blake3_hasher_finalize_seek(State(state_), seek, out.data(), out.size());
}

std::array<uint8_t, kBlake3DigestSize> Blake3(std::span<const uint8_t> data) {
  Blake3Hasher h;
  h.Update(data);
  return h.Finalize();
}

std::array<uint8_t, kBlake3DigestSize> Blake3(std::string_view data) {
  Blake3Hasher h;
  h.Update(data);
  return h.Finalize();
}

std::string Blake3Hex(std::span<const uint8_t> data) { return HexEncode(Blake3(data)); }
std::string Blake3Hex(std::string_view data) { return HexEncode(Blake3(data)); }

}  // namespace vigilo
