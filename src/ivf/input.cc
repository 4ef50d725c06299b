// Format detection, the key column, and the checks every format shares.
#include "vigilo/ivf/input.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "input_internal.h"

namespace vigilo::ivf {

std::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kParquet: return "parquet";
    case InputFormat::kFvecs: return "fvecs";
    case InputFormat::kBvecs: return "bvecs";
    case InputFormat::kNpy: return "npy";
    case InputFormat::kJsonl: return "jsonl";
  }
  return "unknown";
}

Result<InputFormat> ParseInputFormat(std::string_view text) {
  for (InputFormat f : {InputFormat::kParquet, InputFormat::kFvecs, InputFormat::kBvecs, InputFormat::kNpy,
                        InputFormat::kJsonl}) {
    if (text == InputFormatName(f)) return f;
  }
  return InvalidArgument("input format must be parquet, fvecs, bvecs, npy or jsonl, got \"" + std::string(text) +
                         "\"");
}

Result<InputFormat> DetectInputFormat(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t dot = name.find_last_of('.');
  if (dot != std::string_view::npos && dot > 0) {
    auto format = ParseInputFormat(name.substr(dot + 1));
    if (format.ok()) return *format;
  }
  return InvalidArgument("cannot tell the input format of \"" + std::string(path) +
                         "\" from its extension (.parquet, .fvecs, .bvecs, .npy, .jsonl); name it explicitly");
}

Result<bool> VectorInput::Next(InputBlock* block) {
  block->keys.Clear(key_field_ ? key_field_->type : ColumnType{});
  block->first_row = next_row_;
  block->rows = 0;
  block->vectors.clear();
  if (!failed_.ok()) return failed_;
  if (Status st = Fill(block); !st.ok()) {
    failed_ = st;
    block->keys.Clear(block->keys.type);
    block->rows = 0;
    block->vectors.clear();
    return st;
  }
  // One input domain for every format (and for queries, VectorDomainViolation).
  for (size_t i = 0; i < block->rows; ++i) {
    std::span<const float> row(block->vectors.data() + i * dimension_, dimension_);
    std::string violation = VectorDomainViolation(row);
    if (!violation.empty()) {
      failed_ = input_internal::FormatError(path_, input_internal::RowName(block->first_row + i) + ": " + violation);
      block->keys.Clear(block->keys.type);
      block->rows = 0;
      block->vectors.clear();
      return failed_;
    }
  }
  if (block->rows == 0) {
    if (!rows_) rows_ = next_row_;  // JSONL knows its row count once a pass has ended
    return false;
  }
  return true;
}

Status VectorInput::Rewind() {
  failed_ = Status::Ok();
  next_row_ = 0;
  return Restart();
}

std::string VectorDomainViolation(std::span<const float> vector) {
  double squared = 0;
  for (size_t j = 0; j < vector.size(); ++j) {
    float v = vector[j];
    if (!std::isfinite(v)) {
      return "element " + std::to_string(j) + " is " + (std::isnan(v) ? "NaN" : "infinite") +
             "; vectors must be finite";
    }
    squared += static_cast<double>(v) * static_cast<double>(v);
  }
  if (squared > kMaxVectorSquaredNorm) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", squared);
    return std::string("its squared norm ") + text +
           " is above 2^120 (about 1.3e36); vector components must be small enough that distances fit float32";
  }
  return {};
}

Result<std::unique_ptr<VectorInput>> OpenVectorInput(const std::string& path, const InputOptions& options) {
  if (options.block_rows == 0) return InvalidArgument("block_rows must be at least 1");
  if (options.vector_field.empty()) return InvalidArgument("the vector field name is empty");
  if (options.key_field && options.key_field->empty()) return InvalidArgument("the key field name is empty");
  if (options.key_field && *options.key_field == options.vector_field) {
    return InvalidArgument("the key and the vector are the same field \"" + options.vector_field + "\"");
  }
  InputFormat format;
  if (options.format) {
    format = *options.format;
  } else {
    VIGILO_ASSIGN_OR_RETURN(format, DetectInputFormat(path));
  }
  bool named = format == InputFormat::kParquet || format == InputFormat::kJsonl;
  if (!named && options.key_field) {
    return InvalidArgument(std::string(InputFormatName(format)) +
                           " inputs have no named fields, so they cannot have a key field (rows are keyed by "
                           "position)");
  }
  if (path == "-" && format == InputFormat::kParquet) {
    return InvalidArgument("a Parquet input cannot be read from stdin (it is read from its end); give its file");
  }
  switch (format) {
    case InputFormat::kParquet: return input_internal::OpenParquetInput(path, options);
    case InputFormat::kFvecs:
    case InputFormat::kBvecs: return input_internal::OpenVecsInput(path, options, format);
    case InputFormat::kNpy: return input_internal::OpenNpyInput(path, options);
    case InputFormat::kJsonl: return input_internal::OpenJsonlInput(path, options);
  }
  return Internal("unknown input format");
}

namespace input_internal {

Status FormatError(const std::string& path, std::string message) {
  return InvalidFormat(std::move(message)).WithPath(path);
}

Status FormatErrorAt(const std::string& path, uint64_t offset, std::string message) {
  return InvalidFormat(std::move(message)).WithPath(path).WithOffset(offset);
}

Status InFile(const std::string& path, Status status) {
  if (status.ok()) return status;
  if (status.path().empty()) return std::move(status).WithPath(path);
  return std::move(status).PrependPath(path + ": ");
}

Status CheckDimension(const std::string& path, uint64_t dimension, const std::string& where) {
  if (dimension == 0 || dimension > kMaxInputDimension) {
    return FormatError(path, where + ": dimension " + std::to_string(dimension) + " is outside 1…" +
                                 std::to_string(kMaxInputDimension));
  }
  return Status::Ok();
}

Status CheckFinite(const std::string& path, std::span<const float> row, uint64_t row_index) {
  for (size_t j = 0; j < row.size(); ++j) {
    if (!std::isfinite(row[j])) {
      const char* what = std::isnan(row[j]) ? "NaN" : "infinite (or outside the float range)";
      return FormatError(path, "row " + std::to_string(row_index) + ": element " + std::to_string(j) + " is " +
                                   what + "; vectors must be finite");
    }
  }
  return Status::Ok();
}

Status ConvertDoubleRow(const std::string& path, std::span<const double> row, float* out, uint64_t row_index) {
  for (size_t j = 0; j < row.size(); ++j) {
    double v = row[j];
    // Checked before the cast: converting an out-of-range double is undefined.
    if (!std::isfinite(v) || std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max())) {
      const char* what = std::isnan(v) ? "NaN" : "infinite (or outside the float range)";
      return FormatError(path, RowName(row_index) + ": element " + std::to_string(j) + " is " + what +
                                   "; vectors must be finite");
    }
    out[j] = static_cast<float>(v);
  }
  return Status::Ok();
}

std::string RowName(uint64_t row_index) { return "row " + std::to_string(row_index); }

Result<SequentialFile> SequentialFile::Open(const std::string& path) {
  SequentialFile file(path);
  if (path == "-") {
    // stdin cannot be read twice, and every pass after the first rereads the
    // input: it is held in memory.
    auto whole = WholeFile::Open("-", kMaxStdinInputBytes);
    if (!whole.ok()) return InFile("<stdin>", whole.status());
    file.stdin_bytes_ = std::make_shared<const std::string>(whole->bytes());
    file.size_ = file.stdin_bytes_->size();
    VIGILO_RETURN_IF_ERROR(file.Reopen());
    return file;
  }
  VIGILO_RETURN_IF_ERROR(file.Reopen());
  file.size_ = static_cast<const FileByteSource&>(*file.source_).SizeHint();
  return file;
}

Status SequentialFile::Reopen() {
  if (stdin_bytes_) {
    source_ = std::make_unique<StringByteSource>(*stdin_bytes_);
  } else {
    VIGILO_ASSIGN_OR_RETURN(source_, FileByteSource::Open(path_));
  }
  offset_ = 0;
  return Status::Ok();
}

Result<size_t> SequentialFile::ReadUpTo(std::span<char> buf) {
  size_t got = 0;
  while (got < buf.size()) {
    auto n = source_->Read(buf.subspan(got));
    if (!n.ok()) return InFile(path_, n.status()).WithOffset(offset_ + got);
    if (*n == 0) break;
    got += *n;
  }
  offset_ += got;
  return got;
}

}  // namespace input_internal
}  // namespace vigilo::ivf
