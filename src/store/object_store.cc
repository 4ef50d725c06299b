#include "vigilo/store/object_store.h"

#include <cstring>

#include "vigilo/common/paths.h"

namespace vigilo::store {
namespace {

// A buffer owned through the shared owner pointer; the span points into it.
template <typename Buffer>
Bytes FromBuffer(Buffer bytes) {
  if (bytes.empty()) return Bytes();
  auto owner = std::make_shared<const Buffer>(std::move(bytes));
  std::span<const uint8_t> view(reinterpret_cast<const uint8_t*>(owner->data()), owner->size());
  return Bytes(std::move(owner), view);
}

}  // namespace

Bytes Bytes::FromVector(std::vector<uint8_t> bytes) { return FromBuffer(std::move(bytes)); }

Bytes Bytes::FromString(std::string bytes) { return FromBuffer(std::move(bytes)); }

Bytes Bytes::Copy(std::span<const uint8_t> bytes) {
  return FromVector(std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

std::vector<GetResponse> ObjectStore::GetMany(std::span<const GetRequest> requests) {
  std::vector<GetResponse> out;
  out.reserve(requests.size());
  for (const GetRequest& r : requests) out.push_back(GetResponse{Get(r.key, r.options)});
  return out;
}

Status RequireWritable(const ObjectStore& store, std::string_view alias) {
  const Capabilities& caps = store.capabilities();
  std::string_view missing;
  if (!caps.writable) {
    missing = "writes";
  } else if (!caps.conditional_create) {
    missing = "conditional create";
  } else if (!caps.read_after_create) {
    missing = "read-after-create";
  } else {
    return Status::Ok();
  }
  return InvalidArgument("store \"" + std::string(alias) + "\" does not guarantee " + std::string(missing) +
                         "; refusing to write to it");
}

Status ValidateStoreKey(std::string_view key) {
  Status valid = ValidateLogicalKey(key);
  if (valid.ok()) return valid;
  // A bad key is the caller's malformed request, not malformed stored bytes.
  return InvalidArgument(std::string(valid.message())).WithPath(std::string(key));
}

Result<std::string> GetString(ObjectStore& store, std::string_view key, uint64_t max_bytes) {
  GetOptions options;
  options.max_bytes = max_bytes;
  VIGILO_ASSIGN_OR_RETURN(Bytes bytes, store.Get(key, options));
  return std::string(bytes.view());
}

}  // namespace vigilo::store
