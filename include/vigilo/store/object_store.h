// The ObjectStore seam: every object read and write of both halves goes
// through this one small interface (LevelDB's Env is the model), so a test
// can replace any backend and every backend passes one conformance suite
// (src/store/store_conformance_test.cc). No listing: both seeds forbid it;
// every key is known from a manifest, a reference or a ledger.
//
// Semantics (seed 004 "Object Storage"): objects are immutable. A create is
// conditional: it makes the object visible only if the key is absent; a
// replay of identical bytes is verified and reported, other bytes at the key
// are AlreadyExists and the existing object is never touched. Content
// digests are not a backend's job (publications use SHA-256, case storage
// BLAKE3): DigestingWriter and the callers compute them.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/byte_range.h"
#include "vigilo/common/result.h"
#include "vigilo/store/call_context.h"

namespace vigilo::store {

// Immutable bytes with shared ownership: a view into a mapping (the local
// backend, zero-copy), a buffer, or a slice of either. Copies share.
class Bytes {
 public:
  Bytes() = default;
  Bytes(std::shared_ptr<const void> owner, std::span<const uint8_t> view)
      : owner_(std::move(owner)), view_(view) {}
  static Bytes FromVector(std::vector<uint8_t> bytes);
  static Bytes FromString(std::string bytes);
  static Bytes Copy(std::span<const uint8_t> bytes);

  std::span<const uint8_t> span() const { return view_; }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(view_.data()), view_.size()};
  }
  const uint8_t* data() const { return view_.data(); }
  size_t size() const { return view_.size(); }
  bool empty() const { return view_.empty(); }
  // [offset, offset + length) of these bytes, sharing the owner; the caller
  // keeps it within size().
  Bytes Slice(size_t offset, size_t length) const { return Bytes(owner_, view_.subspan(offset, length)); }

 private:
  std::shared_ptr<const void> owner_;
  std::span<const uint8_t> view_;
};

// What a store guarantees. Conditional create and read-after-create are
// declared per configured alias/endpoint (seed 004), not assumed per
// backend type; a store without both refuses write use (RequireWritable).
struct Capabilities {
  bool writable = false;            // creates and deletes are possible at all
  bool conditional_create = false;  // a create is atomic against concurrent writers of the key
  bool read_after_create = false;   // a completed create is visible to every later Get
  bool single_ranges = true;        // a ranged Get transfers only that range
  bool revisions = false;           // objects carry a revision token (ETag, version id)
};

struct GetOptions {
  // Only these bytes (none: the whole object). A range past the end is
  // OutOfRange; an empty range returns no bytes.
  std::optional<ByteRange> range;
  // A larger answer is LimitExceeded, decided before bytes are transferred.
  uint64_t max_bytes = std::numeric_limits<uint64_t>::max();
  // The object's total size when the caller knows it (a manifest descriptor,
  // an ObjectRef): a different size is IntegrityError.
  std::optional<uint64_t> expected_size;
  // False when the caller reads the bytes once and keeps a copy (case
  // storage reads whole objects): a backend then keeps nothing of them in
  // its caches (the local store's mappings), so reading a large dataset
  // once does not grow the process.
  bool reuse = true;
  // The attempt this Get is (the governor's per-call context): its
  // deadline, timeouts and cancel token. None: one attempt under
  // DefaultAttempt's limits.
  const AttemptContext* attempt = nullptr;
};

struct ObjectInfo {
  uint64_t size = 0;
  std::optional<std::string> revision;  // only where capabilities().revisions
};

// One Get of a batch (ObjectStore::GetMany).
struct GetRequest {
  std::string_view key;
  GetOptions options;
};

struct GetResponse {
  Result<Bytes> bytes;
  // Answered by a local cache in front of a remote store (CachingStore): no
  // request left the process. Readers count requests and bytes without these.
  bool cached = false;
};

enum class CreateOutcome { kCreated, kAlreadyIdentical };

struct CreateResult {
  CreateOutcome outcome = CreateOutcome::kCreated;
  uint64_t size = 0;
  std::optional<std::string> revision;  // only where capabilities().revisions
};

// A streaming create for objects too large to buffer. Nothing is visible at
// the key until Commit; destroying a writer before Commit abandons it and
// leaves nothing behind.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  virtual Status Append(std::span<const uint8_t> bytes) = 0;
  virtual uint64_t size() const = 0;
  // Create-if-absent with the bytes appended (the same outcomes as
  // ObjectStore::CreateIfAbsent). A writer is committed at most once; after
  // a failed Append, Commit fails too.
  virtual Result<CreateResult> Commit(const AttemptContext* attempt = nullptr) = 0;
};

// Every call is one attempt: a backend never waits, retries or gives up on
// its own (the request governor does, governor.h), and takes its deadline,
// timeouts and cancel token from the AttemptContext a call carries
// (GetOptions::attempt for a Get, the last parameter of the others).
class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  virtual const Capabilities& capabilities() const = 0;

  // Exactly the bytes asked for. NotFound for a missing key, OutOfRange for
  // a range past the end, LimitExceeded over max_bytes, IntegrityError for a
  // size other than expected_size or a short/long body from a remote.
  virtual Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) = 0;

  // Independent Gets (a reader's plan for one round trip), each answered
  // exactly as Get would answer it, in request order. This default runs them
  // one after another; a backend with latency runs them concurrently (the
  // http(s) store, on one connection pool). Each request carries its own
  // attempt context; a governed store hands its backend batches of at most
  // its free permits.
  virtual std::vector<GetResponse> GetMany(std::span<const GetRequest> requests);

  // The object's size (and revision). Only where a caller has no size from a
  // manifest or reference; remote readers of publications never need it.
  virtual Result<ObjectInfo> Head(std::string_view key, const AttemptContext* attempt = nullptr) = 0;

  // Create-if-absent: kCreated, or kAlreadyIdentical when the key holds
  // exactly these bytes; AlreadyExists when it holds other bytes (untouched).
  virtual Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                              const AttemptContext* attempt = nullptr) = 0;

  virtual Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key,
                                                            const AttemptContext* attempt = nullptr) = 0;

  // Removes an object. Only for keys the caller's own unfinished write
  // recorded before creating them (OwnedWrites, the control ledger), never a
  // published object. Deleting a missing key is OK (cleanup is idempotent).
  virtual Status Delete(std::string_view key, const AttemptContext* attempt = nullptr) = 0;
};

// InvalidArgument unless the store is writable and guarantees conditional
// create and read-after-create (seed 004: such a store refuses write use).
// `alias` names the store in the message.
Status RequireWritable(const ObjectStore& store, std::string_view alias);

// Every backend validates keys the same way: a valid logical key
// (common/paths.h), InvalidArgument otherwise.
Status ValidateStoreKey(std::string_view key);

// The checks every backend applies to a Get once it knows the object's size:
// expected_size, the range within the object, max_bytes. Returns the range
// to transfer.
Result<ByteRange> PlanGet(std::string_view key, uint64_t object_size, const GetOptions& options);

// Convenience: the whole object as a string (a copy), with a size cap.
Result<std::string> GetString(ObjectStore& store, std::string_view key, uint64_t max_bytes);

}  // namespace vigilo::store
