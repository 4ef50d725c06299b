#include "ledger_rules.h"

#include "vigilo/common/paths.h"
#include "vigilo/common/utf8.h"
#include "vigilo/json/canonical.h"

namespace vigilo::control::rules {
namespace {

// Printable text: valid UTF-8 without control characters, as owners and
// store ids are printed by `vigilo store cleanup`.
Status ValidateText(std::string_view text, size_t max_bytes, std::string_view what) {
  if (text.empty()) return InvalidArgument(std::string(what) + " is empty");
  if (text.size() > max_bytes) {
    return InvalidArgument(std::string(what) + " is " + std::to_string(text.size()) + " bytes; the limit is " +
                           std::to_string(max_bytes));
  }
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return InvalidArgument(std::string(what) + " contains a control character");
  }
  if (!IsValidUtf8(text)) return InvalidArgument(std::string(what) + " is not valid UTF-8");
  return Status::Ok();
}

Status ValidateCanonicalObject(std::string_view value, size_t max_bytes, std::string_view what) {
  if (value.size() > max_bytes) {
    return InvalidArgument(std::string(what) + " is " + std::to_string(value.size()) + " bytes; the limit is " +
                           std::to_string(max_bytes));
  }
  if (value.empty() || value.front() != '{') return InvalidArgument(std::string(what) + " must be a JSON object");
  if (Status s = json::CheckCanonical(value); !s.ok()) {
    return InvalidArgument(std::string(what) + " must be canonical JSON: " + s.ToString());
  }
  return Status::Ok();
}

}  // namespace

Status ValidateOwner(std::string_view owner) { return ValidateText(owner, kMaxOwnerBytes, "the owner"); }

Status ValidateStoreId(std::string_view store) { return ValidateText(store, kMaxStoreIdBytes, "the store id"); }

Status ValidateLeaseDuration(Micros duration) {
  if (duration <= 0 || duration > kMaxLeaseDuration) {
    return InvalidArgument("a lease lasts more than 0 and at most 24 hours; got " + std::to_string(duration) +
                           " µs");
  }
  return Status::Ok();
}

Status ValidateDelay(Micros delay, Micros at_least, std::string_view what) {
  if (delay < at_least || delay > kMaxLeaseDuration) {
    return InvalidArgument(std::string(what) + " must be " + (at_least > 0 ? "more than 0" : "at least 0") +
                           " and at most 24 hours; got " + std::to_string(delay) + " µs");
  }
  return Status::Ok();
}

Status ValidateSpec(const AttemptSpec& spec) {
  VIGILO_RETURN_IF_ERROR(ValidateRootName(spec.name));
  VIGILO_RETURN_IF_ERROR(ValidateStoreId(spec.store));
  VIGILO_RETURN_IF_ERROR(ValidateOwner(spec.owner));
  VIGILO_RETURN_IF_ERROR(
      ValidateCanonicalObject(spec.admission_limits, kMaxAdmissionLimitsBytes, "the admission limits"));
  if (spec.attempt_id.has_value() && spec.attempt_id->is_nil()) {
    return InvalidArgument("the attempt ID must not be the nil UUID");
  }
  if (spec.generation == 0) return InvalidArgument("the generation must be at least 1");
  return ValidateLeaseDuration(spec.lease_duration);
}

Status ValidateRootValue(std::string_view value, std::string_view what) {
  return ValidateCanonicalObject(value, kMaxRootValueBytes, what);
}

Status ValidateRecordedKeys(std::string_view prefix, std::span<const std::string> keys) {
  for (const std::string& key : keys) {
    if (Status s = ValidateLogicalKey(key); !s.ok()) {
      return InvalidArgument("cannot record key \"" + key + "\": " + std::string(s.message()));
    }
    if (key.size() <= prefix.size() || key.compare(0, prefix.size(), prefix) != 0) {
      return InvalidArgument("cannot record key \"" + key + "\": an attempt records only keys under its prefix " +
                             std::string(prefix));
    }
  }
  return Status::Ok();
}


Status CheckFence(const AttemptRecord& row, const Lease& lease, Micros now) {
  const std::string name = AttemptName(row.attempt);
  if (row.epoch != lease.epoch) {
    return Fenced("attempt " + name + " was taken over: its fencing epoch is now " + std::to_string(row.epoch) +
                  " and this writer holds " + std::to_string(lease.epoch));
  }
  if (row.state == AttemptState::kAbandoned) return Fenced("attempt " + name + " was abandoned");
  if (row.state == AttemptState::kPublished) return Fenced("attempt " + name + " is already published");
  if (now >= row.lease_expires_at) {
    return Fenced("the lease on attempt " + name + " expired at " + FormatWallTime(row.lease_expires_at));
  }
  return Status::Ok();
}

Status CheckTakeover(const AttemptRecord& row, Micros now, std::string_view action) {
  const std::string name = AttemptName(row.attempt);
  if (row.state == AttemptState::kPublished) return AlreadyExists("attempt " + name + " is already published");
  if (row.state == AttemptState::kAbandoned) {
    return Fenced("attempt " + name + " was abandoned: its keys are cleanup work and it cannot be resumed");
  }
  if (now < row.lease_expires_at) {
    return Unavailable("attempt " + name + " is leased by " + row.owner + " until " +
                       FormatWallTime(row.lease_expires_at) + "; it can be " + std::string(action) +
                       " once the lease expires");
  }
  return Status::Ok();
}

std::string RootPath(Namespace ns, std::string_view name) {
  return std::string(NamespaceName(ns)) + "/" + std::string(name);
}

Lease LeaseOf(const AttemptRecord& row) {
  return Lease{row.attempt, row.epoch, row.lease_expires_at, row.key_prefix};
}

}  // namespace vigilo::control::rules
