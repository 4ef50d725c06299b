#include "vigilo/store/memory_store.h"

#include <algorithm>
#include <vector>

#include "vigilo/hash/blake3.h"

namespace vigilo::store {
namespace {

Status ReadOnly(std::string_view key) {
  return InvalidArgument("the store is read-only").WithPath(std::string(key));
}

bool SameBytes(const Bytes& stored, std::span<const uint8_t> bytes) {
  return std::equal(stored.span().begin(), stored.span().end(), bytes.begin(), bytes.end());
}

// Like an S3 ETag: a token derived from the content (objects are immutable,
// so equal bytes mean the same revision).
std::string Revision(std::span<const uint8_t> bytes) { return Blake3Hex(bytes).substr(0, 32); }

// Buffers the appended bytes; Commit is CreateIfAbsent with all of them.
// The writer must not outlive its store (as with every backend).
class MemoryWriter final : public ObjectWriter {
 public:
  MemoryWriter(MemoryStore& store, std::string key) : store_(store), key_(std::move(key)) {}

  Status Append(std::span<const uint8_t> bytes) override {
    if (committed_) return Internal("append to a committed object writer").WithPath(key_);
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
    return Status::Ok();
  }
  uint64_t size() const override { return buffer_.size(); }
  Result<CreateResult> Commit(const AttemptContext* = nullptr) override {
    if (committed_) return Internal("object writer committed twice").WithPath(key_);
    committed_ = true;
    auto result = store_.CreateIfAbsent(key_, buffer_);
    buffer_ = {};
    return result;
  }

 private:
  MemoryStore& store_;
  std::string key_;
  std::vector<uint8_t> buffer_;
  bool committed_ = false;
};

}  // namespace

MemoryStore::MemoryStore(Capabilities capabilities) : capabilities_(capabilities) {}

Result<Bytes> MemoryStore::Get(std::string_view key, const GetOptions& options) {
  VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
  Bytes object;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return NotFound("no such object").WithPath(std::string(key));
    object = it->second;  // shares the buffer; the map may change after unlock
  }
  VIGILO_ASSIGN_OR_RETURN(ByteRange range, PlanGet(key, object.size(), options));
  return object.Slice(static_cast<size_t>(range.offset), static_cast<size_t>(range.length));
}

Result<ObjectInfo> MemoryStore::Head(std::string_view key, const AttemptContext*) {
  VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
  Bytes object;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return NotFound("no such object").WithPath(std::string(key));
    object = it->second;
  }
  ObjectInfo info;
  info.size = object.size();
  if (capabilities_.revisions) info.revision = Revision(object.span());
  return info;
}

Result<CreateResult> MemoryStore::CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const AttemptContext*) {
  VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
  if (!capabilities_.writable) return ReadOnly(key);
  CreateResult result;
  result.size = bytes.size();
  if (capabilities_.revisions) result.revision = Revision(bytes);
  Bytes copy = Bytes::Copy(bytes);  // outside the lock
  Bytes existing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = objects_.try_emplace(std::string(key), std::move(copy));
    if (inserted) {
      result.outcome = CreateOutcome::kCreated;
      return result;
    }
    existing = it->second;
  }
  // Immutable once stored, so the comparison needs no lock.
  if (!SameBytes(existing, bytes)) {
    return AlreadyExists("object already exists with different bytes").WithPath(std::string(key));
  }
  result.outcome = CreateOutcome::kAlreadyIdentical;
  return result;
}

Result<std::unique_ptr<ObjectWriter>> MemoryStore::BeginCreate(std::string_view key, const AttemptContext*) {
  VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
  if (!capabilities_.writable) return ReadOnly(key);
  return std::unique_ptr<ObjectWriter>(new MemoryWriter(*this, std::string(key)));
}

Status MemoryStore::Delete(std::string_view key, const AttemptContext*) {
  VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
  if (!capabilities_.writable) return ReadOnly(key);
  Bytes removed;  // released after the lock: the last owner may be a large buffer
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it != objects_.end()) {
    removed = std::move(it->second);
    objects_.erase(it);
  }
  return Status::Ok();
}

size_t MemoryStore::object_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return objects_.size();
}

std::optional<std::string> MemoryStore::Peek(std::string_view key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  return std::string(it->second.view());
}

void MemoryStore::Overwrite(std::string_view key, std::string bytes) {
  Bytes replacement = Bytes::FromString(std::move(bytes));
  std::lock_guard<std::mutex> lock(mu_);
  objects_.insert_or_assign(std::string(key), std::move(replacement));
}

std::vector<std::string> MemoryStore::Keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> keys;
  keys.reserve(objects_.size());
  for (const auto& [key, bytes] : objects_) keys.push_back(key);
  return keys;
}

}  // namespace vigilo::store
