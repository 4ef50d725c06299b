// .npy (NumPy format 1.0, 2.0, 3.0): magic "\x93NUMPY", version, header
// length (u16 in 1.0, u32 after), a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (n, d), } and then the
// n × d values in C order. Only 2-D C-order '<f4', '<f8' and '|u1' arrays are
// vectors; everything else is a clear error.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "input_internal.h"

namespace vigilo::ivf::input_internal {
namespace {

static_assert(std::endian::native == std::endian::little, "the readers reinterpret little-endian bytes");

constexpr char kNpyMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
constexpr uint32_t kMaxHeaderBytes = 1u << 20;

enum class Dtype : uint8_t { kF4, kF8, kU1 };

struct NpyHeader {
  Dtype dtype = Dtype::kF4;
  uint64_t rows = 0;
  uint64_t dimension = 0;
  uint64_t data_offset = 0;
};

// A cursor over the header's dict literal; errors point at the byte.
class DictParser {
 public:
  DictParser(const std::string& path, std::string_view text, uint64_t base) : path_(path), text_(text), base_(base) {}

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status Expect(char c) {
    if (Consume(c)) return Status::Ok();
    return Error(std::string("expected '") + c + "'");
  }
  Result<std::string> String() {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return Error("expected a string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return Error("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    if (s.find('\\') != std::string::npos) return Error("escapes in header strings are not supported");
    pos_ = end + 1;
    return s;
  }
  Result<bool> Bool() {
    SkipSpace();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      size_t n = std::strlen(word);
      if (text_.substr(pos_, n) == word) {
        pos_ += n;
        return value;
      }
    }
    return Error("expected True or False");
  }
  Result<uint64_t> Integer() {
    SkipSpace();
    size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (v > (UINT64_MAX - 9) / 10) return Error("shape value too large");
      v = v * 10 + static_cast<uint64_t>(text_[pos_++] - '0');
    }
    if (pos_ == start) return Error("expected a non-negative integer");
    return v;
  }
  Result<std::vector<uint64_t>> Tuple() {
    VIGILO_RETURN_IF_ERROR(Expect('('));
    std::vector<uint64_t> items;
    while (!Consume(')')) {
      if (items.size() >= 32) return Error("shape has too many dimensions");
      VIGILO_ASSIGN_OR_RETURN(uint64_t v, Integer());
      items.push_back(v);
      if (!Consume(',')) {
        VIGILO_RETURN_IF_ERROR(Expect(')'));
        break;
      }
    }
    return items;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  Status Error(std::string what) const {
    return ParseError("npy header: " + what).WithPath(path_).WithOffset(base_ + pos_);
  }

 private:
  const std::string& path_;
  std::string_view text_;
  uint64_t base_;
  size_t pos_ = 0;
};

Result<Dtype> ParseDtype(const std::string& path, const std::string& descr) {
  if (descr == "<f4") return Dtype::kF4;
  if (descr == "<f8") return Dtype::kF8;
  if (descr == "|u1" || descr == "<u1") return Dtype::kU1;
  return FormatError(path, "npy dtype '" + descr + "' is not a vector type (accepted: '<f4', '<f8', '|u1')");
}

uint64_t DtypeBytes(Dtype d) { return d == Dtype::kF8 ? 8 : d == Dtype::kF4 ? 4 : 1; }

}  // namespace

Result<NpyArrayHeader> ReadNpyArrayHeader(const std::string& path, SequentialFile& file) {
  char prefix[12];
  VIGILO_ASSIGN_OR_RETURN(size_t got, file.ReadUpTo({prefix, 10}));
  if (got < 10 || std::memcmp(prefix, kNpyMagic, 6) != 0) {
    return ParseError("not an npy file (no \\x93NUMPY magic)").WithPath(path).WithOffset(0);
  }
  auto major = static_cast<uint8_t>(prefix[6]);
  auto minor = static_cast<uint8_t>(prefix[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return FormatErrorAt(path, 6, "npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                                      " is not 1.0, 2.0 or 3.0");
  }
  uint64_t header_len;
  uint64_t header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(prefix[8]) | (uint64_t{static_cast<uint8_t>(prefix[9])} << 8);
    header_start = 10;
  } else {
    VIGILO_ASSIGN_OR_RETURN(size_t more, file.ReadUpTo({prefix + 10, 2}));
    if (more < 2) return ParseError("npy header truncated").WithPath(path).WithOffset(10);
    uint32_t len;
    std::memcpy(&len, prefix + 8, 4);
    header_len = len;
    header_start = 12;
  }
  if (header_len > kMaxHeaderBytes) {
    return LimitExceeded("npy header of " + std::to_string(header_len) + " bytes exceeds " +
                         std::to_string(kMaxHeaderBytes))
        .WithPath(path)
        .WithOffset(8);
  }
  std::string text(header_len, '\0');
  VIGILO_ASSIGN_OR_RETURN(size_t header_got, file.ReadUpTo(text));
  if (header_got < header_len) {
    return ParseError("npy header truncated").WithPath(path).WithOffset(header_start + header_got);
  }

  DictParser p(path, text, header_start);
  VIGILO_RETURN_IF_ERROR(p.Expect('{'));
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<uint64_t>> shape;
  while (!p.Consume('}')) {
    VIGILO_ASSIGN_OR_RETURN(std::string key, p.String());
    VIGILO_RETURN_IF_ERROR(p.Expect(':'));
    if (key == "descr" && !descr) {
      VIGILO_ASSIGN_OR_RETURN(descr, p.String());
    } else if (key == "fortran_order" && !fortran) {
      VIGILO_ASSIGN_OR_RETURN(fortran, p.Bool());
    } else if (key == "shape" && !shape) {
      VIGILO_ASSIGN_OR_RETURN(shape, p.Tuple());
    } else {
      return p.Error("unexpected or repeated key '" + key + "'");
    }
    if (!p.Consume(',')) {
      VIGILO_RETURN_IF_ERROR(p.Expect('}'));
      break;
    }
  }
  if (!p.AtEnd()) return p.Error("bytes after the header dict");
  if (!descr || !fortran || !shape) return p.Error("the header needs 'descr', 'fortran_order' and 'shape'");

  if (*fortran) {
    return FormatError(path, "npy array is in Fortran (column-major) order; rows must be contiguous: save it in C "
                             "order (numpy.ascontiguousarray)");
  }
  if (shape->size() != 2) {
    return FormatError(path, "npy array has " + std::to_string(shape->size()) +
                                 " dimensions; a 2-D array (rows, columns) is required");
  }
  return NpyArrayHeader{*descr, (*shape)[0], (*shape)[1], header_start + header_len};
}

namespace {

Result<NpyHeader> ReadNpyHeader(const std::string& path, SequentialFile& file) {
  VIGILO_ASSIGN_OR_RETURN(NpyArrayHeader array, ReadNpyArrayHeader(path, file));
  NpyHeader h;
  VIGILO_ASSIGN_OR_RETURN(h.dtype, ParseDtype(path, array.descr));
  h.rows = array.rows;
  h.dimension = array.columns;
  VIGILO_RETURN_IF_ERROR(CheckDimension(path, h.dimension, "npy shape"));
  if (h.rows == 0) return FormatError(path, "the file holds no vectors (shape has 0 rows)");
  h.data_offset = array.data_offset;
  return h;
}

class NpyInput final : public VectorInput {
 public:
  NpyInput(const std::string& path, SequentialFile file, const InputOptions& options, const NpyHeader& header)
      : file_(std::move(file)), header_(header), block_rows_(options.block_rows) {
    path_ = path;
    format_ = InputFormat::kNpy;
    vector_field_ = options.vector_field;
    dimension_ = static_cast<uint32_t>(header.dimension);
    rows_ = header.rows;
    row_bytes_ = header.dimension * DtypeBytes(header.dtype);
  }

  Status Fill(InputBlock* block) override {
    if (next_row_ == 0 && file_.offset() != header_.data_offset) VIGILO_RETURN_IF_ERROR(SkipHeader());
    uint64_t want = std::min<uint64_t>(block_rows_, header_.rows - next_row_);
    return want == 0 ? Status::Ok() : ReadRows(want, block);
  }

  Status Restart() override {
    VIGILO_RETURN_IF_ERROR(file_.Reopen());
    return SkipHeader();
  }

 private:
  Status SkipHeader() {
    std::vector<char> skip(header_.data_offset - file_.offset());
    VIGILO_ASSIGN_OR_RETURN(size_t got, file_.ReadUpTo(skip));
    if (got != skip.size()) return ParseError("npy header truncated").WithPath(path_).WithOffset(file_.offset());
    return Status::Ok();
  }

  Status ReadRows(uint64_t want, InputBlock* block) {
    raw_.resize(want * row_bytes_);
    uint64_t start = file_.offset();
    VIGILO_ASSIGN_OR_RETURN(size_t got, file_.ReadUpTo(raw_));
    if (got < raw_.size()) {
      uint64_t complete = got / row_bytes_;
      return FormatErrorAt(path_, start + complete * row_bytes_,
                           RowName(next_row_ + complete) + ": truncated: the file ends before the " +
                               std::to_string(header_.rows) + " rows its shape declares");
    }
    if (next_row_ + want == header_.rows) {
      char extra;
      VIGILO_ASSIGN_OR_RETURN(size_t more, file_.ReadUpTo({&extra, 1}));
      if (more != 0) {
        return FormatErrorAt(path_, start + raw_.size(), "bytes after the " + std::to_string(header_.rows) +
                                                             " rows the npy shape declares");
      }
    }
    block->vectors.resize(want * dimension_);
    float* out = block->vectors.data();
    for (uint64_t r = 0; r < want; ++r) {
      const char* src = raw_.data() + r * row_bytes_;
      float* dst = out + r * dimension_;
      uint64_t row = next_row_ + r;
      switch (header_.dtype) {
        case Dtype::kF4:
          std::memcpy(dst, src, row_bytes_);
          VIGILO_RETURN_IF_ERROR(CheckFinite(path_, {dst, dimension_}, row));
          break;
        case Dtype::kF8:
          doubles_.resize(dimension_);
          std::memcpy(doubles_.data(), src, row_bytes_);
          VIGILO_RETURN_IF_ERROR(ConvertDoubleRow(path_, doubles_, dst, row));
          break;
        case Dtype::kU1:
          for (uint32_t j = 0; j < dimension_; ++j) dst[j] = static_cast<float>(static_cast<uint8_t>(src[j]));
          break;
      }
    }
    block->rows = want;
    next_row_ += want;
    return Status::Ok();
  }

  SequentialFile file_;
  NpyHeader header_;
  size_t block_rows_;
  uint64_t row_bytes_ = 0;
  std::vector<char> raw_;
  std::vector<double> doubles_;
};

}  // namespace

Result<std::unique_ptr<VectorInput>> OpenNpyInput(const std::string& path, const InputOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(SequentialFile file, SequentialFile::Open(path));
  VIGILO_ASSIGN_OR_RETURN(NpyHeader header, ReadNpyHeader(path, file));
  // The size check up front turns a short file into an error at open, not
  // in the middle of a build's first pass.
  uint64_t row_bytes = header.dimension * DtypeBytes(header.dtype);
  if (file.size() != 0) {
    uint64_t data = file.size() - std::min(file.size(), header.data_offset);
    if (header.rows > data / row_bytes) {
      uint64_t complete = data / row_bytes;
      return FormatErrorAt(path, header.data_offset + complete * row_bytes,
                           RowName(complete) + ": truncated: the file ends before the " +
                               std::to_string(header.rows) + " rows its shape declares");
    }
    if (data != header.rows * row_bytes) {
      return FormatErrorAt(path, header.data_offset + header.rows * row_bytes,
                           "bytes after the " + std::to_string(header.rows) + " rows the npy shape declares");
    }
  }
  return std::unique_ptr<VectorInput>(std::make_unique<NpyInput>(path, std::move(file), options, header));
}

}  // namespace vigilo::ivf::input_internal
