// Strict reading of a JSON object that must have exactly a known set of
// fields: the shared mechanism behind every case-storage and publication
// manifest decoder. Each error
// carries the JSON path of the offending field ("$.batches.object.digest").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/json/value.h"

namespace vigilo::json {

class Fields {
 public:
  // Fails unless `value` is an object; `path` names it in errors ("$", "$.source_fields").
  static Result<Fields> Of(const Value& value, std::string path);

  // Requires that the object has exactly these member names: a missing one or
  // any other one is an InvalidFormat error naming it.
  Status ExpectExactly(std::initializer_list<std::string_view> names) const;
  // Like ExpectExactly, but the `optional` names may be absent.
  Status ExpectOnly(std::initializer_list<std::string_view> required,
                    std::initializer_list<std::string_view> optional) const;

  bool Has(std::string_view name) const { return object_->Contains(name); }
  Result<const Value*> Get(std::string_view name) const;
  Result<std::string> String(std::string_view name) const;
  // A string, or nullopt for an explicit null.
  Result<std::optional<std::string>> NullableString(std::string_view name) const;
  Result<bool> Bool(std::string_view name) const;
  // An integer in [min, max]; floats such as 1.0 are not integers here.
  Result<int64_t> Int(std::string_view name, int64_t min, int64_t max) const;
  Result<Fields> Object(std::string_view name) const;
  Result<const json::Array*> Array(std::string_view name) const;

  // "$.a" + ".b" for nested readers.
  std::string PathOf(std::string_view name) const { return path_ + "." + std::string(name); }
  const std::string& path() const { return path_; }
  const json::Object& object() const { return *object_; }

 private:
  Fields(const json::Object* object, std::string path) : object_(object), path_(std::move(path)) {}
  Status Error(std::string_view name, std::string message) const;

  const json::Object* object_;
  std::string path_;
};

}  // namespace vigilo::json
