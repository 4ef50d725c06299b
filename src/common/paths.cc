#include "vigilo/common/paths.h"

#include <string>

#include "vigilo/common/utf8.h"

namespace vigilo {
namespace {

// Shared segment rules of publication paths and logical keys.
Status CheckSegments(std::string_view s, std::string_view what) {
  size_t start = 0;
  while (true) {
    size_t slash = s.find('/', start);
    std::string_view seg = s.substr(start, slash == std::string_view::npos ? s.npos : slash - start);
    if (seg.empty()) {
      return InvalidFormat(std::string(what) + " has an empty segment at byte " + std::to_string(start));
    }
    if (seg == "." || seg == "..") {
      return InvalidFormat(std::string(what) + " has a '" + std::string(seg) + "' segment at byte " +
                           std::to_string(start));
    }
    if (slash == std::string_view::npos) return Status::Ok();
    start = slash + 1;
  }
}

Status CheckNoControls(std::string_view s, std::string_view what) {
  size_t at = FindControlCharacter(s);
  if (at == kUtf8Valid) return Status::Ok();
  return InvalidFormat(std::string(what) + " contains a control character at byte " + std::to_string(at));
}

Status CheckForbidden(std::string_view s, std::string_view what, std::string_view chars) {
  size_t pos = s.find_first_of(chars);
  if (pos == std::string_view::npos) return Status::Ok();
  std::string name;
  switch (s[pos]) {
    case '?': name = "a query delimiter '?'"; break;
    case '#': name = "a fragment delimiter '#'"; break;
    case ':': name = "a colon (URI scheme or drive letter)"; break;
    case '\\': name = "a backslash"; break;
    default: name = std::string("'") + s[pos] + "'";
  }
  return InvalidFormat(std::string(what) + " contains " + name + " at byte " + std::to_string(pos));
}

Status CheckCommon(std::string_view s, std::string_view what, size_t max_bytes) {
  if (s.empty()) return InvalidFormat(std::string(what) + " is empty");
  if (s.size() > max_bytes) {
    return InvalidFormat(std::string(what) + " is " + std::to_string(s.size()) + " bytes; the limit is " +
                         std::to_string(max_bytes));
  }
  size_t bad = FindInvalidUtf8(s);
  if (bad != kUtf8Valid) {
    return InvalidFormat(std::string(what) + " is not valid UTF-8 at byte " + std::to_string(bad));
  }
  VIGILO_RETURN_IF_ERROR(CheckNoControls(s, what));
  VIGILO_RETURN_IF_ERROR(CheckForbidden(s, what, "?#:\\"));
  return CheckSegments(s, what);
}

}  // namespace

Status ValidatePublicationPath(std::string_view path) {
  return CheckCommon(path, "publication path", kMaxPublicationPathBytes);
}

Status ValidateLogicalKey(std::string_view key) {
  return CheckCommon(key, "logical key", kMaxLogicalKeyBytes);
}

Status ValidateStorageAlias(std::string_view alias) {
  if (alias.empty() || alias.size() > kMaxStorageAliasChars) {
    return InvalidFormat("storage alias must be 1-128 characters, got " + std::to_string(alias.size()));
  }
  for (size_t i = 0; i < alias.size(); ++i) {
    char c = alias[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-';
    if (!ok) {
      return InvalidFormat("storage alias may contain only ASCII letters, digits, '_' and '-'; bad byte at " +
                           std::to_string(i));
    }
  }
  return Status::Ok();
}

}  // namespace vigilo
