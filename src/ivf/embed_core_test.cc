// The sans-IO embedding core: tokenizer rules one by one, the token hash,
// the contract's parameters, the asset parsers' exact errors, pooling and
// the parity comparison (docs/format/embedding.md).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "vigilo/ivf/embed_core.h"
#include "vigilo/json/parse.h"

namespace vigilo::ivf {
namespace {

using Tokens = std::vector<std::string>;

Tokens Tok(std::string_view text) {
  auto r = TokenizeWords(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Tokens{};
}

TEST(EmbedTokenizer, LowercasesAsciiLettersOnly) {
  EXPECT_EQ(Tok("Hello WORLD"), (Tokens{"hello", "world"}));
  // É (C3 89) is not folded: no Unicode case tables in the contract.
  EXPECT_EQ(Tok("\xc3\x89" "COLE"), (Tokens{"\xc3\x89" "cole"}));
}

TEST(EmbedTokenizer, HyphensAndPunctuationSeparate) {
  EXPECT_EQ(Tok("well-known, state-of-the-art!"), (Tokens{"well", "known", "state", "of", "the", "art"}));
  EXPECT_EQ(Tok("a_b.c/d"), (Tokens{"a", "b", "c", "d"}));
}

TEST(EmbedTokenizer, ApostrophesSeparate) {
  EXPECT_EQ(Tok("don't"), (Tokens{"don", "t"}));
  EXPECT_EQ(Tok("cat's"), (Tokens{"cat", "s"}));
}

TEST(EmbedTokenizer, DigitsAreWordCharacters) {
  EXPECT_EQ(Tok("mp3 3.14 1,000 1984"), (Tokens{"mp3", "3", "14", "1", "000", "1984"}));
}

TEST(EmbedTokenizer, NonAsciiCodePointsAreKeptWhole) {
  EXPECT_EQ(Tok("caf\xc3\xa9 na\xc3\xafve"), (Tokens{"caf\xc3\xa9", "na\xc3\xafve"}));
  EXPECT_EQ(Tok("\xe6\x97\xa5\xe6\x9c\xac text"), (Tokens{"\xe6\x97\xa5\xe6\x9c\xac", "text"}));
  // Non-ASCII punctuation (an em dash) is a word byte too: one token.
  EXPECT_EQ(Tok("a\xe2\x80\x94" "b"), (Tokens{"a\xe2\x80\x94" "b"}));
}

TEST(EmbedTokenizer, EmptyAndSeparatorOnlyTextsHaveNoTokens) {
  EXPECT_EQ(Tok(""), Tokens{});
  EXPECT_EQ(Tok(" \t\n-'!"), Tokens{});
}

TEST(EmbedTokenizer, RefusesInvalidUtf8) {
  auto r = TokenizeWords("ok \xff");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "the text is not valid UTF-8 (byte 3)");
}

TEST(EmbedTokenizer, Limits) {
  EXPECT_TRUE(TokenizeWords(std::string(kMaxEmbedTextBytes, 'a')).ok());
  auto big = TokenizeWords(std::string(kMaxEmbedTextBytes + 1, 'a'));
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(big.status().message(), "the text is 65537 bytes; at most 65536 are embedded");
  std::string many;
  for (size_t i = 0; i < kMaxEmbedTokens; ++i) many += "a ";
  EXPECT_EQ(Tok(many).size(), kMaxEmbedTokens);
  auto over = TokenizeWords(many + "b");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(over.status().message(), "the text has more than 4096 words");
}

TEST(EmbedTokenizer, InputTemplate) {
  EXPECT_EQ(*ApplyInputTemplate("query: {text}.", "cats"), "query: cats.");
  auto twice = ApplyInputTemplate("{text} {text}", "x");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidFormat);
  EXPECT_FALSE(ApplyInputTemplate("no placeholder", "x").ok());
}

TEST(EmbedHash, Fnv1a64KnownValues) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ull);
}

json::Value Params(std::string_view text) { return *json::Parse(text); }

constexpr std::string_view kParams =
    R"({"buckets":8,"hash":"fnv1a64","pages":2,"pooling":"mean-f64-l2","tokenizer":"vigilo-words-v1","vocabulary":5})";

constexpr std::string_view kSifParams =
    R"({"buckets":8,"direction":[0.6000000238418579,0.800000011920929],"hash":"fnv1a64","pages":2,"pooling":"sif-f64-l2",)"
    R"("tokenizer":"vigilo-words-v1","vocabulary":5,"word-weight-c":750})";

TEST(EmbedParameters, ParsesAndRoundTrips) {
  auto p = ParseWordVectorsParameters(Params(kParams));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  WordVectorsParameters want;
  want.buckets = 8;
  want.pages = 2;
  want.vocabulary = 5;
  EXPECT_EQ(*p, want);
  EXPECT_EQ(WordVectorsParametersJson(*p), Params(kParams));

  auto sif = ParseWordVectorsParameters(Params(kSifParams));
  ASSERT_TRUE(sif.ok()) << sif.status().ToString();
  want.pooling = WordPooling::kSif;
  want.word_weight_c = 750;
  want.direction = {0.6f, 0.8f};
  EXPECT_EQ(*sif, want);
  EXPECT_EQ(WordVectorsParametersJson(*sif), Params(kSifParams));
}

// Each case replaces `from` in `base` by `to`; the parse must fail with
// exactly that path and message.
struct ParameterEdit {
  std::string from, to, path, message;
};
void ExpectParameterErrors(std::string_view base, const std::vector<ParameterEdit>& edits) {
  for (const ParameterEdit& e : edits) {
    std::string json(base);
    ASSERT_NE(json.find(e.from), std::string::npos) << e.from;
    json.replace(json.find(e.from), e.from.size(), e.to);
    auto p = ParseWordVectorsParameters(Params(json));
    ASSERT_FALSE(p.ok()) << json;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidFormat) << json;
    EXPECT_EQ(p.status().path(), e.path) << json;
    EXPECT_EQ(p.status().message(), e.message) << json;
  }
}

TEST(EmbedParameters, RefusesABadSifDirectionOrWeight) {
  const std::string dir = "[0.6000000238418579,0.800000011920929]";  // 0.6f, 0.8f
  const std::string exact = "a direction component must be a number a float32 holds exactly";
  ExpectParameterErrors(kSifParams, {
      {"\"direction\":" + dir + ",", "", "runtime.parameters.direction", "missing member"},
      {dir, "[]", "runtime.parameters.direction", "must be an array of 1 to 65536 numbers"},
      {dir, "\"0.6\"", "runtime.parameters.direction", "must be an array of 1 to 65536 numbers"},
      {dir, "[0.5,0.1]", "runtime.parameters.direction[1]", exact},
      {dir, "[0.5,null]", "runtime.parameters.direction[1]", "expected a number, got null"},
      {dir, "[0.5,1e39]", "runtime.parameters.direction[1]", exact},
      {"\"word-weight-c\":750", "\"word-weight-c\":0", "runtime.parameters.word-weight-c",
       "must be an integer in [1, 4294967295]"},
      {",\"word-weight-c\":750", "", "runtime.parameters.word-weight-c", "missing member"},
      {"\"vocabulary\":5", "\"vocabulary\":5,\"weights\":1", "runtime.parameters.weights",
       "unknown parameter of static-word-vectors-v1 with pooling \"sif-f64-l2\""},
  });
}

TEST(EmbedParameters, RefusesWhatItDoesNotKnow) {
  ExpectParameterErrors(kParams, {
      {"\"vocabulary\":5", "\"vocabulary\":5,\"extra\":1", "runtime.parameters.extra",
       "unknown parameter of static-word-vectors-v1 with pooling \"mean-f64-l2\""},
      {"vigilo-words-v1", "vigilo-words-v2", "runtime.parameters.tokenizer",
       "this runtime knows only \"vigilo-words-v1\""},
      {"fnv1a64", "murmur", "runtime.parameters.hash", "this runtime knows only \"fnv1a64\""},
      {"mean-f64-l2", "max", "runtime.parameters.pooling", "this runtime knows only \"mean-f64-l2\" and \"sif-f64-l2\""},
      {"\"vocabulary\":5", "\"vocabulary\":5,\"word-weight-c\":750", "runtime.parameters.word-weight-c",
       "unknown parameter of static-word-vectors-v1 with pooling \"mean-f64-l2\""},
      {"\"pages\":2", "\"pages\":3", "runtime.parameters.pages", "pages must divide buckets"},
      {"\"buckets\":8", "\"buckets\":0", "runtime.parameters.buckets", "must be an integer in [1, 16777216]"},
      {",\"vocabulary\":5", "", "runtime.parameters.vocabulary", "missing member"},
  });
}

WordsTop SmallTop() {
  WordsTop top;
  top.dimension = 2;
  top.buckets = 4;
  top.pages = 2;
  top.vocabulary = 3;
  top.buckets_size = 0;
  top.page_digests = {Digest128{1, 2, 3}, Digest128{4, 5, 6}};
  return top;
}

void ExpectFormatError(const Status& s, std::string_view path, uint64_t offset, std::string_view message) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat) << s.ToString();
  EXPECT_EQ(s.path(), path) << s.ToString();
  EXPECT_EQ(s.offset(), offset) << s.ToString();
  EXPECT_EQ(s.message(), message) << s.ToString();
}

TEST(EmbedAssets, TopRoundTripsAndRefusesBadBytes) {
  WordsTop top = SmallTop();
  top.buckets_size = 100;
  std::vector<uint8_t> bytes = EncodeWordsTop(top);
  ASSERT_EQ(bytes.size(), kWordsTopHeaderBytes + 32);
  auto parsed = ParseWordsTop(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, top);

  ExpectFormatError(ParseWordsTop(std::span(bytes).first(10)).status(), kWordsTopPath, 10,
                    "truncated header: 10 of 48 bytes");
  auto garbage = bytes;
  garbage[0] = 'X';
  ExpectFormatError(ParseWordsTop(garbage).status(), kWordsTopPath, 0, "not a words-top object (bad magic)");
  auto version = bytes;
  version[8] = 2;
  ExpectFormatError(ParseWordsTop(version).status(), kWordsTopPath, 8, "unknown version 2");
  auto pages = bytes;
  pages[20] = 3;  // 3 pages do not divide 4 buckets
  ExpectFormatError(ParseWordsTop(pages).status(), kWordsTopPath, 20, "page count must divide the bucket count");
  ExpectFormatError(ParseWordsTop(std::span(bytes).first(bytes.size() - 1)).status(), kWordsTopPath, 79,
                    "size 79 bytes, the header implies 80");
}

std::vector<uint8_t> Page(std::vector<BucketEntry> entries) {
  std::vector<uint8_t> out;
  AppendWordsPage(entries, out);
  return out;
}

TEST(EmbedAssets, PagesAreCheckedEntryByEntry) {
  WordsTop top = SmallTop();  // 4 buckets, 2 pages: 8 + 2 × 20 bytes a page
  top.buckets_size = 30;
  std::vector<uint8_t> page0 = Page({{0, 10, Digest128{9}}, {10, 0, Digest128{}}});
  std::vector<uint8_t> page1 = Page({{10, 20, Digest128{8}}, {30, 0, Digest128{}}});
  ASSERT_EQ(page0.size(), WordsPageBytes(2));
  ASSERT_EQ(page0.size(), 48u);
  auto e0 = ParseWordsPage(page0, top, 0);
  ASSERT_TRUE(e0.ok()) << e0.status().ToString();
  EXPECT_EQ(*e0, (std::vector<BucketEntry>{{0, 10, Digest128{9}}, {10, 0, Digest128{}}}));
  auto e1 = ParseWordsPage(page1, top, 1);
  ASSERT_TRUE(e1.ok()) << e1.status().ToString();
  EXPECT_EQ((*e1)[1], (BucketEntry{30, 0, Digest128{}}));

  ExpectFormatError(ParseWordsPage(std::span(page1).first(20), top, 1).status(), kWordsPagesPath, 48 + 20,
                    "page 1 is 20 bytes, not 48");
  ExpectFormatError(ParseWordsPage(Page({{3, 7, Digest128{9}}, {10, 0, Digest128{}}}), top, 0).status(),
                    kWordsPagesPath, 0, "the first bucket must start at offset 0");
  ExpectFormatError(ParseWordsPage(Page({{31, 0, Digest128{}}, {31, 0, Digest128{}}}), top, 1).status(),
                    kWordsPagesPath, 48, "page 1 starts at 31, past the end of words-buckets.bin (30 bytes)");
  ExpectFormatError(ParseWordsPage(Page({{10, 25, Digest128{8}}, {35, 0, Digest128{}}}), top, 1).status(),
                    kWordsPagesPath, 48 + 8, "bucket range [10, +25) lies past the end of words-buckets.bin (30 bytes)");
  ExpectFormatError(ParseWordsPage(Page({{10, 5, Digest128{8}}, {15, 0, Digest128{}}}), top, 1).status(),
                    kWordsPagesPath, 48 + 28, "the last bucket must end at the end of words-buckets.bin");
  ExpectFormatError(ParseWordsPage(Page({{0, 10, Digest128{9}}, {10, 0, Digest128{1}}}), top, 0).status(),
                    kWordsPagesPath, 8 + 20 + 4, "an empty bucket has a digest");
}

// Two words that share bucket `b` of 4 (found by search).
std::vector<std::string> WordsInBucket(uint32_t b, size_t n) {
  std::vector<std::string> out;
  for (int i = 0; out.size() < n; ++i) {
    std::string w = "w" + std::to_string(i);
    if (Fnv1a64(w) % 4 == b) out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(EmbedAssets, BucketsRoundTripAndRefuseBadBytes) {
  WordsTop top = SmallTop();
  std::vector<std::string> words = WordsInBucket(1, 2);
  std::vector<std::string_view> views(words.begin(), words.end());
  std::vector<float> vectors = {1.5f, -2.0f, 0.25f, 3.0f};
  std::vector<uint8_t> bytes;
  AppendWordBucket(views, vectors, 2, bytes);
  ASSERT_EQ(bytes.size(), 4 + 2 * (2 + words[0].size() + 8));
  BucketEntry entry{1000, static_cast<uint32_t>(bytes.size()), {}};
  top.buckets_size = 2000;
  auto b = ParseWordsBucket(bytes, top, 1, entry);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->words, words);
  EXPECT_EQ(b->vectors, vectors);
  EXPECT_EQ(b->Find(words[1]), 1);
  EXPECT_EQ(b->Find("nope"), -1);

  ExpectFormatError(ParseWordsBucket(bytes, top, 2, entry).status(), kWordsBucketsPath, 1006,
                    "a word that does not hash to bucket 2");
  auto huge = bytes;
  huge[0] = 0xff;
  ExpectFormatError(ParseWordsBucket(huge, top, 1, entry).status(), kWordsBucketsPath, 1000,
                    "bucket 1 claims 255 words, which its " + std::to_string(bytes.size()) + " bytes cannot hold");
  auto trailing = bytes;
  trailing.push_back(0);
  BucketEntry longer = entry;
  longer.length += 1;
  ExpectFormatError(ParseWordsBucket(trailing, top, 1, longer).status(), kWordsBucketsPath, 1000 + bytes.size(),
                    "trailing bytes after the bucket's last word");
  auto nan = bytes;
  const size_t first_float = 4 + 2 + words[0].size();
  nan[first_float + 3] = 0x7f;
  nan[first_float + 2] = 0xc0;
  ExpectFormatError(ParseWordsBucket(nan, top, 1, entry).status(), kWordsBucketsPath, 1000 + first_float,
                    "a vector component is not finite");
  std::vector<std::string> reversed = {words[1], words[0]};
  std::vector<std::string_view> rviews(reversed.begin(), reversed.end());
  std::vector<uint8_t> unsorted;
  AppendWordBucket(rviews, vectors, 2, unsorted);
  ExpectFormatError(ParseWordsBucket(unsorted, top, 1, entry).status(), kWordsBucketsPath,
                    1000 + 4 + 2 + reversed[0].size() + 8 + 2, "words are not sorted and distinct");
  auto cut = std::span(bytes).first(bytes.size() - 1);
  BucketEntry shorter = entry;
  shorter.length -= 1;
  ExpectFormatError(ParseWordsBucket(cut, top, 1, shorter).status(), kWordsBucketsPath,
                    1000 + 4 + 2 + words[0].size() + 8 + 2, "truncated word or vector");
}

TEST(EmbedPooling, MeanThenL2InFloat64) {
  const float a[2] = {3.0f, 0.0f}, b[2] = {0.0f, 4.0f};
  auto v = PoolMeanL2({a, b, b}, 2);
  ASSERT_TRUE(v.ok());
  // mean (1, 8/3); norm sqrt(1 + 64/9) = sqrt(73)/3.
  EXPECT_EQ((*v)[0], static_cast<float>(1.0 / (std::sqrt(73.0) / 3.0)));
  EXPECT_EQ((*v)[1], static_cast<float>((8.0 / 3.0) / (std::sqrt(73.0) / 3.0)));
  const float zero[2] = {0, 0};
  auto z = PoolMeanL2({zero}, 2);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), StatusCode::kInvalidArgument);
  auto none = PoolMeanL2({}, 2);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "no word of the text is in the model's vocabulary");
}

TEST(EmbedPooling, SifRemovesTheDirectionThenL2InFloat64) {
  const float a[2] = {3.0f, 0.0f}, b[2] = {0.0f, 4.0f};
  const float direction[2] = {0.6f, 0.8f};
  auto v = PoolSifL2({a, b, b}, direction);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  // sum (3, 8); along = 3·0.6f + 8·0.8f in float64; minus along·direction.
  const double u0 = static_cast<double>(0.6f), u1 = static_cast<double>(0.8f);
  const double along = 3.0 * u0 + 8.0 * u1;
  const double t0 = 3.0 - along * u0, t1 = 8.0 - along * u1;
  const double norm = std::sqrt(t0 * t0 + t1 * t1);
  EXPECT_EQ((*v)[0], static_cast<float>(t0 / norm));
  EXPECT_EQ((*v)[1], static_cast<float>(t1 / norm));
  EXPECT_LT((*v)[0], 0.0f);  // the remainder points away from the direction's first axis
  // A zero sum has no direction: an error, never a zero vector.
  const float zero[2] = {0, 0};
  auto z = PoolSifL2({zero}, direction);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(z.status().message(),
            "the text's word vectors have no direction once the model's common direction is removed (zero or not finite)");
  auto none = PoolSifL2({}, direction);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "no word of the text is in the model's vocabulary");
}

EmbeddingSpec SpecWith(std::string contract, std::string_view params) {
  EmbeddingSpec spec;
  spec.contract = std::move(contract);
  spec.parameters = Params(params);
  spec.dimension = 2;
  spec.input_template = "{text}";
  spec.assets = {{std::string(kWordsTopPath), kWordsTopHeaderBytes + 32, std::string(64, 'a')},
                 {std::string(kWordsPagesPath), 2 * WordsPageBytes(4), std::string(64, 'b')},
                 {std::string(kWordsBucketsPath), 100, std::string(64, 'c')}};
  spec.probes = {{"x", {0.6f, 0.8f}}};
  return spec;
}

TEST(EmbedRuntime, IsChosenByContractAndRefusesUnknownOnes) {
  auto ok = EmbeddingRuntime::Open(SpecWith("static-word-vectors-v1", kParams));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto onnx = EmbeddingRuntime::Open(SpecWith("onnx-sentence-v1", kParams));
  ASSERT_FALSE(onnx.ok());
  EXPECT_EQ(onnx.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(onnx.status().path(), "runtime.contract");
  EXPECT_EQ(onnx.status().message(),
            "unknown embedding runtime contract \"onnx-sentence-v1\" (this reader knows \"static-word-vectors-v1\")");
  EmbeddingSpec extra = SpecWith("static-word-vectors-v1", kParams);
  extra.assets.push_back({"embedding/other.bin", 1, std::string(64, 'd')});
  auto e = EmbeddingRuntime::Open(extra);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().path(), "assets[3].path");
  EmbeddingSpec missing = SpecWith("static-word-vectors-v1", kParams);
  missing.assets.pop_back();
  auto m = EmbeddingRuntime::Open(missing);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "missing asset \"embedding/words-buckets.bin\"");
  auto sif = EmbeddingRuntime::Open(SpecWith("static-word-vectors-v1", kSifParams));
  ASSERT_TRUE(sif.ok()) << sif.status().ToString();
  std::string three(kSifParams);
  const std::string two = "[0.6000000238418579,0.800000011920929]";
  three.replace(three.find(two), two.size(), "[0.5,0.5,0.5]");
  auto wrong = EmbeddingRuntime::Open(SpecWith("static-word-vectors-v1", three));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(wrong.status().path(), "runtime.parameters.direction");
  EXPECT_EQ(wrong.status().message(), "has 3 components; the dimension is 2");
}

TEST(EmbedRuntime, FirstRequestIsTheWholeTopVerifiedByItsSha256) {
  auto run = EmbedRun::Start(SpecWith("static-word-vectors-v1", kParams), "Some words");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ((*run)->requests().size(), 1u);
  EXPECT_EQ((*run)->requests()[0],
            (EmbedRequest{std::string(kWordsTopPath), 0, kWordsTopHeaderBytes + 32, true, std::string(64, 'a')}));
  // A short response is an integrity error naming the asset.
  auto s = (*run)->Supply(std::vector<std::vector<uint8_t>>{std::vector<uint8_t>(10)});
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError);
  EXPECT_EQ(s.path(), kWordsTopPath);
  auto none = EmbedRun::Start(SpecWith("static-word-vectors-v1", kParams), " -- ");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
}

TEST(EmbedParity, BitIdenticalUnlessATolerance) {
  EmbeddingSpec spec = SpecWith("static-word-vectors-v1", kParams);
  const float same[2] = {0.6f, 0.8f};
  EXPECT_TRUE(CompareParityProbe(spec, 0, same).ok());
  const float off[2] = {0.6f, std::nextafter(0.8f, 1.0f)};
  Status s = CompareParityProbe(spec, 0, off);
  EXPECT_EQ(s.code(), StatusCode::kIntegrityError);
  EXPECT_EQ(s.message(), "parity probe 0: component 1 is 0.8000001, the model's probe says 0.8");
  spec.tolerance = 1e-6;
  EXPECT_TRUE(CompareParityProbe(spec, 0, off).ok());
  const float negzero[2] = {0.6f, -0.0f};
  spec.probes[0].vector[1] = 0.0f;
  spec.tolerance = 0;
  EXPECT_FALSE(CompareParityProbe(spec, 0, negzero).ok());  // bit-identical: -0 is not 0
}

}  // namespace
}  // namespace vigilo::ivf
