#include "vigilo/store/fault_store.h"

#include <mutex>
#include <utility>

namespace vigilo::store {

std::string_view StoreOpName(StoreOp op) {
  switch (op) {
    case StoreOp::kGet: return "Get";
    case StoreOp::kHead: return "Head";
    case StoreOp::kCreateIfAbsent: return "CreateIfAbsent";
    case StoreOp::kBeginCreate: return "BeginCreate";
    case StoreOp::kAppend: return "Append";
    case StoreOp::kCommit: return "Commit";
    case StoreOp::kDelete: return "Delete";
  }
  return "?";
}

std::string_view FaultKindName(FaultKind fault) {
  switch (fault) {
    case FaultKind::kTransient: return "transient";
    case FaultKind::kTimeout: return "timeout";
    case FaultKind::kAckLost: return "ack_lost";
    case FaultKind::kShortRead: return "short_read";
    case FaultKind::kLongRead: return "long_read";
    case FaultKind::kTornWrite: return "torn_write";
    case FaultKind::kCorruptStored: return "corrupt_stored";
    case FaultKind::kExistsRaceIdentical: return "exists_race_identical";
    case FaultKind::kExistsRaceDifferent: return "exists_race_different";
    case FaultKind::kCrash: return "crash";
    case FaultKind::kCrashAfterEffect: return "crash_after_effect";
  }
  return "?";
}

bool FaultAppliesTo(FaultKind fault, StoreOp op) {
  switch (fault) {
    case FaultKind::kTransient:
    case FaultKind::kTimeout:
    case FaultKind::kAckLost:
    case FaultKind::kCrash:
    case FaultKind::kCrashAfterEffect:
      return true;
    case FaultKind::kShortRead:
    case FaultKind::kLongRead:
      return op == StoreOp::kGet;
    case FaultKind::kTornWrite:
      return op == StoreOp::kCreateIfAbsent || op == StoreOp::kAppend || op == StoreOp::kCommit;
    case FaultKind::kCorruptStored:
    case FaultKind::kExistsRaceIdentical:
    case FaultKind::kExistsRaceDifferent:
      return op == StoreOp::kCreateIfAbsent || op == StoreOp::kCommit;
  }
  return false;
}

Status InjectedCrash() { return Cancelled("injected crash"); }

bool IsInjectedCrash(const Status& status) {
  return status.code() == StatusCode::kCancelled && status.message() == "injected crash";
}

FaultPlan& FaultPlan::At(uint64_t operation, FaultKind fault) {
  FaultRule rule;
  rule.fault = fault;
  rule.at_operation = operation;
  return Add(std::move(rule));
}

FaultPlan& FaultPlan::On(StoreOp op, FaultKind fault, uint64_t skip, uint64_t times) {
  FaultRule rule;
  rule.fault = fault;
  rule.op = op;
  rule.skip = skip;
  rule.times = times;
  return Add(std::move(rule));
}

FaultPlan& FaultPlan::OnKey(std::string key, StoreOp op, FaultKind fault, uint64_t skip, uint64_t times) {
  FaultRule rule;
  rule.fault = fault;
  rule.op = op;
  rule.key_matches = [key = std::move(key)](std::string_view k) { return k == key; };
  rule.skip = skip;
  rule.times = times;
  return Add(std::move(rule));
}

FaultPlan& FaultPlan::Add(FaultRule rule) {
  rules_.push_back(std::move(rule));
  return *this;
}

struct FaultInjectingStore::State {
  State(ObjectStore* inner_store, std::shared_ptr<ObjectStore> owned_store, FaultPlan fault_plan)
      : owned(std::move(owned_store)),
        inner(inner_store),
        plan(std::move(fault_plan)),
        matched(plan.rules().size(), 0),
        fired(plan.rules().size(), 0) {}

  // What one operation does: fail because the process crashed earlier, or
  // run with at most one fault.
  struct Decision {
    bool crashed = false;
    std::optional<FaultKind> fault;
  };

  // Numbers the operation and consults the plan, unless `eligible` is false
  // (a writer that already failed: the call is numbered but cannot fault).
  Decision Begin(StoreOp op, std::string_view key, bool eligible = true) {
    std::lock_guard lock(mu);
    uint64_t number = next_operation++;
    if (crashed) return Decision{true, std::nullopt};
    if (!eligible) return {};
    const std::vector<FaultRule>& rules = plan.rules();
    for (size_t i = 0; i < rules.size(); ++i) {
      const FaultRule& rule = rules[i];
      if (rule.at_operation && *rule.at_operation != number) continue;
      if (rule.op && *rule.op != op) continue;
      if (!FaultAppliesTo(rule.fault, op)) continue;
      if (rule.key_matches && !rule.key_matches(key)) continue;
      if (++matched[i] <= rule.skip) continue;
      if (rule.times != 0 && fired[i] >= rule.times) continue;
      ++fired[i];
      injected.push_back({.operation = number, .op = op, .fault = rule.fault, .key = std::string(key)});
      // Both crash kinds kill the process now: a concurrent call must not
      // slip in after a "dead" process's last operation.
      if (rule.fault == FaultKind::kCrash) {
        crashed = true;
        return Decision{true, std::nullopt};
      }
      if (rule.fault == FaultKind::kCrashAfterEffect) crashed = true;
      return Decision{false, rule.fault};
    }
    return {};
  }

  std::shared_ptr<ObjectStore> owned;  // the owning form only
  ObjectStore* inner;
  mutable std::mutex mu;
  FaultPlan plan;
  std::vector<uint64_t> matched;  // per rule: matching operations seen
  std::vector<uint64_t> fired;    // per rule: faults injected
  uint64_t next_operation = 0;
  bool crashed = false;
  std::vector<InjectedFault> injected;
};

namespace {

using Decision = FaultInjectingStore::State::Decision;

// The bytes "another writer" or a corrupting backend stores instead: the
// first byte inverted, or one 0x00 byte for an empty object.
std::string OtherBytes(std::span<const uint8_t> bytes) {
  std::string other(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (other.empty()) return std::string(1, '\0');
  other[0] = static_cast<char>(~static_cast<unsigned char>(other[0]));
  return other;
}

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The faults every operation kind shares: the status the caller gets,
// running `effect` (the real operation, result dropped) first where the
// fault lets it happen. nullopt for a fault specific to the operation.
template <typename Effect>
std::optional<Status> SharedFault(FaultKind fault, Effect&& effect) {
  switch (fault) {
    case FaultKind::kTransient:
      return Unavailable("injected transient failure");
    case FaultKind::kTimeout:
      return DeadlineExceeded("injected timeout");
    case FaultKind::kAckLost:
      effect();
      return Unavailable("injected lost acknowledgement");
    case FaultKind::kCrash:
      return InjectedCrash();
    case FaultKind::kCrashAfterEffect:
      effect();
      return InjectedCrash();
    default:
      return std::nullopt;
  }
}

// For operation kinds to which only the shared faults apply.
template <typename Effect>
Status OnlySharedFault(FaultKind fault, Effect&& effect) {
  std::optional<Status> s = SharedFault(fault, std::forward<Effect>(effect));
  return s ? *std::move(s) : Internal("fault " + std::string(FaultKindName(fault)) + " does not apply here");
}

Status TornWrite() { return IoError("injected torn write"); }

// Creates `key` with `bytes` in `inner` as the fault says, for
// CreateIfAbsent and a writer's Commit alike (`commit` is the unfaulted
// create; the fault decides what happens around it).
template <typename Commit>
Result<CreateResult> CreateWithFault(ObjectStore& inner, std::string_view key, std::span<const uint8_t> bytes,
                                     FaultKind fault, Commit&& commit) {
  switch (fault) {
    case FaultKind::kTornWrite:
      return TornWrite();
    case FaultKind::kCorruptStored: {
      std::string other = OtherBytes(bytes);
      VIGILO_ASSIGN_OR_RETURN(CreateResult result, inner.CreateIfAbsent(key, AsBytes(other)));
      result.size = bytes.size();  // the caller must not notice here
      return result;
    }
    case FaultKind::kExistsRaceIdentical:
      (void)inner.CreateIfAbsent(key, bytes);
      return commit();
    case FaultKind::kExistsRaceDifferent: {
      std::string other = OtherBytes(bytes);
      (void)inner.CreateIfAbsent(key, AsBytes(other));
      return commit();
    }
    default:
      return Internal("fault " + std::string(FaultKindName(fault)) + " does not apply to a create");
  }
}

class FaultInjectingWriter final : public ObjectWriter {
 public:
  FaultInjectingWriter(std::shared_ptr<FaultInjectingStore::State> state, std::string key,
                       std::unique_ptr<ObjectWriter> inner)
      : state_(std::move(state)), key_(std::move(key)), inner_(std::move(inner)) {}

  Status Append(std::span<const uint8_t> bytes) override {
    Decision d = state_->Begin(StoreOp::kAppend, key_, Usable());
    if (d.crashed) return Abandon(InjectedCrash());
    if (!Usable()) return failed_;
    if (!d.fault) {
      Status s = inner_->Append(bytes);
      if (s.ok()) appended_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      return s;
    }
    if (*d.fault == FaultKind::kTornWrite) {
      (void)inner_->Append(bytes.first(bytes.size() / 2));
      return Abandon(TornWrite());
    }
    return Abandon(OnlySharedFault(*d.fault, [&] { (void)inner_->Append(bytes); }));
  }

  uint64_t size() const override { return inner_ ? inner_->size() : appended_.size(); }

  Result<CreateResult> Commit(const AttemptContext* attempt = nullptr) override {
    Decision d = state_->Begin(StoreOp::kCommit, key_, Usable());
    if (d.crashed) return Abandon(InjectedCrash());
    if (!Usable()) return failed_;
    if (!d.fault) return inner_->Commit(attempt);
    std::optional<Status> shared = SharedFault(*d.fault, [&] { (void)inner_->Commit(attempt); });
    if (shared) return Abandon(*std::move(shared));
    if (*d.fault == FaultKind::kCorruptStored) inner_.reset();  // the other bytes go in instead
    Result<CreateResult> result = CreateWithFault(*state_->inner, key_, AsBytes(appended_), *d.fault,
                                                  [&] { return inner_->Commit(attempt); });
    if (*d.fault == FaultKind::kTornWrite) return Abandon(result.status());
    if (inner_ == nullptr) {  // committed (or failed) without the inner writer
      failed_ = result.ok() ? Internal("object writer already committed") : result.status();
    }
    return result;
  }

 private:
  bool Usable() const { return inner_ != nullptr; }

  // The writer is dead: nothing it holds can become visible any more, and
  // every later call returns `status`.
  Status Abandon(Status status) {
    inner_.reset();
    failed_ = status;
    return status;
  }

  std::shared_ptr<FaultInjectingStore::State> state_;
  std::string key_;
  std::unique_ptr<ObjectWriter> inner_;  // null once abandoned
  std::string appended_;                 // what the caller appended (for races and corruption at Commit)
  Status failed_;
};

}  // namespace

FaultInjectingStore::FaultInjectingStore(ObjectStore& inner, FaultPlan plan)
    : ForwardingStore(inner), state_(std::make_shared<State>(&inner, nullptr, std::move(plan))) {}

FaultInjectingStore::FaultInjectingStore(std::shared_ptr<ObjectStore> inner, FaultPlan plan)
    : ForwardingStore(*inner), state_(std::make_shared<State>(inner.get(), inner, std::move(plan))) {}

FaultInjectingStore::~FaultInjectingStore() = default;

namespace {

// A Get the plan decided to fail or falsify.
Result<Bytes> FaultedGet(ObjectStore& inner, std::string_view key, const GetOptions& options, FaultKind fault) {
  if (std::optional<Status> s = SharedFault(fault, [&] { (void)inner.Get(key, options); })) return *s;
  VIGILO_ASSIGN_OR_RETURN(Bytes bytes, inner.Get(key, options));
  if (fault == FaultKind::kShortRead) return bytes.Slice(0, bytes.size() / 2);
  std::string longer(bytes.view());
  longer.push_back('\0');
  return Bytes::FromString(std::move(longer));
}

}  // namespace

Result<Bytes> FaultInjectingStore::Get(std::string_view key, const GetOptions& options) {
  Decision d = state_->Begin(StoreOp::kGet, key);
  if (d.crashed) return InjectedCrash();
  ObjectStore& inner = *state_->inner;
  if (!d.fault) return inner.Get(key, options);
  return FaultedGet(inner, key, options, *d.fault);
}

std::vector<GetResponse> FaultInjectingStore::GetMany(std::span<const GetRequest> requests) {
  std::vector<Decision> decisions;
  decisions.reserve(requests.size());
  std::vector<GetRequest> clean;
  std::vector<size_t> clean_index;
  for (size_t i = 0; i < requests.size(); ++i) {
    decisions.push_back(state_->Begin(StoreOp::kGet, requests[i].key));
    if (!decisions.back().crashed && !decisions.back().fault) {
      clean.push_back(requests[i]);
      clean_index.push_back(i);
    }
  }
  ObjectStore& inner = *state_->inner;
  std::vector<GetResponse> answers(requests.size(), GetResponse{Result<Bytes>(Internal("unanswered"))});
  if (!clean.empty()) {
    std::vector<GetResponse> batch = inner.GetMany(clean);
    for (size_t j = 0; j < batch.size(); ++j) answers[clean_index[j]] = std::move(batch[j]);
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    if (decisions[i].crashed) {
      answers[i] = GetResponse{Result<Bytes>(InjectedCrash())};
    } else if (decisions[i].fault) {
      answers[i] = GetResponse{FaultedGet(inner, requests[i].key, requests[i].options, *decisions[i].fault)};
    }
  }
  return answers;
}

Result<ObjectInfo> FaultInjectingStore::Head(std::string_view key, const AttemptContext* attempt) {
  Decision d = state_->Begin(StoreOp::kHead, key);
  if (d.crashed) return InjectedCrash();
  ObjectStore& inner = *state_->inner;
  if (!d.fault) return inner.Head(key, attempt);
  return OnlySharedFault(*d.fault, [&] { (void)inner.Head(key, attempt); });
}

Result<CreateResult> FaultInjectingStore::CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                                         const AttemptContext* attempt) {
  Decision d = state_->Begin(StoreOp::kCreateIfAbsent, key);
  if (d.crashed) return InjectedCrash();
  ObjectStore& inner = *state_->inner;
  if (!d.fault) return inner.CreateIfAbsent(key, bytes, attempt);
  if (std::optional<Status> s = SharedFault(*d.fault, [&] { (void)inner.CreateIfAbsent(key, bytes, attempt); })) {
    return *s;
  }
  return CreateWithFault(inner, key, bytes, *d.fault, [&] { return inner.CreateIfAbsent(key, bytes, attempt); });
}

Result<std::unique_ptr<ObjectWriter>> FaultInjectingStore::BeginCreate(std::string_view key, const AttemptContext* attempt) {
  Decision d = state_->Begin(StoreOp::kBeginCreate, key);
  if (d.crashed) return InjectedCrash();
  ObjectStore& inner = *state_->inner;
  if (d.fault) return OnlySharedFault(*d.fault, [&] { (void)inner.BeginCreate(key, attempt); });
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> writer, inner.BeginCreate(key, attempt));
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<FaultInjectingWriter>(state_, std::string(key), std::move(writer)));
}

Status FaultInjectingStore::Delete(std::string_view key, const AttemptContext* attempt) {
  Decision d = state_->Begin(StoreOp::kDelete, key);
  if (d.crashed) return InjectedCrash();
  ObjectStore& inner = *state_->inner;
  if (!d.fault) return inner.Delete(key, attempt);
  return OnlySharedFault(*d.fault, [&] { (void)inner.Delete(key, attempt); });
}

uint64_t FaultInjectingStore::operations() const {
  std::lock_guard lock(state_->mu);
  return state_->next_operation;
}

uint64_t FaultInjectingStore::faults_injected() const {
  std::lock_guard lock(state_->mu);
  return state_->injected.size();
}

std::vector<InjectedFault> FaultInjectingStore::injected() const {
  std::lock_guard lock(state_->mu);
  return state_->injected;
}

bool FaultInjectingStore::crashed() const {
  std::lock_guard lock(state_->mu);
  return state_->crashed;
}

}  // namespace vigilo::store
