// The builder's pseudo-random numbers: splitmix64 and xoshiro256** from
// common/random_bits.h, and the derivation of independent sub-stream seeds.
// std:: distributions are avoided because their output is
// implementation-defined; everything here is specified to the bit, so a seed
// gives the same numbers on every platform.
#pragma once

#include <cstdint>

#include "vigilo/common/random_bits.h"

namespace vigilo::ivf {

using vigilo::SplitMix64;
using vigilo::Xoshiro256;

// Seed of an independent sub-stream (e.g. the k-means of root r uses
// DeriveSeed(seed, r + 1), the root k-means DeriveSeed(seed, 0)).
inline uint64_t DeriveSeed(uint64_t seed, uint64_t stream) {
  uint64_t state = seed ^ (stream * 0xD1B54A32D192ED03ull);
  return SplitMix64(state);
}

}  // namespace vigilo::ivf
