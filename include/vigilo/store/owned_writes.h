// The objects one unfinished write created, so that a failed write removes
// exactly those and nothing else (seed 004: cleanup deletes only keys the
// writer recorded before creating them; a published or pre-existing object
// is never deleted). The in-process form used by `index build`; the control
// ledger (src/control) makes the same record durable.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/store/object_store.h"

namespace vigilo::store {

class OwnedWrites {
 public:
  explicit OwnedWrites(ObjectStore& store) : store_(store) {}
  ObjectStore& store() { return store_; }

  // CreateIfAbsent through the store; the key is recorded before the create
  // is issued and owned only if the outcome is kCreated (an identical object
  // that already existed is not ours to delete). A failed create whose
  // outcome is unknown (a remote error) stays recorded as possibly ours.
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes);
  // A streaming create whose Commit records ownership the same way.
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key);

  // Deletes every object this write created (newest first), continuing past
  // failures; returns the first failure. Afterwards nothing is owned.
  Status RollBack();
  // The write succeeded: forget the record (nothing will be deleted).
  void Release() { created_.clear(); }

  const std::vector<std::string>& created() const { return created_; }

 private:
  friend class OwnedWriter;
  ObjectStore& store_;
  std::vector<std::string> created_;  // kCreated, or outcome unknown
};

}  // namespace vigilo::store
