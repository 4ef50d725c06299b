#include "vigilo/store/prefixed_store.h"

#include "vigilo/store/object_store.h"

namespace vigilo::store {

Status PrefixedStore::Own(Status s) const {
  if (s.ok() || !s.path().starts_with(prefix_)) return s;
  return std::move(s).WithPath(std::string(s.path().substr(prefix_.size())));
}

Result<Bytes> PrefixedStore::Get(std::string_view key, const GetOptions& options) {
  Result<Bytes> got = inner().Get(Full(key), options);
  if (!got.ok()) return Own(got.status());
  return got;
}

std::vector<GetResponse> PrefixedStore::GetMany(std::span<const GetRequest> requests) {
  // The full keys live as long as the call; the inner store sees one batch.
  std::vector<std::string> keys;
  keys.reserve(requests.size());
  for (const GetRequest& r : requests) keys.push_back(Full(r.key));
  std::vector<GetRequest> full(requests.begin(), requests.end());
  for (size_t i = 0; i < full.size(); ++i) full[i].key = keys[i];
  std::vector<GetResponse> answers = inner().GetMany(full);
  for (GetResponse& a : answers) {
    if (!a.bytes.ok()) a.bytes = Own(a.bytes.status());
  }
  return answers;
}

Result<ObjectInfo> PrefixedStore::Head(std::string_view key, const AttemptContext* attempt) {
  Result<ObjectInfo> info = inner().Head(Full(key), attempt);
  if (!info.ok()) return Own(info.status());
  return info;
}

Result<CreateResult> PrefixedStore::CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                                   const AttemptContext* attempt) {
  Result<CreateResult> created = inner().CreateIfAbsent(Full(key), bytes, attempt);
  if (!created.ok()) return Own(created.status());
  return created;
}

Result<std::unique_ptr<ObjectWriter>> PrefixedStore::BeginCreate(std::string_view key, const AttemptContext* attempt) {
  Result<std::unique_ptr<ObjectWriter>> writer = inner().BeginCreate(Full(key), attempt);
  if (!writer.ok()) return Own(writer.status());
  return writer;
}

Status PrefixedStore::Delete(std::string_view key, const AttemptContext* attempt) {
  return Own(inner().Delete(Full(key), attempt));
}

Result<std::unique_ptr<ObjectStore>> MakePrefixedStore(std::unique_ptr<ObjectStore> inner, std::string_view prefix) {
  std::string p(prefix);
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (p.empty()) return inner;
  // The prefix is a key directory: every key under it must be valid.
  if (Status s = ValidateStoreKey(p + "/x"); !s.ok()) {
    return InvalidArgument("the key prefix is not a valid store key directory: " + std::string(s.message()));
  }
  return std::unique_ptr<ObjectStore>(std::make_unique<PrefixedStore>(std::move(inner), p + "/"));
}

}  // namespace vigilo::store
