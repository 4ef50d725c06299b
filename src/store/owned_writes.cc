#include "vigilo/store/owned_writes.h"

#include <algorithm>
#include <functional>

namespace vigilo::store {

// Wraps a backend's writer so that its Commit records ownership exactly as
// OwnedWrites::CreateIfAbsent does. Also the one place that rule lives.
class OwnedWriter final : public ObjectWriter {
 public:
  OwnedWriter(OwnedWrites& owner, std::string key, std::unique_ptr<ObjectWriter> inner)
      : owner_(owner), key_(std::move(key)), inner_(std::move(inner)) {}

  Status Append(std::span<const uint8_t> bytes) override { return inner_->Append(bytes); }
  uint64_t size() const override { return inner_->size(); }
  Result<CreateResult> Commit(const AttemptContext* attempt = nullptr) override {
    return Track(owner_, key_, [this, attempt] { return inner_->Commit(attempt); });
  }

  // Records `key` before `create` runs; forgets it again only when the
  // outcome proves the object is not this write's: it already existed
  // (identical or not), or the store refused the request outright. Any
  // other failure may have created it (a remote error after the upload), so
  // the key stays recorded. A key recorded earlier stays recorded: a replay
  // of this write's own object does not disown it.
  static Result<CreateResult> Track(OwnedWrites& owner, const std::string& key,
                                    const std::function<Result<CreateResult>()>& create) {
    auto& created = owner.created_;
    bool recorded_before = std::find(created.begin(), created.end(), key) != created.end();
    if (!recorded_before) created.push_back(key);
    Result<CreateResult> result = create();
    bool not_ours = result.ok() ? result->outcome != CreateOutcome::kCreated
                                : result.status().code() == StatusCode::kAlreadyExists ||
                                      result.status().code() == StatusCode::kInvalidArgument;
    if (not_ours && !recorded_before && !created.empty() && created.back() == key) created.pop_back();
    return result;
  }

 private:
  OwnedWrites& owner_;
  std::string key_;
  std::unique_ptr<ObjectWriter> inner_;
};

Result<CreateResult> OwnedWrites::CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes) {
  return OwnedWriter::Track(*this, std::string(key), [&] { return store_.CreateIfAbsent(key, bytes); });
}

Result<std::unique_ptr<ObjectWriter>> OwnedWrites::BeginCreate(std::string_view key) {
  // Nothing is visible before Commit, so nothing is recorded before it.
  VIGILO_ASSIGN_OR_RETURN(auto inner, store_.BeginCreate(key));
  return std::unique_ptr<ObjectWriter>(new OwnedWriter(*this, std::string(key), std::move(inner)));
}

Status OwnedWrites::RollBack() {
  Status first_failure;
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    Status deleted = store_.Delete(*it);
    if (!deleted.ok() && first_failure.ok()) first_failure = std::move(deleted);
  }
  created_.clear();
  return first_failure;
}

}  // namespace vigilo::store
