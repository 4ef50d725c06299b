// The embedding runtime's untrusted-input parsers (docs/format/embedding.md):
// words-top.bin, a page of words-pages.bin, a bucket of words-buckets.bin,
// the contract's parameters, the tokenizer, and a whole run fed with fuzzed
// responses. Invariants: no crash or sanitizer report; whatever a parser
// accepts re-encodes to the same bytes; tokens obey the tokenizer's rules.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/ivf/embed_core.h"
#include "vigilo/json/parse.h"

namespace {

using namespace vigilo::ivf;

void Check(bool ok) {
  if (!ok) std::abort();
}

void Top(std::span<const uint8_t> bytes) {
  auto top = ParseWordsTop(bytes);
  if (!top.ok()) return;
  std::vector<uint8_t> again = EncodeWordsTop(*top);
  Check(std::equal(again.begin(), again.end(), bytes.begin(), bytes.end()));
}

void Page(std::span<const uint8_t> bytes, uint8_t which) {
  WordsTop top;
  top.dimension = 2;
  top.buckets = 8;
  top.pages = 2;
  top.vocabulary = 5;
  top.buckets_size = 1000;
  top.page_digests.resize(2);
  auto entries = ParseWordsPage(bytes, top, which % 2);
  if (!entries.ok()) return;
  std::vector<uint8_t> again;
  AppendWordsPage(*entries, again);
  Check(std::equal(again.begin(), again.end(), bytes.begin(), bytes.end()));
}

void Bucket(std::span<const uint8_t> bytes, uint8_t dims, uint8_t which) {
  WordsTop top;
  top.dimension = dims % 4 + 1;
  top.buckets = 4;
  top.pages = 1;
  top.vocabulary = 5;
  top.buckets_size = bytes.size() + 7;
  BucketEntry entry{7, static_cast<uint32_t>(bytes.size()), {}};
  auto bucket = ParseWordsBucket(bytes, top, which % 4, entry);
  if (!bucket.ok()) return;
  std::vector<std::string_view> words(bucket->words.begin(), bucket->words.end());
  std::vector<uint8_t> again;
  AppendWordBucket(words, bucket->vectors, top.dimension, again);
  Check(std::equal(again.begin(), again.end(), bytes.begin(), bytes.end()));
  for (const std::string& w : bucket->words) Check(bucket->Find(w) >= 0);
}

void Tokens(std::string_view text) {
  auto tokens = TokenizeWords(text);
  if (!tokens.ok()) return;
  for (const std::string& t : *tokens) {
    Check(!t.empty());
    for (char ch : t) {
      auto c = static_cast<unsigned char>(ch);
      Check((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80);
    }
  }
}

void Parameters(std::string_view text) {
  auto value = vigilo::json::Parse(text);
  if (!value.ok()) return;
  auto p = ParseWordVectorsParameters(*value);
  if (!p.ok()) return;
  // The writer's JSON reads back as the same parameters; it equals the input
  // unless the input spelled a direction component as an integer ("1").
  auto again = ParseWordVectorsParameters(WordVectorsParametersJson(*p));
  Check(again.ok() && *again == *p);
  if (p->direction.empty()) Check(WordVectorsParametersJson(*p) == *value);
}

// A run over a 4-bucket, 2-page, 2-dimensional model whose responses are
// slices of the input (digests are the driver's job, so the core sees them),
// pooled by either contract pooling.
void Run(std::span<const uint8_t> bytes, bool sif) {
  EmbeddingSpec spec;
  spec.contract = std::string(kStaticWordVectorsContract);
  WordVectorsParameters params;
  params.buckets = 4;
  params.pages = 2;
  params.vocabulary = 5;
  if (sif) {
    params.pooling = WordPooling::kSif;
    params.word_weight_c = 750;
    params.direction = {0.6f, 0.8f};
  }
  spec.parameters = WordVectorsParametersJson(params);
  spec.dimension = 2;
  spec.input_template = "{text}";
  spec.assets = {{std::string(kWordsTopPath), kWordsTopHeaderBytes + 32, std::string(64, 'a')},
                 {std::string(kWordsPagesPath), 2 * WordsPageBytes(2), std::string(64, 'b')},
                 {std::string(kWordsBucketsPath), 64, std::string(64, 'c')}};
  auto run = EmbedRun::Start(spec, "w0 w1 w2 w3 w4 w5");
  if (!run.ok()) std::abort();
  size_t pos = 0;
  while (!(*run)->done()) {
    std::vector<std::vector<uint8_t>> responses;
    for (const EmbedRequest& r : (*run)->requests()) {
      std::vector<uint8_t> b(r.length, 0);
      for (size_t i = 0; i < b.size() && pos < bytes.size(); ++i) b[i] = bytes[pos++];
      responses.push_back(std::move(b));
    }
    if (!(*run)->Supply(responses).ok()) return;
  }
  Check((*run)->vector().size() == 2);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  std::span<const uint8_t> rest(data + 3, size - 3);
  std::string_view text(reinterpret_cast<const char*>(rest.data()), rest.size());
  switch (data[0] % 6) {
    case 0: Top(rest); break;
    case 1: Page(rest, data[1]); break;
    case 2: Bucket(rest, data[1], data[2]); break;
    case 3: Tokens(text); break;
    case 4: Parameters(text); break;
    default: Run(rest, (data[1] & 1) != 0); break;
  }
  return 0;
}
