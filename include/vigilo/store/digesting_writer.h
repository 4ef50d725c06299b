// Content digests are a wrapper's job, not a backend's: a DigestingWriter
// counts and hashes the bytes on their way to any backend's ObjectWriter, so
// an object's size and digest are known before Commit makes it visible.
#pragma once

#include <memory>
#include <string>

#include "vigilo/store/object_store.h"

namespace vigilo::store {

enum class DigestKind { kSha256, kBlake3 };

class DigestingWriter final : public ObjectWriter {
 public:
  DigestingWriter(std::unique_ptr<ObjectWriter> inner, DigestKind kind);
  ~DigestingWriter() override;
  Status Append(std::span<const uint8_t> bytes) override;
  uint64_t size() const override { return inner_->size(); }
  Result<CreateResult> Commit(const AttemptContext* = nullptr) override;
  // The lowercase hex digest of every byte appended (valid once Append is
  // done; callers read it before Commit to record it first).
  std::string HexDigest() const;

 private:
  struct Hasher;
  std::unique_ptr<ObjectWriter> inner_;
  std::unique_ptr<Hasher> hasher_;
};

}  // namespace vigilo::store
