#include "vigilo/json/fields.h"

#include <algorithm>

namespace vigilo::json {

Result<Fields> Fields::Of(const Value& value, std::string path) {
  if (!value.is_object()) {
    return InvalidFormat("expected an object, got " + std::string(KindName(value.kind()))).WithPath(path);
  }
  return Fields(&value.as_object(), std::move(path));
}

Status Fields::Error(std::string_view name, std::string message) const {
  return InvalidFormat(std::move(message)).WithPath(PathOf(name));
}

Status Fields::ExpectOnly(std::initializer_list<std::string_view> required,
                          std::initializer_list<std::string_view> optional) const {
  for (std::string_view name : required) {
    if (!object_->Contains(name)) return Error(name, "missing required field");
  }
  for (const auto& [name, _] : *object_) {
    bool known = std::find(required.begin(), required.end(), name) != required.end() ||
                 std::find(optional.begin(), optional.end(), name) != optional.end();
    if (!known) return Error(name, "unexpected field");
  }
  return Status::Ok();
}

Status Fields::ExpectExactly(std::initializer_list<std::string_view> names) const { return ExpectOnly(names, {}); }

Result<const Value*> Fields::Get(std::string_view name) const {
  const Value* v = object_->Find(name);
  if (v == nullptr) return Error(name, "missing required field");
  return v;
}

Result<std::string> Fields::String(std::string_view name) const {
  VIGILO_ASSIGN_OR_RETURN(const Value* v, Get(name));
  if (!v->is_string()) return Error(name, "expected a string, got " + std::string(KindName(v->kind())));
  return v->as_string();
}

Result<std::optional<std::string>> Fields::NullableString(std::string_view name) const {
  VIGILO_ASSIGN_OR_RETURN(const Value* v, Get(name));
  if (v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) {
    return Error(name, "expected a string or null, got " + std::string(KindName(v->kind())));
  }
  return std::optional<std::string>(v->as_string());
}

Result<bool> Fields::Bool(std::string_view name) const {
  VIGILO_ASSIGN_OR_RETURN(const Value* v, Get(name));
  if (!v->is_bool()) return Error(name, "expected a boolean, got " + std::string(KindName(v->kind())));
  return v->as_bool();
}

Result<int64_t> Fields::Int(std::string_view name, int64_t min, int64_t max) const {
  VIGILO_ASSIGN_OR_RETURN(const Value* v, Get(name));
  if (!v->is_number() || !v->as_number().is_integer()) {
    return Error(name, "expected an integer, got " +
                           std::string(v->is_number() ? "a float" : KindName(v->kind())));
  }
  const Number& n = v->as_number();
  bool in_range = n.kind() == Number::Kind::kI64
                      ? n.i64() >= min && n.i64() <= max
                      : n.u64() <= static_cast<uint64_t>(INT64_MAX) && static_cast<int64_t>(n.u64()) >= min &&
                            static_cast<int64_t>(n.u64()) <= max;
  if (!in_range) {
    return OutOfRange("integer out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]")
        .WithPath(PathOf(name));
  }
  return n.kind() == Number::Kind::kI64 ? n.i64() : static_cast<int64_t>(n.u64());
}

Result<Fields> Fields::Object(std::string_view name) const {
  VIGILO_ASSIGN_OR_RETURN(const Value* v, Get(name));
  return Of(*v, PathOf(name));
}

Result<const json::Array*> Fields::Array(std::string_view name) const {
  VIGILO_ASSIGN_OR_RETURN(const Value* v, Get(name));
  if (!v->is_array()) return Error(name, "expected an array, got " + std::string(KindName(v->kind())));
  return &v->as_array();
}

}  // namespace vigilo::json
