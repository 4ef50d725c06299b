// The HTTP answer rules (src/store/http_response.h, target vigilo_http_rules:
// the same code the native http(s) and s3 stores run) applied to what a
// JavaScript fetch hands over, so the module's fetcher decides nothing: it
// sends GET with one `Range: bytes=a-b`, passes the status, the two headers
// it can read and the body's length here, and reports the error this returns.
#include <cstdint>
#include <optional>
#include <string>

#include "http_response.h"
#include "wasm_abi.h"

namespace {

// Absent headers come as null; numbers as doubles (exact below 2^53, the
// seed's bound on every size and offset).
vigilo::Status CheckAnswer(const char* path, double offset, double length, double object_size, int status,
                           const char* content_range, const char* content_encoding, double content_length,
                           double body_length) {
  using vigilo::store::ResponseHead;
  ResponseHead head;
  head.status = status;
  if (content_range != nullptr) head.content_range = content_range;
  if (content_encoding != nullptr) head.content_encoding = content_encoding;
  if (content_length >= 0) head.content_length = static_cast<uint64_t>(content_length);
  vigilo::store::GetOptions options;
  options.max_bytes = static_cast<uint64_t>(length);
  options.expected_size = static_cast<uint64_t>(object_size);
  vigilo::store::RangeRequest request{path, &options, std::nullopt, false};
  // A length of 0 is a plain GET of the whole object (the manifest, whose size
  // nothing names beforehand): max_bytes then bounds it and no size is expected.
  if (length > 0) {
    options.range = vigilo::ByteRange{static_cast<uint64_t>(offset), static_cast<uint64_t>(length)};
    request.sent = options.range;
  } else {
    options.max_bytes = static_cast<uint64_t>(object_size);
    options.expected_size.reset();
  }
  auto expectation = vigilo::store::CheckHead(head, request);
  if (!expectation.ok()) {
    vigilo::Status s = expectation.status();
    // A browser hides Content-Range from another origin unless the server
    // exposes it: say so, since the server's answer itself was fine.
    if (status == 206 && content_range == nullptr) {
      return vigilo::Status(s.code(), std::string(s.message()) +
                                          ": the response has no readable Content-Range header; a server on "
                                          "another origin must send Access-Control-Expose-Headers: Content-Range")
          .WithPath(path);
    }
    return s;
  }
  if (body_length < 0) return vigilo::Status::Ok();  // the head only: the body is not read yet
  return vigilo::store::CheckBodyLength(*expectation, request, static_cast<uint64_t>(body_length));
}

}  // namespace

extern "C" {

// 0 when the answer follows the rules, else -1 (vigilo_error says why).
// body_length < 0 checks the head alone, before any body byte is read: a
// 200 to a range is refused before its body is downloaded.
int vigilo_http_check(const char* path, double offset, double length, double object_size, int status,
                      const char* content_range, const char* content_encoding, double content_length,
                      double body_length) {
  vigilo::Status s = CheckAnswer(path, offset, length, object_size, status, content_range, content_encoding,
                                 content_length, body_length);
  if (s.ok()) return 0;
  vigilo::web::Fail(s);
  return -1;
}

}  // extern "C"
