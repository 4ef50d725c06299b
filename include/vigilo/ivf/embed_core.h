// The sans-IO embedding runtime (docs/format/embedding.md): it turns a text
// into the vector the publication's builder would have made, from the
// publication's own assets, planning exact byte ranges and consuming the bytes
// the caller fetched. It never opens a file or a socket and never hashes: each
// request carries the digest the caller verifies before Supply (natively with
// vigilo_hash, in a browser with SubtleCrypto). It builds for WebAssembly
// (target vigilo_read_core).
//
//   auto runtime = EmbeddingRuntime::Open(spec);  // chosen by spec.contract; caches
//   auto run = (*runtime)->Start("a small domesticated feline");
//   while (!run->done()) {
//     for (const EmbedRequest& r : run->requests()) ...fetch r, check r.digest...
//     VIGILO_RETURN_IF_ERROR(run->Supply(responses));
//   }
//   const std::vector<float>& v = run->vector();
//
// The manifest schema never changes for a new contract (an ONNX one later):
// EmbeddingRuntime::Open picks the implementation by contract id and the
// contract reads its own `parameters` and assets.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"

namespace vigilo::ivf {

// One object (or range of one) the run needs. `digest` is what the bytes must
// hash to before Supply: for a whole object (`whole`) the full lowercase hex
// SHA-256 (64 characters, the manifest's asset sha256), for a range the first
// 16 bytes of the range's SHA-256 in lowercase hex (32 characters).
struct EmbedRequest {
  std::string path;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool whole = false;
  std::string digest;
  friend bool operator==(const EmbedRequest&, const EmbedRequest&) = default;
};

// One text's state machine. Supply takes one response per request, in
// order, each exactly its length; an error leaves the run failed.
class EmbedRun {
 public:
  virtual ~EmbedRun() = default;
  // A fresh runtime for one text (EmbeddingRuntime::Open then Start).
  static Result<std::unique_ptr<EmbedRun>> Start(const EmbeddingSpec& spec, std::string text);

  virtual bool done() const = 0;
  virtual const std::vector<EmbedRequest>& requests() const = 0;
  virtual Status Supply(std::span<const std::span<const uint8_t>> responses) = 0;
  Status Supply(const std::vector<std::vector<uint8_t>>& responses);
  // The unit vector (dimension floats); empty until done().
  virtual const std::vector<float>& vector() const = 0;
  // Bytes and requests this run asked for (what it found in the runtime's
  // cache it did not ask for).
  virtual uint64_t bytes_requested() const = 0;
  virtual uint64_t requests_made() const = 0;
};

// Per-model state shared by the runs it starts: parsed, verified assets are
// cached for its lifetime (assets are immutable), so embedding many texts
// fetches each page and bucket once. Not thread-safe.
class EmbeddingRuntime {
 public:
  virtual ~EmbeddingRuntime() = default;
  // InvalidFormat for a contract or a parameter this runtime does not know,
  // or an asset inventory the contract cannot use.
  static Result<std::unique_ptr<EmbeddingRuntime>> Open(const EmbeddingSpec& spec);
  virtual Result<std::unique_ptr<EmbedRun>> Start(std::string text) = 0;
  virtual const EmbeddingSpec& spec() const = 0;
};

// The parity rule for one probe (index `probe` of spec.probes) against the
// vector this runtime made: tolerance 0 means bit-identical floats, else
// |got - expected| <= tolerance per component. IntegrityError "parity probe
// N: component i is X, the model's probe says Y" (or a wrong length).
Status CompareParityProbe(const EmbeddingSpec& spec, size_t probe, std::span<const float> got);

// ---- Contract "static-word-vectors-v1" -------------------------------------

inline constexpr std::string_view kStaticWordVectorsContract = "static-word-vectors-v1";
inline constexpr std::string_view kWordsTokenizer = "vigilo-words-v1";
inline constexpr std::string_view kWordsHash = "fnv1a64";
// The two poolings (docs/format/embedding.md §2.3): the plain mean, and
// frequency-weighted vectors summed with the common direction removed.
inline constexpr std::string_view kWordsPoolingMean = "mean-f64-l2";
inline constexpr std::string_view kWordsPoolingSif = "sif-f64-l2";
inline constexpr std::string_view kWordsTopPath = "embedding/words-top.bin";
inline constexpr std::string_view kWordsPagesPath = "embedding/words-pages.bin";
inline constexpr std::string_view kWordsBucketsPath = "embedding/words-buckets.bin";

// Tokenizer limits: text bytes after the input template, and tokens.
inline constexpr size_t kMaxEmbedTextBytes = 64 * 1024;
inline constexpr size_t kMaxEmbedTokens = 4096;

// The input template with its one "{text}" replaced (InvalidFormat if it
// holds "{text}" other than once).
Result<std::string> ApplyInputTemplate(std::string_view input_template, std::string_view text);
// The tokenizer "vigilo-words-v1": InvalidArgument for invalid UTF-8,
// LimitExceeded past the limits above. May return no tokens.
Result<std::vector<std::string>> TokenizeWords(std::string_view text);
uint64_t Fnv1a64(std::string_view bytes);

enum class WordPooling { kMean, kSif };

struct WordVectorsParameters {
  uint32_t buckets = 65536;
  uint32_t pages = 1024;
  uint64_t vocabulary = 0;
  WordPooling pooling = WordPooling::kMean;
  // kSif only. The importer scaled word r's vector (1-based rank in the
  // package's order) by r / (r + word_weight_c); readers use the stored
  // vectors as they are and need only `direction`, which pooling removes.
  uint32_t word_weight_c = 0;
  std::vector<float> direction;
  friend bool operator==(const WordVectorsParameters&, const WordVectorsParameters&) = default;
};
inline constexpr uint32_t kMaxWordBuckets = 1u << 24;
// Exactly the members tokenizer, hash, pooling, buckets, pages, vocabulary,
// and for "sif-f64-l2" also word-weight-c and direction (finite numbers that
// float32 holds exactly); InvalidFormat (with the member's path) otherwise.
// That direction has the model's dimension is the runtime's check.
Result<WordVectorsParameters> ParseWordVectorsParameters(const json::Value& parameters);
json::Value WordVectorsParametersJson(const WordVectorsParameters& p);

using Digest128 = std::array<uint8_t, 16>;

inline constexpr size_t kWordsTopHeaderBytes = 48;
// A page: the u64 offset of its first bucket, then per bucket its u32 length
// and 16-byte digest (a bucket starts where the previous one ends).
inline constexpr size_t kWordsPageHeaderBytes = 8;
inline constexpr size_t kWordsPageEntryBytes = 20;
inline constexpr uint64_t WordsPageBytes(uint32_t buckets_per_page) {
  return kWordsPageHeaderBytes + uint64_t{buckets_per_page} * kWordsPageEntryBytes;
}

struct WordsTop {
  uint32_t dimension = 0;
  uint32_t buckets = 0;
  uint32_t pages = 0;
  uint64_t vocabulary = 0;
  uint64_t buckets_size = 0;  // bytes of words-buckets.bin
  std::vector<Digest128> page_digests;  // one per page
  friend bool operator==(const WordsTop&, const WordsTop&) = default;
};

struct BucketEntry {
  uint64_t offset = 0;  // in words-buckets.bin
  uint32_t length = 0;  // 0: an empty bucket (digest all zero)
  Digest128 digest{};
  friend bool operator==(const BucketEntry&, const BucketEntry&) = default;
};

// A bucket's words (sorted by bytes, distinct) and their vectors (row-major).
struct WordBucket {
  std::vector<std::string> words;
  std::vector<float> vectors;
  // The row of `word`, or -1.
  int64_t Find(std::string_view word) const;
};

// Untrusted-input parsers: every error is InvalidFormat with the asset's path
// and the byte offset within the object.
Result<WordsTop> ParseWordsTop(std::span<const uint8_t> bytes);
// Page `page` (its WordsPageBytes(buckets / pages) bytes at page × that size
// in words-pages.bin).
Result<std::vector<BucketEntry>> ParseWordsPage(std::span<const uint8_t> bytes, const WordsTop& top, uint32_t page);
// Bucket `bucket` whose entry is `entry` (its bytes are entry.length long).
Result<WordBucket> ParseWordsBucket(std::span<const uint8_t> bytes, const WordsTop& top, uint32_t bucket,
                                    const BucketEntry& entry);

// Encoders (the importer; tests).
std::vector<uint8_t> EncodeWordsTop(const WordsTop& top);
// One page's entries, contiguous (each starts where the previous ends).
void AppendWordsPage(std::span<const BucketEntry> entries, std::vector<uint8_t>& out);
// words sorted, distinct, each < 65536 bytes; vectors words × dimension.
void AppendWordBucket(const std::vector<std::string_view>& words, std::span<const float> vectors, uint32_t dimension,
                      std::vector<uint8_t>& out);

// Mean pooling of the contract: float32 rows summed in float64 in order,
// divided by the count, L2-normalized in float64, rounded once to float32.
// InvalidArgument when the mean is the zero vector.
Result<std::vector<float>> PoolMeanL2(const std::vector<const float*>& rows, uint32_t dimension);
// "sif-f64-l2": the rows (already weighted by the importer) summed in float64
// in order, the sum's component along `direction` (dimension floats)
// subtracted, L2-normalized in float64, rounded once to float32.
Result<std::vector<float>> PoolSifL2(const std::vector<const float*>& rows, std::span<const float> direction);

}  // namespace vigilo::ivf
