// A bounded reader of gzip-compressed ustar archives (npm tarballs) for the
// embedding importer: it streams entries one at a time and hashes the file's
// raw bytes with SHA-512 as it goes (the npm integrity of the tarball).
#pragma once

#include <openssl/evp.h>
#include <zlib.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/byte_source.h"
#include "vigilo/common/file.h"
#include "vigilo/common/result.h"

namespace vigilo::ivf::embed_tar {

struct Entry {
  std::string name;       // prefix/name, as stored (or a pax "path")
  uint64_t size = 0;
  uint64_t offset = 0;    // of its content in the uncompressed archive
  char type = '0';
};

class TarReader {
 public:
  static Result<std::unique_ptr<TarReader>> Open(const std::string& path);
  ~TarReader();
  TarReader(const TarReader&) = delete;
  TarReader& operator=(const TarReader&) = delete;

  // The next regular-file entry (directories and links skipped), or nullopt
  // at the end of the archive. The previous entry's unread content is skipped.
  Result<std::optional<Entry>> Next();
  // The current entry's content as a stream (reads stop at its end).
  ByteSource& content() { return content_; }
  Result<std::string> ReadContent(uint64_t max_bytes);
  // Reads the rest of the file (for the digest): "sha512-<base64>".
  Result<std::string> Integrity();
  uint64_t file_size() const { return file_size_; }

 private:
  class Content final : public ByteSource {
   public:
    explicit Content(TarReader& reader) : reader_(reader) {}
    Result<size_t> Read(std::span<char> buf) override;
    uint64_t remaining = 0;
    std::string name;

   private:
    TarReader& reader_;
  };

  TarReader(std::string path, RegularFile file);
  Result<size_t> Inflate(std::span<char> out);  // 0 only at the end of the gzip stream
  Status ReadExact(std::span<char> out, const std::string& what);
  Status Skip(uint64_t n, const std::string& what);
  Status Bad(std::string message, uint64_t offset) const;

  std::string path_;
  RegularFile file_;
  uint64_t file_size_ = 0;
  EVP_MD_CTX* sha512_ = nullptr;
  z_stream z_{};
  bool z_ready_ = false;
  bool z_end_ = false;
  bool raw_eof_ = false;
  uint64_t raw_read_ = 0;
  std::vector<unsigned char> raw_;
  uint64_t position_ = 0;  // in the uncompressed archive
  bool done_ = false;
  Content content_{*this};
};

}  // namespace vigilo::ivf::embed_tar
