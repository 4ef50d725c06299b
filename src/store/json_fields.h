// Reading the hand-written JSON of a stores config strictly (config.cc for
// every entry, s3_settings.cc for an s3 entry's backend object): each error
// is InvalidFormat naming the field's JSON path, and an unknown member's name
// is echoed only when it is a plain identifier (a mistyped entry may have a
// URL or a secret as a key).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/json/value.h"

namespace vigilo::store::json_fields {

Status FieldError(const std::string& path, std::string message);

// Every `required` member present and no member outside `required` and
// `optional`.
Status CheckMembers(const json::Object& object, const std::string& path,
                    std::initializer_list<std::string_view> required,
                    std::initializer_list<std::string_view> optional);

Result<const json::Object*> ObjectAt(const json::Value& value, const std::string& path);
// The member `name` of `object` (at `path`), `absent` when it is missing.
Result<bool> BoolAt(const json::Object& object, const std::string& path, std::string_view name, bool absent);
// The member `name` as a string, none when it is missing.
Result<std::optional<std::string>> StringAt(const json::Object& object, const std::string& path,
                                            std::string_view name);

}  // namespace vigilo::store::json_fields
