// ObjectRef: the reference every case-storage metadata object uses to name
// another object (seed 004, "Object Reference"), and VerifiedObject, the
// proof that a byte string is exactly the referenced object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/cases/storage_format.h"
#include "vigilo/common/result.h"
#include "vigilo/json/value.h"

namespace vigilo::cases {

inline constexpr size_t kMaxRevisionBytes = 1024;

class VerifiedObject;

struct ObjectRef {
  std::string storage_alias;  // configured non-secret owner alias
  std::string key;            // relative logical key
  StorageFormat schema = StorageFormat::kCaseBatch;
  std::string digest;         // BLAKE3-256 of the exact bytes, 64 lowercase hex
  uint64_t byte_count = 0;    // exact, positive
  std::optional<std::string> revision;  // explicit null, or an opaque adapter token

  // A reference to `bytes` as they will be stored (digest and size computed).
  static ObjectRef ForBytes(std::string storage_alias, std::string key, StorageFormat schema,
                            std::string_view bytes, std::optional<std::string> revision = std::nullopt);

  // Strict decode of the JSON form (exactly the seven fields) plus Validate().
  static Result<ObjectRef> FromJson(const json::Value& value, const std::string& path);
  json::Value ToJson() const;

  // The reference limits: alias, key, digest form, positive byte count,
  // revision form. (The schema is valid by construction.)
  Status Validate() const;

  // Checks the reference, then that byte_count <= max_bytes (before touching
  // the bytes), then the exact size, then the BLAKE3 digest. IntegrityError
  // on any mismatch; LimitExceeded if the reference exceeds max_bytes.
  Result<VerifiedObject> Verify(std::string bytes, uint64_t max_bytes) const;

  friend bool operator==(const ObjectRef&, const ObjectRef&) = default;
};

// Bytes proven to match an ObjectRef. Only ObjectRef::Verify makes one, so a
// decoder that takes a VerifiedObject cannot be handed unverified bytes.
class VerifiedObject {
 public:
  const ObjectRef& ref() const { return ref_; }
  std::string_view bytes() const { return bytes_; }

 private:
  friend struct ObjectRef;
  VerifiedObject(ObjectRef ref, std::string bytes) : ref_(std::move(ref)), bytes_(std::move(bytes)) {}
  ObjectRef ref_;
  std::string bytes_;
};

}  // namespace vigilo::cases
