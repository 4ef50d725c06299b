// Bit-exact pseudo-random generators shared by the builder (k-means
// sampling) and the store (retry jitter, test randomness): splitmix64 to
// expand seeds and xoshiro256** for streams (Vigna's public-domain
// algorithms, reimplemented). Specified to the bit, so a seed gives the same
// numbers on every platform.
#pragma once

#include <cstdint>

namespace vigilo {

// Advances state by the golden-ratio increment and returns the mixed value.
inline uint64_t SplitMix64(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Xoshiro256 {
 public:
  // The four state words are four successive splitmix64 outputs from `seed`
  // (never all zero).
  explicit Xoshiro256(uint64_t seed) {
    for (uint64_t& word : s_) word = SplitMix64(seed);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1): the top 53 bits scaled by 2^-53.
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform in [0, n), n > 0, without modulo bias: draws below 2^64 mod n are
  // rejected, the rest taken mod n.
  uint64_t Below(uint64_t n) {
    const uint64_t reject_below = (0 - n) % n;
    uint64_t x = Next();
    while (x < reject_below) x = Next();
    return x % n;
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace vigilo
