// A probed postings row group's columns, read from the bytes a query
// fetched (private to the read core; QueryScoring uses it). Offsets,
// scales and codes are read in place when the chunks are uncompressed PLAIN
// (the first such read records where the values lie in the PostingsGroup, so
// later queries skip the page headers: docs/format/ivf-query.md step 6), else
// decoded, which names any error; keys are read only when a row of the group
// enters a top-k.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "publication_reader_state.h"
#include "vigilo/ivf/types.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/column_view.h"

namespace vigilo::ivf {

class PostingsGroupColumns {
 public:
  // Where the row group is, for errors and for the chunks' bytes: `bytes`
  // is the fetched range that starts at file offset `bytes_offset` and
  // holds the group's chunks.
  struct Source {
    PostingsGroup* group = nullptr;
    const std::vector<parquet::ColumnDescriptor>* leaves = nullptr;  // key, offset, scale, code
    std::span<const uint8_t> bytes;
    uint64_t bytes_offset = 0;
    const std::string* path = nullptr;
    size_t row_group = 0;
    uint64_t first_row = 0;  // the group's first row within the file
  };

  // One reader for every row group of a query batch: its buffers are reused.
  PostingsGroupColumns(ColumnType::Kind key_kind, size_t code_bytes) : key_kind_(key_kind), code_bytes_(code_bytes) {}

  // Reads the group's offsets and scales (into the reader's buffers) and
  // its codes (as runs into the fetched bytes or the decoded copy).
  // Returns whether they were read in place.
  Result<bool> Read(const Source& source);

  size_t rows() const { return rows_; }
  const std::vector<float>& offsets() const { return offsets_; }
  const std::vector<float>& scales() const { return scales_; }
  const std::vector<parquet::ValueRun>& code_runs() const { return code_runs_; }

  // Before any score of the group is used: the in-place codes' lengths are
  // checked once (they were deferred so the check reads cached bytes), and
  // the layout is recorded for later queries. An error names the row.
  Status ConfirmCodes();

  // The key of row i as a hit carries it (i64 little-endian for int, date
  // and long keys; one byte for booleans; the bytes otherwise), the group's
  // key chunk read on the first call.
  Result<std::string> Key(size_t i);

 private:
  std::span<const uint8_t> Chunk(size_t leaf) const;
  bool View(size_t leaf, size_t width, std::vector<parquet::ValueRun>& runs) const;
  void Recorded(size_t leaf, std::vector<parquet::ValueRun>& runs) const;
  void Record(size_t leaf, const std::vector<parquet::ValueRun>& runs) const;
  Status Decode(size_t leaf);
  Status DecodeCodes();
  Status ReadKeys();
  Status DifferInLength() const;

  const ColumnType::Kind key_kind_;
  const size_t code_bytes_;
  Source source_;
  size_t rows_ = 0;
  bool lengths_unchecked_ = false, keys_ready_ = false;
  parquet::DecodedColumn cols_[4];  // key, offset, scale, code: when decoded
  std::vector<float> offsets_, scales_;
  std::vector<parquet::ValueRun> offset_runs_, scale_runs_, code_runs_, key_runs_;
};

}  // namespace vigilo::ivf
