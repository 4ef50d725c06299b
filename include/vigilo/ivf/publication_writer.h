// Writes a publication's objects (publication-v1.md §3) through the
// ObjectStore seam (keys = manifest paths): centroids, postings files laid
// out by bucket with one CID per row group, and the manifest last. Every
// object is streamed through a DigestingWriter into a create recorded in the
// caller's store::OwnedWrites, so its size and SHA-256 come from the bytes
// written, a failed build can remove exactly what it created, and an
// existing key is never overwritten (identical bytes are a verified replay,
// other bytes AlreadyExists).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/parquet/metadata.h"
#include "vigilo/parquet/writer.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {

struct PostingsLayout {
  uint64_t max_row_group_rows = 65536;  // a larger CID is split over row groups
  uint64_t max_file_bytes = 64u << 20;  // a file is closed before it would exceed this
  // A file holds at most this many row groups, so that its footer (about
  // 400–700 bytes a row group) fits the reader's speculative 64 KiB tail
  // read and a cold query needs no second footer round trip.
  uint64_t max_row_groups_per_file = 64;
  parquet::CompressionCodec codec = parquet::CompressionCodec::kUncompressed;
  uint32_t page_bytes = 1u << 20;  // a data page ends once its values reach this (tests force many pages)
};

// The postings rows of one leaf CID, column-wise.
struct LeafRows {
  KeyColumn keys;                 // one key per row, of the index's key type
  std::vector<LvqParams> params;  // one per row
  std::vector<uint8_t> codes;     // rows × CodeBytes(encoding, dimension)
  size_t rows() const { return params.size(); }
};

// The Parquet column for a manifest field (publication-v1.md §3.1).
Result<parquet::ColumnSpec> ParquetColumnFor(const Field& field, bool optional);

// centroids.parquet: one row per leaf (cid = row), one row group per root;
// `centroids` are the LVQ8 rows of the nlist leaf centroids.
Result<ObjectDescriptor> WriteCentroids(store::OwnedWrites& writes, const std::vector<uint64_t>& cid_offsets,
                                        const LvqRows& centroids, uint64_t dimension,
                                        parquet::CompressionCodec codec);

class PostingsWriter {
 public:
  // The index must name exactly one source-key field (the builder's key).
  // `writes` must outlive the writer.
  static Result<std::unique_ptr<PostingsWriter>> Open(store::OwnedWrites& writes, const IndexSpec& index,
                                                      std::vector<uint64_t> cid_offsets, PostingsLayout layout);
  ~PostingsWriter();

  // Leaves in strictly ascending CID order, each with ≥ 1 row.
  Status AddLeaf(uint32_t cid, const LeafRows& rows);
  // Closes the last file; the descriptors in manifest order.
  Result<std::vector<PostingsFile>> Finish();

 private:
  struct OpenFile;
  PostingsWriter(store::OwnedWrites& writes, IndexSpec index, std::vector<uint64_t> cid_offsets,
                 PostingsLayout layout, std::vector<parquet::ColumnSpec> columns);
  Status OpenNext(uint64_t bucket);
  Status CloseFile();
  Status WriteRowGroup(uint32_t cid, const LeafRows& rows, size_t begin, size_t end);

  store::OwnedWrites& writes_;
  IndexSpec index_;
  std::vector<uint64_t> cid_offsets_;
  PostingsLayout layout_;
  std::vector<parquet::ColumnSpec> columns_;
  size_t code_bytes_;
  std::unique_ptr<OpenFile> file_;
  uint64_t next_part_ = 0;  // in the current bucket
  uint64_t bucket_ = 0;
  int64_t last_cid_ = -1;
  std::vector<PostingsFile> done_;
};

// The key of a publication's manifest in its store.
inline constexpr std::string_view kManifestKey = "manifest.json";

// Completes the manifest in memory: derives artifact-uuid from its content
// (publication-v1.md §2.2) and validates it. Nothing is written.
Result<Manifest> SealManifest(Manifest manifest);

// SealManifest, then creates manifest.json (create-if-absent: identical
// bytes are a replay, other bytes AlreadyExists).
Result<Manifest> PublishManifest(store::OwnedWrites& writes, Manifest manifest);

}  // namespace vigilo::ivf
