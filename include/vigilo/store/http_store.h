// The read-only http(s) backend of the ObjectStore seam (libcurl): a
// publication copied to any static web server is read where it lies (seed
// 002 "HTTP Reading"). Decisions and their reasons: docs/format/http-reading.md.
//
// - Only http and https, TLS verification on, no redirect followed (a 3xx is
//   an error naming the status: an object is served at its URL or not at all).
// - A ranged Get is one request with a single `Range: bytes=a-b` (never a
//   suffix or multi-range) that must be answered 206 with `Content-Range:
//   bytes a-b/SIZE` equal to the range, SIZE equal to expected_size when given,
//   and exactly b-a+1 body bytes. A whole-object Get is a plain GET whose
//   length must equal expected_size when given. Anything else is a specific
//   error naming the key and the HTTP status, never the URL.
// - Never HEAD: Head() is Unimplemented; every size a reader needs is in a
//   manifest.
// - The backend makes one request per call (one attempt, with the
//   AttemptContext's timeouts and cancel token) on the shared HTTP transport
//   (src/store/http_transport.h); a batch runs at once on its connection
//   pool. OpenHttpStore puts it behind a GovernedStore, so every request
//   runs under the RequestGovernor (permits, attempts, backoff, deadline);
//   libcurl's own retries are off. 5xx, 429, a refused or
//   reset connection are Unavailable (retried); a connect timeout or a stall
//   (no bytes for the no-progress timeout) is DeadlineExceeded.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

struct HttpStoreOptions {
  // http(s)://host[:port][/prefix]: a key is appended as a relative path,
  // each segment percent-encoded. No query, fragment or user info (a secret
  // in a URL would end up in logs); a missing trailing '/' is added.
  std::string base_url;
  // Every request runs under it (required). Outlives the store.
  RequestGovernor* governor = nullptr;
  // Applied to every request (permit wait, backoff, transfer). Outlives the store.
  const CancelToken* cancel = nullptr;
};

// The bare backend: one attempt per call, nothing retried (the request
// governor's job). InvalidArgument for a base URL OpenHttpStore refuses.
Result<std::unique_ptr<ObjectStore>> OpenHttpBackend(std::string_view base_url);

// The backend behind a GovernedStore. InvalidArgument without a governor, or for a base URL that is not http(s) or carries a query,
// fragment or user info (the message never echoes the URL).
Result<std::unique_ptr<ObjectStore>> OpenHttpStore(const HttpStoreOptions& options);

// True for a value OpenHttpStore would be asked to open: it starts with
// "http://" or "https://" (case-insensitive scheme).
bool IsHttpUrl(std::string_view value);

}  // namespace vigilo::store
