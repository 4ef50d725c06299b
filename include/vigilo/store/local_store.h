// The local-directory backend (file:// stores): each key is a file below
// the root. Creates write and fsync a private temporary file beside the
// target and hard-link it into place (the link fails if the key exists, so
// nothing is ever overwritten), then fsync the directory. Reads refuse
// anything but a regular file without blocking (OpenRegularFile) and hand
// out views of a read-only mapping, cached per key (objects are immutable),
// so ranged reads of a publication cost no copy and no system call.
#pragma once

#include <memory>
#include <string>

#include "vigilo/common/result.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

struct LocalStoreOptions {
  // Read-only stores refuse CreateIfAbsent, BeginCreate and Delete.
  bool writable = true;
  // Create the root directory (and its parents) if it is missing; otherwise
  // a missing root is NotFound.
  bool create_root = false;
};

// A local directory declares conditional create and read-after-create
// (link(2) is atomic and the directory is fsynced), single ranges, and no
// revisions.
Result<std::unique_ptr<ObjectStore>> OpenLocalStore(const std::string& root, const LocalStoreOptions& options = {});

}  // namespace vigilo::store
