// The ingestion's input, readable twice. Pass one and pass two of
// ingestion each read the input from the start: a regular file is simply
// opened again; standard input (or any pipe) is copied first to a spool file
// in the scratch directory, charged against the validation-spool quota
// before each write (seed 004: "the complete-input spool shares the 8 GiB
// validation quota"), so a full quota is LimitExceeded, never a full disk.
// The spool file is removed when the InputSpool is destroyed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "vigilo/common/byte_source.h"
#include "vigilo/common/result.h"

namespace vigilo::engine {

class InputSpool {
 public:
  // `path` "-" reads standard input (`stdin_source` if given: tests), which
  // is copied to a private file under `scratch_dir` within `quota_bytes`.
  // A regular file is not copied. NotFound/IoError for the input,
  // LimitExceeded when the copy would pass the quota.
  static Result<InputSpool> Open(const std::string& path, const std::filesystem::path& scratch_dir,
                                 uint64_t quota_bytes, ByteSource* stdin_source = nullptr);
  InputSpool(InputSpool&&) noexcept;
  InputSpool& operator=(InputSpool&&) noexcept;
  InputSpool(const InputSpool&) = delete;
  InputSpool& operator=(const InputSpool&) = delete;
  ~InputSpool();

  // A fresh reader from the first byte.
  Result<std::unique_ptr<ByteSource>> OpenReader() const;
  // Bytes charged to the validation quota (the copy's size; 0 for a file).
  uint64_t spooled_bytes() const { return spooled_bytes_; }
  // The input's size when known before reading (a regular file or a spool), else 0.
  uint64_t size_hint() const { return size_hint_; }

 private:
  InputSpool() = default;
  std::string read_path_;           // what OpenReader opens
  std::filesystem::path spool_dir_;  // non-empty when we made a copy
  uint64_t spooled_bytes_ = 0;
  uint64_t size_hint_ = 0;
};

}  // namespace vigilo::engine
