#include "vigilo/cases/document.h"

#include "vigilo/json/canonical.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {

Result<std::string> StorageDocument::Encode() const {
  VIGILO_RETURN_IF_ERROR(Validate());
  return json::ToCanonical(ToJson());
}

Status ExpectSchema(const Fields& fields, StorageFormat format) {
  VIGILO_ASSIGN_OR_RETURN(std::string id, fields.String("schema"));
  auto parsed = ParseStorageFormat(id);
  if (!parsed) return InvalidFormat("unknown schema identifier \"" + id + "\"").WithPath(fields.PathOf("schema"));
  if (*parsed != format) {
    return InvalidFormat("expected schema \"" + std::string(StorageFormatId(format)) + "\", got \"" + id + "\"")
        .WithPath(fields.PathOf("schema"));
  }
  return Status::Ok();
}

Result<json::Value> DecodeDocumentJson(const VerifiedObject& object, StorageFormat format) {
  if (object.ref().schema != format) {
    return InvalidFormat("the reference names schema \"" + std::string(StorageFormatId(object.ref().schema)) +
                         "\" where \"" + std::string(StorageFormatId(format)) + "\" is required")
        .WithPath(object.ref().key);
  }
  json::ParseOptions options;
  options.max_bytes = object.bytes().size();
  auto value = json::Parse(object.bytes(), options);
  if (!value.ok()) return value.status().WithPath(object.ref().key);
  if (Status s = json::CheckCanonicalBytes(object.bytes(), *value); !s.ok()) return s.WithPath(object.ref().key);
  VIGILO_ASSIGN_OR_RETURN(Fields fields, Fields::Of(*value, "$"));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(fields, format));
  return std::move(value).value();
}

}  // namespace vigilo::cases
