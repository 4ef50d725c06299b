// Copying a publication to another store (seed 002: "Uploaders preserve
// relative paths and bytes and publish the manifest only after every
// referenced object."): `vigilo index publish SRC DEST`. Every object the
// source manifest names is copied under the same relative path with
// create-if-absent, checked against the manifest's size and SHA-256 as it
// is read and again as it is read back from the destination, and the
// manifest's own bytes are created last as DEST/manifest.json. A rerun
// after an interruption skips what is already there with the same bytes;
// other bytes at a path, or another manifest at DEST, are errors and
// nothing is overwritten. Decisions: docs/format/publication-v1.md,
// "Publishing to another store".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/engine/context.h"
#include "vigilo/store/clock.h"

namespace vigilo::engine {

struct PublishProgress {
  uint64_t objects_done = 0, objects_total = 0;
  uint64_t bytes_done = 0, bytes_total = 0;
};

struct PublishOptions {
  const store::CancelToken* cancel = nullptr;
  // Called after each object is copied or found present.
  std::function<void(const PublishProgress&)> progress;
  // Objects are streamed through in pieces of this many bytes.
  uint64_t piece_bytes = uint64_t{8} << 20;
};

enum class PublishOutcome { kPublished, kUnchanged };
std::string_view PublishOutcomeName(PublishOutcome outcome);  // "published", "unchanged"

struct PublishReport {
  PublishOutcome outcome = PublishOutcome::kPublished;
  std::string artifact_uuid;
  std::string manifest;           // DEST's manifest, safe to print: DIR/manifest.json or ALIAS:KEY/manifest.json
  uint64_t objects = 0;           // referenced objects (the manifest not counted)
  uint64_t copied = 0;            // created by this run
  uint64_t already_present = 0;   // found at DEST with the same bytes (a rerun, or shared content)
  uint64_t bytes_total = 0, bytes_copied = 0;
};

// `source`: any publication locator (engine::LocatePublication). `destination`:
// a directory (created if absent) or ALIAS:KEY of a writable store (one that
// guarantees conditional creates and read-after-create); a URL or catalog
// name is InvalidArgument naming the setting `destination`. The source is
// refused before anything is written if its manifest does not parse, and an
// object whose bytes do not match its manifest entry is IntegrityError with
// nothing more copied (what was copied stays: a rerun after the source is
// repaired resumes). Cancelled between and during objects, leaving DEST
// without a manifest.
Result<PublishReport> PublishPublication(Context& context, std::string_view source, std::string_view destination,
                                         const PublishOptions& options = {});

}  // namespace vigilo::engine
