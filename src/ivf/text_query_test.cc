// Text queries (include/vigilo/ivf/text_query.h) over the fixture model: a
// publication of its own word vectors answers a word with that word's row;
// the vector is exactly EmbedText's; the embedding rounds carry the
// centroids, so the query run fetches only footers and row groups; every
// refusal is specific.
#include "vigilo/ivf/text_query.h"

#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <fstream>

#include "embed_test_support.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/embed.h"
#include "vigilo/ivf/embed_import.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

class TextQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tgz = embed_test::WriteTemp("text_query.tgz", embed_test::FixtureTarball(embed_test::WinkJson(words_)));
    auto imported = ImportWinkEmbeddings(tgz.string(), store_);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    // The publication: row i = what the runtime makes of fixture word i as a
    // text (the package's own vector for ",", which the tokenizer never makes).
    dir_ = std::filesystem::temp_directory_path() / ("vigilo_text_query_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream f(dir_ / "words.fvecs", std::ios::binary);
    for (const embed_test::FixtureWord& w : words_) {
      int32_t d = 4;
      f.write(reinterpret_cast<const char*>(&d), 4);
      std::vector<float> v;
      for (const std::string& c : w.components) v.push_back(std::strtof(c.c_str(), nullptr));
      if (w.word != ",") {
        auto embedded = EmbedText(store_, imported->spec, w.word);
        ASSERT_TRUE(embedded.ok()) << w.word << ": " << embedded.status().ToString();
        v = *embedded;
      }
      f.write(reinterpret_cast<const char*>(v.data()), 16);
    }
    f.close();
    BuildOptions o;
    o.input = (dir_ / "words.fvecs").string();
    o.metric = Metric::kCosine;
    o.encoding = Encoding::kLvq8;
    o.nlist = 3;
    o.roots = 1;
    o.scratch = dir_.string();
    auto built = BuildPublication(o, store_);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    manifest_ = built->manifest;
    manifest_.embedding = imported->spec;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  size_t RowOf(const std::string& word) const {
    for (size_t i = 0; i < words_.size(); ++i) {
      if (words_[i].word == word) return i;
    }
    return SIZE_MAX;
  }

  std::vector<embed_test::FixtureWord> words_ = embed_test::FixtureWords();
  store::MemoryStore store_;
  std::filesystem::path dir_;
  Manifest manifest_;
};

TEST_F(TextQueryTest, AWordFindsItsOwnRowWithExactlyTheRuntimesVector) {
  PublicationReader reader(manifest_);
  FetchStats embed_stats, query_stats;
  auto e = EmbedQueryTexts(reader, store_, {"Cat", "salt water"}, &embed_stats);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_EQ(e->vectors.size(), 2u);
  auto direct = EmbedText(store_, *manifest_.embedding, "Cat");
  ASSERT_TRUE(direct.ok());
  ASSERT_EQ(e->vectors[0].size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(std::bit_cast<uint32_t>(e->vectors[0][i]), std::bit_cast<uint32_t>((*direct)[i]));
  // The model's top object with the centroids, then pages, then buckets.
  EXPECT_EQ(embed_stats.round_trips, 3u);
  QueryOptions options;
  options.k = 3;
  options.nprobe = 3;
  auto result = RunQuery(reader, *e->store, e->vectors, options, &query_stats);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->keys.integers[0], static_cast<int64_t>(RowOf("cat")));
  EXPECT_NEAR(result->hits[0].distance, 0.0f, 1e-2);
  // The centroids came with the embedding rounds: the run's own rounds are
  // the footers and the row groups, and the centroids count as held.
  EXPECT_EQ(query_stats.round_trips, 2u);
  EXPECT_EQ(query_stats.cache_hits, 1u);
}

TEST_F(TextQueryTest, RefusalsAreSpecific) {
  Manifest plain = manifest_;
  plain.embedding.reset();
  PublicationReader without(plain);
  auto none = EmbedQueryTexts(without, store_, {"cat"});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().ToString(),
            "invalid_argument: this publication carries no embedding model, so it cannot embed text: query it with a "
            "vector");
  PublicationReader reader(manifest_);
  auto unknown = EmbedQueryTexts(reader, store_, {"cat", "zebra unicorn"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().ToString(), "invalid_argument: text 1: no word of the text is in the model's vocabulary");
  // A probe whose recorded vector differs: text refused, naming the probe.
  Manifest changed = manifest_;
  changed.embedding->probes[2].vector[1] = std::nextafter(changed.embedding->probes[2].vector[1], 2.0f);
  PublicationReader probed(changed);
  auto parity = EmbedQueryTexts(probed, store_, {"cat"});
  ASSERT_FALSE(parity.ok());
  EXPECT_EQ(parity.status().code(), StatusCode::kIntegrityError);
  EXPECT_TRUE(parity.status().message().starts_with("parity probe 2: component 1 is ")) << parity.status().ToString();
  // The vector query of the same publication is unaffected.
  QueryOptions options;
  options.k = 1;
  options.nprobe = 3;
  EXPECT_TRUE(RunQuery(probed, store_, {{0.7f, 0.1f, 0.1f, 0.2f}}, options).ok());
}

TEST_F(TextQueryTest, AChangedAssetByteIsAnIntegrityErrorNamingTheAsset) {
  store::MemoryStore tampered;
  for (const ObjectDescriptor& a : manifest_.embedding->assets) {
    std::string bytes = *store_.Peek(a.path);
    if (a.path == kWordsBucketsPath) bytes[bytes.size() / 2] ^= 0x01;
    ASSERT_TRUE(tampered.CreateIfAbsent(a.path, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}).ok());
  }
  std::string centroids = *store_.Peek(manifest_.hierarchy.centroids.path);
  ASSERT_TRUE(tampered
                  .CreateIfAbsent(manifest_.hierarchy.centroids.path,
                                  {reinterpret_cast<const uint8_t*>(centroids.data()), centroids.size()})
                  .ok());
  PublicationReader reader(manifest_);
  // Some probe or the text reads the flipped bucket (16 words, 65,536
  // buckets: each bucket holds one word; "cat" "the" "a" … cover several).
  auto e = EmbedQueryTexts(reader, tampered, {"cat the a small feline salt water fox don t caf\xc3\xa9 1984 france capital well"});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(e.status().path(), std::string(kWordsBucketsPath));
}

}  // namespace
}  // namespace vigilo::ivf
