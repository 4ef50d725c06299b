// StorageDocument: the interface of every case-storage metadata object (seed
// 004): its format identifier, its structural validation and its canonical
// encoding. Decoding goes through a VerifiedObject, so only bytes proven to
// match their reference are ever parsed.
#pragma once

#include <string>

#include "vigilo/cases/fields.h"
#include "vigilo/cases/object_ref.h"
#include "vigilo/cases/storage_format.h"
#include "vigilo/common/result.h"
#include "vigilo/json/value.h"

namespace vigilo::cases {

class StorageDocument {
 public:
  virtual ~StorageDocument() = default;
  virtual StorageFormat format() const = 0;
  // Structural rules of the format beyond field presence and types.
  virtual Status Validate() const = 0;
  virtual json::Value ToJson() const = 0;
  // Validates, then writes the canonical bytes.
  Result<std::string> Encode() const;
};

// The verified bytes must be the canonical JSON of an object whose `schema`
// names `format`, and the reference must name the same format.
Result<json::Value> DecodeDocumentJson(const VerifiedObject& object, StorageFormat format);

// Reads the `schema` field of `fields`: unknown identifiers and other formats are errors.
Status ExpectSchema(const Fields& fields, StorageFormat format);

}  // namespace vigilo::cases
