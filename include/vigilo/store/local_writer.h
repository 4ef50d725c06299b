// Streams one immutable object into a local directory without holding it:
// the bytes go to a private temporary file beside the target, counted and
// SHA-256-hashed as they are written; Commit fsyncs the file, links it into
// place (failing with AlreadyExists, never overwriting, when the path
// exists) and fsyncs the directory. A writer destroyed before Commit
// removes its temporary file. This is CreateIfAbsent for objects too large
// to buffer (Parquet postings files).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/hash/sha256.h"

namespace vigilo::store {

struct CommittedObject {
  uint64_t size = 0;
  std::string sha256;  // lowercase hex
};

class LocalObjectWriter {
 public:
  // `path` is relative to `root` and must be a valid publication path;
  // parent directories are created.
  static Result<std::unique_ptr<LocalObjectWriter>> Create(const std::string& root, std::string_view path);
  ~LocalObjectWriter();
  LocalObjectWriter(const LocalObjectWriter&) = delete;
  LocalObjectWriter& operator=(const LocalObjectWriter&) = delete;

  Status Append(std::span<const uint8_t> bytes);
  uint64_t size() const { return size_; }
  Result<CommittedObject> Commit();

 private:
  LocalObjectWriter(int fd, std::string tmp, std::string target);
  int fd_;
  std::string tmp_;
  std::string target_;
  uint64_t size_ = 0;
  Sha256Hasher hasher_;
  bool failed_ = false;
};

}  // namespace vigilo::store
