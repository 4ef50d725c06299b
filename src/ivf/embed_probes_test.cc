// The importer's cheap parity probes: which words they use, what a cold
// reader pays for them, and that they still exercise the tokenizer's rules.
#include "embed_probes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "embed_test_support.h"
#include "vigilo/ivf/embed.h"
#include "vigilo/ivf/embed_core.h"
#include "vigilo/ivf/embed_import.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

constexpr uint32_t kBuckets = 64, kPages = 8, kDim = 4;

uint32_t BucketOf(const std::string& w) { return static_cast<uint32_t>(Fnv1a64(w) % kBuckets); }

// The first `count` strings prefix + n (n = 0, 1, …) hashing to `bucket`.
std::vector<std::string> WordsIn(uint32_t bucket, const std::string& prefix, size_t count) {
  std::vector<std::string> out;
  for (int n = 0; out.size() < count; ++n) {
    std::string w = prefix + std::to_string(n);
    if (BucketOf(w) == bucket) out.push_back(w);
  }
  return out;
}

// Lowercase a–z words hashing to `bucket`: two letters after `stem`.
std::vector<std::string> LettersIn(uint32_t bucket, const std::string& stem, size_t count) {
  std::vector<std::string> out;
  for (char x = 'a'; x <= 'z' && out.size() < count; ++x) {
    for (char y = 'a'; y <= 'z' && out.size() < count; ++y) {
      std::string w = stem + x + y;
      if (BucketOf(w) == bucket) out.push_back(w);
    }
  }
  return out;
}

uint64_t BucketBytes(const std::vector<std::string>& vocabulary, uint32_t bucket) {
  uint64_t bytes = 4;
  for (const std::string& w : vocabulary) {
    if (BucketOf(w) == bucket) bytes += 2 + w.size() + 4 * kDim;
  }
  return bytes;
}

TEST(CheapProbesTest, OneBucketOfferingEveryKindOfWordIsAllTheProbesUse) {
  // Bucket 13 holds three lowercase words, a digit word and a non-ASCII word;
  // every other word is alone in its bucket, so covering the kinds elsewhere
  // would cost more pages.
  std::vector<std::string> vocabulary = LettersIn(13, "k", 3);
  vocabulary.push_back(WordsIn(13, "mp", 1)[0]);
  vocabulary.push_back(WordsIn(13, "caf\xc3\xa9", 1)[0]);
  std::set<uint32_t> taken = {13};
  for (char x = 'a'; x <= 'z'; ++x) {
    std::string w = std::string("lone") + x;
    if (taken.insert(BucketOf(w)).second) vocabulary.push_back(w);
  }
  vocabulary.push_back(",");      // not a token: never used
  vocabulary.push_back("don't");  // two tokens: never used
  auto p = ChooseCheapProbes(vocabulary, kDim, kBuckets, kPages);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->buckets, std::vector<uint32_t>{13});
  EXPECT_EQ(p->pages, 1u);
  EXPECT_EQ(p->bytes, WordsPageBytes(kBuckets / kPages) + BucketBytes(vocabulary, 13));
  ASSERT_EQ(p->inputs.size(), 3u);

  // Every token is a word of bucket 13 or the one unknown word hashing there;
  // the probes hold every kind, upper case, and each separator on purpose.
  std::set<std::string> in_vocabulary(vocabulary.begin(), vocabulary.end()), tokens, unknown;
  std::string all;
  for (const std::string& input : p->inputs) {
    all += input;
    auto t = TokenizeWords(input);
    ASSERT_TRUE(t.ok());
    for (const std::string& token : *t) {
      EXPECT_EQ(BucketOf(token), 13u) << token;
      (in_vocabulary.count(token) ? tokens : unknown).insert(token);
    }
  }
  EXPECT_EQ(tokens.size(), 5u);
  EXPECT_EQ(unknown.size(), 1u);
  for (char c : std::string("-'.\t_(!")) EXPECT_NE(all.find(c), std::string::npos) << c;
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](char c) { return c >= 'A' && c <= 'Z'; }));
}

TEST(CheapProbesTest, KindsTheVocabularyLacksAreLeftOut) {
  auto p = ChooseCheapProbes({"cat"}, kDim, kBuckets, kPages);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->buckets, std::vector<uint32_t>{BucketOf("cat")});
  EXPECT_EQ(p->inputs[0], "Cat-cat'CAT.");
  for (const std::string& input : p->inputs) {
    auto t = TokenizeWords(input);
    ASSERT_TRUE(t.ok());
    EXPECT_NE(std::find(t->begin(), t->end(), "cat"), t->end()) << input;
  }
}

TEST(CheapProbesTest, AVocabularyWithoutATokenIsRefused) {
  auto p = ChooseCheapProbes({",", "New", "e.g."}, kDim, kBuckets, kPages);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(),
            "no word of the vocabulary is a token the tokenizer can produce, so no parity probe can be written");
}

// The fixture vocabulary imported with the defaults (cheap probes) into `model`.
Result<EmbedImportResult> ImportFixture(store::ObjectStore& model) {
  std::string tgz = embed_test::FixtureTarball(embed_test::WinkJson(embed_test::FixtureWords()));
  auto path = embed_test::WriteTemp("cheap-probes.tgz", tgz);
  EmbedImportOptions options;
  options.buckets = kBuckets;
  options.pages = kPages;
  return ImportWinkEmbeddings(path.string(), model, options);
}

// The importer records them, and a cold reader's probe run fetches the top
// object and exactly the pages and buckets the choice counted.
TEST(CheapProbesTest, AnImportsProbesCostAColdReaderWhatTheChoiceCounted) {
  store::MemoryStore model;
  auto imported = ImportFixture(model);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  std::vector<std::string> words;
  for (const auto& w : embed_test::FixtureWords()) words.push_back(w.word);
  auto chosen = ChooseCheapProbes(words, kDim, kBuckets, kPages);
  ASSERT_TRUE(chosen.ok());
  ASSERT_EQ(imported->spec.probes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(imported->spec.probes[i].input, chosen->inputs[i]);

  auto embedder = TextEmbedder::Open(model, imported->spec);  // runs the probes
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  EXPECT_EQ((*embedder)->stats().bytes, imported->spec.assets[0].size + chosen->bytes);
  EXPECT_EQ((*embedder)->stats().requests, 1 + chosen->pages + chosen->buckets.size());
}

// What a reader whose tokenizer broke one rule would make of the probes: a
// plausible port bug each (no lowercasing, hyphens or apostrophes kept in
// words, JavaScript's \w, digits or non-ASCII bytes as separators, repeated
// words counted once). The cheap probes must tell every one of them apart.
struct Rules {
  bool lowercase = true, hyphen_splits = true, apostrophe_splits = true, underscore_splits = true;
  bool digits_in_words = true, non_ascii_in_words = true, repeats_count = true;
};

std::vector<std::string> TokenizeWith(const std::string& text, const Rules& r) {
  auto word_byte = [&](unsigned char b) {
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) return true;
    if (b >= '0' && b <= '9') return r.digits_in_words;
    if (b >= 0x80) return r.non_ascii_in_words;
    return (b == '-' && !r.hyphen_splits) || (b == '\'' && !r.apostrophe_splits) || (b == '_' && !r.underscore_splits);
  };
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && word_byte(static_cast<unsigned char>(text[i]))) {
      char c = text[i];
      if (r.lowercase && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      cur.push_back(c);
    } else if (!cur.empty()) {
      if (r.repeats_count || std::find(out.begin(), out.end(), cur) == out.end()) out.push_back(cur);
      cur.clear();
    }
  }
  return out;
}

TEST(CheapProbesTest, TheImportsProbesCatchEveryTokenizerRuleBroken) {
  store::MemoryStore model;
  auto imported = ImportFixture(model);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  std::set<std::string> vocabulary;
  for (const auto& w : embed_test::FixtureWords()) vocabulary.insert(w.word);

  // The probes' vectors under a tokenizer: nullopt when no word is known.
  auto vectors = [&](const Rules& r) {
    std::vector<std::optional<std::vector<float>>> out;
    for (const ParityProbe& p : imported->spec.probes) {
      std::vector<std::string> known;
      for (const std::string& t : TokenizeWith(p.input, r)) {
        if (vocabulary.count(t) != 0) known.push_back(t);
      }
      out.push_back(known.empty() ? std::nullopt : std::optional(embed_test::ReferenceEmbedding(known)));
    }
    return out;
  };
  std::vector<std::optional<std::vector<float>>> recorded;
  for (const ParityProbe& p : imported->spec.probes) recorded.emplace_back(p.vector);
  ASSERT_EQ(vectors(Rules{}), recorded);  // the reference tokenizer reproduces them

  const std::vector<std::pair<std::string, Rules>> broken = {
      {"no lowercasing", {.lowercase = false}},
      {"hyphen kept", {.hyphen_splits = false}},
      {"apostrophe kept", {.apostrophe_splits = false}},
      {"underscore kept (\\w)", {.underscore_splits = false}},
      {"digits split", {.digits_in_words = false}},
      {"non-ASCII split", {.non_ascii_in_words = false}},
      {"repeats counted once", {.repeats_count = false}},
  };
  for (const auto& [name, rules] : broken) EXPECT_NE(vectors(rules), recorded) << name;
}

}  // namespace
}  // namespace vigilo::ivf
