// Byte layouts of static-word-vectors-v1's three assets and its parameters
// (docs/format/embedding.md, Assets). The parsers read untrusted bytes: every
// length is checked before use and every error names the asset and the byte
// offset within the object.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "exact_float32.h"
#include "vigilo/ivf/embed_core.h"

namespace vigilo::ivf {

namespace {

constexpr char kTopMagic[8] = {'V', 'I', 'G', 'W', 'T', 'O', 'P', '1'};
constexpr uint32_t kTopVersion = 1;
constexpr uint32_t kHashFnv1a64 = 1;

uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}
uint64_t LoadU64(const uint8_t* p) { return static_cast<uint64_t>(LoadU32(p)) | static_cast<uint64_t>(LoadU32(p + 4)) << 32; }
uint16_t LoadU16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
// memcpy, not std::bit_cast: emscripten's libc++ lacks it.
float LoadF32(const uint8_t* p) {
  uint32_t bits = LoadU32(p);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

void PutU32(uint32_t v, std::vector<uint8_t>& out) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void PutU64(uint64_t v, std::vector<uint8_t>& out) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

Status Bad(std::string_view path, uint64_t offset, std::string message) {
  return InvalidFormat(std::move(message)).WithPath(std::string(path)).WithOffset(offset);
}

bool IsZero(const Digest128& d) {
  return std::all_of(d.begin(), d.end(), [](uint8_t b) { return b == 0; });
}

Result<uint64_t> PositiveInteger(const json::Object& o, std::string_view name, uint64_t max) {
  const json::Value* v = o.Find(name);
  std::string path = "runtime.parameters." + std::string(name);
  if (v == nullptr) return InvalidFormat("missing member").WithPath(path);
  if (!v->is_number() || v->as_number().kind() != json::Number::Kind::kU64 || v->as_number().u64() == 0 ||
      v->as_number().u64() > max) {
    return InvalidFormat("must be an integer in [1, " + std::to_string(max) + "]").WithPath(path);
  }
  return v->as_number().u64();
}

Status ExactString(const json::Object& o, std::string_view name, std::string_view want) {
  const json::Value* v = o.Find(name);
  std::string path = "runtime.parameters." + std::string(name);
  if (v == nullptr) return InvalidFormat("missing member").WithPath(path);
  if (!v->is_string() || v->as_string() != want) {
    return InvalidFormat("this runtime knows only \"" + std::string(want) + "\"").WithPath(path);
  }
  return Status::Ok();
}

}  // namespace

Result<WordVectorsParameters> ParseWordVectorsParameters(const json::Value& parameters) {
  if (!parameters.is_object()) return InvalidFormat("must be an object").WithPath("runtime.parameters");
  const json::Object& o = parameters.as_object();
  WordVectorsParameters p;
  const json::Value* pooling = o.Find("pooling");
  if (pooling == nullptr) return InvalidFormat("missing member").WithPath("runtime.parameters.pooling");
  if (pooling->is_string() && pooling->as_string() == kWordsPoolingSif) {
    p.pooling = WordPooling::kSif;
  } else if (!pooling->is_string() || pooling->as_string() != kWordsPoolingMean) {
    return InvalidFormat("this runtime knows only \"" + std::string(kWordsPoolingMean) + "\" and \"" +
                         std::string(kWordsPoolingSif) + "\"")
        .WithPath("runtime.parameters.pooling");
  }
  const bool sif = p.pooling == WordPooling::kSif;
  for (const auto& [name, value] : o) {
    bool known = name == "tokenizer" || name == "hash" || name == "pooling" || name == "buckets" || name == "pages" ||
                 name == "vocabulary" || (sif && (name == "word-weight-c" || name == "direction"));
    if (!known) {
      return InvalidFormat("unknown parameter of " + std::string(kStaticWordVectorsContract) + " with pooling \"" +
                           std::string(sif ? kWordsPoolingSif : kWordsPoolingMean) + "\"")
          .WithPath("runtime.parameters." + name);
    }
  }
  VIGILO_RETURN_IF_ERROR(ExactString(o, "tokenizer", kWordsTokenizer));
  VIGILO_RETURN_IF_ERROR(ExactString(o, "hash", kWordsHash));
  VIGILO_ASSIGN_OR_RETURN(uint64_t buckets, PositiveInteger(o, "buckets", kMaxWordBuckets));
  VIGILO_ASSIGN_OR_RETURN(uint64_t pages, PositiveInteger(o, "pages", buckets));
  VIGILO_ASSIGN_OR_RETURN(p.vocabulary, PositiveInteger(o, "vocabulary", 0xffffffffu));
  if (buckets % pages != 0) {
    return InvalidFormat("pages must divide buckets").WithPath("runtime.parameters.pages");
  }
  p.buckets = static_cast<uint32_t>(buckets);
  p.pages = static_cast<uint32_t>(pages);
  if (sif) {
    VIGILO_ASSIGN_OR_RETURN(uint64_t c, PositiveInteger(o, "word-weight-c", 0xffffffffu));
    p.word_weight_c = static_cast<uint32_t>(c);
    const json::Value* direction = o.Find("direction");
    const std::string path = "runtime.parameters.direction";
    if (direction == nullptr) return InvalidFormat("missing member").WithPath(path);
    if (!direction->is_array() || direction->as_array().empty() || direction->as_array().size() > 65536) {
      return InvalidFormat("must be an array of 1 to 65536 numbers").WithPath(path);
    }
    const json::Array& values = direction->as_array();
    p.direction.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      VIGILO_ASSIGN_OR_RETURN(float x,
                              DecodeExactFloat32(values[i], path + "[" + std::to_string(i) + "]", "a direction component"));
      p.direction.push_back(x);
    }
  }
  return p;
}

// Members in byte order, as canonical JSON writes them.
json::Value WordVectorsParametersJson(const WordVectorsParameters& p) {
  const bool sif = p.pooling == WordPooling::kSif;
  json::Object o;
  o.Set("buckets", json::Value::Uint(p.buckets));
  if (sif) {
    json::Array direction;
    direction.reserve(p.direction.size());
    for (float x : p.direction) direction.push_back(json::Value::Double(static_cast<double>(x)));
    o.Set("direction", json::Value(std::move(direction)));
  }
  o.Set("hash", json::Value(kWordsHash));
  o.Set("pages", json::Value::Uint(p.pages));
  o.Set("pooling", json::Value(sif ? kWordsPoolingSif : kWordsPoolingMean));
  o.Set("tokenizer", json::Value(kWordsTokenizer));
  o.Set("vocabulary", json::Value::Uint(p.vocabulary));
  if (sif) o.Set("word-weight-c", json::Value::Uint(p.word_weight_c));
  return json::Value(std::move(o));
}

Result<WordsTop> ParseWordsTop(std::span<const uint8_t> bytes) {
  const std::string_view path = kWordsTopPath;
  if (bytes.size() < kWordsTopHeaderBytes) {
    return Bad(path, bytes.size(), "truncated header: " + std::to_string(bytes.size()) + " of " +
                                       std::to_string(kWordsTopHeaderBytes) + " bytes");
  }
  const uint8_t* p = bytes.data();
  if (std::memcmp(p, kTopMagic, sizeof kTopMagic) != 0) return Bad(path, 0, "not a words-top object (bad magic)");
  if (LoadU32(p + 8) != kTopVersion) return Bad(path, 8, "unknown version " + std::to_string(LoadU32(p + 8)));
  WordsTop top;
  top.dimension = LoadU32(p + 12);
  top.buckets = LoadU32(p + 16);
  top.pages = LoadU32(p + 20);
  if (top.dimension == 0 || top.dimension > 65536) return Bad(path, 12, "dimension must be in [1, 65536]");
  if (top.buckets == 0 || top.buckets > kMaxWordBuckets) return Bad(path, 16, "bucket count out of range");
  if (top.pages == 0 || top.pages > top.buckets || top.buckets % top.pages != 0) {
    return Bad(path, 20, "page count must divide the bucket count");
  }
  if (LoadU32(p + 24) != kHashFnv1a64) return Bad(path, 24, "unknown token hash " + std::to_string(LoadU32(p + 24)));
  if (LoadU32(p + 28) != 0) return Bad(path, 28, "reserved bytes must be zero");
  top.vocabulary = LoadU64(p + 32);
  top.buckets_size = LoadU64(p + 40);
  if (top.vocabulary == 0 || top.vocabulary > 0xffffffffu) return Bad(path, 32, "vocabulary size out of range");
  if (top.buckets_size == 0 || top.buckets_size > (uint64_t{1} << 53)) return Bad(path, 40, "buckets size out of range");
  const uint64_t want = kWordsTopHeaderBytes + uint64_t{top.pages} * 16;
  if (bytes.size() != want) {
    return Bad(path, std::min<uint64_t>(bytes.size(), want),
               "size " + std::to_string(bytes.size()) + " bytes, the header implies " + std::to_string(want));
  }
  top.page_digests.resize(top.pages);
  for (uint32_t i = 0; i < top.pages; ++i) {
    std::memcpy(top.page_digests[i].data(), p + kWordsTopHeaderBytes + uint64_t{i} * 16, 16);
  }
  return top;
}

std::vector<uint8_t> EncodeWordsTop(const WordsTop& top) {
  std::vector<uint8_t> out(kTopMagic, kTopMagic + sizeof kTopMagic);
  PutU32(kTopVersion, out);
  PutU32(top.dimension, out);
  PutU32(top.buckets, out);
  PutU32(top.pages, out);
  PutU32(kHashFnv1a64, out);
  PutU32(0, out);
  PutU64(top.vocabulary, out);
  PutU64(top.buckets_size, out);
  for (const Digest128& d : top.page_digests) out.insert(out.end(), d.begin(), d.end());
  return out;
}

Result<std::vector<BucketEntry>> ParseWordsPage(std::span<const uint8_t> bytes, const WordsTop& top, uint32_t page) {
  const std::string_view path = kWordsPagesPath;
  if (page >= top.pages) return Internal("page index out of range");
  const uint32_t per_page = top.buckets / top.pages;
  const uint64_t size = WordsPageBytes(per_page);
  const uint64_t base = uint64_t{page} * size;
  if (bytes.size() != size) {
    return Bad(path, base + std::min<uint64_t>(bytes.size(), size),
               "page " + std::to_string(page) + " is " + std::to_string(bytes.size()) + " bytes, not " +
                   std::to_string(size));
  }
  uint64_t offset = LoadU64(bytes.data());
  if (page == 0 && offset != 0) return Bad(path, base, "the first bucket must start at offset 0");
  if (offset > top.buckets_size) {
    return Bad(path, base, "page " + std::to_string(page) + " starts at " + std::to_string(offset) +
                               ", past the end of words-buckets.bin (" + std::to_string(top.buckets_size) + " bytes)");
  }
  std::vector<BucketEntry> entries(per_page);
  for (uint32_t i = 0; i < per_page; ++i) {
    const uint64_t at = kWordsPageHeaderBytes + uint64_t{i} * kWordsPageEntryBytes;
    BucketEntry& entry = entries[i];
    entry.offset = offset;
    entry.length = LoadU32(bytes.data() + at);
    std::memcpy(entry.digest.data(), bytes.data() + at + 4, 16);
    if (entry.length > top.buckets_size - offset) {
      return Bad(path, base + at, "bucket range [" + std::to_string(offset) + ", +" + std::to_string(entry.length) +
                                      ") lies past the end of words-buckets.bin (" + std::to_string(top.buckets_size) +
                                      " bytes)");
    }
    if (entry.length == 0 && !IsZero(entry.digest)) return Bad(path, base + at + 4, "an empty bucket has a digest");
    offset += entry.length;
  }
  if (page + 1 == top.pages && offset != top.buckets_size) {
    return Bad(path, base + size - kWordsPageEntryBytes, "the last bucket must end at the end of words-buckets.bin");
  }
  return entries;
}

void AppendWordsPage(std::span<const BucketEntry> entries, std::vector<uint8_t>& out) {
  PutU64(entries.empty() ? 0 : entries.front().offset, out);
  for (const BucketEntry& entry : entries) {
    PutU32(entry.length, out);
    out.insert(out.end(), entry.digest.begin(), entry.digest.end());
  }
}

Result<WordBucket> ParseWordsBucket(std::span<const uint8_t> bytes, const WordsTop& top, uint32_t bucket,
                                    const BucketEntry& entry) {
  const std::string_view path = kWordsBucketsPath;
  const uint64_t base = entry.offset;
  if (bytes.size() != entry.length) return Internal("bucket bytes of the wrong length");
  if (bytes.size() < 4) return Bad(path, base + bytes.size(), "truncated bucket " + std::to_string(bucket));
  const uint32_t count = LoadU32(bytes.data());
  const uint64_t row_bytes = uint64_t{top.dimension} * 4;
  // Each word takes at least 2 + 1 + row_bytes bytes: bounds the allocation.
  if (count == 0 || count > (bytes.size() - 4) / (3 + row_bytes)) {
    return Bad(path, base, "bucket " + std::to_string(bucket) + " claims " + std::to_string(count) +
                               " words, which its " + std::to_string(bytes.size()) + " bytes cannot hold");
  }
  WordBucket out;
  out.words.reserve(count);
  out.vectors.resize(size_t{count} * top.dimension);  // fits: count × dimension × 4 <= bytes.size()
  size_t pos = 4;
  for (uint32_t w = 0; w < count; ++w) {
    if (bytes.size() - pos < 2) return Bad(path, base + pos, "truncated word length");
    const uint16_t len = LoadU16(bytes.data() + pos);
    if (len == 0) return Bad(path, base + pos, "empty word");
    pos += 2;
    if (bytes.size() - pos < len + row_bytes) return Bad(path, base + pos, "truncated word or vector");
    std::string word(reinterpret_cast<const char*>(bytes.data() + pos), len);
    if (!out.words.empty() && !(out.words.back() < word)) {
      return Bad(path, base + pos, "words are not sorted and distinct");
    }
    if (Fnv1a64(word) % top.buckets != bucket) {
      return Bad(path, base + pos, "a word that does not hash to bucket " + std::to_string(bucket));
    }
    pos += len;
    for (uint32_t d = 0; d < top.dimension; ++d) {
      float f = LoadF32(bytes.data() + pos + uint64_t{d} * 4);
      if (!std::isfinite(f)) return Bad(path, base + pos + uint64_t{d} * 4, "a vector component is not finite");
      out.vectors[size_t{w} * top.dimension + d] = f;
    }
    pos += row_bytes;
    out.words.push_back(std::move(word));
  }
  if (pos != bytes.size()) return Bad(path, base + pos, "trailing bytes after the bucket's last word");
  return out;
}

void AppendWordBucket(const std::vector<std::string_view>& words, std::span<const float> vectors, uint32_t dimension,
                      std::vector<uint8_t>& out) {
  PutU32(static_cast<uint32_t>(words.size()), out);
  for (size_t w = 0; w < words.size(); ++w) {
    const uint16_t len = static_cast<uint16_t>(words[w].size());
    out.push_back(static_cast<uint8_t>(len & 0xff));
    out.push_back(static_cast<uint8_t>(len >> 8));
    out.insert(out.end(), words[w].begin(), words[w].end());
    for (uint32_t d = 0; d < dimension; ++d) PutU32(FloatBits(vectors[w * dimension + d]), out);
  }
}

int64_t WordBucket::Find(std::string_view word) const {
  auto it = std::lower_bound(words.begin(), words.end(), word,
                             [](const std::string& a, std::string_view b) { return std::string_view(a) < b; });
  if (it == words.end() || *it != word) return -1;
  return it - words.begin();
}

}  // namespace vigilo::ivf
