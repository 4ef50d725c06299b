// Pages and chunks: levels, PLAIN and dictionary values, compression.
#include "column_writer.h"

#include <algorithm>
#include <cstring>

#include "vigilo/common/checked.h"
#include "vigilo/parquet/compression.h"
#include "rle_encoder.h"

namespace vigilo::parquet {
namespace {

Type PhysicalType(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kBoolean: return Type::kBoolean;
    case ColumnKind::kInt32:
    case ColumnKind::kDate: return Type::kInt32;
    case ColumnKind::kInt64: return Type::kInt64;
    case ColumnKind::kFloat:
    case ColumnKind::kFloatList: return Type::kFloat;
    case ColumnKind::kDouble: return Type::kDouble;
    case ColumnKind::kByteArray:
    case ColumnKind::kString: return Type::kByteArray;
    case ColumnKind::kFixedLenByteArray: return Type::kFixedLenByteArray;
  }
  return Type::kInt32;
}

void PutLe32(uint32_t v, std::vector<uint8_t>* out) {
  for (int b = 0; b < 4; ++b) out->push_back(static_cast<uint8_t>(v >> (8 * b)));
}

void PutPlainByteArray(std::string_view v, bool length_prefix, std::vector<uint8_t>* out) {
  if (length_prefix) PutLe32(static_cast<uint32_t>(v.size()), out);  // sizes checked on append
  out->insert(out->end(), v.begin(), v.end());
}

std::vector<uint8_t> PackBooleans(const std::vector<uint8_t>& bools) {
  std::vector<uint8_t> out((bools.size() + 7) / 8, 0);
  for (size_t i = 0; i < bools.size(); ++i) {
    if (bools[i]) out[i / 8] = static_cast<uint8_t>(out[i / 8] | (1u << (i % 8)));
  }
  return out;
}

}  // namespace

ColumnChunkWriter::ColumnChunkWriter(const ColumnSpec& spec, const WriterOptions& options)
    : spec_(spec),
      options_(options),
      type_(PhysicalType(spec.kind)),
      page_stats_(type_),
      chunk_stats_(type_) {
  if (spec.kind == ColumnKind::kFloatList) {
    max_def_ = static_cast<int16_t>((spec.optional ? 1 : 0) + 1 + (spec.element_optional ? 1 : 0));
    max_rep_ = 1;
  } else {
    max_def_ = spec.optional ? 1 : 0;
  }
  dictionary_ = spec.dictionary;
}

void ColumnChunkWriter::AddRowLevel(bool present) {
  if (max_def_ > 0) def_.push_back(present ? 1 : 0);
  ++page_values_;
  if (!present) page_stats_.AddNulls(1);
}

void ColumnChunkWriter::AddValueBytes(std::string_view plain) {
  values_.insert(values_.end(), plain.begin(), plain.end());
  page_plain_size_ += plain.size();
}

void ColumnChunkWriter::AddByteArray(std::string_view v) {
  bool prefix = type_ == Type::kByteArray;
  uint64_t plain = v.size() + (prefix ? 4 : 0);
  page_plain_size_ += plain;
  page_stats_.AddBytes(v);
  if (dictionary_) {
    auto it = dict_index_.find(std::string(v));
    if (it != dict_index_.end()) {
      indices_.push_back(it->second);
      return;
    }
    if (dict_plain_size_ + plain <= options_.dictionary_size_limit) {
      auto index = static_cast<uint32_t>(dict_values_.size());
      dict_index_.emplace(std::string(v), index);
      dict_values_.emplace_back(v);
      dict_plain_size_ += plain;
      indices_.push_back(index);
      return;
    }
    FallBackToPlain();
  }
  PutPlainByteArray(v, prefix, &values_);
}

void ColumnChunkWriter::EndRow() {
  ++chunk_rows_;
  if (page_plain_size_ >= options_.page_size || page_values_ >= kMaxPageLevels) {
    Status st = FlushPage();
    if (!st.ok() && error_.ok()) error_ = std::move(st);
  }
}

void ColumnChunkWriter::ResetPage() {
  rep_.clear();
  def_.clear();
  values_.clear();
  indices_.clear();
  page_values_ = 0;
  page_plain_size_ = 0;
  page_stats_.Reset();
}

Status ColumnChunkWriter::FlushPage() {
  if (page_values_ == 0) return Status::Ok();
  chunk_stats_.Merge(page_stats_);
  chunk_values_ += page_values_;
  Status st;
  if (dictionary_) {
    pending_.push_back({std::move(rep_), std::move(def_), std::move(indices_), page_values_, page_stats_});
  } else if (type_ == Type::kBoolean) {
    st = EncodeDataPage(rep_, def_, page_values_, Encoding::kPlain, PackBooleans(values_), page_stats_);
  } else {
    st = EncodeDataPage(rep_, def_, page_values_, Encoding::kPlain, values_, page_stats_);
  }
  ResetPage();
  return st;
}

// The dictionary outgrew its limit: every value seen so far in this chunk is
// re-materialised from it as PLAIN, and the chunk continues PLAIN.
void ColumnChunkWriter::FallBackToPlain() {
  bool prefix = type_ == Type::kByteArray;
  std::vector<uint8_t> plain;
  for (PendingPage& page : pending_) {
    plain.clear();
    for (uint32_t index : page.indices) PutPlainByteArray(dict_values_[index], prefix, &plain);
    Status st = EncodeDataPage(page.rep, page.def, page.num_values, Encoding::kPlain, plain, page.stats);
    if (!st.ok() && error_.ok()) error_ = std::move(st);
  }
  pending_.clear();
  for (uint32_t index : indices_) PutPlainByteArray(dict_values_[index], prefix, &values_);
  indices_.clear();
  dict_index_.clear();
  dict_values_.clear();
  dict_plain_size_ = 0;
  dictionary_ = false;
}

Status ColumnChunkWriter::EncodeDataPage(const std::vector<uint8_t>& rep, const std::vector<uint8_t>& def,
                                         int64_t num_values, Encoding encoding, const std::vector<uint8_t>& values,
                                         const StatisticsBuilder& stats) {
  std::vector<uint8_t> body;
  body.reserve(values.size() + (rep.size() + def.size()) / 4 + 16);
  if (max_rep_ > 0) RleEncodeWithLength(rep, BitWidth(static_cast<uint64_t>(max_rep_)), &body);
  if (max_def_ > 0) RleEncodeWithLength(def, BitWidth(static_cast<uint64_t>(max_def_)), &body);
  body.insert(body.end(), values.begin(), values.end());

  PageHeader header;
  header.type = PageType::kDataPage;
  DataPageHeader dp;
  VIGILO_ASSIGN_OR_RETURN(dp.num_values, CheckedCast<int32_t>(num_values));
  dp.encoding = encoding;
  dp.definition_level_encoding = Encoding::kRle;
  dp.repetition_level_encoding = Encoding::kRle;
  if (options_.page_statistics) dp.statistics = stats.Build(options_.max_statistics_value_bytes);
  header.data_page_header = std::move(dp);
  VIGILO_RETURN_IF_ERROR(EncodePage(std::move(header), body));
  ++data_pages_;
  return Status::Ok();
}

Status ColumnChunkWriter::EncodePage(PageHeader header, const std::vector<uint8_t>& body) {
  if (body.size() > static_cast<size_t>(INT32_MAX)) {
    return LimitExceeded("a page of " + std::to_string(body.size()) + " bytes does not fit int32");
  }
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  std::vector<uint8_t> compressed;
  const std::vector<uint8_t>* stored = &body;
  if (options_.codec != CompressionCodec::kUncompressed) {
    VIGILO_ASSIGN_OR_RETURN(compressed, Compress(options_.codec, body, options_.zstd_level));
    if (compressed.size() > static_cast<size_t>(INT32_MAX)) return LimitExceeded("compressed page exceeds int32");
    stored = &compressed;
  }
  header.compressed_page_size = static_cast<int32_t>(stored->size());
  VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> encoded, EncodePageHeader(header));
  bytes_.insert(bytes_.end(), encoded.begin(), encoded.end());
  bytes_.insert(bytes_.end(), stored->begin(), stored->end());
  VIGILO_ASSIGN_OR_RETURN(int64_t size, CheckedCast<int64_t>(encoded.size() + body.size()));
  VIGILO_ASSIGN_OR_RETURN(uncompressed_size_, CheckedAdd(uncompressed_size_, size));
  return Status::Ok();
}

Result<std::vector<uint8_t>> ColumnChunkWriter::FinishChunk(int64_t file_offset, ColumnMetaData* md) {
  VIGILO_RETURN_IF_ERROR(FlushPage());
  // A dictionary of nothing (an all-null chunk) would be an empty page.
  if (dictionary_ && dict_values_.empty()) FallBackToPlain();
  VIGILO_RETURN_IF_ERROR(error_);
  bool dict = dictionary_;
  if (dict) {
    std::vector<uint8_t> body;
    body.reserve(dict_plain_size_);
    for (const std::string& v : dict_values_) PutPlainByteArray(v, type_ == Type::kByteArray, &body);
    PageHeader header;
    header.type = PageType::kDictionaryPage;
    DictionaryPageHeader dh;
    VIGILO_ASSIGN_OR_RETURN(dh.num_values, CheckedCast<int32_t>(dict_values_.size()));
    dh.encoding = Encoding::kPlain;
    header.dictionary_page_header = dh;
    VIGILO_RETURN_IF_ERROR(EncodePage(std::move(header), body));
    VIGILO_ASSIGN_OR_RETURN(dictionary_page_size_, CheckedCast<int64_t>(bytes_.size()));
    // Width 1 at least: some readers mishandle zero-width index runs.
    int width = std::max(1, BitWidth(dict_values_.size() - 1));
    std::vector<uint8_t> values;
    for (const PendingPage& page : pending_) {
      values.assign(1, static_cast<uint8_t>(width));
      RleEncode(page.indices, width, &values);
      VIGILO_RETURN_IF_ERROR(
          EncodeDataPage(page.rep, page.def, page.num_values, Encoding::kRleDictionary, values, page.stats));
    }
  }

  *md = ColumnMetaData{};
  md->type = type_;
  md->encodings = {Encoding::kPlain};
  if (max_def_ > 0 || max_rep_ > 0) md->encodings.push_back(Encoding::kRle);
  if (dict) md->encodings.push_back(Encoding::kRleDictionary);
  md->path_in_schema = {spec_.name};
  if (spec_.kind == ColumnKind::kFloatList) md->path_in_schema = {spec_.name, "list", "element"};
  md->codec = options_.codec;
  md->num_values = chunk_values_;
  md->total_uncompressed_size = uncompressed_size_;
  VIGILO_ASSIGN_OR_RETURN(md->total_compressed_size, CheckedCast<int64_t>(bytes_.size()));
  md->data_page_offset = file_offset + (dict ? dictionary_page_size_ : 0);
  if (dict) md->dictionary_page_offset = file_offset;
  md->statistics = chunk_stats_.Build(options_.max_statistics_value_bytes);
  std::vector<PageEncodingStats> es;
  if (dict) es.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
  es.push_back({PageType::kDataPage, dict ? Encoding::kRleDictionary : Encoding::kPlain, data_pages_});
  md->encoding_stats = std::move(es);

  std::vector<uint8_t> out = std::move(bytes_);
  bytes_ = {};
  ResetPage();
  dict_index_.clear();
  dict_values_.clear();
  dict_plain_size_ = 0;
  pending_.clear();
  dictionary_ = spec_.dictionary;
  chunk_rows_ = 0;
  chunk_values_ = 0;
  uncompressed_size_ = 0;
  data_pages_ = 0;
  dictionary_page_size_ = 0;
  chunk_stats_.Reset();
  return out;
}

}  // namespace vigilo::parquet
