// ByteSource: a pull stream of bytes (a file, stdin, a string, later an
// object-store GET body). Streaming readers take one so that they never need
// the whole input in memory.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"

namespace vigilo {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to buf.size() bytes; returns 0 only at end of stream.
  virtual Result<size_t> Read(std::span<char> buf) = 0;
};

// Reads from memory the caller keeps alive.
class StringByteSource final : public ByteSource {
 public:
  explicit StringByteSource(std::string_view data) : data_(data) {}
  Result<size_t> Read(std::span<char> buf) override;

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Reads a file descriptor it owns (or borrows, for stdin).
class FileByteSource final : public ByteSource {
 public:
  // NotFound if the file does not exist, IoError otherwise.
  static Result<std::unique_ptr<FileByteSource>> Open(const std::string& path);
  static std::unique_ptr<FileByteSource> Stdin();
  ~FileByteSource() override;
  FileByteSource(const FileByteSource&) = delete;
  FileByteSource& operator=(const FileByteSource&) = delete;

  Result<size_t> Read(std::span<char> buf) override;
  // The file's size if it is a regular file, else 0 (a pipe, a terminal).
  size_t SizeHint() const;

 private:
  friend class WholeFile;  // maps the descriptor
  FileByteSource(int fd, bool owned, std::string name) : fd_(fd), owned_(owned), name_(std::move(name)) {}
  int fd_;
  bool owned_;
  std::string name_;
};

// Reads a whole file into memory, failing with LimitExceeded past max_bytes.
Result<std::string> ReadFileToString(const std::string& path, size_t max_bytes);
// A whole input held read-only in memory: a regular file is mapped (no copy,
// no zero-filled buffer: for a CLI that reads a 100 MB file once, the copy
// and page zeroing cost as much as parsing it); a pipe or terminal is read.
// The bytes may change under the mapping if another process writes the file;
// callers that need stable bytes for hashing must read instead.
class WholeFile {
 public:
  // path "" or "-" is stdin. NotFound, IoError, or LimitExceeded past max_bytes.
  static Result<WholeFile> Open(const std::string& path, size_t max_bytes);
  WholeFile(WholeFile&& other) noexcept;
  WholeFile& operator=(WholeFile&& other) noexcept;
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;
  ~WholeFile();

  std::string_view bytes() const { return map_ != nullptr ? std::string_view(map_, map_size_) : std::string_view(read_); }

 private:
  WholeFile() = default;
  char* map_ = nullptr;
  size_t map_size_ = 0;
  std::string read_;
};

// Drains a source into memory, failing with LimitExceeded past max_bytes.
// `size_hint` (the expected size, if known) sizes the first allocation.
Result<std::string> ReadAll(ByteSource& source, size_t max_bytes, size_t size_hint = 0);

}  // namespace vigilo
