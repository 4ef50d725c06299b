#include "http_response.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <memory>
#include <string>

namespace vigilo::store {
namespace {

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Plain digits only: no sign, no space, no hex (from_chars alone would take
// a leading '-' for signed types and stop early on junk). At most 19 digits,
// so the value fits in uint64_t.
std::optional<uint64_t> ParseDecimal(std::string_view s) {
  if (s.empty() || s.size() > 19 || !AllDigits(s)) return std::nullopt;
  uint64_t value = 0;
  std::from_chars(s.data(), s.data() + s.size(), value);
  return value;
}

std::string StatusText(int code) { return "HTTP " + std::to_string(code); }

// "HTTP/<version> <3 digits>[ <reason>]", as libcurl hands it over for
// HTTP/1.x, 2 and 3. The code is what CURLINFO_RESPONSE_CODE would report.
std::optional<int> ParseStatusLine(std::string_view line) {
  line.remove_prefix(5);  // "HTTP/"
  size_t space = line.find(' ');
  if (space == 0 || space == std::string_view::npos) return std::nullopt;
  for (char c : line.substr(0, space)) {
    if ((c < '0' || c > '9') && c != '.') return std::nullopt;
  }
  std::string_view rest = line.substr(space + 1);
  if (rest.size() < 3 || !AllDigits(rest.substr(0, 3)) || rest[0] == '0') return std::nullopt;
  if (rest.size() > 3 && rest[3] != ' ') return std::nullopt;
  return (rest[0] - '0') * 100 + (rest[1] - '0') * 10 + (rest[2] - '0');
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

std::optional<ContentRange> ParseContentRange(std::string_view value) {
  if (!StartsWithIgnoreCase(value, "bytes ")) return std::nullopt;
  value.remove_prefix(6);
  size_t slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  ContentRange out;
  auto total = ParseDecimal(value.substr(slash + 1));
  if (!total) return std::nullopt;
  out.total = *total;
  std::string_view span = value.substr(0, slash);
  if (span == "*") return out;
  size_t dash = span.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  out.first = ParseDecimal(span.substr(0, dash));
  out.last = ParseDecimal(span.substr(dash + 1));
  if (!out.first || !out.last || *out.first > *out.last) return std::nullopt;
  return out;
}

Status AddHeaderLine(ResponseHead& head, std::string_view raw_line) {
  if (StartsWithIgnoreCase(raw_line, "HTTP/")) {  // a status line: a new response (after a 1xx)
    auto code = ParseStatusLine(Trim(raw_line));
    if (!code) return IoError("malformed HTTP status line");
    head = ResponseHead{};
    head.status = *code;
    return Status::Ok();
  }
  if (Trim(raw_line).empty()) return Status::Ok();  // the end of a header block
  size_t colon = raw_line.find(':');
  if (colon == std::string_view::npos) return Status::Ok();
  std::string_view name = raw_line.substr(0, colon);
  std::string_view value = Trim(raw_line.substr(colon + 1));
  if (EqualsIgnoreCase(name, "Content-Range")) {
    // The same value twice is harmless; two different ones leave no
    // answer to check the request against.
    if (head.content_range && *head.content_range != value) {
      return IntegrityError(StatusText(head.status) + " with two different Content-Range values");
    }
    head.content_range = std::string(value);
  } else if (EqualsIgnoreCase(name, "Content-Encoding")) {
    // RFC 9110 5.3: repeated fields are one comma-separated list, so a
    // "gzip" is not hidden by a later "identity".
    if (head.content_encoding) {
      *head.content_encoding += ", ";
      *head.content_encoding += value;
    } else {
      head.content_encoding = std::string(value);
    }
  } else if (EqualsIgnoreCase(name, "Content-Length")) {
    auto length = ParseDecimal(value);
    if (!length) return IntegrityError(StatusText(head.status) + " with an invalid Content-Length");
    if (head.content_length && *head.content_length != *length) {
      return IntegrityError(StatusText(head.status) + " with two different Content-Length values");
    }
    head.content_length = length;
  }
  return Status::Ok();
}

Result<Expectation> CheckHead(const ResponseHead& head, const RangeRequest& request) {
  const int code = head.status;
  const GetOptions& options = *request.options;
  auto fail = [&](Status status) { return std::move(status).WithPath(std::string(request.key)); };
  Expectation out;
  out.status = code;
  if (code == 404 || code == 410) return fail(NotFound(StatusText(code)));
  if (code == 429 || code == 408 || (code >= 500 && code <= 599)) return fail(Unavailable(StatusText(code)));
  if (code >= 300 && code <= 399) {
    return fail(IoError(StatusText(code) + ": redirects are not followed (an object must be served at its own URL)"));
  }
  if (head.content_encoding && !EqualsIgnoreCase(*head.content_encoding, "identity")) {
    return fail(IntegrityError(StatusText(code) + " with Content-Encoding " + *head.content_encoding +
                               ": objects must be served as stored"));
  }
  if (code == 416 && request.sent) {
    auto range = head.content_range ? ParseContentRange(*head.content_range) : std::nullopt;
    if (!range || range->first) return fail(OutOfRange(StatusText(code) + ": the range is past the end of the object"));
    // The server's total decides, with the same checks as every backend.
    VIGILO_RETURN_IF_ERROR(PlanGet(request.key, range->total, options).status());
    if (!request.probe) {
      return fail(IntegrityError(StatusText(code) + " for a range within the " + std::to_string(range->total) +
                                 "-byte object"));
    }
    out.empty_answer = true;  // a zero-length read at the very end
    return out;
  }
  if (code < 200 || code > 299) return fail(IoError(StatusText(code)));
  if (request.sent) {
    const ByteRange& sent = *request.sent;
    // nginx (and others) answer a range of an empty object with 200 and no
    // body: the object's size is then known to be 0, and no byte is accepted.
    if (code == 200 && head.content_length == uint64_t{0}) {
      VIGILO_RETURN_IF_ERROR(PlanGet(request.key, 0, options).status());
      out.empty_answer = true;  // only a zero-length read at offset 0 gets here
      return out;
    }
    if (code != 206) {
      return fail(IntegrityError(StatusText(code) + " to a range request (the server ignores Range)"));
    }
    auto range = head.content_range ? ParseContentRange(*head.content_range) : std::nullopt;
    if (!range || !range->first) return fail(IntegrityError(StatusText(code) + " without a valid Content-Range"));
    VIGILO_RETURN_IF_ERROR(PlanGet(request.key, range->total, options).status());
    const uint64_t last = sent.offset + sent.length - 1;
    if (*range->first != sent.offset || *range->last != last) {
      return fail(IntegrityError("Content-Range bytes " + std::to_string(*range->first) + "-" +
                                 std::to_string(*range->last) + " does not match the requested bytes " +
                                 std::to_string(sent.offset) + "-" + std::to_string(last)));
    }
    out.body_expected = sent.length;
    out.body_cap = sent.length;
    return out;
  }
  if (code != 200) return fail(IntegrityError(StatusText(code) + " to a plain GET"));
  if (head.content_length) {
    if (options.expected_size && *head.content_length != *options.expected_size) {
      return fail(IntegrityError("object is " + std::to_string(*head.content_length) + " bytes, expected " +
                                 std::to_string(*options.expected_size)));
    }
    if (*head.content_length > options.max_bytes) {
      return fail(LimitExceeded("reading " + std::to_string(*head.content_length) + " bytes exceeds the limit of " +
                                std::to_string(options.max_bytes)));
    }
    out.body_expected = head.content_length;
  }
  if (options.expected_size) out.body_expected = options.expected_size;
  out.body_cap = out.body_expected.value_or(options.max_bytes);
  return out;
}

Status CheckBodyGrowth(const Expectation& expectation, const RangeRequest& request, uint64_t received,
                       uint64_t more) {
  if (received <= expectation.body_cap && more <= expectation.body_cap - received) return Status::Ok();
  Status status;
  if (expectation.body_expected) {  // the length was fixed before the body: the server broke it
    status = IntegrityError(StatusText(expectation.status) + " with a body longer than " +
                            std::to_string(expectation.body_cap) + " bytes");
  } else {
    status = LimitExceeded("reading more than " + std::to_string(request.options->max_bytes) +
                           " bytes exceeds the limit");
  }
  return std::move(status).WithPath(std::string(request.key));
}

Status CheckBodyLength(const Expectation& expectation, const RangeRequest& request, uint64_t length) {
  if (!expectation.body_expected || length == *expectation.body_expected) return Status::Ok();
  return IntegrityError(StatusText(expectation.status) + " with a body of " + std::to_string(length) +
                        " bytes, expected " + std::to_string(*expectation.body_expected))
      .WithPath(std::string(request.key));
}

// Byte offsets travel as curl_off_t and in servers as off_t: a range ending
// past this is past the end of any object a server can hold.
constexpr uint64_t kMaxRemoteOffset = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

Status CheckRemoteGet(std::string_view key, const GetOptions& options) {
  auto fail = [&](Status status) { return std::move(status).WithPath(std::string(key)); };
  if (options.range) {
    const ByteRange& range = *options.range;
    if (range.length > options.max_bytes) {
      return fail(LimitExceeded("reading " + std::to_string(range.length) + " bytes exceeds the limit of " +
                                std::to_string(options.max_bytes)));
    }
    if (range.offset > kMaxRemoteOffset || range.length > kMaxRemoteOffset - range.offset) {
      return fail(OutOfRange("range [" + std::to_string(range.offset) + ", +" + std::to_string(range.length) +
                             ") is past the end of any remote object"));
    }
  } else if (options.expected_size && *options.expected_size > options.max_bytes) {
    return fail(LimitExceeded("reading " + std::to_string(*options.expected_size) + " bytes exceeds the limit of " +
                              std::to_string(options.max_bytes)));
  }
  return Status::Ok();
}

// Reserved up front at most: a Content-Length is the server's claim, not a
// size worth allocating before a byte arrives.
constexpr uint64_t kMaxBodyReserve = uint64_t{64} << 20;

Result<bool> RangeBody::Begin(const ResponseHead& head) {
  VIGILO_ASSIGN_OR_RETURN(expectation_, CheckHead(head, request_));
  if (expectation_.empty_answer) return false;
  if (expectation_.body_expected) {
    body_.reserve(static_cast<size_t>(std::min(*expectation_.body_expected, kMaxBodyReserve)));
  }
  return true;
}

Status RangeBody::Add(std::span<const uint8_t> bytes) {
  VIGILO_RETURN_IF_ERROR(CheckBodyGrowth(expectation_, request_, body_.size(), bytes.size()));
  body_.insert(body_.end(), bytes.begin(), bytes.end());
  return Status::Ok();
}

Status RangeBody::Finish() const {
  if (expectation_.empty_answer) return Status::Ok();
  return CheckBodyLength(expectation_, request_, body_.size());
}

Bytes RangeBody::Take() {
  if (expectation_.empty_answer || request_.probe || body_.empty()) return Bytes();
  // Owned here rather than by Bytes::FromVector (object_store.cc), so these
  // rules link alone: target vigilo_http_rules, which the WebAssembly core uses.
  auto owner = std::make_shared<const std::vector<uint8_t>>(std::move(body_));
  return Bytes(owner, std::span<const uint8_t>(*owner));
}

}  // namespace vigilo::store
