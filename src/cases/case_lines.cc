#include "vigilo/cases/case_lines.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "vigilo/cases/case_batch.h"
#include "vigilo/cases/case_id_check.h"
#include "vigilo/cases/identity.h"
#include "vigilo/common/utf8.h"
#include "vigilo/hash/sha1.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

constexpr std::string_view kDerivePrefix = "metadata.";
constexpr size_t kReadChunkBytes = 64u << 10;
constexpr std::string_view kBom = "\xef\xbb\xbf";

std::string LinePath(uint64_t line_number) { return "line " + std::to_string(line_number); }

// Splits a ByteSource into lines, holding at most one line (bounded by
// `max_line_bytes`) plus one read.
class LineSplitter {
 public:
  LineSplitter(ByteSource& source, size_t max_line_bytes) : source_(source), max_line_bytes_(max_line_bytes) {}

  // The next line without its LF, and the input offset where it starts;
  // false at the end of the input. A line longer than the limit fails as
  // soon as that is known, before the rest of it is read.
  Result<bool> Next(std::string_view* line, uint64_t* line_offset) {
    while (true) {
      size_t lf = buf_.find('\n', scan_);
      if (lf != std::string::npos && lf - pos_ <= max_line_bytes_) {
        *line = std::string_view(buf_).substr(pos_, lf - pos_);
        *line_offset = buf_offset_ + pos_;
        pos_ = scan_ = lf + 1;
        ++line_number_;
        return true;
      }
      scan_ = buf_.size();
      if ((lf != std::string::npos ? lf : buf_.size()) - pos_ > max_line_bytes_) {
        return LimitExceeded("the line is longer than " + std::to_string(max_line_bytes_) +
                             " bytes (the per-case limit, max_case_bytes)")
            .WithPath(LinePath(line_number_ + 1))
            .WithOffset(buf_offset_ + pos_);
      }
      if (eof_) {
        if (pos_ == buf_.size()) return false;  // ended with LF, or empty input
        *line = std::string_view(buf_).substr(pos_);  // no final LF: accepted
        *line_offset = buf_offset_ + pos_;
        pos_ = scan_ = buf_.size();
        ++line_number_;
        return true;
      }
      buf_.erase(0, pos_);  // keep only the unfinished line
      buf_offset_ += pos_;
      scan_ -= pos_;
      pos_ = 0;
      size_t old = buf_.size();
      buf_.resize(old + kReadChunkBytes);
      VIGILO_ASSIGN_OR_RETURN(size_t got, source_.Read(std::span<char>(buf_).subspan(old)));
      buf_.resize(old + got);
      if (got == 0) eof_ = true;
    }
  }

  uint64_t line_number() const { return line_number_; }

 private:
  ByteSource& source_;
  size_t max_line_bytes_;
  std::string buf_;
  uint64_t buf_offset_ = 0;  // input offset of buf_[0]
  size_t pos_ = 0;           // start of the next line in buf_
  size_t scan_ = 0;          // buf_[pos_, scan_) holds no LF
  bool eof_ = false;
  uint64_t line_number_ = 0;  // of the line last returned
};

Status LineError(Status status, uint64_t line_number, uint64_t line_offset) {
  return std::move(status).WithPath(LinePath(line_number)).WithOffset(line_offset);
}

bool IsBlank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

Result<json::Value> ParseLine(std::string_view line, uint64_t line_number, uint64_t line_offset,
                              const DatasetStreamLimits& limits) {
  if (line.substr(0, kBom.size()) == kBom) {
    return LineError(ParseError("starts with a byte order mark (U+FEFF), which only the start of the input may "
                                "have (it is skipped there); inputs joined together each keep theirs: remove it "
                                "from this line"),
                     line_number, line_offset);
  }
  json::ParseOptions parse_options;
  parse_options.max_bytes = limits.max_case_bytes;
  // Decided on the depth the case is stored at (kMaxCaseDepth), so that a
  // case admitted here is never refused when its batch is read back.
  parse_options.max_depth = std::min(limits.tokenizer.max_depth, kMaxCaseDepth);
  auto parsed = json::Parse(line, parse_options);
  if (!parsed.ok()) {
    Status s = std::move(parsed).take_status();
    uint64_t at = line_offset + s.offset().value_or(0);
    if (s.code() == StatusCode::kLimitExceeded && parse_options.max_depth == kMaxCaseDepth &&
        s.message().starts_with("nesting deeper than")) {
      s = LimitExceeded("the case nests deeper than " + std::to_string(kMaxCaseDepth) +
                        " levels; it is stored inside a batch record one level deeper, and stored JSON nests at "
                        "most " + std::to_string(json::kMaxNestingDepth) + " levels");
    }
    return std::move(s).WithPath(LinePath(line_number)).WithOffset(at);
  }
  if (!parsed->is_object()) {
    return LineError(InvalidFormat("is a JSON " + std::string(json::KindName(parsed->kind())) +
                                   ", not an object; every line must be one case object"),
                     line_number, line_offset);
  }
  return std::move(parsed).value();
}

// An error `on_case` returned for the case of line N (case N-1) names the
// line: "line N: $.cases[N-1].input", at the line's offset unless it has one.
Status OnLine(Status s, uint64_t line_number, uint64_t line_offset, uint64_t index) {
  if (s.ok()) return s;
  const std::string case_path = "$.cases[" + std::to_string(index) + "]";
  const std::string_view path = s.path();
  if (!path.starts_with(case_path)) return s;
  const size_t rest = case_path.size();
  if (path.size() > rest && path[rest] != '.' && path[rest] != '[') return s;
  const bool has_offset = s.offset().has_value();
  s = std::move(s).PrependPath(LinePath(line_number) + ": ");
  return has_offset ? s : std::move(s).WithOffset(line_offset);
}

// "an array", "a string", "null": the kind as the complement of "is".
std::string KindPhrase(json::Kind kind) {
  std::string name(json::KindName(kind));
  if (kind == json::Kind::kNull) return name;
  return (kind == json::Kind::kArray || kind == json::Kind::kObject ? "an " : "a ") + name;
}

// The UUIDv5 name a derive-ids field value stands for.
Result<std::string> DerivedIdName(const json::Object& source_case, std::string_view field) {
  const std::string where = "metadata." + std::string(field);
  const json::Value* metadata = source_case.Find("metadata");
  if (metadata == nullptr) return InvalidFormat("has no metadata, so no " + where + " to derive its id from");
  if (!metadata->is_object()) {
    return InvalidFormat("metadata is " + KindPhrase(metadata->kind()) +
                         ", not an object, so there is no " + where + " to derive its id from");
  }
  const json::Value* value = metadata->as_object().Find(field);
  if (value == nullptr) return InvalidFormat("has no " + where + " to derive its id from");
  if (value->is_string()) {
    if (value->as_string().empty()) return InvalidFormat(where + " is an empty string; it cannot name a case");
    return value->as_string();
  }
  if (value->is_number() && value->as_number().is_integer()) {
    const json::Number& n = value->as_number();
    return n.kind() == json::Number::Kind::kU64 ? std::to_string(n.u64()) : std::to_string(n.i64());
  }
  std::string kind = value->is_number() ? "a number with a fraction, an exponent or beyond 64 bits"
                                        : KindPhrase(value->kind());
  return InvalidFormat(where + " is " + kind + "; a derived id needs a string or an integer");
}

}  // namespace

Status ValidateCaseLinesOptions(const CaseLinesOptions& options) {
  if (Status s = ValidateDatasetId(options.dataset_id); !s.ok()) {
    return InvalidArgument(std::string(s.message())).WithPath("dataset_id");
  }
  if (options.dataset_version && !IsValidUtf8(*options.dataset_version)) {
    return InvalidArgument("dataset_version must be valid UTF-8").WithPath("dataset_version");
  }
  const std::string& derive = options.derive_ids_from;
  if (!derive.empty()) {
    std::string_view field = std::string_view(derive).substr(std::min(derive.size(), kDerivePrefix.size()));
    if (derive.substr(0, kDerivePrefix.size()) != kDerivePrefix || field.empty() ||
        field.find('.') != std::string_view::npos || !IsValidUtf8(field)) {
      return InvalidArgument("derive_ids_from must be \"metadata.FIELD\", one field directly under metadata "
                             "(nonempty, UTF-8, no '.'), got \"" + derive + "\"")
          .WithPath("derive_ids_from");
    }
  }
  // The same budget a dataset document's top-level fields are held to.
  json::Object fields;
  fields.Set("dataset_id", json::Value(options.dataset_id));
  if (options.dataset_version) fields.Set("dataset_version", json::Value(*options.dataset_version));
  VIGILO_ASSIGN_OR_RETURN(std::string canonical, json::ToCanonical(json::Value(std::move(fields))));
  if (canonical.size() > options.limits.max_source_fields_bytes) {
    return LimitExceeded("the dataset's top-level fields exceed " +
                         std::to_string(options.limits.max_source_fields_bytes) +
                         " canonical bytes (the source-fields budget)")
        .WithPath("dataset_version");
  }
  return Status::Ok();
}

Result<DatasetSourceFields> CaseLinesSourceFields(const CaseLinesOptions& options) {
  VIGILO_RETURN_IF_ERROR(ValidateCaseLinesOptions(options));
  DatasetSourceFields sf;
  sf.cases_present = true;  // even for empty input: the document has "cases":[]
  sf.fields.Set("dataset_id", json::Value(options.dataset_id));
  if (options.dataset_version) sf.fields.Set("dataset_version", json::Value(*options.dataset_version));
  VIGILO_RETURN_IF_ERROR(sf.Validate());
  return sf;
}

Status ForEachCaseLine(ByteSource& source, const CaseLinesOptions& options,
                       const std::function<Status(const json::Value& source_case)>& on_case) {
  VIGILO_RETURN_IF_ERROR(ValidateCaseLinesOptions(options));
  const std::string_view derive_field =
      options.derive_ids_from.empty() ? std::string_view() : std::string_view(options.derive_ids_from).substr(kDerivePrefix.size());
  LineSplitter lines(source, options.limits.max_case_bytes);
  // The first blank line not yet known to be trailing: (number, offset).
  std::optional<std::pair<uint64_t, uint64_t>> blank;
  uint64_t index = 0;  // of the next case
  while (true) {
    std::string_view line;
    uint64_t line_offset = 0;
    VIGILO_ASSIGN_OR_RETURN(bool more, lines.Next(&line, &line_offset));
    if (!more) break;
    const uint64_t n = lines.line_number();
    if (n == 1 && line.substr(0, kBom.size()) == kBom) {
      // A UTF-8 signature at the start of the input is skipped: it is no
      // part of any case (the stored cases are the parsed values).
      line.remove_prefix(kBom.size());
      line_offset += kBom.size();
    }
    if (IsBlank(line)) {
      if (!blank) blank.emplace(n, line_offset);
      continue;  // trailing blank lines are accepted; others are refused below
    }
    if (blank) {
      return LineError(InvalidFormat("blank line before line " + std::to_string(n) +
                                     "; every line but blank ones at the end of the input must be one case object"),
                       blank->first, blank->second);
    }
    VIGILO_ASSIGN_OR_RETURN(json::Value source_case, ParseLine(line, n, line_offset, options.limits));
    if (!derive_field.empty()) {
      json::Object& object = source_case.as_object();
      if (object.Contains("id")) {
        return LineError(InvalidArgument("the case already has an \"id\"; `derive_ids` " + options.derive_ids_from +
                                         " would replace it"),
                         n, line_offset);
      }
      auto name = DerivedIdName(object, derive_field);
      if (!name.ok()) return LineError(std::move(name).take_status(), n, line_offset);
      VIGILO_ASSIGN_OR_RETURN(Uuid id, DeriveCaseId(*name));
      object.Set("id", json::Value(id.ToString()));
    }
    VIGILO_RETURN_IF_ERROR(OnLine(on_case(source_case), n, line_offset, index));
    ++index;
  }
  return Status::Ok();
}

Result<DatasetIdentity> ComputeCaseLinesIdentity(const std::function<Result<std::unique_ptr<ByteSource>>()>& open,
                                                 const CaseLinesOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(DatasetSourceFields sf, CaseLinesSourceFields(options));
  VIGILO_ASSIGN_OR_RETURN(DatasetIdentityBuilder builder, DatasetIdentityBuilder::Start(sf.fields, sf.cases_present));
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, open());
  VIGILO_RETURN_IF_ERROR(
      ForEachCaseLine(*source, options, [&](const json::Value& c) { return builder.AddCase(c).status(); }));
  return builder.Finish();
}

Status NameDerivedDuplicate(Status status, ByteSource& source, const CaseLinesOptions& options) {
  if (options.derive_ids_from.empty()) return status;
  std::optional<DuplicateCaseId> duplicate = DuplicateCaseIdOf(status);
  if (!duplicate) return status;
  const std::string_view field = std::string_view(options.derive_ids_from).substr(kDerivePrefix.size());
  const auto first = static_cast<uint64_t>(duplicate->first);
  const auto repeat = static_cast<uint64_t>(duplicate->repeat);
  std::string first_name;
  std::string repeat_name;
  uint64_t index = 0;
  Status read = ForEachCaseLine(source, options, [&](const json::Value& c) -> Status {
    const uint64_t at = index++;
    if (at != first && at != repeat) return Status::Ok();
    VIGILO_ASSIGN_OR_RETURN(std::string name, DerivedIdName(c.as_object(), field));
    (at == first ? first_name : repeat_name) = std::move(name);
    if (at == repeat) return Cancelled("found");  // both read: stop reading
    return Status::Ok();
  });
  if (read.code() != StatusCode::kCancelled || first_name.empty() || repeat_name.empty()) return status;
  // The user's value, quoted as a JSON string (an integer's name is its
  // decimal text, and "42" and 42 are the same name).
  std::string shown;
  VIGILO_RETURN_IF_ERROR(json::WriteCanonical(json::Value(repeat_name), &shown));
  return InvalidFormat(options.derive_ids_from + " " + shown + " repeats the value on " + LinePath(first + 1) +
                       ", and equal values derive equal case ids (`derive_ids` gave both " +
                       duplicate->id.ToString() + ") " + duplicate->count)
      .WithPath(LinePath(repeat + 1) + ": $.cases[" + std::to_string(repeat) + "].id");
}

Uuid DerivedCaseIdNamespace() {
  // UUIDv5(NameSpace_URL, "urn:vigilo:derived-case-id:v1"); the test recomputes it.
  static constexpr Uuid::Bytes kBytes = {0xb5, 0xc9, 0x27, 0xe9, 0x66, 0xb2, 0x51, 0x3c,
                                         0x8e, 0xd0, 0xf7, 0x1f, 0xe4, 0x44, 0xc8, 0xf2};
  return Uuid(kBytes);
}

Result<Uuid> NameBasedUuidV5(const Uuid& namespace_id, std::string_view name) {
  const Uuid::Bytes& ns = namespace_id.bytes();
  std::array<std::string_view, 2> parts = {
      std::string_view(reinterpret_cast<const char*>(ns.data()), ns.size()), name};
  VIGILO_ASSIGN_OR_RETURN(auto digest, Sha1(parts));
  Uuid::Bytes bytes;
  std::memcpy(bytes.data(), digest.data(), bytes.size());
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x50);  // version 5
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);  // variant 10
  return Uuid(bytes);
}

Result<Uuid> DeriveCaseId(std::string_view name) { return NameBasedUuidV5(DerivedCaseIdNamespace(), name); }

}  // namespace vigilo::cases
