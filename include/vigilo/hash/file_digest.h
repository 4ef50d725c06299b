// Streaming digests of a local file: what `vigilo hash` computes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "vigilo/common/result.h"

namespace vigilo {

// Read size per read(2) call. Peak memory of DigestFile is one such buffer.
inline constexpr size_t kDigestFileChunkSize = size_t{1} << 20;

struct FileDigests {
  uint64_t size = 0;  // bytes read
  std::optional<std::array<uint8_t, 32>> blake3;  // set iff requested
  std::optional<std::array<uint8_t, 32>> sha256;  // set iff requested
};

// Reads `path` once, front to back, in kDigestFileChunkSize chunks and computes
// the requested digests in the same pass (neither requested: size only).
// Errors: NotFound if the path does not exist; IoError for anything else
// (permission, a directory, a read failure). Messages include the path.
Result<FileDigests> DigestFile(const std::string& path, bool blake3, bool sha256);

}  // namespace vigilo
