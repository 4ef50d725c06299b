#include "embed_probes.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

#include "vigilo/ivf/embed_core.h"

namespace vigilo::ivf {
namespace {

// What a bucket offers the probes: its first usable word of each kind.
struct Offer {
  uint64_t bytes = 4;  // the bucket's encoded size: count, then per word its length, bytes and vector
  std::string non_ascii, digit;
  std::vector<std::string> lowercase;  // a–z only, sorted
};

bool IsToken(const std::string& word) {
  Result<std::vector<std::string>> tokens = TokenizeWords(word);
  return tokens.ok() && tokens->size() == 1 && (*tokens)[0] == word;
}

std::string WithAsciiCase(std::string word, bool all_upper) {
  for (size_t i = 0; i < word.size(); ++i) {
    if ((all_upper || i == 0) && word[i] >= 'a' && word[i] <= 'z') word[i] = static_cast<char>(word[i] - 'a' + 'A');
  }
  return word;
}

}  // namespace

Result<CheapProbes> ChooseCheapProbes(const std::vector<std::string>& words, uint32_t dimension, uint32_t buckets,
                                      uint32_t pages) {
  if (buckets == 0 || pages == 0 || buckets % pages != 0) {
    return InvalidArgument("buckets must be a positive multiple of pages");
  }
  const uint32_t per_page = buckets / pages;
  const uint64_t page_bytes = WordsPageBytes(per_page);
  std::unordered_map<uint32_t, Offer> offers;
  std::unordered_map<uint32_t, std::set<std::string_view>> bucket_words;
  for (const std::string& w : words) {
    const uint32_t b = static_cast<uint32_t>(Fnv1a64(w) % buckets);
    Offer& o = offers[b];
    o.bytes += 2 + w.size() + uint64_t{4} * dimension;
    bucket_words[b].insert(w);
    if (!IsToken(w)) continue;
    const bool non_ascii = std::any_of(w.begin(), w.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    const bool digit = std::any_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (non_ascii) {
      if (o.non_ascii.empty() || w < o.non_ascii) o.non_ascii = w;
    } else if (digit) {
      if (o.digit.empty() || w < o.digit) o.digit = w;
    } else {
      o.lowercase.push_back(w);
    }
  }
  for (auto& [b, o] : offers) std::sort(o.lowercase.begin(), o.lowercase.end());

  // Greedy cover: the bucket adding the most wanted words per byte it costs.
  std::string non_ascii, digit;
  std::vector<std::string> lowercase;
  std::set<uint32_t> chosen_pages, chosen;
  auto gain = [&](const Offer& o) {
    uint64_t g = (non_ascii.empty() && !o.non_ascii.empty()) + (digit.empty() && !o.digit.empty());
    return g + std::min<uint64_t>(3 - lowercase.size(), o.lowercase.size());
  };
  std::vector<uint32_t> order;
  for (const auto& [b, o] : offers) order.push_back(b);
  std::sort(order.begin(), order.end());
  while (true) {
    uint32_t best = 0;
    uint64_t best_gain = 0, best_cost = 1;
    for (uint32_t b : order) {
      if (chosen.count(b) != 0) continue;
      const uint64_t g = gain(offers[b]);
      const uint64_t cost = offers[b].bytes + (chosen_pages.count(b / per_page) != 0 ? 0 : page_bytes);
      if (g > 0 && g * best_cost > best_gain * cost) best = b, best_gain = g, best_cost = cost;
    }
    if (best_gain == 0) break;
    const Offer& o = offers[best];
    if (non_ascii.empty()) non_ascii = o.non_ascii;
    if (digit.empty()) digit = o.digit;
    for (size_t i = 0; i < o.lowercase.size() && lowercase.size() < 3; ++i) lowercase.push_back(o.lowercase[i]);
    chosen.insert(best);
    chosen_pages.insert(best / per_page);
  }
  // a0…a2: the lowercase words, else whatever the vocabulary offers.
  std::vector<std::string> known = lowercase;
  for (const std::string* w : {&digit, &non_ascii}) {
    if (!w->empty()) known.push_back(*w);
  }
  if (known.empty()) {
    return InvalidArgument("no word of the vocabulary is a token the tokenizer can produce, so no parity probe "
                           "can be written");
  }
  auto a = [&](size_t i) { return known[std::min(i, known.size() - 1)]; };

  // An out-of-vocabulary token in a chosen bucket: its lookup is a miss the
  // probe checks at no extra fetch.
  std::string oov;
  for (uint64_t i = 0; i < uint64_t{64} * buckets && oov.empty(); ++i) {
    std::string t = "qz" + std::to_string(i);
    const uint32_t b = static_cast<uint32_t>(Fnv1a64(t) % buckets);
    if (chosen.count(b) != 0 && bucket_words[b].count(t) == 0) oov = t;
  }

  CheapProbes out;
  // Case, hyphen, apostrophe and trailing punctuation.
  out.inputs.push_back(WithAsciiCase(a(0), false) + "-" + a(1) + "'" + WithAsciiCase(a(2), true) + ".");
  // Digits, a non-ASCII word, an unknown word, brackets.
  std::string second;
  if (!digit.empty()) second += digit + " ";
  if (!non_ascii.empty()) second += non_ascii + ", ";
  if (!oov.empty()) second += oov + " ";
  out.inputs.push_back(second + "(" + a(0) + ")");
  // A repeated word (it counts each time), tab and underscore separators.
  out.inputs.push_back(a(1) + " " + a(1) + "\t" + a(2) + "_" + a(0) + (digit.empty() ? "" : " " + digit) + "!");

  std::set<uint32_t> used;
  for (const std::string& input : out.inputs) {
    VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> tokens, TokenizeWords(input));
    for (const std::string& t : tokens) used.insert(static_cast<uint32_t>(Fnv1a64(t) % buckets));
  }
  std::set<uint32_t> used_pages;
  for (uint32_t b : used) {
    out.buckets.push_back(b);
    used_pages.insert(b / per_page);
    out.bytes += offers.count(b) != 0 ? offers[b].bytes : 0;
  }
  out.pages = static_cast<uint32_t>(used_pages.size());
  out.bytes += out.pages * page_bytes;
  return out;
}

}  // namespace vigilo::ivf
