#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "vigilo/common/file.h"
#include "vigilo/parquet/local_file.h"

namespace vigilo::parquet {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path) { return vigilo::ErrnoStatus(errno, what, path); }

Status PreadAll(int fd, uint8_t* dst, size_t n, uint64_t offset, const std::string& path) {
  while (n > 0) {
    ssize_t got = ::pread(fd, dst, n, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot read", path);
    }
    if (got == 0) return IoError("unexpected end of file reading " + path);
    dst += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return Status::Ok();
}

}  // namespace

Result<LocalParquetFile> LocalParquetFile::Open(const std::string& path, const FooterOptions& options) {
  LocalParquetFile f;
  f.path_ = path;
  VIGILO_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path));
  f.fd_ = file.fd.release();
  f.size_ = file.size;
  uint64_t want = std::min(f.size_, kSpeculativeTailBytes);
  for (int attempt = 0; attempt < 2; ++attempt) {
    VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> tail, f.Read(ByteRange{f.size_ - want, want}));
    ++f.footer_reads_;
    VIGILO_ASSIGN_OR_RETURN(FooterParse parsed, ParseFooter(tail, f.size_, options));
    if (auto* footer = std::get_if<Footer>(&parsed)) {
      f.footer_ = std::move(*footer);
      return f;
    }
    want = std::get<NeedMoreBytes>(parsed).tail_bytes;
    if (want > f.size_) return Internal("footer parser asked for more bytes than the file has");
  }
  return Internal("footer parser asked for more bytes twice");
}

LocalParquetFile::LocalParquetFile(LocalParquetFile&& other) noexcept
    : fd_(other.fd_), size_(other.size_), footer_reads_(other.footer_reads_), footer_(std::move(other.footer_)),
      path_(std::move(other.path_)) {
  other.fd_ = -1;
}

LocalParquetFile& LocalParquetFile::operator=(LocalParquetFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    footer_reads_ = other.footer_reads_;
    footer_ = std::move(other.footer_);
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

LocalParquetFile::~LocalParquetFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::vector<uint8_t>> LocalParquetFile::Read(ByteRange range) const {
  if (range.offset > size_ || range.length > size_ - range.offset) {
    return OutOfRange("byte range [" + std::to_string(range.offset) + ", +" + std::to_string(range.length) +
                      ") leaves the " + std::to_string(size_) + "-byte file");
  }
  std::vector<uint8_t> out(static_cast<size_t>(range.length));
  VIGILO_RETURN_IF_ERROR(PreadAll(fd_, out.data(), out.size(), range.offset, path_));
  return out;
}

Result<std::span<const uint8_t>> LocalParquetFile::ReadInto(ByteRange range, std::vector<uint8_t>& buffer) const {
  if (range.offset > size_ || range.length > size_ - range.offset) {
    return OutOfRange("byte range [" + std::to_string(range.offset) + ", +" + std::to_string(range.length) +
                      ") leaves the " + std::to_string(size_) + "-byte file");
  }
  auto n = static_cast<size_t>(range.length);
  if (buffer.size() < n) buffer.resize(n);
  VIGILO_RETURN_IF_ERROR(PreadAll(fd_, buffer.data(), n, range.offset, path_));
  return std::span<const uint8_t>(buffer.data(), n);
}

Result<DecodedColumn> LocalParquetFile::ReadColumnChunk(size_t row_group, size_t leaf,
                                                        const ColumnReadOptions& options) const {
  VIGILO_ASSIGN_OR_RETURN(std::vector<ColumnChunkPlan> plan, PlanRowGroup(footer_, row_group));
  if (leaf >= plan.size()) return NotFound("leaf column " + std::to_string(leaf) + " does not exist");
  VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, Read(plan[leaf].range));
  return DecodeColumnChunk(footer_, row_group, leaf, bytes, options);
}

Result<MappedFile> MappedFile::Open(const std::string& path) {
  // The mapping outlives the descriptor, which closes on return.
  VIGILO_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path));
  const int fd = file.fd.get();
  MappedFile f;
  f.size_ = static_cast<size_t>(file.size);
  if (f.size_ == 0) return f;
  // MAP_POPULATE maps the (cached) pages up front in one call instead of
  // one fault per few pages as they are first read.
  void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) return ErrnoStatus("cannot map", path);
  f.data_ = static_cast<const uint8_t*>(p);
  return f;
}

MappedFile::MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

Result<std::span<const uint8_t>> MappedFile::Slice(ByteRange range) const {
  if (range.offset > size_ || range.length > size_ - range.offset) {
    return OutOfRange("byte range [" + std::to_string(range.offset) + ", +" + std::to_string(range.length) +
                      ") leaves the " + std::to_string(size_) + "-byte file");
  }
  return bytes().subspan(static_cast<size_t>(range.offset), static_cast<size_t>(range.length));
}

}  // namespace vigilo::parquet
