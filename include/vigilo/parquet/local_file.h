// A thin local-file adapter over the sans-IO reader: reads the tail
// speculatively (64 KiB), re-reads exactly the footer if it is larger, and
// reads column chunks with pread (or maps the file: MappedFile). All parsing
// and decoding is the sans-IO code's; this only moves bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::parquet {

inline constexpr uint64_t kSpeculativeTailBytes = 64 << 10;

class LocalParquetFile {
 public:
  // kNotFound / kIoError for the file; footer errors as ParseFooter.
  static Result<LocalParquetFile> Open(const std::string& path, const FooterOptions& options = {});

  LocalParquetFile(LocalParquetFile&& other) noexcept;
  LocalParquetFile& operator=(LocalParquetFile&& other) noexcept;
  LocalParquetFile(const LocalParquetFile&) = delete;
  LocalParquetFile& operator=(const LocalParquetFile&) = delete;
  ~LocalParquetFile();

  const Footer& footer() const { return footer_; }
  uint64_t size() const { return size_; }
  // How many reads Open made (1 when the footer fits the speculative tail).
  int footer_reads() const { return footer_reads_; }

  // Exactly the bytes of `range` (kOutOfRange if it leaves the file).
  Result<std::vector<uint8_t>> Read(ByteRange range) const;
  // As Read, into a caller's buffer reused from chunk to chunk: it grows to
  // the largest range read so far and never shrinks (so only growth is ever
  // zero-filled); the result is the range's bytes at its start, valid until
  // the buffer is next changed.
  Result<std::span<const uint8_t>> ReadInto(ByteRange range, std::vector<uint8_t>& buffer) const;

  // Reads and decodes one leaf's chunk of a row group.
  Result<DecodedColumn> ReadColumnChunk(size_t row_group, size_t leaf, const ColumnReadOptions& options = {}) const;

 private:
  LocalParquetFile() = default;

  int fd_ = -1;
  uint64_t size_ = 0;
  int footer_reads_ = 0;
  Footer footer_;
  std::string path_;
};

// A read-only memory mapping of a whole local file: column chunks can be
// handed to DecodeColumnChunk straight from the page cache, without the copy
// (and the first-touch faults of a fresh buffer) that Read costs. The bytes
// stay valid while the object lives. The file must not be truncated while
// it is mapped (touching a vanished page is SIGBUS), so this suits immutable
// files such as published snapshots; Read is the safe default.
class MappedFile {
 public:
  // kNotFound / kIoError; an empty file maps to an empty span.
  static Result<MappedFile> Open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // The bytes of `range` (kOutOfRange if it leaves the file).
  Result<std::span<const uint8_t>> Slice(ByteRange range) const;

 private:
  MappedFile() = default;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace vigilo::parquet
