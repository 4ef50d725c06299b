// The case tests' object store: store::MemoryStore (the one test fake of the
// seam, shared with every other layer's tests) reached through the adapters
// production uses (object_io.h), with the writes and fetches counted so a
// test can assert what was (not) requested. Tampering goes through
// MemoryStore's own test hooks (Overwrite, Peek, Delete).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "vigilo/cases/object_io.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::cases::test {

struct TestStore {
  store::MemoryStore memory;
  std::string alias = "mem";
  int writes = 0;
  int fetches = 0;

  // Create-if-absent (StoreSink): another object at a written key is AlreadyExists.
  ObjectSink Sink() {
    return [this, sink = StoreSink(memory, alias)](const std::string& key, StorageFormat schema, std::string bytes) {
      ++writes;
      return sink(key, schema, std::move(bytes));
    };
  }
  // Get and verify (StoreFetch), every object within `max_bytes`.
  ObjectFetch Fetch(uint64_t max_bytes = 64u << 20) {
    return [this, fetch = StoreFetch(SingleStore(memory), max_bytes)](const ObjectRef& ref) {
      ++fetches;
      return fetch(ref);
    };
  }
  // Get only (StoreBytesFetch): what ReadDataset takes.
  ObjectBytesFetch BytesFetch() {
    return [this, fetch = StoreBytesFetch(SingleStore(memory))](const ObjectRef& ref, uint64_t max_bytes) {
      ++fetches;
      return fetch(ref, max_bytes);
    };
  }
  // Stores `bytes` at `key` behind the writers' backs (replacing any object
  // there) and returns a reference to them: how a test plants a tampered or
  // hand-made object.
  ObjectRef Put(const std::string& key, StorageFormat schema, std::string bytes) {
    ObjectRef ref = ObjectRef::ForBytes(alias, key, schema, bytes);
    memory.Overwrite(key, std::move(bytes));
    return ref;
  }
  // The object at `key` ("" when there is none; tests compare exact bytes).
  std::string Object(const std::string& key) const { return memory.Peek(key).value_or(""); }
  bool Has(const std::string& key) const { return memory.Peek(key).has_value(); }
};

}  // namespace vigilo::cases::test
