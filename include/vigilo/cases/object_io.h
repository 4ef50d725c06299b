// How case storage reaches its objects. The builders and readers (index,
// dataset, gate counts) see a sink that stores one encoded object and a
// fetch that returns one referenced object; in production both are the
// adapters below over the one store seam (store::ObjectStore), so every
// object read and write of case storage goes through a store, and a test
// swaps the backend (store::MemoryStore, a fault-injecting wrapper) rather
// than the plumbing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "vigilo/cases/object_ref.h"
#include "vigilo/cases/storage_format.h"
#include "vigilo/common/result.h"
#include "vigilo/store/object_store.h"

namespace vigilo::cases {

// Stores one encoded object and returns its reference.
using ObjectSink = std::function<Result<ObjectRef>(const std::string& key, StorageFormat schema, std::string bytes)>;
// Fetches and verifies the object a reference names.
using ObjectFetch = std::function<Result<VerifiedObject>(const ObjectRef& ref)>;
// Fetches the bytes a reference names, refusing more than max_bytes; the
// caller verifies them (ObjectRef::Verify).
using ObjectBytesFetch = std::function<Result<std::string>(const ObjectRef& ref, uint64_t max_bytes)>;

// The store a reference's storage_alias names (store::StoreSet::ForAlias in
// the CLI). The store must outlive every fetch made through it.
using StoreResolver = std::function<Result<store::ObjectStore*>(std::string_view alias)>;

// Create-if-absent on `store` (seed 004: a replay of identical bytes is
// verified by the store and reported, not overwritten; other bytes at the
// key are AlreadyExists and the existing object is untouched), then a read
// back of the object that must be exactly the bytes written (IntegrityError
// otherwise; an object this create made is then deleted again, so a lying or
// corrupting backend leaves nothing a rerun trips over). The returned
// reference records `alias` (the alias of the store written to) and the
// store's revision token where it has revisions. `store` must outlive the
// sink. No retries (the request governor's job) and no rollback: an
// unfinished write leaves verified objects under its attempt prefix and no
// root, and a rerun of the same attempt completes it by replaying them.
// `stats`, if set, counts what the sink did (it must outlive the sink).
struct SinkStats {
  uint64_t created = 0;        // objects this sink created
  uint64_t replayed = 0;       // already there with exactly these bytes (a replay)
  uint64_t created_bytes = 0;  // bytes of the created objects
  uint64_t verified_bytes = 0; // bytes read back
};
ObjectSink StoreSink(store::ObjectStore& store, std::string alias, SinkStats* stats = nullptr);

// Refuses a reference over max_bytes before any request, then Gets exactly
// its byte_count: a stored object of another size is an IntegrityError
// before its bytes are transferred, and so is a body of another length.
ObjectBytesFetch StoreBytesFetch(StoreResolver resolve);
// StoreBytesFetch, then ObjectRef::Verify, with one byte cap for every object.
ObjectFetch StoreFetch(StoreResolver resolve, uint64_t max_bytes);

// What every reader does with a reference: the reference checked, an object
// over `max_bytes` refused before anything is asked of a store
// (LimitExceeded naming its key), then the bytes fetched and verified (exact
// size, then BLAKE3: ObjectRef::Verify).
Result<VerifiedObject> FetchVerified(const ObjectBytesFetch& fetch, const ObjectRef& ref, uint64_t max_bytes);

// A resolver naming `store` for every alias (one store; tests).
StoreResolver SingleStore(store::ObjectStore& store);

}  // namespace vigilo::cases
