// JSON Lines: one JSON object per line (LF, optionally CR LF; a final LF is
// optional), each a row. The vector member is an array of numbers; the key
// member an integer (long) or a string (string), the same kind on every row.
// A line may instead be a bare array of numbers: the vector alone (no key).
// A blank line is an error naming it, never skipped.
// Lines are parsed one at a time with vigilo's strict parser.
#include <algorithm>
#include <string>
#include <vector>

#include "input_internal.h"
#include "vigilo/json/parse.h"

namespace vigilo::ivf::input_internal {
namespace {

constexpr size_t kReadBytes = size_t{1} << 20;

// Splits a file into lines without holding more than one line (plus one
// read) in memory.
class LineReader {
 public:
  LineReader(const std::string& path, SequentialFile file) : path_(path), file_(std::move(file)) {}

  // The next line without its LF, and the file offset where it starts;
  // false at the end of the file.
  Result<bool> Next(std::string_view* line, uint64_t* line_offset) {
    while (true) {
      size_t nl = buf_.find('\n', scan_);
      if (nl != std::string::npos) {
        *line = std::string_view(buf_).substr(pos_, nl - pos_);
        *line_offset = buf_offset_ + pos_;
        pos_ = scan_ = nl + 1;
        return true;
      }
      scan_ = buf_.size();
      if (scan_ - pos_ > kMaxJsonLineBytes) {
        return LimitExceeded("a line is longer than " + std::to_string(kMaxJsonLineBytes) + " bytes")
            .WithPath(path_)
            .WithOffset(buf_offset_ + pos_);
      }
      if (eof_) {
        if (pos_ == buf_.size()) return false;
        *line = std::string_view(buf_).substr(pos_);
        *line_offset = buf_offset_ + pos_;
        pos_ = scan_ = buf_.size();
        return true;
      }
      // Keep only the unfinished line, then append the next read.
      buf_.erase(0, pos_);
      buf_offset_ += pos_;
      scan_ -= pos_;
      pos_ = 0;
      size_t old = buf_.size();
      buf_.resize(old + kReadBytes);
      VIGILO_ASSIGN_OR_RETURN(size_t got, file_.ReadUpTo(std::span<char>(buf_).subspan(old)));
      buf_.resize(old + got);
      if (got == 0) eof_ = true;
    }
  }

  Status Rewind() {
    buf_.clear();
    buf_offset_ = 0;
    pos_ = scan_ = 0;
    eof_ = false;
    return file_.Reopen();
  }

 private:
  std::string path_;
  SequentialFile file_;
  std::string buf_;
  uint64_t buf_offset_ = 0;  // file offset of buf_[0]
  size_t pos_ = 0;           // start of the next line in buf_
  size_t scan_ = 0;          // buf_[pos_, scan_) holds no LF
  bool eof_ = false;
};

Status RowError(const std::string& path, uint64_t row, uint64_t offset, const std::string& what) {
  return FormatErrorAt(path, offset, RowName(row) + " (line " + std::to_string(row + 1) + "): " + what);
}

// One line parsed strictly: an object or an array, else the row's error.
Result<json::Value> ParseLine(const std::string& path, std::string_view line, uint64_t row, uint64_t offset) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
    return RowError(path, row, offset, "empty line; every line must be a JSON object or array");
  }
  json::ParseOptions parse_options;
  parse_options.max_bytes = kMaxJsonLineBytes;
  auto parsed = json::Parse(line, parse_options);
  if (!parsed.ok()) {
    const Status& s = parsed.status();
    return Status(s.code(), RowName(row) + " (line " + std::to_string(row + 1) + "): " + std::string(s.message()))
        .WithPath(path)
        .WithOffset(offset + s.offset().value_or(0));
  }
  if (!parsed->is_object() && !parsed->is_array()) {
    return RowError(path, row, offset, "not a JSON object (or an array of numbers)");
  }
  return std::move(*parsed);
}

// One parsed line: the vector (as floats) and the key.
struct JsonRow {
  std::vector<float> vector;
  std::optional<ColumnType::Kind> key_kind;  // kLong or kString
  int64_t key_integer = 0;
  std::string key_string;
};

Result<JsonRow> ParseRow(const std::string& path, std::string_view line, uint64_t row, uint64_t offset,
                         const InputOptions& options, std::vector<double>* scratch) {
  VIGILO_ASSIGN_OR_RETURN(json::Value value, ParseLine(path, line, row, offset));
  if (value.is_array() && options.key_field) {
    return RowError(path, row, offset, "a bare array has no key member \"" + *options.key_field + "\"");
  }
  static const json::Object kNoMembers;
  const json::Object& object = value.is_object() ? value.as_object() : kNoMembers;

  JsonRow out;
  const json::Value* vec = value.is_array() ? &value : object.Find(options.vector_field);
  if (vec == nullptr) return RowError(path, row, offset, "no member \"" + options.vector_field + "\"");
  if (vec->is_null()) return RowError(path, row, offset, "the vector \"" + options.vector_field + "\" is null");
  if (!vec->is_array()) {
    return RowError(path, row, offset, "the vector \"" + options.vector_field + "\" is a " +
                                           std::string(json::KindName(vec->kind())) + ", not an array of numbers");
  }
  const json::Array& items = vec->as_array();
  scratch->resize(items.size());
  for (size_t j = 0; j < items.size(); ++j) {
    if (!items[j].is_number()) {
      return RowError(path, row, offset, "element " + std::to_string(j) + " of \"" + options.vector_field +
                                             "\" is a " + std::string(json::KindName(items[j].kind())) +
                                             ", not a number");
    }
    (*scratch)[j] = items[j].as_number().AsDouble();
  }
  out.vector.resize(items.size());
  Status finite = ConvertDoubleRow(path, *scratch, out.vector.data(), row);
  if (!finite.ok()) return std::move(finite).WithOffset(offset);

  if (options.key_field) {
    const json::Value* key = object.Find(*options.key_field);
    if (key == nullptr) return RowError(path, row, offset, "no key member \"" + *options.key_field + "\"");
    if (key->is_string()) {
      out.key_kind = ColumnType::Kind::kString;
      out.key_string = key->as_string();
    } else if (key->is_number() && key->as_number().is_integer()) {
      auto v = key->as_number().AsInt64();
      if (!v.ok()) return RowError(path, row, offset, "the key \"" + *options.key_field + "\" does not fit a long");
      out.key_kind = ColumnType::Kind::kLong;
      out.key_integer = *v;
    } else {
      std::string kind = key->is_number() ? "non-integer number" : std::string(json::KindName(key->kind()));
      return RowError(path, row, offset,
                      "the key \"" + *options.key_field + "\" is a " + kind + "; keys are integers or strings");
    }
  }
  return out;
}

// The member of the first row holding a non-empty array of numbers, when
// exactly one does; nothing for a bare-array row (it names no member).
Result<std::optional<std::string>> DetectVectorMember(const std::string& path, std::string_view line,
                                                      uint64_t offset) {
  json::ParseOptions parse_options;
  parse_options.max_bytes = kMaxJsonLineBytes;
  auto parsed = json::Parse(line, parse_options);
  if (!parsed.ok() || !parsed->is_object()) return std::optional<std::string>();  // ParseRow says what is wrong
  std::vector<std::string> candidates;
  std::string members;
  for (const auto& [name, member] : parsed->as_object()) {
    members += (members.empty() ? "\"" : ", \"") + name + "\"";
    if (!member.is_array() || member.as_array().empty()) continue;
    const json::Array& items = member.as_array();
    if (std::all_of(items.begin(), items.end(), [](const json::Value& x) { return x.is_number(); })) {
      candidates.push_back(name);
    }
  }
  if (candidates.size() == 1) return std::optional<std::string>(candidates[0]);
  std::string listed;
  for (const std::string& c : candidates) listed += (listed.empty() ? "\"" : ", \"") + c + "\"";
  return RowError(path, 0, offset,
                  candidates.empty()
                      ? "no member is an array of numbers (members: " + members + "); name the vector field"
                      : "several members are arrays of numbers (" + listed + "); name the vector field");
}

class JsonlInput final : public VectorInput {
 public:
  JsonlInput(const std::string& path, LineReader lines, const InputOptions& options, uint32_t dimension,
             std::optional<ColumnType::Kind> key_kind)
      : lines_(std::move(lines)), options_(options) {
    path_ = path;
    format_ = InputFormat::kJsonl;
    vector_field_ = options.vector_field;
    dimension_ = dimension;
    if (key_kind) key_field_ = KeyField{*options.key_field, ColumnType{*key_kind, 0}};
  }

  Status Restart() override { return lines_.Rewind(); }

 private:
  Status Fill(InputBlock* block) override {
    while (block->rows < options_.block_rows) {
      std::string_view line;
      uint64_t offset = 0;
      VIGILO_ASSIGN_OR_RETURN(bool more, lines_.Next(&line, &offset));
      if (!more) break;
      VIGILO_ASSIGN_OR_RETURN(JsonRow row, ParseRow(path_, line, next_row_, offset, options_, &scratch_));
      if (row.vector.size() != dimension_) {
        return RowError(path_, next_row_, offset,
                        "the vector has " + std::to_string(row.vector.size()) + " elements, the first row " +
                            std::to_string(dimension_));
      }
      if (key_field_) {
        if (row.key_kind != key_field_->type.kind) {
          return RowError(path_, next_row_, offset,
                          "the key \"" + key_field_->name + "\" is not a " + key_field_->type.ToString() +
                              " like the first row's");
        }
        KeyColumn& keys = block->keys;
        if (key_field_->type.kind == ColumnType::Kind::kLong) {
          keys.integers.push_back(row.key_integer);
        } else {
          keys.bytes.insert(keys.bytes.end(), row.key_string.begin(), row.key_string.end());
          keys.offsets.push_back(keys.bytes.size());
        }
      }
      block->vectors.insert(block->vectors.end(), row.vector.begin(), row.vector.end());
      ++block->rows;
      ++next_row_;
    }
    return Status::Ok();
  }

  LineReader lines_;
  InputOptions options_;
  std::vector<double> scratch_;
};

}  // namespace

Status JsonlRowError(const std::string& path, uint64_t row, uint64_t offset, const std::string& what) {
  return RowError(path, row, offset, what);
}

struct JsonlLines::Impl {
  LineReader lines;
};

JsonlLines::JsonlLines(std::string path, std::unique_ptr<Impl> impl) : path_(std::move(path)), impl_(std::move(impl)) {}
JsonlLines::~JsonlLines() = default;

Result<std::unique_ptr<JsonlLines>> JsonlLines::Open(const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(SequentialFile file, SequentialFile::Open(path));
  auto impl = std::make_unique<Impl>(Impl{LineReader(path, std::move(file))});
  return std::unique_ptr<JsonlLines>(new JsonlLines(path, std::move(impl)));
}

Result<bool> JsonlLines::Next(json::Value* value, uint64_t* row, uint64_t* offset) {
  std::string_view line;
  VIGILO_ASSIGN_OR_RETURN(bool more, impl_->lines.Next(&line, offset));
  if (!more) return false;
  *row = next_row_;
  VIGILO_ASSIGN_OR_RETURN(*value, ParseLine(path_, line, next_row_, *offset));
  ++next_row_;
  return true;
}

Status JsonlLines::Rewind() {
  next_row_ = 0;
  return impl_->lines.Rewind();
}

Result<std::unique_ptr<VectorInput>> OpenJsonlInput(const std::string& path, const InputOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(SequentialFile file, SequentialFile::Open(path));
  LineReader lines(path, std::move(file));
  // The first row fixes the dimension and the key's type.
  std::string_view line;
  uint64_t offset = 0;
  VIGILO_ASSIGN_OR_RETURN(bool any, lines.Next(&line, &offset));
  if (!any) return FormatError(path, "the file holds no vectors");
  std::vector<double> scratch;
  InputOptions resolved = options;
  if (options.detect_vector_field) {
    VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> detected, DetectVectorMember(path, line, offset));
    if (detected) resolved.vector_field = *detected;
    if (resolved.key_field && *resolved.key_field == resolved.vector_field) {
      return InvalidArgument("the key and the vector are the same field \"" + resolved.vector_field + "\"");
    }
  }
  VIGILO_ASSIGN_OR_RETURN(JsonRow first, ParseRow(path, line, 0, offset, resolved, &scratch));
  Status dim = CheckDimension(path, first.vector.size(), RowName(0));
  if (!dim.ok()) return std::move(dim).WithOffset(offset);
  VIGILO_RETURN_IF_ERROR(lines.Rewind());
  return std::unique_ptr<VectorInput>(std::make_unique<JsonlInput>(
      path, std::move(lines), resolved, static_cast<uint32_t>(first.vector.size()), first.key_kind));
}

}  // namespace vigilo::ivf::input_internal
