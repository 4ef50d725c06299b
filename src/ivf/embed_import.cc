// The wink-embeddings importer (include/vigilo/ivf/embed_import.h;
// docs/format/embedding.md, Import). The package JSON (~307 MB) is streamed
// with the json tokenizer: only the words and their float32 vectors are kept.
#include "vigilo/ivf/embed_import.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "embed_probes.h"
#include "embed_tar.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/embed.h"
#include "vigilo/ivf/embed_core.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/tokenizer.h"

namespace vigilo::ivf {

namespace {

constexpr size_t kMaxVocabulary = 1u << 24;
constexpr uint64_t kMaxPackageJsonBytes = 1u << 20;

struct WinkModel {
  uint32_t dimension = 0;
  std::vector<std::string> words;         // the "words" array: the vocabulary order
  std::vector<std::string> vector_words;  // the "vectors" members, in their order
  std::vector<uint64_t> vector_index;     // each vector's wordIndex number
  std::vector<float> vectors;             // vector_words.size() × dimension
};

// The package's decimal as float32, rounded once: the tokenizer gives the
// correctly rounded double; rounding that to float equals rounding the
// decimal directly unless the double is exactly halfway between two floats
// (then the decimal's side of the tie is lost), which is refused.
Result<float> ExactFloat32(double d) {
  float f = static_cast<float>(d);
  if (!std::isfinite(f)) return InvalidFormat("a vector component is not a finite float32");
  if (static_cast<double>(f) != d) {
    float other = std::nextafter(f, d > static_cast<double>(f) ? INFINITY : -INFINITY);
    if (d - static_cast<double>(f) == static_cast<double>(other) - d) {
      return InvalidFormat("a vector component lies exactly halfway between two float32 values once read as a "
                           "double; it cannot be rounded once");
    }
  }
  return f;
}

Status CheckCancelled(const store::CancelToken* cancel) {
  if (cancel != nullptr && cancel->cancelled()) return Cancelled("the import was cancelled");
  return Status::Ok();
}

class WinkReader {
 public:
  WinkReader(ByteSource& source, std::string where, const std::function<void(uint64_t, uint64_t)>& progress,
             const store::CancelToken* cancel)
      : tok_(source, Options()), where_(std::move(where)), progress_(progress), cancel_(cancel) {}

  Result<WinkModel> Read() {
    VIGILO_ASSIGN_OR_RETURN(json::Token t, Next());
    if (t.type != json::TokenType::kBeginObject) return Bad("the package JSON is not an object", t.offset);
    bool words = false, vectors = false;
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(t, Next());
      if (t.type == json::TokenType::kEndObject) break;
      std::string key(t.text);
      const uint64_t at = t.offset;
      if (key == "precision" || key == "l2NormIndex" || key == "wordIndex" || key == "size" || key == "dimensions") {
        VIGILO_ASSIGN_OR_RETURN(t, Next());
        if (t.type != json::TokenType::kNumber || t.number.kind() != json::Number::Kind::kU64) {
          return Bad("\"" + key + "\" must be a non-negative integer", t.offset);
        }
        numbers_[key] = t.number.u64();
      } else if (key == "words") {
        VIGILO_RETURN_IF_ERROR(ReadWords());
        words = true;
      } else if (key == "vectors") {
        VIGILO_RETURN_IF_ERROR(ReadVectors(at));
        vectors = true;
      } else if (key == "unkVector") {
        VIGILO_RETURN_IF_ERROR(Wrap(tok_.SkipValue()));
      } else {
        return Bad("unknown member \"" + key + "\" in the package JSON", at);
      }
    }
    VIGILO_ASSIGN_OR_RETURN(t, Next());
    if (t.type != json::TokenType::kEnd) return Bad("data after the package JSON", t.offset);
    if (!words) return Bad("the package JSON has no \"words\"", tok_.offset());
    if (!vectors) return Bad("the package JSON has no \"vectors\"", tok_.offset());
    if (!numbers_.contains("size") || numbers_["size"] != model_.words.size()) {
      return Bad("\"size\" must equal the number of words (" + std::to_string(model_.words.size()) + ")", 0);
    }
    return std::move(model_);
  }

 private:
  static json::TokenizerOptions Options() {
    json::TokenizerOptions o;
    o.window_bytes = 1u << 20;
    o.max_token_bytes = 1u << 20;
    o.max_key_bytes = size_t{512} << 20;  // "vectors" has one member per word
    return o;
  }

  Status Bad(std::string message, uint64_t offset) const {
    return InvalidFormat(std::move(message)).WithPath(where_).WithOffset(offset);
  }
  // Tokenizer errors, located in the entry; a duplicate member of "vectors"
  // is a duplicate word, a format error like the others.
  Status Wrap(Status s) const {
    if (s.ok()) return s;
    if (!s.path().empty()) return s;  // the tar reader's own errors name the tarball
    if (s.code() == StatusCode::kParseError && s.message().starts_with("duplicate object key")) {
      return InvalidFormat("duplicate word: " + std::string(s.message())).WithPath(where_).WithOffset(s.offset().value_or(0));
    }
    return std::move(s).WithPath(where_);
  }
  Result<json::Token> Next() {
    Result<json::Token> t = tok_.Next();
    if (!t.ok()) return Wrap(t.status());
    return t;
  }
  Result<bool> HasNext() {
    Result<bool> more = tok_.HasNextElement();
    if (!more.ok()) return Wrap(more.status());
    return more;
  }

  Status ReadWords() {
    VIGILO_ASSIGN_OR_RETURN(json::Token t, Next());
    if (t.type != json::TokenType::kBeginArray) return Bad("\"words\" must be an array", t.offset);
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(bool more, HasNext());
      if (!more) break;
      VIGILO_ASSIGN_OR_RETURN(t, Next());
      if (t.type != json::TokenType::kString) return Bad("a word must be a string", t.offset);
      if (t.text.empty() || t.text.size() > 65535) return Bad("a word must be 1 to 65535 bytes", t.offset);
      if (model_.words.size() == kMaxVocabulary) return Bad("more than 16777216 words", t.offset);
      model_.words.emplace_back(t.text);
    }
    VIGILO_ASSIGN_OR_RETURN(t, Next());  // ]
    return Status::Ok();
  }

  Status ReadVectors(uint64_t at) {
    if (!numbers_.contains("dimensions") || !numbers_.contains("l2NormIndex") || !numbers_.contains("wordIndex")) {
      return Bad("\"dimensions\", \"l2NormIndex\" and \"wordIndex\" must come before \"vectors\"", at);
    }
    const uint64_t dims = numbers_["dimensions"];
    if (dims == 0 || dims > 65536) return Bad("\"dimensions\" must be in [1, 65536]", at);
    if (numbers_["l2NormIndex"] != dims || numbers_["wordIndex"] != dims + 1) {
      return Bad("expected l2NormIndex = dimensions and wordIndex = dimensions + 1 (a vector is its " +
                     std::to_string(dims) + " components, its L2 norm and its word's index)",
                 at);
    }
    model_.dimension = static_cast<uint32_t>(dims);
    const uint64_t expected_words = numbers_.contains("size") ? numbers_["size"] : 0;
    if (expected_words > 0 && expected_words <= kMaxVocabulary) {
      model_.vectors.reserve(expected_words * dims);
      model_.vector_words.reserve(expected_words);
      model_.vector_index.reserve(expected_words);
    }
    VIGILO_ASSIGN_OR_RETURN(json::Token t, Next());
    if (t.type != json::TokenType::kBeginObject) return Bad("\"vectors\" must be an object", t.offset);
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(t, Next());
      if (t.type == json::TokenType::kEndObject) break;
      if (model_.vector_words.size() == kMaxVocabulary) return Bad("more than 16777216 vectors", t.offset);
      model_.vector_words.emplace_back(t.text);
      const std::string& word = model_.vector_words.back();
      VIGILO_ASSIGN_OR_RETURN(t, Next());
      if (t.type != json::TokenType::kBeginArray) return Bad("the vector of \"" + word + "\" must be an array", t.offset);
      const uint64_t start = t.offset;
      uint64_t n = 0;
      while (true) {
        VIGILO_ASSIGN_OR_RETURN(bool more, HasNext());
        if (!more) break;
        VIGILO_ASSIGN_OR_RETURN(t, Next());
        if (t.type != json::TokenType::kNumber) return Bad("the vector of \"" + word + "\" holds a non-number", t.offset);
        if (n < dims) {
          Result<float> f = ExactFloat32(t.number.AsDouble());
          if (!f.ok()) return Bad(std::string(f.status().message()), t.offset);
          model_.vectors.push_back(*f);
        } else if (n == dims + 1) {
          if (t.number.kind() != json::Number::Kind::kU64) return Bad("a word index must be an integer", t.offset);
          model_.vector_index.push_back(t.number.u64());
        } else if (n > dims + 1) {
          return Bad("the vector of \"" + word + "\" has more than " + std::to_string(dims + 2) + " numbers", t.offset);
        }
        ++n;
      }
      VIGILO_ASSIGN_OR_RETURN(t, Next());  // ]
      if (n != dims + 2) {
        return Bad("the vector of \"" + word + "\" has " + std::to_string(n) + " numbers, expected " +
                       std::to_string(dims + 2) + " (components, L2 norm, word index)",
                   start);
      }
      if (progress_ && model_.vector_words.size() % 8192 == 0) progress_(model_.vector_words.size(), expected_words);
      if (model_.vector_words.size() % 1024 == 0) VIGILO_RETURN_IF_ERROR(CheckCancelled(cancel_));
    }
    return Status::Ok();
  }

  json::Tokenizer tok_;
  std::string where_;
  const std::function<void(uint64_t, uint64_t)>& progress_;
  const store::CancelToken* cancel_;
  std::unordered_map<std::string, uint64_t> numbers_;
  WinkModel model_;
};

// Rows of the vocabulary in "words" order: row[i] is the vectors member of
// words[i]. Every word has exactly one vector and names its own index.
Result<std::vector<uint32_t>> MatchVectors(const WinkModel& m, const std::string& where) {
  auto bad = [&](std::string message) { return InvalidFormat(std::move(message)).WithPath(where); };
  std::unordered_map<std::string_view, uint32_t> index;
  index.reserve(m.words.size());
  for (size_t i = 0; i < m.words.size(); ++i) {
    if (!index.emplace(m.words[i], static_cast<uint32_t>(i)).second) {
      return bad("duplicate word \"" + m.words[i] + "\" in \"words\"");
    }
  }
  if (m.vector_words.size() != m.words.size()) {
    return bad("\"vectors\" has " + std::to_string(m.vector_words.size()) + " members, \"words\" " +
               std::to_string(m.words.size()));
  }
  std::vector<uint32_t> row(m.words.size(), UINT32_MAX);
  for (size_t v = 0; v < m.vector_words.size(); ++v) {
    auto it = index.find(m.vector_words[v]);
    if (it == index.end()) return bad("a vector for \"" + m.vector_words[v] + "\", which is not in \"words\"");
    if (m.vector_index[v] != it->second) {
      return bad("the vector of \"" + m.vector_words[v] + "\" names word index " + std::to_string(m.vector_index[v]) +
                 ", but it is word " + std::to_string(it->second));
    }
    row[it->second] = static_cast<uint32_t>(v);
  }
  return row;
}

// Frequency weighting (docs/format/embedding.md §3): word i of the package's
// order (rank r = i + 1, most frequent first) gets r / (r + c), so frequent
// words weigh little; then the common direction of text vectors, estimated
// corpus-free as the Zipf-weighted (1 / r) sum of the weighted vectors.
Result<std::vector<float>> WeightWordsAndFindDirection(WinkModel& m, const std::vector<uint32_t>& row, uint32_t c,
                                                       const std::string& where) {
  const uint32_t dim = m.dimension;
  std::vector<double> sum(dim, 0.0);
  for (size_t i = 0; i < m.words.size(); ++i) {
    const double rank = static_cast<double>(i + 1);
    const double weight = rank / (rank + static_cast<double>(c));
    float* v = m.vectors.data() + uint64_t{row[i]} * dim;
    for (uint32_t d = 0; d < dim; ++d) {
      v[d] = static_cast<float>(weight * static_cast<double>(v[d]));
      sum[d] += (1.0 / rank) * static_cast<double>(v[d]);
    }
  }
  double squares = 0;
  for (double x : sum) squares += x * x;
  const double norm = std::sqrt(squares);
  if (!(norm > 0) || !std::isfinite(norm)) {
    return InvalidFormat("the model's words have no common direction (their weighted sum is zero or not finite)")
        .WithPath(where);
  }
  std::vector<float> direction(dim);
  for (uint32_t d = 0; d < dim; ++d) direction[d] = static_cast<float>(sum[d] / norm);
  return direction;
}

Digest128 Prefix(const std::array<uint8_t, kSha256DigestSize>& d) {
  Digest128 out;
  std::copy(d.begin(), d.begin() + 16, out.begin());
  return out;
}

// Writes the three assets; returns their descriptors.
Result<std::vector<ObjectDescriptor>> WriteAssets(const WinkModel& m, const std::vector<uint32_t>& row,
                                                  const EmbedImportOptions& o, store::ObjectStore& out) {
  const uint32_t dim = m.dimension;
  const size_t n = m.words.size();
  std::vector<uint32_t> bucket_of(n);
  for (size_t i = 0; i < n; ++i) bucket_of[i] = static_cast<uint32_t>(Fnv1a64(m.words[i]) % o.buckets);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return bucket_of[a] != bucket_of[b] ? bucket_of[a] < bucket_of[b] : m.words[a] < m.words[b];
  });

  VIGILO_ASSIGN_OR_RETURN(auto writer, out.BeginCreate(kWordsBucketsPath));
  Sha256Hasher whole;
  const uint32_t per_page = o.buckets / o.pages;
  const uint64_t page_bytes = WordsPageBytes(per_page);
  std::vector<uint8_t> pages, bytes;
  std::vector<float> rows;
  std::vector<std::string_view> words;
  std::vector<BucketEntry> page_entries;
  pages.reserve(o.pages * page_bytes);
  uint64_t offset = 0;
  size_t next = 0;
  for (uint32_t b = 0; b < o.buckets; ++b) {
    if (b % 1024 == 0) VIGILO_RETURN_IF_ERROR(CheckCancelled(o.cancel));
    words.clear();
    rows.clear();
    for (; next < n && bucket_of[order[next]] == b; ++next) {
      words.push_back(m.words[order[next]]);
      const float* r = m.vectors.data() + uint64_t{row[order[next]]} * dim;
      rows.insert(rows.end(), r, r + dim);
    }
    BucketEntry entry;
    entry.offset = offset;
    if (!words.empty()) {
      bytes.clear();
      AppendWordBucket(words, rows, dim, bytes);
      if (bytes.size() > UINT32_MAX) return LimitExceeded("a bucket exceeds 4 GiB");
      entry.length = static_cast<uint32_t>(bytes.size());
      VIGILO_ASSIGN_OR_RETURN(auto digest, Sha256(std::span<const uint8_t>(bytes)));
      entry.digest = Prefix(digest);
      whole.Update(std::span<const uint8_t>(bytes));
      VIGILO_RETURN_IF_ERROR(writer->Append(bytes));
      offset += bytes.size();
    }
    page_entries.push_back(entry);
    if (page_entries.size() == per_page) {
      AppendWordsPage(page_entries, pages);
      page_entries.clear();
    }
  }
  VIGILO_ASSIGN_OR_RETURN(auto buckets_digest, whole.Finalize());
  VIGILO_RETURN_IF_ERROR(writer->Commit().status());

  WordsTop top;
  top.dimension = dim;
  top.buckets = o.buckets;
  top.pages = o.pages;
  top.vocabulary = n;
  top.buckets_size = offset;
  for (uint32_t p = 0; p < o.pages; ++p) {
    VIGILO_ASSIGN_OR_RETURN(auto d, Sha256(std::span<const uint8_t>(pages.data() + p * page_bytes, page_bytes)));
    top.page_digests.push_back(Prefix(d));
  }
  std::vector<uint8_t> top_bytes = EncodeWordsTop(top);
  VIGILO_RETURN_IF_ERROR(out.CreateIfAbsent(kWordsPagesPath, pages).status());
  VIGILO_RETURN_IF_ERROR(out.CreateIfAbsent(kWordsTopPath, top_bytes).status());
  VIGILO_ASSIGN_OR_RETURN(std::string top_sha, Sha256Hex(std::span<const uint8_t>(top_bytes)));
  VIGILO_ASSIGN_OR_RETURN(std::string pages_sha, Sha256Hex(std::span<const uint8_t>(pages)));
  return std::vector<ObjectDescriptor>{
      {std::string(kWordsTopPath), top_bytes.size(), top_sha},
      {std::string(kWordsPagesPath), pages.size(), pages_sha},
      {std::string(kWordsBucketsPath), offset, HexEncode(buckets_digest)},
  };
}

}  // namespace

Result<EmbedImportResult> ImportWinkEmbeddings(const std::string& tarball, store::ObjectStore& out,
                                               const EmbedImportOptions& options) {
  if (options.buckets == 0 || options.buckets > kMaxWordBuckets || options.pages == 0 ||
      options.buckets % options.pages != 0) {
    return InvalidArgument("buckets must be in [1, 2^24] and a multiple of pages");
  }
  if (options.pooling == WordPooling::kSif && options.word_weight_c == 0) {
    return InvalidArgument("the word weight constant c must be at least 1");
  }
  // A probe text the tokenizer refuses, or one without a word, is refused
  // before the package is read (whether its words are known shows later).
  for (size_t n = 0; n < options.probe_inputs.size(); ++n) {
    Result<std::vector<std::string>> tokens = TokenizeWords(options.probe_inputs[n]);
    if (!tokens.ok()) return Status(tokens.status()).WithPath("parity probe " + std::to_string(n));
    if (tokens->empty()) {
      return InvalidArgument("holds no word (ASCII letters, digits or non-ASCII characters)")
          .WithPath("parity probe " + std::to_string(n));
    }
  }
  VIGILO_ASSIGN_OR_RETURN(auto tar, embed_tar::TarReader::Open(tarball));
  std::optional<std::string> name, version, main_entry;
  std::optional<WinkModel> model;
  std::string model_where;
  while (true) {
    VIGILO_RETURN_IF_ERROR(CheckCancelled(options.cancel));
    VIGILO_ASSIGN_OR_RETURN(std::optional<embed_tar::Entry> entry, tar->Next());
    if (!entry) break;
    if (entry->name == "package/package.json") {
      VIGILO_ASSIGN_OR_RETURN(std::string bytes, tar->ReadContent(kMaxPackageJsonBytes));
      Result<json::Value> pkg = json::Parse(bytes);
      if (!pkg.ok()) return Status(pkg.status()).WithPath(tarball + ":package/package.json");
      auto str = [&](std::string_view key) -> std::optional<std::string> {
        const json::Value* v = pkg->is_object() ? pkg->as_object().Find(key) : nullptr;
        if (v == nullptr || !v->is_string() || v->as_string().empty()) return std::nullopt;
        return v->as_string();
      };
      name = str("name");
      version = str("version");
      std::optional<std::string> main = str("main");
      if (!name || !version || !main) {
        return InvalidFormat("package.json needs \"name\", \"version\" and \"main\" strings")
            .WithPath(tarball + ":package/package.json");
      }
      std::string m = *main;
      if (m.starts_with("./")) m = m.substr(2);
      main_entry = "package/" + m;
      continue;
    }
    if (main_entry && entry->name == *main_entry) {
      if (model) return InvalidFormat("two entries named \"" + entry->name + "\"").WithPath(tarball);
      model_where = tarball + ":" + entry->name;
      WinkReader reader(tar->content(), model_where, options.progress, options.cancel);
      VIGILO_ASSIGN_OR_RETURN(WinkModel m, reader.Read());
      model = std::move(m);
    }
  }
  if (!name) return InvalidFormat("the tarball has no package/package.json").WithPath(tarball);
  if (!model) {
    return InvalidFormat("the tarball has no package JSON \"" + *main_entry +
                         "\" (package.json's \"main\", after package.json)")
        .WithPath(tarball);
  }
  EmbedImportResult result;
  VIGILO_ASSIGN_OR_RETURN(result.spec.model.integrity, tar->Integrity());
  result.tarball_bytes = tar->file_size();
  tar.reset();
  VIGILO_ASSIGN_OR_RETURN(std::vector<uint32_t> row, MatchVectors(*model, model_where));
  result.words = model->words.size();

  EmbeddingSpec& spec = result.spec;
  spec.model.repository = "npm:" + *name;
  spec.model.revision = *version;
  spec.contract = std::string(kStaticWordVectorsContract);
  WordVectorsParameters params;
  params.buckets = options.buckets;
  params.pages = options.pages;
  params.vocabulary = result.words;
  if (options.pooling == WordPooling::kSif) {
    params.pooling = WordPooling::kSif;
    params.word_weight_c = options.word_weight_c;
    VIGILO_ASSIGN_OR_RETURN(params.direction,
                            WeightWordsAndFindDirection(*model, row, options.word_weight_c, model_where));
  }
  spec.parameters = WordVectorsParametersJson(params);
  spec.dimension = model->dimension;
  spec.input_template = "{text}";
  spec.tolerance = 0;
  VIGILO_RETURN_IF_ERROR(CheckCancelled(options.cancel));
  VIGILO_ASSIGN_OR_RETURN(spec.assets, WriteAssets(*model, row, options, out));
  std::vector<std::string> probe_inputs = options.probe_inputs;
  if (probe_inputs.empty()) {
    Result<CheapProbes> cheap = ChooseCheapProbes(model->words, model->dimension, options.buckets, options.pages);
    if (!cheap.ok()) return Status(cheap.status()).WithPath(model_where);
    probe_inputs = std::move(cheap->inputs);
  }
  model.reset();  // the vectors are in the assets now

  VIGILO_RETURN_IF_ERROR(CheckCancelled(options.cancel));
  // The probes are what the runtime itself makes of the written assets,
  // read back through the store and verified like any reader's.
  VIGILO_ASSIGN_OR_RETURN(auto embedder, TextEmbedder::OpenUnchecked(out, spec));
  for (const std::string& input : probe_inputs) {
    Result<std::vector<float>> v = embedder->Embed(input);
    if (!v.ok()) return Status(v.status()).WithPath(model_where + ": parity probe input \"" + input + "\"");
    spec.probes.push_back(ParityProbe{input, std::move(*v)});
  }
  VIGILO_ASSIGN_OR_RETURN(std::string section, EncodeEmbeddingSection(spec));
  VIGILO_RETURN_IF_ERROR(CheckCancelled(options.cancel));
  VIGILO_RETURN_IF_ERROR(
      out.CreateIfAbsent(kEmbeddingSectionPath, std::span<const uint8_t>(
                                                    reinterpret_cast<const uint8_t*>(section.data()), section.size()))
          .status());
  return result;
}

}  // namespace vigilo::ivf
