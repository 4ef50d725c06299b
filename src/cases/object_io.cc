#include "vigilo/cases/object_io.h"

#include <span>
#include <utility>

#include "vigilo/hash/blake3.h"

namespace vigilo::cases {
namespace {

std::span<const uint8_t> AsBytes(std::string_view bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

// Exactly `size` bytes of `key`, or an error: the store's own size checks,
// then ours, because a remote (or a faulty wrapper) may still hand back a
// short or long body.
Result<store::Bytes> GetExactly(store::ObjectStore& store, const std::string& key, uint64_t size) {
  store::GetOptions options;
  options.max_bytes = size;
  options.expected_size = size;
  options.reuse = false;  // read once and copied: nothing to keep mapped
  VIGILO_ASSIGN_OR_RETURN(store::Bytes bytes, store.Get(key, options));
  if (bytes.size() != size) {
    return IntegrityError("the store returned " + std::to_string(bytes.size()) + " bytes of a " +
                          std::to_string(size) + "-byte object")
        .WithPath(key);
  }
  return bytes;
}

// Reads back what a create left at `key` and requires exactly the written
// bytes. Ours to delete if we created it (nothing names it yet: the manifest
// is written last), so a rerun can create it afresh.
Status VerifyCreated(store::ObjectStore& store, const ObjectRef& ref, store::CreateOutcome outcome) {
  Result<store::Bytes> stored = GetExactly(store, ref.key, ref.byte_count);
  Status verified = stored.status();
  if (verified.ok() && Blake3Hex(stored->span()) != ref.digest) {
    verified = IntegrityError("the stored object differs from the bytes written").WithPath(ref.key);
  }
  if (verified.code() == StatusCode::kIntegrityError && outcome == store::CreateOutcome::kCreated) {
    (void)store.Delete(ref.key);  // best effort: if it stays, a rerun reports AlreadyExists for it
  }
  return verified;
}

}  // namespace

ObjectSink StoreSink(store::ObjectStore& store, std::string alias, SinkStats* stats) {
  return [&store, alias = std::move(alias), stats](const std::string& key, StorageFormat schema,
                                                   std::string bytes) -> Result<ObjectRef> {
    VIGILO_ASSIGN_OR_RETURN(store::CreateResult created, store.CreateIfAbsent(key, AsBytes(bytes)));
    ObjectRef ref = ObjectRef::ForBytes(alias, key, schema, bytes, std::move(created.revision));
    VIGILO_RETURN_IF_ERROR(VerifyCreated(store, ref, created.outcome));
    if (stats != nullptr) {
      if (created.outcome == store::CreateOutcome::kCreated) {
        ++stats->created;
        stats->created_bytes += ref.byte_count;
      } else {
        ++stats->replayed;
      }
      stats->verified_bytes += ref.byte_count;
    }
    return ref;
  };
}

ObjectBytesFetch StoreBytesFetch(StoreResolver resolve) {
  return [resolve = std::move(resolve)](const ObjectRef& ref, uint64_t max_bytes) -> Result<std::string> {
    if (ref.byte_count > max_bytes) {
      return LimitExceeded("object of " + std::to_string(ref.byte_count) + " bytes exceeds its " +
                           std::to_string(max_bytes) + "-byte budget")
          .WithPath(ref.key);
    }
    VIGILO_ASSIGN_OR_RETURN(store::ObjectStore * store, resolve(ref.storage_alias));
    VIGILO_ASSIGN_OR_RETURN(store::Bytes bytes, GetExactly(*store, ref.key, ref.byte_count));
    return std::string(bytes.view());
  };
}

ObjectFetch StoreFetch(StoreResolver resolve, uint64_t max_bytes) {
  return [fetch = StoreBytesFetch(std::move(resolve)), max_bytes](const ObjectRef& ref) -> Result<VerifiedObject> {
    return FetchVerified(fetch, ref, max_bytes);
  };
}

Result<VerifiedObject> FetchVerified(const ObjectBytesFetch& fetch, const ObjectRef& ref, uint64_t max_bytes) {
  VIGILO_RETURN_IF_ERROR(ref.Validate());
  if (ref.byte_count > max_bytes) {
    return LimitExceeded("object of " + std::to_string(ref.byte_count) + " bytes exceeds its " +
                         std::to_string(max_bytes) + "-byte budget")
        .WithPath(ref.key);
  }
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, fetch(ref, max_bytes));
  return ref.Verify(std::move(bytes), max_bytes);
}

StoreResolver SingleStore(store::ObjectStore& store) {
  return [&store](std::string_view) -> Result<store::ObjectStore*> { return &store; };
}

}  // namespace vigilo::cases
