// The builder's per-bucket spill files (private to src/ivf): postings rows
// in input order, one file per root bucket, written through bounded
// per-bucket buffers (a file is opened only to append a full buffer, so any
// number of buckets works within the process's descriptor limit).
//
// Record: u32le cid, the key (long/int/date: i64le; boolean: u8; bytes
// kinds: u32le length + bytes), f32le offset, f32le scale, code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/publication_writer.h"

namespace vigilo::ivf {

class SpillWriter {
 public:
  SpillWriter(std::filesystem::path dir, uint64_t buckets, uint64_t nlist, size_t code_bytes,
              size_t buffer_bytes_per_bucket = 64 * 1024);

  // Row `row` of `keys` (empty keys: `position` as a long).
  Status Append(uint64_t bucket, uint32_t cid, const KeyColumn& keys, size_t row, uint64_t position,
                LvqParams params, const uint8_t* code);
  Status Flush();  // every buffer

  std::filesystem::path BucketPath(uint64_t bucket) const;
  const std::vector<uint64_t>& cid_rows() const { return cid_rows_; }
  const std::vector<uint64_t>& cid_bytes() const { return cid_bytes_; }

 private:
  Status FlushBucket(uint64_t bucket);
  std::filesystem::path dir_;
  size_t code_bytes_;
  size_t buffer_bytes_;
  std::vector<std::string> buffers_;
  std::vector<uint64_t> cid_rows_;   // per CID
  std::vector<uint64_t> cid_bytes_;  // per CID, spilled record bytes
};

// Reads a bucket's records and hands the rows of CIDs in [first, last] to
// `rows` (indexed by cid − first), in input order. Keys are typed as `key_type`.
Status GatherBucketRows(const std::filesystem::path& path, ColumnType key_type, size_t code_bytes, uint32_t first,
                        uint32_t last, std::vector<LeafRows>& rows);

}  // namespace vigilo::ivf
