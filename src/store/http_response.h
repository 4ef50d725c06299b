// The rules an HTTP answer to one Get must follow (docs/format/http-reading.md),
// without any I/O: the http(s) store feeds each header line libcurl hands it
// to AddHeaderLine, asks CheckHead once the final head is complete, and
// checks the body's length with CheckBodyGrowth / CheckBodyLength. Everything
// here reads untrusted network bytes; fuzz/http_response_fuzz.cc drives it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/byte_range.h"
#include "vigilo/common/result.h"
#include "vigilo/common/status.h"
#include "vigilo/store/object_store.h"

namespace vigilo::store {

// ASCII-only, as HTTP field names and URL schemes are.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);

// "bytes a-b/N" (first, last, total) or "bytes */N" (only total). Each number
// is plain decimal digits (at most 19, so it fits in uint64_t); first <= last.
struct ContentRange {
  std::optional<uint64_t> first;
  std::optional<uint64_t> last;
  uint64_t total = 0;
};
std::optional<ContentRange> ParseContentRange(std::string_view value);

// What the header lines of the latest response said. A status line starts a
// new response (a 1xx answer is followed by the real one), so it clears
// everything else.
struct ResponseHead {
  int status = 0;  // 0 until a status line is seen
  std::optional<std::string> content_range;
  // Several Content-Encoding fields are one list, joined with ", ".
  std::optional<std::string> content_encoding;
  std::optional<uint64_t> content_length;
};

// One raw line as libcurl passes it to its header callback (CRLF included):
// a status line "HTTP/1.1 206 Partial Content", a "Name: value" field, or the
// empty line ending the head. Fields other than the three above are ignored,
// as are lines without a colon. IoError for a malformed status line;
// IntegrityError for a Content-Length that is not a decimal number or a
// Content-Range / Content-Length repeated with another value (framing the
// server cannot agree with itself about).
Status AddHeaderLine(ResponseHead& head, std::string_view raw_line);

// The request an answer is checked against.
struct RangeRequest {
  std::string_view key;   // every error names it as its path
  const GetOptions* options = nullptr;
  // The range in the Range header; none for a plain GET. A zero-length
  // range is sent as a one-byte probe (`probe`) whose answer only tells the
  // size. Never empty, and offset + length fits in uint64_t.
  std::optional<ByteRange> sent;
  bool probe = false;
};

// What the body of an accepted head must be.
struct Expectation {
  int status = 0;
  // No body is read: the answer is zero bytes (a probe's 416 at the very
  // end, or nginx's 200 with Content-Length 0 for a range of an empty object).
  bool empty_answer = false;
  uint64_t body_cap = 0;                  // more body bytes than this: stop
  std::optional<uint64_t> body_expected;  // the exact length, when known
};

// The decision once the final head is in, before any body byte: the status
// code's mapping (404 NotFound, 5xx Unavailable, ...), Content-Encoding,
// Content-Range against the requested range, the object's size against
// expected_size (PlanGet), Content-Length against expected_size and max_bytes.
Result<Expectation> CheckHead(const ResponseHead& head, const RangeRequest& request);

// `more` body bytes arrive after `received`: an error once they pass the cap
// (IntegrityError when the length was known before the body, else
// LimitExceeded: max_bytes is the only bound).
Status CheckBodyGrowth(const Expectation& expectation, const RangeRequest& request, uint64_t received,
                       uint64_t more);

// The complete body's length against body_expected.
Status CheckBodyLength(const Expectation& expectation, const RangeRequest& request, uint64_t length);

// What a remote GET is refused for before any request is sent: a range or
// an expected size over max_bytes (LimitExceeded), or a range ending past
// any offset curl_off_t and a server's off_t can hold (OutOfRange). Errors
// name `key`.
Status CheckRemoteGet(std::string_view key, const GetOptions& options);

// The body of one GET (whole or a single range) as it arrives, held to the
// rules above: Begin once the final head is in (CheckHead), Add for each
// piece (CheckBodyGrowth), Finish at the end (CheckBodyLength), then Take.
// The http(s) store's and the s3 store's GET answers both keep one.
class RangeBody {
 public:
  explicit RangeBody(RangeRequest request) : request_(request) {}
  // False: the answer is empty and no body is read.
  Result<bool> Begin(const ResponseHead& head);
  Status Add(std::span<const uint8_t> bytes);
  Status Finish() const;
  // The bytes the caller asked for (none for an empty answer or a probe).
  Bytes Take();

 private:
  RangeRequest request_;
  Expectation expectation_;
  std::vector<uint8_t> body_;
};

}  // namespace vigilo::store
