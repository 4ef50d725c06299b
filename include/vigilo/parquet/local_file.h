// A thin local-file adapter over the sans-IO reader: reads the tail
// speculatively (64 KiB), re-reads exactly the footer if it is larger, and
// reads column chunks with pread. All parsing and decoding is the sans-IO
// code's; this only moves bytes.
#pragma once

#include <cstdint>
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

}  // namespace vigilo::parquet
