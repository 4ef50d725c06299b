// .fvecs and .bvecs: each record is an int32 little-endian dimension d, then
// d float32 (fvecs) or d uint8 (bvecs) values. Every record must repeat the
// first one's d, so the file size is a multiple of the record size and the
// row count is known at open.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "input_internal.h"

namespace vigilo::ivf::input_internal {
namespace {

static_assert(std::endian::native == std::endian::little, "the readers reinterpret little-endian bytes");

int32_t LoadInt32(const char* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

class VecsInput final : public VectorInput {
 public:
  VecsInput(const std::string& path, SequentialFile file, const InputOptions& options, InputFormat format,
            uint32_t dimension, uint64_t rows)
      : file_(std::move(file)), block_rows_(options.block_rows) {
    path_ = path;
    format_ = format;
    vector_field_ = options.vector_field;
    dimension_ = dimension;
    rows_ = rows;
    element_bytes_ = format == InputFormat::kFvecs ? 4 : 1;
    record_bytes_ = 4 + uint64_t{dimension} * element_bytes_;
  }

  Status Fill(InputBlock* block) override {
    uint64_t want = std::min<uint64_t>(block_rows_, *rows_ - next_row_);
    return want == 0 ? Status::Ok() : ReadRows(want, block);
  }

  Status Restart() override { return file_.Reopen(); }

 private:
  Status ReadRows(uint64_t want, InputBlock* block) {
    raw_.resize(want * record_bytes_);
    uint64_t start = file_.offset();
    VIGILO_ASSIGN_OR_RETURN(size_t got, file_.ReadUpTo(raw_));
    if (got < raw_.size()) {
      uint64_t row = next_row_ + got / record_bytes_;
      return FormatErrorAt(path_, start + (got / record_bytes_) * record_bytes_,
                           "row " + std::to_string(row) + ": truncated record (the file ended early)");
    }
    block->vectors.resize(want * dimension_);
    float* out = block->vectors.data();
    for (uint64_t r = 0; r < want; ++r) {
      const char* rec = raw_.data() + r * record_bytes_;
      uint64_t row = next_row_ + r;
      int32_t d = LoadInt32(rec);
      if (d < 0 || static_cast<uint32_t>(d) != dimension_) {
        return FormatErrorAt(path_, start + r * record_bytes_,
                             "row " + std::to_string(row) + ": dimension " + std::to_string(d) +
                                 " differs from the first row's " + std::to_string(dimension_));
      }
      float* dst = out + r * dimension_;
      if (element_bytes_ == 4) {
        std::memcpy(dst, rec + 4, size_t{dimension_} * 4);
        VIGILO_RETURN_IF_ERROR(CheckFinite(path_, {dst, dimension_}, row));
      } else {
        const auto* bytes = reinterpret_cast<const uint8_t*>(rec + 4);
        for (uint32_t j = 0; j < dimension_; ++j) dst[j] = static_cast<float>(bytes[j]);
      }
    }
    block->rows = want;
    next_row_ += want;
    return Status::Ok();
  }

  SequentialFile file_;
  size_t block_rows_;
  uint64_t element_bytes_ = 4;
  uint64_t record_bytes_ = 0;
  std::vector<char> raw_;
};

}  // namespace

Result<std::unique_ptr<VectorInput>> OpenVecsInput(const std::string& path, const InputOptions& options,
                                                   InputFormat format) {
  VIGILO_ASSIGN_OR_RETURN(SequentialFile file, SequentialFile::Open(path));
  char head[4];
  VIGILO_ASSIGN_OR_RETURN(size_t got, file.ReadUpTo(head));
  if (got == 0) return FormatError(path, "the file holds no vectors");
  if (got < 4) return FormatErrorAt(path, 0, "row 0: truncated record (the file ended inside the dimension)");
  int32_t d = LoadInt32(head);
  if (d <= 0) return FormatErrorAt(path, 0, "row 0: dimension " + std::to_string(d) + " is outside 1…65536");
  Status dim = CheckDimension(path, static_cast<uint64_t>(d), "row 0");
  if (!dim.ok()) return std::move(dim).WithOffset(0);
  uint64_t record = 4 + static_cast<uint64_t>(d) * (format == InputFormat::kFvecs ? 4 : 1);
  uint64_t size = file.size();
  if (size == 0) return FormatError(path, "not a regular file: the row count must be known from its size");
  uint64_t rows = size / record;
  if (size % record != 0) {
    return FormatErrorAt(path, rows * record,
                         "row " + std::to_string(rows) + ": truncated record: the file size " + std::to_string(size) +
                             " is not a multiple of the record size " + std::to_string(record) +
                             " (4 + d values, d = " + std::to_string(d) +
                             " from row 0); a record is cut short or rows differ in dimension");
  }
  VIGILO_RETURN_IF_ERROR(file.Reopen());
  return std::unique_ptr<VectorInput>(
      std::make_unique<VecsInput>(path, std::move(file), options, format, static_cast<uint32_t>(d), rows));
}

}  // namespace vigilo::ivf::input_internal
