// The Parquet writer's byte sink over a streaming create through the
// ObjectStore seam (private to src/ivf). The bytes go through a
// DigestingWriter, so a descriptor's size and SHA-256 come from the bytes
// written; the create is recorded in the build's OwnedWrites, so a failed
// build removes exactly the objects it created. Nothing is visible at the
// key before Commit; Commit is create-if-absent (identical bytes already
// there are a verified replay, other bytes AlreadyExists, never overwritten).
#pragma once

#include <memory>
#include <string>

#include "vigilo/common/paths.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/parquet/writer.h"
#include "vigilo/store/digesting_writer.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {

class ObjectSink final : public parquet::ByteSink {
 public:
  static Result<std::unique_ptr<ObjectSink>> Create(store::OwnedWrites& writes, std::string path) {
    if (!ValidatePublicationPath(path).ok()) return Internal("not a publication path: " + path);
    VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<store::ObjectWriter> writer, writes.BeginCreate(path));
    auto digesting = std::make_unique<store::DigestingWriter>(std::move(writer), store::DigestKind::kSha256);
    return std::unique_ptr<ObjectSink>(new ObjectSink(std::move(path), std::move(digesting)));
  }
  Status Append(std::span<const uint8_t> bytes) override { return out_->Append(bytes); }
  uint64_t size() const { return out_->size(); }
  // Makes the object visible; its descriptor.
  Result<ObjectDescriptor> Commit() {
    std::string sha256 = out_->HexDigest();
    uint64_t size = out_->size();
    VIGILO_ASSIGN_OR_RETURN(store::CreateResult created, out_->Commit());
    if (created.size != size) {
      return IntegrityError("the store created " + std::to_string(created.size) + " bytes; " + std::to_string(size) +
                            " were written")
          .WithPath(path_);
    }
    return ObjectDescriptor{path_, size, std::move(sha256)};
  }

 private:
  ObjectSink(std::string path, std::unique_ptr<store::DigestingWriter> out)
      : path_(std::move(path)), out_(std::move(out)) {}
  std::string path_;
  std::unique_ptr<store::DigestingWriter> out_;
};

}  // namespace vigilo::ivf
