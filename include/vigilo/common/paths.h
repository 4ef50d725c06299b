// Validators for the names the seeds constrain. Each returns OK or an
// InvalidFormat status that says which rule the name breaks.
#pragma once

#include <cstddef>
#include <string_view>

#include "vigilo/common/status.h"

namespace vigilo {

inline constexpr size_t kMaxPublicationPathBytes = 1024;
inline constexpr size_t kMaxLogicalKeyBytes = 1024;
inline constexpr size_t kMaxStorageAliasChars = 128;

// A publication object path (seed 002): relative ('/'-separated), valid UTF-8,
// at most 1,024 bytes, no empty, '.' or '..' segments, no query ('?'),
// fragment ('#') or URI scheme. vigilo rejects every ':' (a scheme or a drive
// letter), backslashes and control characters too, so that a path means the
// same thing on a filesystem, in S3 and in a URL. See docs/format/paths.md.
Status ValidatePublicationPath(std::string_view path);

// A case-storage logical key (seed 004): nonempty, at most 1,024 UTF-8 bytes,
// no empty, '.' or '..' segments, backslashes, control characters (C0, DEL,
// C1), colon, '?' or '#'.
Status ValidateLogicalKey(std::string_view key);

// A storage alias (seed 004): 1-128 ASCII letters, digits, '_' or '-'.
Status ValidateStorageAlias(std::string_view alias);

}  // namespace vigilo
