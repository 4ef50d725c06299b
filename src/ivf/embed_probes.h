// The importer's parity probes (docs/format/embedding.md, Parity probe): texts
// whose words lie in as few page and bucket bytes as the vocabulary allows,
// so a reader proves its runtime for a few KiB instead of the ~127 KiB that
// five ordinary sentences cost over HTTP, while still exercising every rule
// of the tokenizer and the pooling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vigilo/common/result.h"

namespace vigilo::ivf {

struct CheapProbes {
  std::vector<std::string> inputs;
  std::vector<uint32_t> buckets;  // the non-empty buckets the inputs' tokens hash to, ascending
  uint32_t pages = 0;             // distinct pages of those buckets
  uint64_t bytes = 0;             // what a cold reader fetches for them: pages + buckets
};

// `words` is the vocabulary (any order). Picks buckets greedily by what they
// add (a word with a non-ASCII byte, a word with a digit, three distinct
// lowercase a–z words) per byte fetched (a page's bytes count once), ties to
// the lowest bucket; then writes three probes from the chosen words and an
// out-of-vocabulary token that hashes into a chosen bucket. InvalidArgument
// when no word is a token the tokenizer can produce.
Result<CheapProbes> ChooseCheapProbes(const std::vector<std::string>& words, uint32_t dimension, uint32_t buckets,
                                      uint32_t pages);

}  // namespace vigilo::ivf
