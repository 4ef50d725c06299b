// A fault-injecting ObjectStore for tests: wraps any store (a MemoryStore,
// a local directory) and, following a deterministic FaultPlan, makes chosen
// operations fail the ways a remote backend or a crashing process does:
// transient errors, timeouts, a lost acknowledgement after the effect, short
// and long reads, torn streaming writes, corrupted stored bytes, another
// writer winning the key, and a crash at operation N.
//
// Every call of the seam (Get, Head, CreateIfAbsent, BeginCreate, each
// writer Append and Commit, Delete) is one operation, numbered from 0 in the
// order the calls arrive (one counter shared with the wrapper's writers);
// capabilities() is not an operation. Each operation consults the plan once:
// the first rule (in plan order) that matches it and applies to its kind
// fires, at most one fault per operation. With one calling thread the
// numbering, and so every test, is deterministic; calls from several
// threads are safe but numbered in arrival order.
//
// A crash is a restarted process: after it, every call of this wrapper and
// of every writer it handed out fails with InjectedCrash() and open writers
// are abandoned (nothing becomes visible). The test then drops the wrapper
// and makes a fresh one over the same backing store, which still holds
// exactly what the "process" had created.
//
// A writer keeps a copy of everything appended (a race or a corruption at
// Commit needs the bytes): for test-sized objects, not for large data.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

enum class StoreOp { kGet, kHead, kCreateIfAbsent, kBeginCreate, kAppend, kCommit, kDelete };
std::string_view StoreOpName(StoreOp op);

enum class FaultKind {
  // Any operation: Unavailable / DeadlineExceeded, nothing reaches the
  // backing store. A failed Append or Commit leaves the writer failed.
  kTransient,
  kTimeout,
  // Any operation: it really happens in the backing store, then the caller
  // gets Unavailable (the reply was lost). The hard case for replays: a
  // retried create then sees kAlreadyIdentical.
  kAckLost,
  // Get: the caller gets the first half of the bytes asked for (rounded
  // down) / the bytes plus one extra 0x00 byte. Never hidden: the caller's
  // own size checks are what a test exercises.
  kShortRead,
  kLongRead,
  // Backends make objects visible atomically, so a torn write never becomes
  // visible: an Append passes the first half of its bytes to the backing
  // writer and then fails with IoError, abandoning the writer; a
  // CreateIfAbsent or Commit fails with IoError with nothing stored.
  kTornWrite,
  // CreateIfAbsent or Commit: the backing store receives other bytes (the
  // first byte inverted; an empty object becomes one 0x00 byte) while the
  // caller is told kCreated with its own size, so verification is tested.
  kCorruptStored,
  // CreateIfAbsent or Commit: just before the caller's create, another
  // writer creates the key in the backing store with the same bytes /
  // with other bytes (as kCorruptStored changes them). The caller's create
  // then proceeds and sees whatever the backend says.
  kExistsRaceIdentical,
  kExistsRaceDifferent,
  // Any operation: the process dies before the operation / right after it
  // took effect in the backing store. Either way the caller gets
  // InjectedCrash(), as does every later call.
  kCrash,
  kCrashAfterEffect,
};
std::string_view FaultKindName(FaultKind fault);

// Whether `fault` can happen to an operation of kind `op` (the table above).
// A rule never fires on an operation it does not apply to.
bool FaultAppliesTo(FaultKind fault, StoreOp op);

// The status of every call after an injected crash: Cancelled, "injected crash".
Status InjectedCrash();
bool IsInjectedCrash(const Status& status);

struct FaultRule {
  FaultKind fault = FaultKind::kTransient;
  // Only the operation with this number.
  std::optional<uint64_t> at_operation = std::nullopt;
  // Only operations of this kind.
  std::optional<StoreOp> op = std::nullopt;
  // Only operations on keys for which this returns true (Append and Commit
  // carry their writer's key).
  std::function<bool(std::string_view key)> key_matches = nullptr;
  // Let this many matching operations pass before the first firing.
  uint64_t skip = 0;
  // Fire on this many matching operations (0: on every one).
  uint64_t times = 1;
};

class FaultPlan {
 public:
  FaultPlan() = default;
  // Conveniences for the common rules; each returns *this for chaining.
  FaultPlan& At(uint64_t operation, FaultKind fault);
  FaultPlan& On(StoreOp op, FaultKind fault, uint64_t skip = 0, uint64_t times = 1);
  FaultPlan& OnKey(std::string key, StoreOp op, FaultKind fault, uint64_t skip = 0, uint64_t times = 1);
  FaultPlan& Add(FaultRule rule);

  const std::vector<FaultRule>& rules() const { return rules_; }

 private:
  std::vector<FaultRule> rules_;
};

// One fault that fired, for assertions.
struct InjectedFault {
  uint64_t operation = 0;
  StoreOp op = StoreOp::kGet;
  FaultKind fault = FaultKind::kTransient;
  std::string key;

  friend bool operator==(const InjectedFault&, const InjectedFault&) = default;
};

class FaultInjectingStore final : public ForwardingStore {
 public:
  // Over a store that outlives this wrapper and every writer it hands out.
  FaultInjectingStore(ObjectStore& inner, FaultPlan plan);
  // Owning form, for factories that return one store (writers keep the
  // inner store alive).
  FaultInjectingStore(std::shared_ptr<ObjectStore> inner, FaultPlan plan);
  ~FaultInjectingStore() override;

  // capabilities() are the inner store's, unchanged. Every call passes its
  // attempt context on.
  Result<Bytes> Get(std::string_view key, const GetOptions& options = {}) override;
  // Each request is one Get operation, numbered in request order; those
  // without a fault reach the inner store as one batch.
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override;
  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* attempt = nullptr) override;
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                      const AttemptContext* attempt = nullptr) override;
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key,
                                                    const AttemptContext* attempt = nullptr) override;
  Status Delete(std::string_view key, const AttemptContext* attempt = nullptr) override;

  // Operations numbered so far (the next operation's number).
  uint64_t operations() const;
  uint64_t faults_injected() const;
  std::vector<InjectedFault> injected() const;
  bool crashed() const;

  // Shared with writers, which may outlive the wrapper after a crash.
  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace vigilo::store
