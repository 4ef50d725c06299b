#include "vigilo/cases/object_ref.h"

#include "vigilo/cases/fields.h"
#include "vigilo/common/hex.h"
#include "vigilo/common/paths.h"
#include "vigilo/common/utf8.h"
#include "vigilo/hash/blake3.h"

namespace vigilo::cases {

ObjectRef ObjectRef::ForBytes(std::string storage_alias, std::string key, StorageFormat schema,
                              std::string_view bytes, std::optional<std::string> revision) {
  return ObjectRef{std::move(storage_alias), std::move(key), schema, Blake3Hex(bytes), bytes.size(),
                   std::move(revision)};
}

Status ObjectRef::Validate() const {
  if (Status s = ValidateStorageAlias(storage_alias); !s.ok()) return s.WithPath(".storage_alias");
  if (Status s = ValidateLogicalKey(key); !s.ok()) return s.WithPath(".key");
  if (!IsLowerHex(digest, 64)) return InvalidFormat("digest must be 64 lowercase hex characters").WithPath(".digest");
  if (byte_count == 0) return InvalidFormat("byte_count must be positive").WithPath(".byte_count");
  if (revision) {
    if (revision->empty()) return InvalidFormat("revision must be null or a nonempty token").WithPath(".revision");
    if (revision->size() > kMaxRevisionBytes) {
      return InvalidFormat("revision is longer than 1024 bytes").WithPath(".revision");
    }
    if (!IsValidUtf8(*revision)) return InvalidFormat("revision is not valid UTF-8").WithPath(".revision");
    if (FindControlCharacter(*revision) != kUtf8Valid) {
      return InvalidFormat("revision contains a control character").WithPath(".revision");
    }
  }
  return Status::Ok();
}

Result<ObjectRef> ObjectRef::FromJson(const json::Value& value, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, path));
  VIGILO_RETURN_IF_ERROR(
      f.ExpectExactly({"byte_count", "digest", "hash_scheme", "key", "revision", "schema", "storage_alias"}));
  ObjectRef ref;
  VIGILO_ASSIGN_OR_RETURN(ref.storage_alias, f.String("storage_alias"));
  VIGILO_ASSIGN_OR_RETURN(ref.key, f.String("key"));
  VIGILO_ASSIGN_OR_RETURN(std::string schema, f.String("schema"));
  auto format = ParseStorageFormat(schema);
  if (!format) return InvalidFormat("unknown schema identifier \"" + schema + "\"").WithPath(f.PathOf("schema"));
  ref.schema = *format;
  VIGILO_ASSIGN_OR_RETURN(std::string scheme, f.String("hash_scheme"));
  if (scheme != kHashScheme) {
    return InvalidFormat("hash_scheme must be \"blake3-256\", got \"" + scheme + "\"").WithPath(f.PathOf("hash_scheme"));
  }
  VIGILO_ASSIGN_OR_RETURN(ref.digest, f.String("digest"));
  VIGILO_ASSIGN_OR_RETURN(int64_t count, f.Int("byte_count", 1, INT64_MAX));
  ref.byte_count = static_cast<uint64_t>(count);
  VIGILO_ASSIGN_OR_RETURN(ref.revision, f.NullableString("revision"));
  if (Status s = ref.Validate(); !s.ok()) return std::move(s).PrependPath(path);
  return ref;
}

json::Value ObjectRef::ToJson() const {
  json::Object o;
  o.Set("byte_count", json::Value::Uint(byte_count));
  o.Set("digest", json::Value(digest));
  o.Set("hash_scheme", json::Value(std::string(kHashScheme)));
  o.Set("key", json::Value(key));
  o.Set("revision", revision ? json::Value(*revision) : json::Value());
  o.Set("schema", json::Value(std::string(StorageFormatId(schema))));
  o.Set("storage_alias", json::Value(storage_alias));
  return json::Value(std::move(o));
}

Result<VerifiedObject> ObjectRef::Verify(std::string bytes, uint64_t max_bytes) const {
  VIGILO_RETURN_IF_ERROR(Validate());
  if (byte_count > max_bytes) {
    return LimitExceeded("referenced object is " + std::to_string(byte_count) + " bytes; the limit for " +
                         std::string(StorageFormatId(schema)) + " is " + std::to_string(max_bytes))
        .WithPath(key);
  }
  if (bytes.size() != byte_count) {
    return IntegrityError("object is " + std::to_string(bytes.size()) + " bytes; the reference says " +
                          std::to_string(byte_count))
        .WithPath(key);
  }
  std::string actual = Blake3Hex(bytes);
  if (actual != digest) {
    return IntegrityError("BLAKE3 digest " + actual + " does not match the reference " + digest).WithPath(key);
  }
  return VerifiedObject(*this, std::move(bytes));
}

}  // namespace vigilo::cases
