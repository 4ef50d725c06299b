#include "vigilo/hash/file_digest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "vigilo/common/file.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/hash/sha256.h"

namespace vigilo {
Result<FileDigests> DigestFile(const std::string& path, bool blake3, bool sha256) {
  // A directory, FIFO or device is refused up front, without blocking.
  VIGILO_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path));
  const UniqueFd& fd = file.fd;
  // Only a hint for read-ahead; harmless if the kernel ignores it.
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);

  Blake3Hasher b3;
  Sha256Hasher s256;
  FileDigests out;
  // for_overwrite: no point zeroing a buffer that read(2) fills.
  auto buf = std::make_unique_for_overwrite<uint8_t[]>(kDigestFileChunkSize);
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.get(), kDigestFileChunkSize);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot read", path);
    }
    if (n == 0) break;
    std::span<const uint8_t> chunk(buf.get(), static_cast<size_t>(n));
    if (blake3) b3.Update(chunk);
    if (sha256) s256.Update(chunk);
    out.size += static_cast<uint64_t>(n);
  }

  if (blake3) out.blake3 = b3.Finalize();
  if (sha256) {
    VIGILO_ASSIGN_OR_RETURN(out.sha256, s256.Finalize());
  }
  return out;
}

}  // namespace vigilo
