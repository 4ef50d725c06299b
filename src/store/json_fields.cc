#include "json_fields.h"

#include <algorithm>
#include <utility>

#include "vigilo/common/paths.h"

namespace vigilo::store::json_fields {
namespace {

// [A-Za-z0-9_-], 1-128: the storage alias rule, safe to print.
bool IsPlainName(std::string_view name) { return ValidateStorageAlias(name).ok(); }

}  // namespace

Status FieldError(const std::string& path, std::string message) {
  return InvalidFormat(std::move(message)).WithPath(path);
}

Status CheckMembers(const json::Object& object, const std::string& path,
                    std::initializer_list<std::string_view> required,
                    std::initializer_list<std::string_view> optional) {
  for (std::string_view name : required) {
    if (!object.Contains(name)) return FieldError(path + "." + std::string(name), "missing required field");
  }
  for (const auto& [name, _] : object) {
    const bool known = std::find(required.begin(), required.end(), name) != required.end() ||
                       std::find(optional.begin(), optional.end(), name) != optional.end();
    if (known) continue;
    if (IsPlainName(name)) return FieldError(path + "." + name, "unexpected field");
    return FieldError(path, "unexpected field (its name is not shown: not a plain identifier)");
  }
  return Status::Ok();
}

Result<const json::Object*> ObjectAt(const json::Value& value, const std::string& path) {
  if (!value.is_object()) {
    return FieldError(path, "expected an object, got " + std::string(json::KindName(value.kind())));
  }
  return &value.as_object();
}

Result<bool> BoolAt(const json::Object& object, const std::string& path, std::string_view name, bool absent) {
  const json::Value* v = object.Find(name);
  if (v == nullptr) return absent;
  if (!v->is_bool()) {
    return FieldError(path + "." + std::string(name),
                      "expected a boolean, got " + std::string(json::KindName(v->kind())));
  }
  return v->as_bool();
}

Result<std::optional<std::string>> StringAt(const json::Object& object, const std::string& path,
                                            std::string_view name) {
  const json::Value* v = object.Find(name);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) {
    return FieldError(path + "." + std::string(name),
                      "expected a string, got " + std::string(json::KindName(v->kind())));
  }
  return std::optional<std::string>(v->as_string());
}

}  // namespace vigilo::store::json_fields
