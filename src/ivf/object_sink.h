// The Parquet writer's byte sink over a streamed local object (private to
// src/ivf): size and SHA-256 come from the bytes written, Commit links the
// object into place without overwriting anything.
#pragma once

#include <memory>
#include <string>

#include "vigilo/parquet/writer.h"
#include "vigilo/store/local_writer.h"

namespace vigilo::ivf {

class ObjectSink final : public parquet::ByteSink {
 public:
  static Result<std::unique_ptr<ObjectSink>> Create(const std::string& root, const std::string& path) {
    VIGILO_ASSIGN_OR_RETURN(auto out, store::LocalObjectWriter::Create(root, path));
    return std::unique_ptr<ObjectSink>(new ObjectSink(std::move(out)));
  }
  Status Append(std::span<const uint8_t> bytes) override { return out_->Append(bytes); }
  uint64_t size() const { return out_->size(); }
  Result<store::CommittedObject> Commit() { return out_->Commit(); }

 private:
  explicit ObjectSink(std::unique_ptr<store::LocalObjectWriter> out) : out_(std::move(out)) {}
  std::unique_ptr<store::LocalObjectWriter> out_;
};

}  // namespace vigilo::ivf
