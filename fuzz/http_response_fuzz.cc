// The checks of an HTTP answer (src/store/http_response.h) on arbitrary bytes:
// what a hostile or broken web server can send the http(s) store. Input: a
// 41-byte request prefix (flags; offset, length, expected_size, max_bytes and
// the body's length as little-endian uint64), then the response head, one
// header line per '\n'. Invariants: no crash or sanitizer report; an accepted
// 206 head's Content-Range is exactly the requested range; an accepted body
// has exactly the planned length and never more than max_bytes; only a
// zero-length read gets an empty answer; every error names the key.
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "../src/store/http_response.h"

namespace {

using vigilo::ByteRange;
using vigilo::Status;
using vigilo::store::GetOptions;
using vigilo::store::RangeRequest;

constexpr uint64_t kMaxRemoteOffset = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
constexpr std::string_view kKey = "p/a.parquet";

uint64_t TakeU64(std::string_view& in) {
  uint64_t value = 0;
  for (int i = 0; i < 8 && !in.empty(); ++i) {
    value |= uint64_t{static_cast<unsigned char>(in.front())} << (8 * i);
    in.remove_prefix(1);
  }
  return value;
}

void Require(bool condition) {
  if (!condition) std::abort();
}

void RequireNamesKey(const Status& status) { Require(!status.ok() && status.path() == kKey); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return 0;
  const auto flags = static_cast<unsigned char>(in.front());
  in.remove_prefix(1);
  const uint64_t offset = TakeU64(in);
  const uint64_t length = TakeU64(in);
  const uint64_t expected_size = TakeU64(in);
  const uint64_t max_bytes = TakeU64(in);
  const uint64_t body_length = TakeU64(in);

  // The request as HttpStore::Get builds it; what Get refuses before sending
  // anything never reaches these checks.
  GetOptions options;
  if (flags & 1) options.range = ByteRange{offset, length};
  if (flags & 2) options.expected_size = expected_size;
  if (flags & 4) options.max_bytes = max_bytes;
  RangeRequest request{.key = kKey, .options = &options, .sent = std::nullopt, .probe = false};
  if (options.range) {
    if (length > options.max_bytes) return 0;
    if (offset > kMaxRemoteOffset || length > kMaxRemoteOffset - offset) return 0;
    request.probe = length == 0;
    request.sent = request.probe ? ByteRange{offset, 1} : ByteRange{offset, length};
  } else if (options.expected_size && *options.expected_size > options.max_bytes) {
    return 0;
  }

  vigilo::store::ResponseHead head;
  while (!in.empty()) {
    size_t end = in.find('\n');
    std::string_view line = in.substr(0, end == std::string_view::npos ? in.size() : end + 1);
    in.remove_prefix(line.size());
    Status added = vigilo::store::AddHeaderLine(head, line);
    if (!added.ok()) return 0;  // the store stops the transfer here
    Require(head.status == 0 || (head.status >= 100 && head.status <= 999));
  }

  auto expectation = vigilo::store::CheckHead(head, request);
  if (!expectation.ok()) {
    RequireNamesKey(expectation.status());
    return 0;
  }
  if (expectation->empty_answer) {
    Require(options.range && options.range->length == 0);
    return 0;
  }
  if (options.range) {
    Require(head.status == 206);
    auto range = vigilo::store::ParseContentRange(*head.content_range);
    Require(range && range->first == request.sent->offset &&
            range->last == request.sent->offset + request.sent->length - 1);
    Require(!options.expected_size || range->total == *options.expected_size);
    Require(range->total >= offset + length);
    Require(expectation->body_expected == request.sent->length);
  } else {
    Require(head.status == 200);
    if (options.expected_size) Require(expectation->body_expected == *options.expected_size);
    if (head.content_length) Require(*head.content_length <= options.max_bytes);
  }
  Require(expectation->body_cap <= options.max_bytes || request.probe);

  // The body arrives in two writes, as libcurl may split it.
  const uint64_t first_write = body_length / 2;
  Status grew = vigilo::store::CheckBodyGrowth(*expectation, request, 0, first_write);
  if (grew.ok()) grew = vigilo::store::CheckBodyGrowth(*expectation, request, first_write, body_length - first_write);
  if (!grew.ok()) {
    RequireNamesKey(grew);
    Require(body_length > expectation->body_cap);
    return 0;
  }
  Status complete = vigilo::store::CheckBodyLength(*expectation, request, body_length);
  if (!complete.ok()) {
    RequireNamesKey(complete);
    return 0;
  }
  Require(body_length <= options.max_bytes || request.probe);
  if (expectation->body_expected) Require(body_length == *expectation->body_expected);
  if (options.range) Require(body_length == request.sent->length);
  if (options.expected_size && !options.range) Require(body_length == *options.expected_size);
  return 0;
}
