// Payload lookup in a publication's source table (publication-v1.md §2.6,
// docs/format/ivf-query.md "Payload columns"), sans-IO like QueryRun:
//
//   auto lookup = SourceLookup::Start(reader, keys, {"label", "text"});
//   while (!(*lookup)->done()) { …fetch (*lookup)->requests()…; (*lookup)->Supply(bytes); }
//   (*lookup)->result().Value(i, c)   // canonical JSON of column c for keys[i]
//
// A key is a row position (the v1 source key is dense from 0): the file by
// binary search on row-begin, the row group as (p − row-begin) /
// row-group-rows, from the manifest alone; then the file's footer (one
// speculative tail read, cached in the PublicationReader) and only the
// requested columns' chunks of those row groups, plus the key column's,
// whose value at the row must equal the key (nothing is trusted unchecked).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/query_core.h"

namespace vigilo::ivf {

struct SourceRows {
  std::vector<std::string> columns;  // as requested
  std::vector<std::string> values;   // keys × columns canonical JSON texts, row-major
  uint64_t bytes_fetched = 0;
  uint64_t requests = 0;
  const std::string& Value(size_t key, size_t column) const { return values[key * columns.size() + column]; }
};

class SourceLookup {
 public:
  // InvalidArgument without a source table; NotFound for a column the
  // source does not have (the message lists them); OutOfRange for a key
  // outside [0, source.rows).
  static Result<std::unique_ptr<SourceLookup>> Start(PublicationReader& reader, std::vector<int64_t> keys,
                                                     std::vector<std::string> columns,
                                                     uint64_t footer_tail_bytes = 64 * 1024);
  bool done() const { return stage_ == Stage::kDone; }
  const std::vector<ObjectRange>& requests() const { return requests_; }
  // The bytes of every request, in order. Errors (a short read, a footer or
  // schema that does not match the manifest, a key that is not its row's
  // position) leave the lookup failed. The views need to live only for the
  // call (nothing is kept).
  Status Supply(std::span<const std::span<const uint8_t>> responses);
  Status Supply(std::vector<std::vector<uint8_t>> responses);
  const SourceRows& result() const { return result_; }

 private:
  enum class Stage { kFooters, kChunks, kDone };
  struct Wanted {  // one key: where its row is
    size_t file;
    size_t row_group;
    uint64_t row;  // within the row group
  };
  struct Chunk {  // one column chunk inside a (coalesced) request
    size_t file, row_group, leaf;
    uint64_t offset, length;  // in the file
  };
  SourceLookup(PublicationReader& reader, std::vector<int64_t> keys, std::vector<std::string> columns,
               uint64_t footer_tail_bytes);
  Status PlanFooters();
  Status PlanChunks();
  Status CheckFooter(size_t file) const;
  Status Extract(std::span<const std::span<const uint8_t>> responses);

  PublicationReader& reader_;
  std::vector<int64_t> keys_;
  std::vector<size_t> leaves_;  // per requested column: its leaf (= source column index)
  size_t key_leaf_ = 0;
  uint64_t footer_tail_bytes_;
  std::vector<Wanted> wanted_;  // per key
  Stage stage_ = Stage::kFooters;
  std::vector<ObjectRange> requests_;
  std::vector<size_t> footer_files_;
  std::vector<std::vector<Chunk>> chunks_;  // per request
  SourceRows result_;
  bool failed_ = false;
};

}  // namespace vigilo::ivf
