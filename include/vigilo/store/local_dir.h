// Conditional creation of immutable objects in a local directory: the
// filesystem flavour of the object-store contract (create-if-absent, replays
// verify the existing bytes instead of overwriting). The full ObjectStore
// seam (S3, fault injection, request governor) builds on these semantics.
#pragma once

#include <string>
#include <string_view>

#include "vigilo/common/result.h"

namespace vigilo::store {

enum class CreateOutcome { kCreated, kAlreadyIdentical };

// Creates `root/key` holding exactly `bytes`, atomically: the bytes are
// written and fsynced under a temporary name, then hard-linked into place,
// which fails if the key exists. If it exists with identical bytes the call
// is a verified replay (kAlreadyIdentical); with other bytes it fails with
// AlreadyExists and leaves the existing object untouched. `key` must be a
// valid logical key; parent directories are created.
Result<CreateOutcome> CreateIfAbsent(const std::string& root, std::string_view key, std::string_view bytes);

// Reads `root/key` in full, refusing objects larger than max_bytes.
Result<std::string> ReadObject(const std::string& root, std::string_view key, size_t max_bytes);

}  // namespace vigilo::store
