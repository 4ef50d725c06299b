// The embedding runtime's state machines (docs/format/embedding.md): the
// contract is chosen by id; static-word-vectors-v1 fetches its top object
// whole, then the pages and buckets of the text's words by range.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "vigilo/common/hex.h"
#include "vigilo/ivf/embed_core.h"

namespace vigilo::ivf {

Status EmbedRun::Supply(const std::vector<std::vector<uint8_t>>& responses) {
  std::vector<std::span<const uint8_t>> views(responses.begin(), responses.end());
  return Supply(std::span<const std::span<const uint8_t>>(views));
}

namespace {

// The rows summed per component in float64, in order.
std::vector<double> SumRows(const std::vector<const float*>& rows, size_t dimension) {
  std::vector<double> sum(dimension, 0.0);
  for (const float* row : rows) {
    for (size_t d = 0; d < dimension; ++d) sum[d] += static_cast<double>(row[d]);
  }
  return sum;
}

// v / |v| (the norm in float64, squares summed in order), each component
// rounded once to float32; InvalidArgument `no_direction` when the norm is 0
// or not finite.
Result<std::vector<float>> UnitFloat32(const std::vector<double>& v, const char* no_direction) {
  double squares = 0;
  for (double x : v) squares += x * x;
  const double norm = std::sqrt(squares);
  if (!(norm > 0) || !std::isfinite(norm)) return InvalidArgument(no_direction);
  std::vector<float> out(v.size());
  for (size_t d = 0; d < v.size(); ++d) out[d] = static_cast<float>(v[d] / norm);
  return out;
}

}  // namespace

Result<std::vector<float>> PoolMeanL2(const std::vector<const float*>& rows, uint32_t dimension) {
  if (rows.empty()) return InvalidArgument("no word of the text is in the model's vocabulary");
  std::vector<double> mean = SumRows(rows, dimension);
  const double count = static_cast<double>(rows.size());
  for (double& x : mean) x /= count;
  return UnitFloat32(mean, "the mean of the text's word vectors has no direction (zero or not finite)");
}

Result<std::vector<float>> PoolSifL2(const std::vector<const float*>& rows, std::span<const float> direction) {
  if (rows.empty()) return InvalidArgument("no word of the text is in the model's vocabulary");
  std::vector<double> sum = SumRows(rows, direction.size());
  double along = 0;
  for (size_t d = 0; d < sum.size(); ++d) along += sum[d] * static_cast<double>(direction[d]);
  for (size_t d = 0; d < sum.size(); ++d) sum[d] -= along * static_cast<double>(direction[d]);
  return UnitFloat32(
      sum, "the text's word vectors have no direction once the model's common direction is removed (zero or not finite)");
}

namespace {

// The shortest decimal that reads back as `f` (std::to_chars for floats is
// missing from emscripten's libc++).
std::string FloatText(float f) {
  char buf[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return buf;
}

uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

struct AssetRef {
  uint64_t size = 0;
  std::string sha256;
};

// What every run of one model shares: the checked spec and the cache of
// verified, parsed assets.
struct WordModel {
  EmbeddingSpec spec;
  WordVectorsParameters params;
  AssetRef top_asset, pages_asset, buckets_asset;
  std::optional<WordsTop> top;
  std::unordered_map<uint32_t, std::vector<BucketEntry>> pages;
  std::unordered_map<uint32_t, WordBucket> buckets;
};

Result<std::shared_ptr<WordModel>> OpenWordModel(const EmbeddingSpec& spec) {
  auto model = std::make_shared<WordModel>();
  model->spec = spec;
  VIGILO_ASSIGN_OR_RETURN(model->params, ParseWordVectorsParameters(spec.parameters));
  if (spec.dimension == 0 || spec.dimension > 65536) {
    return InvalidFormat("this runtime supports dimensions 1 to 65536").WithPath("dimension");
  }
  if (model->params.pooling == WordPooling::kSif && model->params.direction.size() != spec.dimension) {
    return InvalidFormat("has " + std::to_string(model->params.direction.size()) + " components; the dimension is " +
                         std::to_string(spec.dimension))
        .WithPath("runtime.parameters.direction");
  }
  bool seen[3] = {false, false, false};
  for (size_t i = 0; i < spec.assets.size(); ++i) {
    const ObjectDescriptor& a = spec.assets[i];
    AssetRef* ref = nullptr;
    int which = -1;
    if (a.path == kWordsTopPath) ref = &model->top_asset, which = 0;
    if (a.path == kWordsPagesPath) ref = &model->pages_asset, which = 1;
    if (a.path == kWordsBucketsPath) ref = &model->buckets_asset, which = 2;
    if (ref == nullptr) {
      return InvalidFormat("\"" + a.path + "\" is not an asset of " + std::string(kStaticWordVectorsContract))
          .WithPath("assets[" + std::to_string(i) + "].path");
    }
    if (seen[which]) return InvalidFormat("duplicate asset").WithPath("assets[" + std::to_string(i) + "].path");
    seen[which] = true;
    ref->size = a.size;
    ref->sha256 = a.sha256;
  }
  const std::string_view names[3] = {kWordsTopPath, kWordsPagesPath, kWordsBucketsPath};
  for (int w = 0; w < 3; ++w) {
    if (!seen[w]) return InvalidFormat("missing asset \"" + std::string(names[w]) + "\"").WithPath("assets");
  }
  const WordVectorsParameters& p = model->params;
  if (model->top_asset.size != kWordsTopHeaderBytes + uint64_t{p.pages} * 16) {
    return InvalidFormat("words-top.bin must be " + std::to_string(kWordsTopHeaderBytes + uint64_t{p.pages} * 16) +
                         " bytes for " + std::to_string(p.pages) + " pages")
        .WithPath("assets");
  }
  const uint64_t pages_size = uint64_t{p.pages} * WordsPageBytes(p.buckets / p.pages);
  if (model->pages_asset.size != pages_size) {
    return InvalidFormat("words-pages.bin must be " + std::to_string(pages_size) + " bytes for " +
                         std::to_string(p.buckets) + " buckets in " + std::to_string(p.pages) + " pages")
        .WithPath("assets");
  }
  return model;
}

class WordVectorsRun final : public EmbedRun {
 public:
  WordVectorsRun(std::shared_ptr<WordModel> model, std::vector<std::string> tokens)
      : model_(std::move(model)), tokens_(std::move(tokens)) {
    bucket_of_.reserve(tokens_.size());
    for (const std::string& t : tokens_) {
      bucket_of_.push_back(static_cast<uint32_t>(Fnv1a64(t) % model_->params.buckets));
    }
  }

  Status Begin() { return Advance(); }
  bool done() const override { return stage_ == Stage::kDone; }
  const std::vector<EmbedRequest>& requests() const override { return requests_; }
  const std::vector<float>& vector() const override { return vector_; }
  uint64_t bytes_requested() const override { return bytes_; }
  uint64_t requests_made() const override { return request_count_; }

  Status Supply(std::span<const std::span<const uint8_t>> responses) override {
    if (!failed_.ok()) return failed_;
    Status s = SupplyOnce(responses);
    if (!s.ok()) failed_ = s;
    return s;
  }

 private:
  enum class Stage { kTop, kPages, kBuckets, kDone };

  Status SupplyOnce(std::span<const std::span<const uint8_t>> responses) {
    if (stage_ == Stage::kDone) return Internal("the embedding run is done; nothing to supply");
    if (responses.size() != requests_.size()) {
      return Internal("expected " + std::to_string(requests_.size()) + " responses, got " +
                      std::to_string(responses.size()));
    }
    for (size_t i = 0; i < responses.size(); ++i) {
      if (responses[i].size() != requests_[i].length) {
        return IntegrityError("expected " + std::to_string(requests_[i].length) + " bytes at offset " +
                              std::to_string(requests_[i].offset) + ", got " + std::to_string(responses[i].size()))
            .WithPath(requests_[i].path);
      }
    }
    WordModel& m = *model_;
    if (stage_ == Stage::kTop) {
      VIGILO_ASSIGN_OR_RETURN(WordsTop top, ParseWordsTop(responses[0]));
      VIGILO_RETURN_IF_ERROR(CheckTop(top));
      m.top = std::move(top);
    } else if (stage_ == Stage::kPages) {
      for (size_t i = 0; i < responses.size(); ++i) {
        VIGILO_ASSIGN_OR_RETURN(auto entries, ParseWordsPage(responses[i], *m.top, pending_[i]));
        m.pages.emplace(pending_[i], std::move(entries));
      }
    } else {
      for (size_t i = 0; i < responses.size(); ++i) {
        VIGILO_ASSIGN_OR_RETURN(WordBucket bucket,
                                ParseWordsBucket(responses[i], *m.top, pending_[i], Entry(pending_[i])));
        m.buckets.emplace(pending_[i], std::move(bucket));
      }
    }
    return Advance();
  }

  Status CheckTop(const WordsTop& top) const {
    const WordModel& m = *model_;
    auto mismatch = [](std::string what) {
      return InvalidFormat("the header's " + what + " differs from the manifest's").WithPath(std::string(kWordsTopPath));
    };
    if (top.dimension != m.spec.dimension) return mismatch("dimension");
    if (top.buckets != m.params.buckets) return mismatch("bucket count");
    if (top.pages != m.params.pages) return mismatch("page count");
    if (top.vocabulary != m.params.vocabulary) return mismatch("vocabulary size");
    if (top.buckets_size != m.buckets_asset.size) return mismatch("words-buckets.bin size");
    return Status::Ok();
  }

  uint32_t PerPage() const { return model_->params.buckets / model_->params.pages; }
  const BucketEntry& Entry(uint32_t bucket) const {
    return model_->pages.at(bucket / PerPage())[bucket % PerPage()];
  }

  void Request(std::string_view path, uint64_t offset, uint64_t length, bool whole, std::string digest) {
    requests_.push_back(EmbedRequest{std::string(path), offset, length, whole, std::move(digest)});
    bytes_ += length;
    ++request_count_;
  }

  // Plans the next stage from what the model's cache holds.
  Status Advance() {
    WordModel& m = *model_;
    requests_.clear();
    pending_.clear();
    if (!m.top) {
      stage_ = Stage::kTop;
      Request(kWordsTopPath, 0, m.top_asset.size, true, m.top_asset.sha256);
      return Status::Ok();
    }
    std::set<uint32_t> pages;
    for (uint32_t b : bucket_of_) {
      if (!m.pages.contains(b / PerPage())) pages.insert(b / PerPage());
    }
    if (!pages.empty()) {
      stage_ = Stage::kPages;
      const uint64_t page_bytes = WordsPageBytes(PerPage());
      for (uint32_t p : pages) {
        pending_.push_back(p);
        Request(kWordsPagesPath, p * page_bytes, page_bytes, false, HexEncode(m.top->page_digests[p]));
      }
      return Status::Ok();
    }
    std::set<uint32_t> buckets;
    for (uint32_t b : bucket_of_) {
      if (Entry(b).length != 0 && !m.buckets.contains(b)) buckets.insert(b);
    }
    if (!buckets.empty()) {
      stage_ = Stage::kBuckets;
      for (uint32_t b : buckets) {
        const BucketEntry& e = Entry(b);
        pending_.push_back(b);
        Request(kWordsBucketsPath, e.offset, e.length, false, HexEncode(e.digest));
      }
      return Status::Ok();
    }
    std::vector<const float*> rows;
    for (size_t i = 0; i < tokens_.size(); ++i) {
      if (Entry(bucket_of_[i]).length == 0) continue;
      const WordBucket& bucket = m.buckets.at(bucket_of_[i]);
      int64_t row = bucket.Find(tokens_[i]);
      if (row >= 0) rows.push_back(bucket.vectors.data() + static_cast<uint64_t>(row) * m.spec.dimension);
    }
    if (m.params.pooling == WordPooling::kSif) {
      VIGILO_ASSIGN_OR_RETURN(vector_, PoolSifL2(rows, m.params.direction));
    } else {
      VIGILO_ASSIGN_OR_RETURN(vector_, PoolMeanL2(rows, static_cast<uint32_t>(m.spec.dimension)));
    }
    stage_ = Stage::kDone;
    return Status::Ok();
  }

  std::shared_ptr<WordModel> model_;
  std::vector<std::string> tokens_;
  std::vector<uint32_t> bucket_of_;
  Stage stage_ = Stage::kTop;
  std::vector<EmbedRequest> requests_;
  std::vector<uint32_t> pending_;  // the page or bucket of each request
  std::vector<float> vector_;
  uint64_t bytes_ = 0;
  uint64_t request_count_ = 0;
  Status failed_;
};

class WordVectorsRuntime final : public EmbeddingRuntime {
 public:
  explicit WordVectorsRuntime(std::shared_ptr<WordModel> model) : model_(std::move(model)) {}
  const EmbeddingSpec& spec() const override { return model_->spec; }

  Result<std::unique_ptr<EmbedRun>> Start(std::string text) override {
    VIGILO_ASSIGN_OR_RETURN(std::string input, ApplyInputTemplate(model_->spec.input_template, text));
    VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> tokens, TokenizeWords(input));
    if (tokens.empty()) {
      return InvalidArgument("the text holds no word (ASCII letters, digits or non-ASCII characters)");
    }
    auto run = std::make_unique<WordVectorsRun>(model_, std::move(tokens));
    VIGILO_RETURN_IF_ERROR(run->Begin());
    return std::unique_ptr<EmbedRun>(std::move(run));
  }

 private:
  std::shared_ptr<WordModel> model_;
};

}  // namespace

Result<std::unique_ptr<EmbeddingRuntime>> EmbeddingRuntime::Open(const EmbeddingSpec& spec) {
  if (spec.contract == kStaticWordVectorsContract) {
    VIGILO_ASSIGN_OR_RETURN(auto model, OpenWordModel(spec));
    return std::unique_ptr<EmbeddingRuntime>(std::make_unique<WordVectorsRuntime>(std::move(model)));
  }
  return InvalidFormat("unknown embedding runtime contract \"" + spec.contract + "\" (this reader knows \"" +
                       std::string(kStaticWordVectorsContract) + "\")")
      .WithPath("runtime.contract");
}

Result<std::unique_ptr<EmbedRun>> EmbedRun::Start(const EmbeddingSpec& spec, std::string text) {
  VIGILO_ASSIGN_OR_RETURN(auto runtime, EmbeddingRuntime::Open(spec));
  return runtime->Start(std::move(text));  // the run shares the model, not the runtime
}

Status CompareParityProbe(const EmbeddingSpec& spec, size_t probe, std::span<const float> got) {
  if (probe >= spec.probes.size()) return Internal("no such parity probe");
  const std::vector<float>& want = spec.probes[probe].vector;
  const std::string name = "parity probe " + std::to_string(probe);
  if (got.size() != want.size()) {
    return IntegrityError(name + ": the runtime made " + std::to_string(got.size()) + " components, the model's probe has " +
                          std::to_string(want.size()));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    bool same = spec.tolerance == 0
                    ? FloatBits(got[i]) == FloatBits(want[i])
                    : std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <= spec.tolerance;
    if (!same) {
      return IntegrityError(name + ": component " + std::to_string(i) + " is " + FloatText(got[i]) +
                            ", the model's probe says " + FloatText(want[i]));
    }
  }
  return Status::Ok();
}

}  // namespace vigilo::ivf
