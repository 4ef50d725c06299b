// The s3 backend of the ObjectStore seam: an S3-compatible bucket (tested
// against Ceph RGW 16.2 on Debian 12), reached through a configured alias
// `"url":"s3://BUCKET[/PREFIX]"` whose "backend" object holds the endpoint,
// region, addressing and where the credentials come from
// (docs/format/stores.md, "s3://"). One request per call on the shared HTTP
// transport (src/store/http_transport.h), signed with SigV4 by libcurl;
// the request governor in front of it is the only place that retries.
//
// - CreateIfAbsent / ObjectWriter::Commit: one PUT with `If-None-Match: *`
//   and the payload's SHA-256 (x-amz-content-sha256, checked by the server).
//   200: created. 412: the key exists, so the same attempt reads the object
//   back and compares every byte: identical is kAlreadyIdentical (a retried
//   PUT whose first answer was lost ends here), anything else AlreadyExists.
//   409 (ConditionalRequestConflict) is Unavailable (retried).
// - A streaming writer spools to an unnamed temporary file and PUTs once at
//   Commit (no multipart: RGW ignores conditions on CompleteMultipartUpload).
//   Objects above kS3MaxPutBytes (5 GiB, S3's single-PUT limit) are refused.
// - Get: a plain GET or one explicit `Range: bytes=a-b`, answered and checked
//   as the http store's (206 with the exact Content-Range, exact lengths);
//   Head: HEAD for the size; Delete: DELETE (a missing key is OK).
// - Errors name the logical key, never the URL, bucket, endpoint, prefix or a
//   credential; S3 error codes (AccessDenied, NoSuchBucket, SlowDown…) are
//   named. 5xx, 429, 409, SlowDown, a reset connection: Unavailable.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/store/backends.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

// S3's limit for one PUT (and RGW's default rgw_max_put_size).
inline constexpr uint64_t kS3MaxPutBytes = uint64_t{5} << 30;

// The value of an environment variable, nullopt when unset. Only the edge
// reads the environment: it hands this to MakeS3Backend.
using S3EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

struct S3BackendOptions {
  // Resolves `"credentials":{"source":"environment"}`. Without it (the
  // builtin registry's s3 backend) such an alias fails to open, saying the
  // caller gave the store layer no environment; `"source":"file"` works
  // everywhere.
  S3EnvironmentLookup environment;
};

// The backend registered for s3:// (BackendRegistry::Builtin() holds one
// made with default options).
std::shared_ptr<const Backend> MakeS3Backend(S3BackendOptions options = {});

}  // namespace vigilo::store
