// Streaming inputs of `vigilo index build`: vectors (and optionally one key
// column) read in blocks, any number of passes, in O(block) memory.
//
//   auto input = OpenVectorInput("base.parquet", {.vector_field = "emb", .key_field = "id"});
//   InputBlock block;
//   while (true) {
//     VIGILO_ASSIGN_OR_RETURN(bool more, (*input)->Next(&block));
//     if (!more) break;
//     ... block.vectors (block.rows × dimension, row-major), block.keys ...
//   }
//   VIGILO_RETURN_IF_ERROR((*input)->Rewind());  // the next pass
//
// Formats (docs/format/ivf-inputs.md): Parquet, .fvecs, .bvecs, .npy and
// JSON Lines. Every value handed out is a finite float; a null, non-finite,
// wrongly sized or otherwise malformed row is an error naming the file and
// the row (and the byte offset where the format has one), never skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/key_column.h"
#include "vigilo/ivf/types.h"

namespace vigilo::ivf {

enum class InputFormat : uint8_t { kParquet, kFvecs, kBvecs, kNpy, kJsonl };

// "parquet" | "fvecs" | "bvecs" | "npy" | "jsonl".
std::string_view InputFormatName(InputFormat format);
// The exact spellings above; InvalidArgument otherwise.
Result<InputFormat> ParseInputFormat(std::string_view text);
// From the file name's extension (.parquet, .fvecs, .bvecs, .npy, .jsonl);
// InvalidArgument for any other.
Result<InputFormat> DetectInputFormat(std::string_view path);

// Dimensions outside [1, kMaxInputDimension] are InvalidFormat.
inline constexpr uint32_t kMaxInputDimension = 65536;
// A longer JSON line is LimitExceeded (65,536 numbers fit with room to spare).
inline constexpr size_t kMaxJsonLineBytes = size_t{64} << 20;
// An input read from stdin ("-") is held in memory; a longer one is LimitExceeded.
inline constexpr size_t kMaxStdinInputBytes = size_t{1} << 30;

struct InputOptions {
  // The vector column (Parquet) or member (JSONL). For formats without names
  // (.fvecs/.bvecs/.npy) it only names the field the builder records.
  std::string vector_field = "vector";
  // Parquet/JSONL: ignore vector_field and use the one column (member of the
  // first row) that holds a list of numbers; InvalidFormat listing the
  // candidates when there is not exactly one. JSONL lines that are bare
  // arrays keep vector_field as the recorded name.
  bool detect_vector_field = false;
  // The key column; absent means row positions are the keys (the builder
  // records them as a dense `long` named `_row`). A key for a format without
  // names is InvalidArgument.
  std::optional<std::string> key_field = std::nullopt;
  // Rows per block, ≥ 1. Every block but the last holds exactly this many.
  size_t block_rows = 4096;
  // Overrides the extension.
  std::optional<InputFormat> format = std::nullopt;
};

// The input domain of vectors, shared by `index build` (every input row) and
// `index query` (every query vector): every component finite and the squared
// L2 norm, summed in double, at most 2^120. With both norms within it, any
// squared distance or inner product stays below 2^122, far inside float32
// (max ≈ 2^128), so no distance the index computes can overflow.
inline constexpr double kMaxVectorSquaredNorm = 0x1p120;
// Empty when `vector` is inside the domain, else what is wrong with it
// ("element 3 is NaN", "its squared norm 1e+40 is above 2^120 …").
std::string VectorDomainViolation(std::span<const float> vector);

// The key column's name and manifest type (a key type: boolean … fixed(L)).
struct KeyField {
  std::string name;
  ColumnType type;
};

struct InputBlock {
  uint64_t first_row = 0;      // position of the block's first row in the input
  size_t rows = 0;             // 1 … block_rows
  std::vector<float> vectors;  // rows × dimension, row-major
  KeyColumn keys;              // rows keys, or empty without a key field
};

class VectorInput {
 public:
  virtual ~VectorInput() = default;
  VectorInput(const VectorInput&) = delete;
  VectorInput& operator=(const VectorInput&) = delete;

  const std::string& path() const { return path_; }
  InputFormat format() const { return format_; }
  const std::string& vector_field() const { return vector_field_; }
  uint32_t dimension() const { return dimension_; }
  // Known up front for every format but JSONL, which knows it once a pass
  // has reached the end (Next returned false).
  std::optional<uint64_t> rows() const { return rows_; }
  const std::optional<KeyField>& key_field() const { return key_field_; }

  // Fills `block` with the next rows (reusing its buffers); false, with the
  // block emptied, after the last row. After an error the input stays failed
  // until Rewind.
  Result<bool> Next(InputBlock* block);
  // Starts a new pass from the first row.
  Status Rewind();

 protected:
  VectorInput() = default;

  std::string path_;
  InputFormat format_ = InputFormat::kParquet;
  std::string vector_field_;
  uint32_t dimension_ = 0;
  std::optional<uint64_t> rows_;
  std::optional<KeyField> key_field_;
  uint64_t next_row_ = 0;  // position of the next row a pass hands out

  // Each format's part of Next: appends the next rows (at most the block
  // size) to the emptied block and advances next_row_; no rows means the pass
  // has ended. Next latches its errors and clears the block around it.
  virtual Status Fill(InputBlock* block) = 0;
  // Each format's part of Rewind: back to the first row (next_row_ is 0).
  virtual Status Restart() = 0;

 private:
  Status failed_;  // the error that ended this pass, until Rewind
};

// Opens `path` ("-" is stdin, read into memory up to kMaxStdinInputBytes;
// not for Parquet, which is read from its end) and reads enough to know the dimension and the key type (the
// first row; for .npy the header, for Parquet the footer and the first row
// group). The file must hold at least one vector. Errors: NotFound/IoError
// for the file, InvalidArgument for options, ParseError/InvalidFormat for
// contents (see docs/format/ivf-inputs.md).
Result<std::unique_ptr<VectorInput>> OpenVectorInput(const std::string& path, const InputOptions& options);

}  // namespace vigilo::ivf
