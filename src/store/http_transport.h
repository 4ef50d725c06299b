// The HTTP transport that every HTTP-speaking backend shares (the read-only
// http(s) store now, the S3 store next): one request per attempt — method,
// headers, body — on a pool of libcurl connections, with the attempt's
// connect timeout, no-progress timeout, deadline and cancel token, a hook
// that signs each request, and the answer handed to a ResponseHandler that
// decides what a correct answer is. It never retries, waits or follows a
// redirect: the request governor is the only place that repeats a request.
//
// Errors never contain a URL (it may hold a bucket, an endpoint or a
// signature); they name the request's key as their path.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/store/call_context.h"
#include "vigilo/store/clock.h"

namespace vigilo::store::http {

struct Request {
  std::string method = "GET";         // GET, HEAD, PUT or DELETE
  std::string url;                    // secret: never in an error or a log line
  std::vector<std::string> headers;   // "Name: value"
  std::span<const uint8_t> body;      // PUT's body; outlives the request's run
  std::string key;                    // names the request in errors (their path)
};

// What one request does with its answer. Called on the thread that runs the
// request, in this order: every raw header line (CRLF included; the status
// line of an interim 1xx answer starts a new head), then OnHeadComplete once
// the final head is in (before the first body byte, or at the end of an
// answer without a body), then OnBody for each piece of the body, then
// OnComplete if the transfer ended without an error. An error from any of
// them stops the transfer and is the request's result.
class ResponseHandler {
 public:
  virtual ~ResponseHandler() = default;
  virtual Status OnHeaderLine(std::string_view line) = 0;
  // False ends the transfer here as a success without reading a body (an
  // answer known to be empty); OnComplete is still called.
  virtual Result<bool> OnHeadComplete() = 0;
  virtual Status OnBody(std::span<const uint8_t> bytes) = 0;
  virtual Status OnComplete() = 0;
};

// AWS Signature Version 4, which libcurl computes itself
// (CURLOPT_AWS_SIGV4) from these for each attempt.
struct SigV4 {
  std::string provider;  // "aws:amz:REGION:SERVICE", libcurl's syntax
  std::string access_key_id;
  std::string secret_access_key;
};

// Signs each attempt just before it is sent: credentials may rotate
// between attempts. It may add headers (x-amz-content-sha256,
// x-amz-security-token) and returns the SigV4 parameters, or none to send
// the request unsigned.
class RequestSigner {
 public:
  virtual ~RequestSigner() = default;
  virtual Result<std::optional<SigV4>> Sign(Request& request) = 0;
};

// One request and who handles its answer.
struct Exchange {
  Request request;
  ResponseHandler* handler = nullptr;
  // The governor's context for this attempt; none: DefaultAttempt.
  const AttemptContext* attempt = nullptr;
};

class Transport {
 public:
  // `signer` (may be null) and `clock` (for calls without a context)
  // outlive the transport.
  explicit Transport(RequestSigner* signer = nullptr, Clock* clock = nullptr);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Runs one attempt of each exchange, all at once on one connection pool
  // (the calling thread drives them), and returns their results in order.
  // Thread-safe: concurrent calls use separate pools.
  std::vector<Status> Run(std::span<Exchange> exchanges);
  Status Run(Exchange& exchange);

 private:
  struct Driver;
  std::unique_ptr<Driver> TakeDriver();
  void ReturnDriver(std::unique_ptr<Driver> driver);

  RequestSigner* signer_;
  Clock* clock_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Driver>> idle_;
};

// Each key segment percent-encoded except RFC 3986 unreserved characters;
// '/' separates segments. The same encoding S3 signs (keys are validated
// logical keys: no empty, "." or ".." segments).
std::string EncodeKey(std::string_view key);

}  // namespace vigilo::store::http
