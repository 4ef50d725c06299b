#include "vigilo/cases/case_batch.h"

#include "vigilo/cases/document.h"
#include "vigilo/cases/fields.h"
#include "vigilo/cases/identity.h"
#include "vigilo/common/checked.h"
#include "vigilo/common/hex.h"
#include "vigilo/json/canonical.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

// Parses one canonical JSON line (without its LF) of a batch.
Result<json::Value> ParseLine(std::string_view line, uint64_t offset, const std::string& where) {
  json::ParseOptions options;
  options.max_bytes = line.size();
  auto value = json::Parse(line, options);
  if (!value.ok()) {
    Status s = value.status();
    return std::move(s).WithOffset(offset + s.offset().value_or(0)).WithPath(where);
  }
  if (Status s = json::CheckCanonicalBytes(line, *value); !s.ok()) {
    return std::move(s).WithOffset(offset + s.offset().value_or(0)).WithPath(where);
  }
  return value;
}

std::string RecordLine(int32_t ordinal, const CaseHash& hash, const json::Value& source) {
  json::Object record;
  record.Set("case_hash", json::Value(HexEncode(hash)));
  record.Set("case_ordinal", json::Value::Int(ordinal));
  record.Set("source", source);
  std::string line;
  (void)json::WriteCanonical(json::Value(std::move(record)), &line);  // parsed values are writable
  line.push_back('\n');
  return line;
}

}  // namespace

Result<CaseBatchHeader> CaseBatchHeader::FromJson(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, "$"));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"dataset_id", "ordinal_end", "ordinal_start", "schema"}));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(f, StorageFormat::kCaseBatch));
  CaseBatchHeader h;
  VIGILO_ASSIGN_OR_RETURN(h.dataset_id, f.String("dataset_id"));
  VIGILO_ASSIGN_OR_RETURN(int64_t start, f.Int("ordinal_start", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t end, f.Int("ordinal_end", 0, kMaxInt32));
  h.ordinal_start = static_cast<int32_t>(start);
  h.ordinal_end = static_cast<int32_t>(end);
  VIGILO_RETURN_IF_ERROR(h.Validate());
  return h;
}

json::Value CaseBatchHeader::ToJson() const {
  json::Object o;
  o.Set("dataset_id", json::Value(dataset_id));
  o.Set("ordinal_end", json::Value::Int(ordinal_end));
  o.Set("ordinal_start", json::Value::Int(ordinal_start));
  o.Set("schema", json::Value(std::string(StorageFormatId(StorageFormat::kCaseBatch))));
  return json::Value(std::move(o));
}

Status CaseBatchHeader::Validate() const {
  if (Status s = ValidateDatasetId(dataset_id); !s.ok()) return s.WithPath("$.dataset_id");
  if (ordinal_start < 0) return OutOfRange("ordinal_start must be non-negative").WithPath("$.ordinal_start");
  if (ordinal_end <= ordinal_start) {
    return InvalidFormat("ordinal_end must be greater than ordinal_start: a batch has a positive record count")
        .WithPath("$.ordinal_end");
  }
  return Status::Ok();
}

std::string CaseBatchHeader::EncodeLine() const {
  std::string line;
  (void)json::WriteCanonical(ToJson(), &line);
  line.push_back('\n');
  return line;
}

CaseBatchBuilder::CaseBatchBuilder(std::string dataset_id, int32_t ordinal_start, BatchLimits limits)
    : dataset_id_(std::move(dataset_id)), ordinal_start_(ordinal_start), next_ordinal_(ordinal_start),
      limits_(limits) {}

CaseBatchHeader CaseBatchBuilder::HeaderFor(int32_t ordinal_end) const {
  return CaseBatchHeader{dataset_id_, ordinal_start_, ordinal_end};
}

uint64_t CaseBatchBuilder::encoded_bytes() const {
  return HeaderFor(next_ordinal_).EncodeLine().size() + records_.size();
}

Result<bool> CaseBatchBuilder::Add(const json::Value& source) {
  VIGILO_ASSIGN_OR_RETURN(TypedCase typed, ValidateCase(source, "$.source"));
  return Add(source, NormalizedCaseHash(typed));
}

Result<bool> CaseBatchBuilder::Add(const json::Value& source, const CaseHash& case_hash) {
  VIGILO_ASSIGN_OR_RETURN(TypedCase typed, ValidateCase(source, "$.source"));
  if (NormalizedCaseHash(typed) != case_hash) {
    return IntegrityError("case_hash does not match the case's normalized hash").WithPath("$.case_hash");
  }
  if (next_ordinal_ == INT32_MAX) return OutOfRange("case ordinal would exceed 2,147,483,647");
  VIGILO_ASSIGN_OR_RETURN(int32_t end, CheckedAdd<int32_t>(next_ordinal_, 1));
  std::string line = RecordLine(next_ordinal_, case_hash, source);
  uint64_t total = HeaderFor(end).EncodeLine().size() + records_.size() + line.size();
  bool empty = records_.empty();
  if (record_count() + 1 > limits_.max_cases || total > limits_.max_bytes) {
    if (!empty) return false;  // close this batch first
    return LimitExceeded("case " + typed.id.ToString() + " needs " + std::to_string(total) +
                         " bytes with its batch header; the batch limit is " + std::to_string(limits_.max_bytes))
        .WithPath("$.cases[" + std::to_string(next_ordinal_) + "]");
  }
  records_ += line;
  next_ordinal_ = end;
  return true;
}

Result<std::string> CaseBatchBuilder::Finish() const {
  if (records_.empty()) return InvalidArgument("a case batch needs at least one record");
  return HeaderFor(next_ordinal_).EncodeLine() + records_;
}

Result<DecodedCaseBatch> DecodeCaseBatch(VerifiedObject object) {
  const std::string key = object.ref().key;
  if (object.ref().schema != StorageFormat::kCaseBatch) {
    return InvalidFormat("the reference names schema \"" + std::string(StorageFormatId(object.ref().schema)) +
                         "\", not vigilo/case-batch/v1")
        .WithPath(key);
  }
  std::string_view bytes = object.bytes();
  size_t lf = bytes.find('\n');
  if (lf == std::string_view::npos) {
    return InvalidFormat("the header line has no LF terminator").WithPath(key).WithOffset(bytes.size());
  }
  VIGILO_ASSIGN_OR_RETURN(json::Value header_json, ParseLine(bytes.substr(0, lf), 0, key + " line 1"));
  auto header = CaseBatchHeader::FromJson(header_json);
  if (!header.ok()) return std::move(header).take_status().PrependPath(key + " line 1: ");
  return DecodedCaseBatch(std::move(object), std::move(header).value(), lf + 1);
}

Result<CaseBatchReader> DecodedCaseBatch::Validate(const BatchLimits& limits) const {
  VIGILO_RETURN_IF_ERROR(header_.Validate());
  uint64_t count = static_cast<uint64_t>(header_.ordinal_end - header_.ordinal_start);
  if (count > limits.max_cases) {
    return LimitExceeded("batch declares " + std::to_string(count) + " records; the admitted limit is " +
                         std::to_string(limits.max_cases))
        .WithPath(ref().key);
  }
  if (object_.bytes().size() > limits.max_bytes) {
    return LimitExceeded("batch is " + std::to_string(object_.bytes().size()) + " bytes; the admitted limit is " +
                         std::to_string(limits.max_bytes))
        .WithPath(ref().key);
  }
  return CaseBatchReader(object_.bytes(), body_offset_, header_, ref().key);
}

Result<std::optional<CaseRecord>> CaseBatchReader::Next() {
  if (done_) return std::optional<CaseRecord>();
  int32_t expected_count = header_.ordinal_end - header_.ordinal_start;
  int32_t seen = next_ordinal_ - header_.ordinal_start;
  std::string where = key_ + " line " + std::to_string(seen + 2);
  if (offset_ == bytes_.size()) {
    done_ = true;
    if (seen != expected_count) {
      return InvalidFormat("batch ends after " + std::to_string(seen) + " records; the header declares " +
                           std::to_string(expected_count))
          .WithPath(key_)
          .WithOffset(offset_);
    }
    return std::optional<CaseRecord>();
  }
  if (seen == expected_count) {
    return InvalidFormat("more records than the header's range [" + std::to_string(header_.ordinal_start) + ", " +
                         std::to_string(header_.ordinal_end) + ")")
        .WithPath(where)
        .WithOffset(offset_);
  }
  size_t lf = bytes_.find('\n', offset_);
  if (lf == std::string_view::npos) {
    return InvalidFormat("truncated record: the last line has no LF terminator").WithPath(where).WithOffset(offset_);
  }
  VIGILO_ASSIGN_OR_RETURN(json::Value line, ParseLine(bytes_.substr(offset_, lf - offset_), offset_, where));
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(line, "$"));
  auto located = [&](Status s) { return std::move(s).PrependPath(where + ": ").WithOffset(offset_); };
  if (Status s = f.ExpectExactly({"case_hash", "case_ordinal", "source"}); !s.ok()) return located(s);
  auto ordinal = f.Int("case_ordinal", 0, kMaxInt32);
  if (!ordinal.ok()) return located(ordinal.status());
  if (*ordinal != next_ordinal_) {
    return located(InvalidFormat("case_ordinal " + std::to_string(*ordinal) + " where " +
                                 std::to_string(next_ordinal_) + " is next (ordinals must be consecutive)")
                       .WithPath("$.case_ordinal"));
  }
  auto hash_hex = f.String("case_hash");
  if (!hash_hex.ok()) return located(hash_hex.status());
  auto hash_bytes = HexDecodeLower(*hash_hex);
  if (!hash_bytes.ok() || hash_bytes->size() != 32) {
    return located(InvalidFormat("case_hash must be 64 lowercase hex characters").WithPath("$.case_hash"));
  }
  const json::Value& source = *line.as_object().Find("source");
  auto typed = ValidateCase(source, "$.source");
  if (!typed.ok()) return located(typed.status());
  CaseRecord record;
  std::copy(hash_bytes->begin(), hash_bytes->end(), record.case_hash.begin());
  if (NormalizedCaseHash(*typed) != record.case_hash) {
    return located(IntegrityError("case_hash does not match the recomputed normalized case hash")
                       .WithPath("$.case_hash"));
  }
  record.case_ordinal = next_ordinal_;
  record.source = source;
  ++next_ordinal_;
  offset_ = lf + 1;
  return std::optional<CaseRecord>(std::move(record));
}

Status CaseBatchReader::ValidateRemaining() {
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<CaseRecord> record, Next());
    if (!record) return Status::Ok();
  }
}

}  // namespace vigilo::cases
