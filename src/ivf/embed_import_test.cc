// The importer's input errors, each with its exact message and location:
// not a gzip, a truncated stream, a tar entry past the end, a broken tar
// header, a missing package.json or package JSON, duplicate words, vectors
// of the wrong length; and the npm integrity it records.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <string>
#include <vector>

#include "embed_test_support.h"
#include "store_test_support.h"
#include "vigilo/ivf/embed_import.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

using embed_test::FixtureWords;
using embed_test::Gzip;
using embed_test::PackageJson;
using embed_test::Tar;
using embed_test::WinkJson;
using embed_test::WriteTemp;

Status ImportBytes(const std::string& name, const std::string& tgz, store::MemoryStore* store = nullptr) {
  store::MemoryStore local;
  auto path = WriteTemp(name, tgz);
  auto r = ImportWinkEmbeddings(path.string(), store != nullptr ? *store : local);
  return r.ok() ? Status::Ok() : r.status();
}

std::string TempPath(const std::string& name) { return WriteTemp(name, "").string(); }

TEST(EmbedImport, RecordsTheTarballsNpmIntegrity) {
  std::string tgz = embed_test::FixtureTarball(WinkJson(FixtureWords()));
  auto path = WriteTemp("integrity.tgz", tgz);
  store::MemoryStore store;
  auto r = ImportWinkEmbeddings(path.string(), store);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  unsigned char md[64];
  unsigned int len = 0;
  EVP_Digest(tgz.data(), tgz.size(), md, &len, EVP_sha512(), nullptr);
  unsigned char b64[100];
  int n = EVP_EncodeBlock(b64, md, static_cast<int>(len));
  EXPECT_EQ(r->spec.model.integrity, "sha512-" + std::string(reinterpret_cast<char*>(b64), static_cast<size_t>(n)));
  EXPECT_EQ(r->spec.model.repository, "npm:wink-fixture");
  EXPECT_EQ(r->spec.model.revision, "0.0.1");
  EXPECT_EQ(r->words, FixtureWords().size());
  EXPECT_EQ(r->spec.dimension, 4u);
  EXPECT_EQ(store.Keys(), (std::vector<std::string>{"embedding.json", "embedding/words-buckets.bin",
                                                    "embedding/words-pages.bin", "embedding/words-top.bin"}));
}

// A cancel (issue 34: SIGINT on embed import) stops the import at its next
// step: here when the first asset's create begins, so that asset is never
// committed and nothing is in the store; and one already set stops it at
// the first tar entry.
TEST(EmbedImport, ACancelStopsTheImportAndCommitsNothing) {
  auto path = WriteTemp("cancelled.tgz", embed_test::FixtureTarball(WinkJson(FixtureWords())));
  store::MemoryStore store;
  store::CancelToken cancel;
  CancellingStore cancelling(store, cancel, 0, std::string(kWordsBucketsPath));
  EmbedImportOptions options;
  options.cancel = &cancel;
  auto r = ImportWinkEmbeddings(path.string(), cancelling, options);
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled) << r.status().ToString();
  EXPECT_TRUE(store.Keys().empty());
  bool read = false;
  options.progress = [&read](uint64_t, uint64_t) { read = true; };
  r = ImportWinkEmbeddings(path.string(), store, options);
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_FALSE(read);
  EXPECT_TRUE(store.Keys().empty());
}

void ExpectError(const Status& s, StatusCode code, std::string_view path, std::string_view message) {
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_EQ(s.path(), path) << s.ToString();
  EXPECT_EQ(s.message(), message) << s.ToString();
}

// Given probe texts are checked before the tarball is even opened: this one
// does not exist, and the answer is still the probe's.
TEST(EmbedImport, AProbeTextWithoutAWordIsRefusedBeforeReading) {
  store::MemoryStore out;
  EmbedImportOptions options;
  options.probe_inputs = {"the cat", "?! --"};
  auto r = ImportWinkEmbeddings("/nonexistent/model.tgz", out, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().path(), "parity probe 1");
  EXPECT_EQ(r.status().message(), "holds no word (ASCII letters, digits or non-ASCII characters)");
  options.probe_inputs = {std::string("caf\xc3", 4)};
  auto invalid = ImportWinkEmbeddings("/nonexistent/model.tgz", out, options);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(invalid.status().path(), "parity probe 0");
}

// A zero weight constant would weigh every word 1 (rank / rank): refused
// before the tarball is opened; a mean import does not use it.
TEST(EmbedImport, AZeroWordWeightConstantIsRefusedBeforeReading) {
  store::MemoryStore out;
  EmbedImportOptions options;
  options.word_weight_c = 0;
  auto r = ImportWinkEmbeddings("/nonexistent/model.tgz", out, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "the word weight constant c must be at least 1");
  options.pooling = WordPooling::kMean;
  auto mean = ImportWinkEmbeddings("/nonexistent/model.tgz", out, options);
  ASSERT_FALSE(mean.ok());
  EXPECT_NE(mean.status().message(), "the word weight constant c must be at least 1");
}

TEST(EmbedImport, NotAGzip) {
  Status s = ImportBytes("plain.tgz", "{\"not\": \"gzip\"}");
  ExpectError(s, StatusCode::kInvalidFormat, TempPath("plain.tgz"), "not a gzip file (an npm tarball is a .tgz)");
  EXPECT_EQ(s.offset(), 0u);
  ExpectError(ImportBytes("empty.tgz", ""), StatusCode::kInvalidFormat, TempPath("empty.tgz"),
              "not a gzip file (it is empty)");
}

TEST(EmbedImport, ATruncatedGzip) {
  std::string tgz = embed_test::FixtureTarball(WinkJson(FixtureWords()));
  Status s = ImportBytes("cut.tgz", tgz.substr(0, tgz.size() / 2));
  ExpectError(s, StatusCode::kInvalidFormat, TempPath("cut.tgz"), "the gzip stream ends early (a truncated tarball)");
}

TEST(EmbedImport, ATarEntryPastTheEnd) {
  std::string json = WinkJson(FixtureWords());
  std::string tar = embed_test::TarHeader("package/package.json", PackageJson().size()) + PackageJson();
  tar.append((512 - PackageJson().size() % 512) % 512, '\0');
  tar += embed_test::TarHeader("package/fixture.json", json.size() + 5000) + json;  // claims more than it holds
  Status s = ImportBytes("short.tgz", Gzip(tar));
  ExpectError(s, StatusCode::kInvalidFormat, TempPath("short.tgz"),
              "tar entry \"package/fixture.json\" runs past the end of the archive");
}

TEST(EmbedImport, ABrokenTarHeader) {
  std::string tar = Tar({{"package/package.json", PackageJson()}});
  tar[0] = 'X';  // the checksum no longer matches
  Status s = ImportBytes("badsum.tgz", Gzip(tar));
  ExpectError(s, StatusCode::kInvalidFormat, TempPath("badsum.tgz"), "tar header checksum mismatch (not a tar archive?)");
  EXPECT_EQ(s.offset(), 0u);
}

TEST(EmbedImport, AMissingPackageJsonOrModel) {
  ExpectError(ImportBytes("nopkg.tgz", Gzip(Tar({{"package/fixture.json", WinkJson(FixtureWords())}}))),
              StatusCode::kInvalidFormat, TempPath("nopkg.tgz"), "the tarball has no package/package.json");
  ExpectError(ImportBytes("nomodel.tgz", Gzip(Tar({{"package/package.json", PackageJson()}}))),
              StatusCode::kInvalidFormat, TempPath("nomodel.tgz"),
              "the tarball has no package JSON \"package/fixture.json\" (package.json's \"main\", after package.json)");
}

TEST(EmbedImport, DuplicateWords) {
  auto words = FixtureWords();
  words.push_back(words[5]);  // "cat" twice in words and in vectors
  ExpectError(ImportBytes("dupvec.tgz", embed_test::FixtureTarball(WinkJson(words))), StatusCode::kInvalidFormat,
              TempPath("dupvec.tgz") + ":package/fixture.json",
              "duplicate word: duplicate object key \"cat\"");
  // Twice in "words" only: "vectors" then lacks one.
  std::string json = WinkJson(FixtureWords());
  json.replace(json.find("\"words\":[\"the\""), 14, "\"words\":[\"cat\"");
  ExpectError(ImportBytes("dupword.tgz", embed_test::FixtureTarball(json)), StatusCode::kInvalidFormat,
              TempPath("dupword.tgz") + ":package/fixture.json", "duplicate word \"cat\" in \"words\"");
}

TEST(EmbedImport, AVectorOfTheWrongLength) {
  auto words = FixtureWords();
  words[5].components.pop_back();
  Status s = ImportBytes("short_vector.tgz", embed_test::FixtureTarball(WinkJson(words)));
  ExpectError(s, StatusCode::kInvalidFormat, TempPath("short_vector.tgz") + ":package/fixture.json",
              "the vector of \"cat\" has 5 numbers, expected 6 (components, L2 norm, word index)");
  EXPECT_TRUE(s.offset().has_value());
}

// 1 + 2^-24 is exactly halfway between the float32s 1 and 1 + 2^-23: read as
// a double it cannot be rounded once, so the importer refuses to guess.
TEST(EmbedImport, AComponentExactlyHalfwayBetweenTwoFloats) {
  auto words = FixtureWords();
  words[5].components[1] = "1.000000059604644775390625";
  Status s = ImportBytes("halfway.tgz", embed_test::FixtureTarball(WinkJson(words)));
  ExpectError(s, StatusCode::kInvalidFormat, TempPath("halfway.tgz") + ":package/fixture.json",
              "a vector component lies exactly halfway between two float32 values once read as a double; it "
              "cannot be rounded once");
}

TEST(EmbedImport, AnUnknownMemberOrAWrongSize) {
  std::string json = WinkJson(FixtureWords());
  std::string extra = json;
  extra.replace(1, 0, "\"surprise\":1,");
  Status s = ImportBytes("extra.tgz", embed_test::FixtureTarball(extra));
  ExpectError(s, StatusCode::kInvalidFormat, TempPath("extra.tgz") + ":package/fixture.json",
              "unknown member \"surprise\" in the package JSON");
  EXPECT_EQ(s.offset(), 1u);
  std::string size = json;
  size.replace(size.find("\"size\":16"), 9, "\"size\":17");
  ExpectError(ImportBytes("size.tgz", embed_test::FixtureTarball(size)), StatusCode::kInvalidFormat,
              TempPath("size.tgz") + ":package/fixture.json", "\"size\" must equal the number of words (16)");
}

}  // namespace
}  // namespace vigilo::ivf
