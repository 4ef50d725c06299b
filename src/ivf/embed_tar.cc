// Gzip + ustar reading for the embedding importer (embed_tar.h). Every size
// in a header is checked against what the stream holds: an entry that runs
// past the end of the archive is InvalidFormat naming it.
#include "embed_tar.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vigilo::ivf::embed_tar {

namespace {

constexpr size_t kBlock = 512;
constexpr size_t kRawChunk = 1 << 20;

Result<uint64_t> Octal(const char* field, size_t n) {
  uint64_t v = 0;
  size_t i = 0;
  while (i < n && field[i] == ' ') ++i;
  size_t digits = 0;
  for (; i < n && field[i] >= '0' && field[i] <= '7'; ++i, ++digits) {
    if (v > (uint64_t{1} << 60)) return InvalidFormat("octal field too large");
    v = v * 8 + static_cast<uint64_t>(field[i] - '0');
  }
  for (; i < n; ++i) {
    if (field[i] != ' ' && field[i] != '\0') return InvalidFormat("malformed octal field");
  }
  if (digits == 0) return InvalidFormat("malformed octal field");
  return v;
}

std::string Field(const char* p, size_t n) { return std::string(p, strnlen(p, n)); }

std::string Base64(const unsigned char* data, size_t n) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = static_cast<uint32_t>(data[i]) << 16;
    if (i + 1 < n) v |= static_cast<uint32_t>(data[i + 1]) << 8;
    if (i + 2 < n) v |= data[i + 2];
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back(i + 2 < n ? kAlphabet[v & 63] : '=');
  }
  return out;
}

}  // namespace

TarReader::TarReader(std::string path, RegularFile file)
    : path_(std::move(path)), file_(std::move(file)), file_size_(file_.size), raw_(kRawChunk) {}

TarReader::~TarReader() {
  if (z_ready_) inflateEnd(&z_);
  if (sha512_ != nullptr) EVP_MD_CTX_free(sha512_);
}

Status TarReader::Bad(std::string message, uint64_t offset) const {
  return InvalidFormat(std::move(message)).WithPath(path_).WithOffset(offset);
}

Result<std::unique_ptr<TarReader>> TarReader::Open(const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path));
  std::unique_ptr<TarReader> r(new TarReader(path, std::move(file)));
  r->sha512_ = EVP_MD_CTX_new();
  if (r->sha512_ == nullptr || EVP_DigestInit_ex(r->sha512_, EVP_sha512(), nullptr) != 1) {
    return Internal("OpenSSL could not start a SHA-512 digest");
  }
  // 16 + MAX_WBITS: a gzip wrapper only (not raw deflate, not zlib).
  if (inflateInit2(&r->z_, 16 + MAX_WBITS) != Z_OK) return Internal("zlib could not start inflating");
  r->z_ready_ = true;
  return r;
}

Result<size_t> TarReader::Inflate(std::span<char> out) {
  if (z_end_ || out.empty()) return size_t{0};
  z_.next_out = reinterpret_cast<Bytef*>(out.data());
  const uInt cap = static_cast<uInt>(std::min<size_t>(out.size(), 1u << 30));
  z_.avail_out = cap;
  while (z_.avail_out == cap) {  // until some output
    if (z_.avail_in == 0 && !raw_eof_) {
      ssize_t n;
      do {
        n = ::read(file_.fd.get(), raw_.data(), raw_.size());
      } while (n < 0 && errno == EINTR);
      if (n < 0) return ErrnoStatus(errno, "read", path_);
      if (n == 0) {
        raw_eof_ = true;
      } else {
        if (raw_read_ == 0 && (n < 2 || raw_[0] != 0x1f || raw_[1] != 0x8b)) {
          return Bad("not a gzip file (an npm tarball is a .tgz)", 0);
        }
        EVP_DigestUpdate(sha512_, raw_.data(), static_cast<size_t>(n));
        raw_read_ += static_cast<uint64_t>(n);
        z_.next_in = raw_.data();
        z_.avail_in = static_cast<uInt>(n);
      }
    }
    if (z_.avail_in == 0 && raw_eof_) {
      if (raw_read_ == 0) return Bad("not a gzip file (it is empty)", 0);
      return Bad("the gzip stream ends early (a truncated tarball)", raw_read_);
    }
    int rc = inflate(&z_, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      z_end_ = true;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      if (raw_read_ <= 10 && z_.total_out == 0) return Bad("not a gzip file (bad header)", 0);
      return Bad(std::string("corrupt gzip data: ") + (z_.msg != nullptr ? z_.msg : "inflate failed"),
                 raw_read_ - z_.avail_in);
    }
  }
  size_t produced = cap - z_.avail_out;
  position_ += produced;
  return produced;
}

Status TarReader::ReadExact(std::span<char> out, const std::string& what) {
  size_t done = 0;
  while (done < out.size()) {
    VIGILO_ASSIGN_OR_RETURN(size_t n, Inflate(out.subspan(done)));
    if (n == 0) return Bad(what + " runs past the end of the archive", position_);
    done += n;
  }
  return Status::Ok();
}

Status TarReader::Skip(uint64_t n, const std::string& what) {
  char buf[16384];
  while (n > 0) {
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, sizeof buf));
    VIGILO_RETURN_IF_ERROR(ReadExact(std::span<char>(buf, chunk), what));
    n -= chunk;
  }
  return Status::Ok();
}

Result<size_t> TarReader::Content::Read(std::span<char> buf) {
  if (remaining == 0) return size_t{0};
  size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), remaining));
  VIGILO_ASSIGN_OR_RETURN(size_t n, reader_.Inflate(buf.subspan(0, want)));
  if (n == 0) return reader_.Bad("tar entry \"" + name + "\" runs past the end of the archive", reader_.position_);
  remaining -= n;
  return n;
}

Result<std::string> TarReader::ReadContent(uint64_t max_bytes) {
  if (content_.remaining > max_bytes) {
    return LimitExceeded("tar entry \"" + content_.name + "\" is larger than " + std::to_string(max_bytes) + " bytes")
        .WithPath(path_);
  }
  std::string out(static_cast<size_t>(content_.remaining), '\0');
  VIGILO_RETURN_IF_ERROR(ReadExact(std::span<char>(out.data(), out.size()), "tar entry \"" + content_.name + "\""));
  content_.remaining = 0;
  return out;
}

Result<std::optional<Entry>> TarReader::Next() {
  if (done_) return std::optional<Entry>();
  std::optional<std::string> pax_path;
  while (true) {
    if (content_.remaining > 0 || position_ % kBlock != 0) {
      uint64_t pad = (kBlock - (position_ + content_.remaining) % kBlock) % kBlock;
      VIGILO_RETURN_IF_ERROR(Skip(content_.remaining + pad, "tar entry \"" + content_.name + "\""));
      content_.remaining = 0;
    }
    const uint64_t at = position_;
    char h[kBlock];
    VIGILO_ASSIGN_OR_RETURN(size_t first, Inflate(std::span<char>(h, kBlock)));
    if (first == 0) {  // the end without the two zero blocks: accepted
      done_ = true;
      return std::optional<Entry>();
    }
    if (first < kBlock) VIGILO_RETURN_IF_ERROR(ReadExact(std::span<char>(h + first, kBlock - first), "a tar header"));
    if (std::all_of(h, h + kBlock, [](char c) { return c == 0; })) {
      done_ = true;
      return std::optional<Entry>();
    }
    Result<uint64_t> checksum = Octal(h + 148, 8);
    if (!checksum.ok()) return Bad("tar header checksum: " + std::string(checksum.status().message()), at + 148);
    uint64_t sum = 0;
    for (size_t i = 0; i < kBlock; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
    if (sum != *checksum) return Bad("tar header checksum mismatch (not a tar archive?)", at);
    if (std::memcmp(h + 257, "ustar", 5) != 0) return Bad("not a ustar tar header", at + 257);
    Result<uint64_t> size = Octal(h + 124, 12);
    if (!size.ok()) return Bad("tar entry size: " + std::string(size.status().message()), at + 124);
    Entry e;
    std::string prefix = Field(h + 345, 155);
    e.name = prefix.empty() ? Field(h, 100) : prefix + "/" + Field(h, 100);
    e.size = *size;
    e.offset = at + kBlock;
    e.type = h[156] == '\0' ? '0' : h[156];
    content_.remaining = e.size;
    content_.name = e.name;
    if (e.type == 'x') {  // a pax extended header: only "path" matters here
      if (e.size > (1u << 20)) return Bad("pax header too large", at);
      VIGILO_ASSIGN_OR_RETURN(std::string pax, ReadContent(1u << 20));
      size_t pos = 0;
      while (pos < pax.size()) {
        size_t space = pax.find(' ', pos);
        if (space == std::string::npos) return Bad("malformed pax record", e.offset + pos);
        uint64_t len = 0;
        for (size_t i = pos; i < space; ++i) {
          if (pax[i] < '0' || pax[i] > '9' || len > (1u << 20)) return Bad("malformed pax record", e.offset + pos);
          len = len * 10 + static_cast<uint64_t>(pax[i] - '0');
        }
        if (len <= space - pos + 1 || pos + len > pax.size() || pax[pos + len - 1] != '\n') {
          return Bad("malformed pax record", e.offset + pos);
        }
        std::string record = pax.substr(space + 1, pos + len - space - 2);
        if (record.starts_with("path=")) pax_path = record.substr(5);
        pos += len;
      }
      continue;
    }
    if (e.type != '0' && e.type != '7') continue;  // directories, links, globals: skipped with their content
    if (pax_path) e.name = *pax_path, content_.name = e.name;
    return std::optional<Entry>(std::move(e));
  }
}

Result<std::string> TarReader::Integrity() {
  // The digest is over the file's bytes: read what inflating did not need.
  while (!raw_eof_) {
    ssize_t n;
    do {
      n = ::read(file_.fd.get(), raw_.data(), raw_.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0) return ErrnoStatus(errno, "read", path_);
    if (n == 0) break;
    EVP_DigestUpdate(sha512_, raw_.data(), static_cast<size_t>(n));
    raw_read_ += static_cast<uint64_t>(n);
  }
  raw_eof_ = true;
  unsigned char md[64];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(sha512_, md, &len) != 1 || len != 64) return Internal("OpenSSL SHA-512 failed");
  return "sha512-" + Base64(md, len);
}

}  // namespace vigilo::ivf::embed_tar
