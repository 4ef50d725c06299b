// The embedding runtime end to end over a store: the fixture model imported
// from a tarball made here, exact vectors against an independent float64
// computation, the digests that catch a modified asset, the parity probe
// that catches a changed probe, and the batch path's cache.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <cmath>
#include <string>
#include <memory>
#include <vector>

#include "embed_test_support.h"
#include "vigilo/ivf/embed.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/embed_import.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

using embed_test::ReferenceEmbedding;

class EmbedDriverTest : public ::testing::Test {
 protected:
  void Import(uint32_t buckets, uint32_t pages, WordPooling pooling = WordPooling::kSif) {
    std::string tgz = embed_test::FixtureTarball(embed_test::WinkJson(embed_test::FixtureWords()));
    auto path = embed_test::WriteTemp("fixture.tgz", tgz);
    EmbedImportOptions options;
    options.buckets = buckets;
    options.pages = pages;
    options.pooling = pooling;
    options.probe_inputs = embed_test::ReadableProbeInputs();
    auto r = ImportWinkEmbeddings(path.string(), *store_, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    spec_ = r->spec;
  }
  void SetUp() override { Import(65536, 1024); }

  std::vector<float> Expected(const std::vector<std::string>& words) { return ReferenceEmbedding(words); }
  static std::vector<uint32_t> Bits(const std::vector<float>& v) {
    std::vector<uint32_t> out;
    for (float f : v) out.push_back(std::bit_cast<uint32_t>(f));
    return out;
  }

  std::unique_ptr<store::MemoryStore> store_ = std::make_unique<store::MemoryStore>();
  EmbeddingSpec spec_;
};

TEST_F(EmbedDriverTest, VectorsAreExactlyTheContractsSifPooling) {
  auto v = EmbedText(*store_, spec_, "A small, domesticated FELINE!");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(Bits(*v), Bits(Expected({"a", "small", "feline"})));
  // Repeated words count each time; unknown words are skipped.
  auto r = EmbedText(*store_, spec_, "cat zebra cat, the");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Bits(*r), Bits(Expected({"cat", "cat", "the"})));
  auto u = EmbedText(*store_, spec_, "Caf\xc3\xa9 1984 don't");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(Bits(*u), Bits(Expected({"caf\xc3\xa9", "1984", "don", "t"})));
}

TEST_F(EmbedDriverTest, AMeanImportPoolsThePackagesVectorsAsTheyAre) {
  store_ = std::make_unique<store::MemoryStore>();
  Import(65536, 1024, WordPooling::kMean);
  auto params = ParseWordVectorsParameters(spec_.parameters);
  ASSERT_TRUE(params.ok()) << params.status().ToString();
  EXPECT_EQ(params->pooling, WordPooling::kMean);
  EXPECT_TRUE(params->direction.empty());
  auto v = EmbedText(*store_, spec_, "A small, domesticated FELINE!");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  const auto mean = ReferenceEmbedding({"a", "small", "feline"}, embed_test::ReferencePooling::kMean);
  EXPECT_EQ(Bits(*v), Bits(mean));
  EXPECT_NE(Bits(mean), Bits(Expected({"a", "small", "feline"})));  // the two poolings differ here
}

TEST_F(EmbedDriverTest, ASifImportRecordsItsWeightAndDirection) {
  auto params = ParseWordVectorsParameters(spec_.parameters);
  ASSERT_TRUE(params.ok()) << params.status().ToString();
  EXPECT_EQ(params->pooling, WordPooling::kSif);
  EXPECT_EQ(params->word_weight_c, 750u);
  ASSERT_EQ(params->direction.size(), 4u);
  double norm = 0;
  for (float x : params->direction) norm += static_cast<double>(x) * x;
  EXPECT_NEAR(norm, 1.0, 1e-6);
  // A one-word text is that word's direction-free remainder: the weight
  // cancels in the normalization, the direction does not.
  auto one = EmbedText(*store_, spec_, "capital");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(Bits(*one), Bits(Expected({"capital"})));
  EXPECT_NE(Bits(*one), Bits(ReferenceEmbedding({"capital"}, embed_test::ReferencePooling::kMean)));
}

TEST_F(EmbedDriverTest, SmallBucketCountsHoldManyWordsPerBucket) {
  store_ = std::make_unique<store::MemoryStore>();
  Import(4, 2);
  auto v = EmbedText(*store_, spec_, "water salt fox capital france well");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(Bits(*v), Bits(Expected({"water", "salt", "fox", "capital", "france", "well"})));
}

TEST_F(EmbedDriverTest, TheProbesAreWhatTheRuntimeMakes) {
  ASSERT_EQ(spec_.probes.size(), 5u);
  EXPECT_EQ(spec_.probes[0].input, "a small domesticated feline");
  EXPECT_EQ(Bits(spec_.probes[0].vector), Bits(Expected({"a", "small", "feline"})));
  EXPECT_TRUE(VerifyParity(*store_, spec_).ok());
  auto section = store_->Peek(kEmbeddingSectionPath);
  ASSERT_TRUE(section.has_value());
  auto parsed = ParseEmbeddingSection(*section);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, spec_);
  EXPECT_EQ(*EncodeEmbeddingSection(*parsed), *section);
}

TEST_F(EmbedDriverTest, AWordOfNoVocabularyIsAnErrorNotAZeroVector) {
  auto v = EmbedText(*store_, spec_, "zebra unicorn");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(v.status().message(), "no word of the text is in the model's vocabulary");
  // "," is in the package's vocabulary but the tokenizer never makes it.
  auto p = EmbedText(*store_, spec_, ", , ,");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "the text holds no word (ASCII letters, digits or non-ASCII characters)");
}

void FlipByte(store::MemoryStore& store, std::string_view key, size_t at) {
  std::string bytes = *store.Peek(key);
  bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
  store.Overwrite(key, bytes);
}

TEST_F(EmbedDriverTest, AModifiedBucketByteIsAnIntegrityErrorNamingTheAsset) {
  FlipByte(*store_, kWordsBucketsPath, 7);
  auto embedder = TextEmbedder::OpenUnchecked(*store_, spec_);
  ASSERT_TRUE(embedder.ok());
  Status first;
  // Embedding every fixture word reaches the modified bucket.
  for (const auto& w : embed_test::FixtureWords()) {
    auto v = (*embedder)->Embed(w.word);
    if (!v.ok() && v.status().code() != StatusCode::kInvalidArgument) {
      first = v.status();
      break;
    }
  }
  EXPECT_EQ(first.code(), StatusCode::kIntegrityError) << first.ToString();
  EXPECT_EQ(first.path(), kWordsBucketsPath);
  EXPECT_TRUE(first.message().starts_with("sha256 prefix of bytes [0, ")) << first.message();
}

TEST_F(EmbedDriverTest, AModifiedTopOrPageIsAnIntegrityError) {
  store::MemoryStore copy;
  for (const std::string& key : store_->Keys()) {
    std::string bytes = *store_->Peek(key);
    ASSERT_TRUE(copy.CreateIfAbsent(key, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())).ok());
  }
  FlipByte(*store_, kWordsTopPath, 60);
  auto v = EmbedText(*store_, spec_, "cat");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(v.status().path(), kWordsTopPath);
  EXPECT_TRUE(v.status().message().starts_with("sha256 of the object is ")) << v.status().message();

  const uint64_t cat = Fnv1a64("cat") % 65536;  // its entry's digest, in page cat / 64
  FlipByte(copy, kWordsPagesPath, cat / 64 * WordsPageBytes(64) + 8 + cat % 64 * 20 + 4);
  auto embedder = TextEmbedder::OpenUnchecked(copy, spec_);
  auto c = (*embedder)->Embed("cat");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(c.status().path(), kWordsPagesPath);
}

TEST_F(EmbedDriverTest, AChangedProbeVectorRefusesTextQueries) {
  EmbeddingSpec changed = spec_;
  float& c = changed.probes[3].vector[2];
  const float was = c;
  c = std::nextafter(c, 2.0f);
  Status s = VerifyParity(*store_, changed);
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError);
  EXPECT_TRUE(s.message().starts_with("parity probe 3: component 2 is ")) << s.message();
  EXPECT_NE(s.message().find(", the model's probe says "), std::string_view::npos) << s.message();
  EXPECT_NE(was, c);
  auto v = EmbedText(*store_, changed, "cat");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), s.message());
  // A tolerance admits it (later contracts; this one records 0).
  changed.tolerance = 1e-6;
  EXPECT_TRUE(VerifyParity(*store_, changed).ok());
}

// A tokenizer that kept hyphens and apostrophes inside words would have made
// probe 3 from "caf\u00e9" and "1984" alone: its vector fails the probe.
TEST_F(EmbedDriverTest, TheParityProbeCatchesAChangedTokenizer) {
  ASSERT_EQ(spec_.probes[3].input, "don't stop: well-known caf\xc3\xa9 in 1984");
  EmbeddingSpec other = spec_;
  other.probes[3].vector = Expected({"caf\xc3\xa9", "1984"});
  Status s = VerifyParity(*store_, other);
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError);
  EXPECT_TRUE(s.message().starts_with("parity probe 3: component 0 is ")) << s.message();
}

// Assets changed consistently (every digest recomputed, the manifest too)
// pass the digests; the parity probe still sees the changed vector.
TEST_F(EmbedDriverTest, TheParityProbeCatchesAConsistentlyRehashedAsset) {
  auto bytes = [&](std::string_view key) { return *store_->Peek(key); };
  std::string top = bytes(kWordsTopPath), pages = bytes(kWordsPagesPath), buckets = bytes(kWordsBucketsPath);
  auto span = [](const std::string& b) { return std::span(reinterpret_cast<const uint8_t*>(b.data()), b.size()); };
  auto parsed_top = ParseWordsTop(span(top));
  ASSERT_TRUE(parsed_top.ok());
  const uint32_t bucket = static_cast<uint32_t>(Fnv1a64("feline") % 65536), page = bucket / 64;
  const uint64_t page_at = page * WordsPageBytes(64);
  auto entries = ParseWordsPage(span(pages).subspan(page_at, WordsPageBytes(64)), *parsed_top, page);
  ASSERT_TRUE(entries.ok());
  const BucketEntry entry = (*entries)[bucket % 64];
  // The word's first component: mantissa bit 16 flipped (a change of about
  // 1%; a last-bit change can vanish in the float32 rounding of the mean).
  size_t at = buckets.find("feline", entry.offset);
  ASSERT_NE(at, std::string::npos);
  buckets[at + 6 + 2] = static_cast<char>(buckets[at + 6 + 2] ^ 1);
  auto prefix = [](std::span<const uint8_t> b) { return std::string(reinterpret_cast<const char*>(Sha256(b)->data()), 16); };
  pages.replace(page_at + 8 + (bucket % 64) * 20 + 4, 16, prefix(span(buckets).subspan(entry.offset, entry.length)));
  top.replace(kWordsTopHeaderBytes + page * 16, 16, prefix(span(pages).subspan(page_at, WordsPageBytes(64))));
  store_->Overwrite(kWordsTopPath, top);
  store_->Overwrite(kWordsPagesPath, pages);
  store_->Overwrite(kWordsBucketsPath, buckets);
  EmbeddingSpec rehashed = spec_;
  rehashed.assets[0].sha256 = *Sha256Hex(span(top));
  rehashed.assets[1].sha256 = *Sha256Hex(span(pages));
  rehashed.assets[2].sha256 = *Sha256Hex(span(buckets));
  Status s = VerifyParity(*store_, rehashed);
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError);
  EXPECT_TRUE(s.message().starts_with("parity probe 0: component ")) << s.message();
  // Without the probe, the changed model would embed silently.
  auto embedder = TextEmbedder::OpenUnchecked(*store_, rehashed);
  EXPECT_TRUE((*embedder)->Embed("feline").ok());
}

TEST_F(EmbedDriverTest, BatchesFetchEachPageAndBucketOnce) {
  std::vector<std::string> texts;
  const auto words = embed_test::FixtureWords();
  for (size_t i = 0; i < 10000; ++i) {
    texts.push_back(words[i % words.size()].word == "," ? "cat" : words[i % words.size()].word + " the " +
                                                                     words[(i * 7 + 3) % words.size()].word);
  }
  auto embedder = TextEmbedder::Open(*store_, spec_);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  const uint64_t after_probes = (*embedder)->stats().requests;
  std::vector<std::vector<float>> out;
  for (const std::string& t : texts) {
    auto v = (*embedder)->Embed(t);
    ASSERT_TRUE(v.ok()) << t << ": " << v.status().ToString();
    out.push_back(std::move(*v));
  }
  // At most one page and one bucket per fixture word beyond the probes'.
  EXPECT_LE((*embedder)->stats().requests - after_probes, 2 * words.size());
  auto batch = EmbedTexts(*store_, spec_, std::vector<std::string>(texts.begin(), texts.begin() + 100));
  ASSERT_TRUE(batch.ok());
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ((*batch)[i], out[i]);
}

TEST_F(EmbedDriverTest, AColdQueryFetchesTopPagesThenBuckets) {
  auto run = EmbedRun::Start(spec_, "a small feline");
  ASSERT_TRUE(run.ok());
  std::vector<size_t> batches;
  while (!(*run)->done()) {
    std::vector<store::Bytes> bytes;
    ASSERT_TRUE(FetchEmbedRequests(*store_, (*run)->requests(), bytes, nullptr).ok());
    batches.push_back(bytes.size());
    std::vector<std::span<const uint8_t>> views;
    for (const auto& b : bytes) views.push_back(b.span());
    ASSERT_TRUE((*run)->Supply(std::span<const std::span<const uint8_t>>(views)).ok());
  }
  ASSERT_EQ(batches.size(), 3u);  // top, pages, buckets
  EXPECT_EQ(batches[0], 1u);
  EXPECT_LE(batches[1], 3u);
  EXPECT_EQ(batches[2], 3u);
  EXPECT_EQ((*run)->vector(), *EmbedText(*store_, spec_, "a small feline"));
}

}  // namespace
}  // namespace vigilo::ivf

namespace vigilo::ivf {
namespace {

// The real model, when VIGILO_EMBED_MODEL names an `embed import` output
// directory (the release build's full-model run; skipped otherwise): the
// batch path over 100k short texts, timed.
TEST(EmbedRealModel, HundredThousandShortTexts) {
  const char* dir = std::getenv("VIGILO_EMBED_MODEL");
  if (dir == nullptr) GTEST_SKIP() << "VIGILO_EMBED_MODEL is not set";
  auto section = embed_test::ReadWholeFile(std::string(dir) + "/embedding.json");
  auto spec = ParseEmbeddingSection(section);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  store::MemoryStore store;
  for (std::string_view path : {kWordsTopPath, kWordsPagesPath, kWordsBucketsPath}) {
    std::string bytes = embed_test::ReadWholeFile(std::string(dir) + "/" + std::string(path));
    ASSERT_TRUE(store.CreateIfAbsent(path, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())).ok());
  }
  const std::vector<std::string> vocabulary = {"cat", "dog", "small", "large", "water", "salt", "house", "run",
                                               "quickly", "red", "blue", "the", "a", "of", "city", "river",
                                               "music", "science", "animal", "plant", "metal", "light", "feline"};
  std::vector<std::string> texts;
  if (const char* lines = std::getenv("VIGILO_EMBED_TEXTS")) {  // one text a line (e.g. WordNet glosses)
    std::ifstream in(lines);
    for (std::string line; std::getline(in, line);) texts.push_back(line);
  } else {
    for (size_t i = 0; i < 100000; ++i) {
      std::string t;
      for (size_t w = 0; w < 8; ++w) t += vocabulary[(i * 31 + w * 17 + i / 7) % vocabulary.size()] + " ";
      texts.push_back(t + std::to_string(i % 1000));
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  auto embedder = TextEmbedder::Open(store, *spec);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  size_t unknown = 0;  // texts with no word in the vocabulary (a WordNet gloss such as "foraminifers")
  for (const std::string& t : texts) {
    auto v = (*embedder)->Embed(t);
    if (!v.ok()) {
      ASSERT_EQ(v.status().code(), StatusCode::kInvalidArgument) << t << ": " << v.status().ToString();
      ++unknown;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("real model: %zu texts in %.3f s (%.2f us/text), %zu without a known word, %llu requests, %llu bytes\n",
              texts.size(), seconds, seconds * 1e6 / static_cast<double>(texts.size()), unknown,
              static_cast<unsigned long long>((*embedder)->stats().requests),
              static_cast<unsigned long long>((*embedder)->stats().bytes));
  EXPECT_LT(unknown, texts.size() / 100);
}

}  // namespace
}  // namespace vigilo::ivf
