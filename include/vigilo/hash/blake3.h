// BLAKE3 over the official C implementation (runtime SIMD dispatch on x86-64).
//
// The C header stays out of this one: the hasher state lives in an opaque,
// suitably aligned buffer whose size blake3.cc checks with static_assert.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace vigilo {

inline constexpr size_t kBlake3KeySize = 32;
inline constexpr size_t kBlake3DigestSize = 32;

// Streaming BLAKE3. Copyable: a copy forks the state (hash a common prefix once).
//
// Finalize and FinalizeXof do not consume the state: BLAKE3 finalizes from a
// read-only view, so Update may continue afterwards, and a later Finalize
// covers everything written so far.
class Blake3Hasher {
 public:
  Blake3Hasher();  // plain hash mode

  static Blake3Hasher Keyed(const std::array<uint8_t, kBlake3KeySize>& key);
  // Key derivation; `context` should be a hardcoded, globally unique string
  // (BLAKE3 recommends "[application] [commit timestamp] [purpose]").
  static Blake3Hasher DeriveKey(std::string_view context);

  void Update(std::span<const uint8_t> data);
  void Update(std::string_view data);

  std::array<uint8_t, kBlake3DigestSize> Finalize() const;
  // Extended output: fills `out` with output bytes [seek, seek + out.size()).
  void FinalizeXof(uint64_t seek, std::span<uint8_t> out) const;

  // The size of the C library's blake3_hasher (1.3.x: 1912 bytes); blake3.cc
  // fails to compile if a future version outgrows it.
  static constexpr size_t kStateSize = 1912;
  static constexpr size_t kStateAlign = 8;

 private:
  struct UninitializedTag {};
  explicit Blake3Hasher(UninitializedTag) {}

  alignas(kStateAlign) unsigned char state_[kStateSize];
};

std::array<uint8_t, kBlake3DigestSize> Blake3(std::span<const uint8_t> data);
std::array<uint8_t, kBlake3DigestSize> Blake3(std::string_view data);
// Lowercase hex of the 32-byte digest (64 characters).
std::string Blake3Hex(std::span<const uint8_t> data);
std::string Blake3Hex(std::string_view data);

}  // namespace vigilo
