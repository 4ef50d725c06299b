// The sans-IO checks of an HTTP answer: exact parses, statuses and messages
// for what a web server may send (the transfer itself is tested over real
// sockets in http_store_test.cc).
#include "http_response.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace vigilo::store {
namespace {

constexpr std::string_view kKey = "p/a.parquet";

// A head from whole lines, each sent with CRLF as libcurl passes it on.
ResponseHead HeadOf(const std::vector<std::string>& lines) {
  ResponseHead head;
  for (const std::string& line : lines) {
    Status added = AddHeaderLine(head, line + "\r\n");
    EXPECT_TRUE(added.ok()) << line << ": " << added.ToString();
  }
  return head;
}

Status AddLines(ResponseHead& head, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    VIGILO_RETURN_IF_ERROR(AddHeaderLine(head, line + "\r\n"));
  }
  return Status::Ok();
}

RangeRequest Ranged(const GetOptions& options) {
  // As HttpStore::Get sends it: a zero-length range as a one-byte probe.
  const ByteRange& range = *options.range;
  const bool probe = range.length == 0;
  return RangeRequest{.key = kKey,
                      .options = &options,
                      .sent = probe ? ByteRange{range.offset, 1} : range,
                      .probe = probe};
}

RangeRequest Whole(const GetOptions& options) {
  return RangeRequest{.key = kKey, .options = &options, .sent = std::nullopt, .probe = false};
}

GetOptions RangeOptions(uint64_t offset, uint64_t length, std::optional<uint64_t> expected_size = std::nullopt) {
  GetOptions options;
  options.range = ByteRange{offset, length};
  options.expected_size = expected_size;
  return options;
}

void ExpectError(const Status& status, StatusCode code, std::string_view message) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_EQ(status.message(), message);
}

void ExpectKeyedError(const Status& status, StatusCode code, std::string_view message) {
  ExpectError(status, code, message);
  EXPECT_EQ(status.path(), kKey);
}

// --- Content-Range ---

void ExpectRange(std::string_view value, std::optional<uint64_t> first, std::optional<uint64_t> last,
                 uint64_t total) {
  auto parsed = ParseContentRange(value);
  ASSERT_TRUE(parsed.has_value()) << value;
  EXPECT_EQ(parsed->first, first) << value;
  EXPECT_EQ(parsed->last, last) << value;
  EXPECT_EQ(parsed->total, total) << value;
}

TEST(ParseContentRangeTest, ValidRangesAndUnsatisfiedForm) {
  ExpectRange("bytes 0-9/16", 0, 9, 16);
  ExpectRange("bytes 5-5/16", 5, 5, 16);
  ExpectRange("bytes 0-0/0", 0, 0, 0);  // syntax only: PlanGet judges the total
  ExpectRange("BYTES 4-9/16", 4, 9, 16);
  ExpectRange("bytes 007-9/016", 7, 9, 16);
  ExpectRange("bytes */16", std::nullopt, std::nullopt, 16);
  ExpectRange("bytes */0", std::nullopt, std::nullopt, 0);
  // 19 digits is the most accepted, and fits.
  ExpectRange("bytes 0-9999999999999999998/9999999999999999999", 0, 9999999999999999998u, 9999999999999999999u);
}

TEST(ParseContentRangeTest, RefusesEveryOtherForm) {
  for (std::string_view value : {
           "",
           "bytes",
           "bytes ",
           "bytes 0-9",          // no total
           "bytes 0-9/",         // empty total
           "bytes 0-9/*",        // unknown total: nothing to check the size against
           "bytes */*",
           "bytes *",
           "bytes 9-0/16",       // last < first
           "bytes 10-9/16",
           "bytes 0 -9/16",      // spaces inside
           "bytes 0- 9/16",
           "bytes 0-9 /16",
           "bytes 0-9/ 16",
           "bytes 0-9/16 ",
           "bytes  0-9/16",
           " bytes 0-9/16",
           "bytes=0-9/16",
           "items 0-9/16",
           "bytes -9/16",        // suffix forms are never sent
           "bytes 0-/16",
           "bytes 0--9/16",
           "bytes +0-9/16",
           "bytes 0-+9/16",
           "bytes 0-9/+16",
           "bytes 0-9/-16",
           "bytes 0x0-9/16",
           "bytes 0-9/16/16",
           "bytes 0-9,20-29/32",
           "bytes 0-9/18446744073709551615",   // 20 digits, even though it fits
           "bytes 0-9/18446744073709551616",   // overflow
           "bytes 0-99999999999999999999/5",
           "bytes 99999999999999999999999999-0/5",
       }) {
    EXPECT_FALSE(ParseContentRange(value).has_value()) << '"' << value << '"';
  }
}

// --- header lines ---

TEST(AddHeaderLineTest, StatusLinesOfEveryHttpVersion) {
  EXPECT_EQ(HeadOf({"HTTP/1.1 206 Partial Content"}).status, 206);
  EXPECT_EQ(HeadOf({"HTTP/1.0 404 Not Found"}).status, 404);
  EXPECT_EQ(HeadOf({"HTTP/2 200 "}).status, 200);  // libcurl's synthesized HTTP/2 line
  EXPECT_EQ(HeadOf({"HTTP/3 416"}).status, 416);
  EXPECT_EQ(HeadOf({"http/1.1 200 OK"}).status, 200);
  EXPECT_EQ(HeadOf({"HTTP/1.1 999 Whatever"}).status, 999);
  EXPECT_EQ(HeadOf({"Content-Length: 3"}).status, 0);  // no status line yet
}

TEST(AddHeaderLineTest, MalformedStatusLineIsIoError) {
  for (std::string_view line : {"HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 20x OK", "HTTP/1.1 099 X",
                                "HTTP/1.1  200 OK", "HTTP/ 200 OK", "HTTP/1.1", "HTTP/1.1 ", "HTTP/x 200 OK",
                                "HTTP/1.1\t200 OK", "HTTP/1.1 -200 OK"}) {
    ResponseHead head;
    ExpectError(AddHeaderLine(head, std::string(line) + "\r\n"), StatusCode::kIoError, "malformed HTTP status line");
  }
}

TEST(AddHeaderLineTest, ReadsTheThreeFieldsTrimmedAndIgnoresTheRest) {
  ResponseHead head = HeadOf({"HTTP/1.1 206 Partial Content", "Server: nginx", "Content-Range: \t bytes 4-9/16 \t",
                              "Content-Length:6", "Content-Encoding: identity", "Content-Type: text/plain",
                              "X-Content-Range: bytes 0-0/1", "a line without a colon", ""});
  EXPECT_EQ(head.status, 206);
  EXPECT_EQ(head.content_range, "bytes 4-9/16");
  EXPECT_EQ(head.content_length, 6u);
  EXPECT_EQ(head.content_encoding, "identity");
}

TEST(AddHeaderLineTest, NamesAreCaseInsensitiveAsciiOnly) {
  ResponseHead head = HeadOf({"HTTP/1.1 206 Partial Content", "content-range: bytes 0-3/4", "CONTENT-LENGTH: 4",
                              "cOnTeNt-EnCoDiNg: gzip"});
  EXPECT_EQ(head.content_range, "bytes 0-3/4");
  EXPECT_EQ(head.content_length, 4u);
  EXPECT_EQ(head.content_encoding, "gzip");
  // Bytes that differ from '-' or a letter only in bit 0x20 are other names
  // ('\r' | 0x20 == '-'), as is a name with space before its colon.
  ResponseHead other = HeadOf({"HTTP/1.1 206 Partial Content", "Content\rRange: bytes 0-3/4",
                               "Content\rLength: 4", "Content-Range : bytes 0-3/4"});
  EXPECT_FALSE(other.content_range.has_value());
  EXPECT_FALSE(other.content_length.has_value());
}

TEST(AddHeaderLineTest, ANewStatusLineStartsANewResponse) {
  ResponseHead head = HeadOf({"HTTP/1.1 100 Continue", "Content-Range: bytes 0-0/1", "Content-Length: 1",
                              "Content-Encoding: gzip", "", "HTTP/1.1 200 OK"});
  EXPECT_EQ(head.status, 200);
  EXPECT_FALSE(head.content_range.has_value());
  EXPECT_FALSE(head.content_length.has_value());
  EXPECT_FALSE(head.content_encoding.has_value());
  // The same fields in the next response are not duplicates of the first.
  ResponseHead again = HeadOf({"HTTP/1.1 100 Continue", "Content-Length: 1", "", "HTTP/1.1 200 OK",
                               "Content-Length: 2"});
  EXPECT_EQ(again.content_length, 2u);
}

TEST(AddHeaderLineTest, InvalidContentLengthIsIntegrityError) {
  for (std::string_view value : {"", "abc", "-1", "+5", "5 5", "5,5", "0x10", "1.0", "18446744073709551616",
                                 "99999999999999999999"}) {
    ResponseHead head;
    ExpectError(AddLines(head, {"HTTP/1.1 200 OK", "Content-Length: " + std::string(value)}),
                StatusCode::kIntegrityError, "HTTP 200 with an invalid Content-Length");
  }
  EXPECT_EQ(HeadOf({"Content-Length: 9999999999999999999"}).content_length, 9999999999999999999u);
  EXPECT_EQ(HeadOf({"Content-Length:  0012 "}).content_length, 12u);
}

TEST(AddHeaderLineTest, RepeatedFieldsMustAgree) {
  ResponseHead same = HeadOf({"HTTP/1.1 206 Partial Content", "Content-Range: bytes 0-3/4",
                              "content-range: bytes 0-3/4", "Content-Length: 4", "Content-Length: 004"});
  EXPECT_EQ(same.content_range, "bytes 0-3/4");
  EXPECT_EQ(same.content_length, 4u);

  ResponseHead head;
  ExpectError(AddLines(head, {"HTTP/1.1 206 Partial Content", "Content-Range: bytes 0-3/4",
                              "Content-Range: bytes 4-7/8"}),
              StatusCode::kIntegrityError, "HTTP 206 with two different Content-Range values");
  head = ResponseHead{};
  ExpectError(AddLines(head, {"HTTP/1.1 200 OK", "Content-Length: 4", "Content-Length: 5"}),
              StatusCode::kIntegrityError, "HTTP 200 with two different Content-Length values");
}

TEST(AddHeaderLineTest, RepeatedContentEncodingIsOneList) {
  ResponseHead head = HeadOf({"HTTP/1.1 200 OK", "Content-Encoding: gzip", "Content-Encoding: identity"});
  EXPECT_EQ(head.content_encoding, "gzip, identity");
  GetOptions options;
  // A later "identity" does not hide the gzip.
  ExpectKeyedError(CheckHead(head, Whole(options)).status(), StatusCode::kIntegrityError,
                   "HTTP 200 with Content-Encoding gzip, identity: objects must be served as stored");
}

// --- CheckHead ---

TEST(CheckHeadTest, MatchingPartialAnswerExpectsExactlyTheRange) {
  GetOptions options = RangeOptions(4, 6, 16);
  auto expectation = CheckHead(HeadOf({"HTTP/1.1 206 Partial Content", "Content-Range: bytes 4-9/16",
                                       "Content-Length: 6"}),
                               Ranged(options));
  ASSERT_TRUE(expectation.ok()) << expectation.status().ToString();
  EXPECT_EQ(expectation->status, 206);
  EXPECT_FALSE(expectation->empty_answer);
  EXPECT_EQ(expectation->body_cap, 6u);
  EXPECT_EQ(expectation->body_expected, 6u);
}

TEST(CheckHeadTest, PartialAnswerForAnotherRangeOrSizeIsRefused) {
  GetOptions options = RangeOptions(4, 6, 16);
  auto check = [&](std::string_view content_range) {
    return CheckHead(HeadOf({"HTTP/1.1 206 Partial Content", "Content-Range: " + std::string(content_range)}),
                     Ranged(options))
        .status();
  };
  ExpectKeyedError(check("bytes 5-10/16"), StatusCode::kIntegrityError,
                   "Content-Range bytes 5-10 does not match the requested bytes 4-9");
  ExpectKeyedError(check("bytes 4-8/16"), StatusCode::kIntegrityError,
                   "Content-Range bytes 4-8 does not match the requested bytes 4-9");
  ExpectKeyedError(check("bytes 4-9/17"), StatusCode::kIntegrityError, "object is 17 bytes, expected 16");
  ExpectKeyedError(check("bytes */16"), StatusCode::kIntegrityError, "HTTP 206 without a valid Content-Range");
  ExpectKeyedError(check("bytes 9-4/16"), StatusCode::kIntegrityError, "HTTP 206 without a valid Content-Range");
  ExpectKeyedError(check("bytes 4-9"), StatusCode::kIntegrityError, "HTTP 206 without a valid Content-Range");
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 206 Partial Content"}), Ranged(options)).status(),
                   StatusCode::kIntegrityError, "HTTP 206 without a valid Content-Range");
  // Without expected_size, the server's total still has to hold the range.
  GetOptions unsized = RangeOptions(4, 6);
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 206 Partial Content", "Content-Range: bytes 4-9/8"}),
                             Ranged(unsized))
                       .status(),
                   StatusCode::kOutOfRange, "range [4, +6) is past the end of the 8-byte object");
}

TEST(CheckHeadTest, WholeAnswerToARangeIsRefusedUnlessTheObjectIsEmpty) {
  GetOptions options = RangeOptions(0, 4);
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 16"}), Ranged(options)).status(),
                   StatusCode::kIntegrityError, "HTTP 200 to a range request (the server ignores Range)");
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 200 OK"}), Ranged(options)).status(), StatusCode::kIntegrityError,
                   "HTTP 200 to a range request (the server ignores Range)");
  // nginx's answer for a range of an empty object: size 0, which holds only
  // a zero-length read at offset 0.
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 0"}), Ranged(options)).status(),
                   StatusCode::kOutOfRange, "range [0, +4) is past the end of the 0-byte object");
  GetOptions empty = RangeOptions(0, 0);
  auto expectation = CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 0"}), Ranged(empty));
  ASSERT_TRUE(expectation.ok()) << expectation.status().ToString();
  EXPECT_TRUE(expectation->empty_answer);
  GetOptions empty_sized = RangeOptions(0, 0, 3);
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 0"}), Ranged(empty_sized)).status(),
                   StatusCode::kIntegrityError, "object is 0 bytes, expected 3");
}

TEST(CheckHeadTest, UnsatisfiableRange) {
  // The probe for a zero-length read at the very end.
  GetOptions at_end = RangeOptions(16, 0, 16);
  auto expectation = CheckHead(HeadOf({"HTTP/1.1 416 Range Not Satisfiable", "Content-Range: bytes */16"}),
                               Ranged(at_end));
  ASSERT_TRUE(expectation.ok()) << expectation.status().ToString();
  EXPECT_TRUE(expectation->empty_answer);
  EXPECT_EQ(expectation->status, 416);
  // The same answer with another expected size, or past the end.
  GetOptions other_size = RangeOptions(16, 0, 17);
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 416 X", "Content-Range: bytes */16"}), Ranged(other_size)).status(),
                   StatusCode::kIntegrityError, "object is 16 bytes, expected 17");
  GetOptions past = RangeOptions(12, 4);
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 416 X", "Content-Range: bytes */10"}), Ranged(past)).status(),
                   StatusCode::kOutOfRange, "range [12, +4) is past the end of the 10-byte object");
  // A 416 for bytes the server's own total says exist.
  GetOptions within = RangeOptions(2, 4);
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 416 X", "Content-Range: bytes */10"}), Ranged(within)).status(),
                   StatusCode::kIntegrityError, "HTTP 416 for a range within the 10-byte object");
  // Without a usable total: out of range, as the status says.
  for (const auto& lines : std::vector<std::vector<std::string>>{
           {"HTTP/1.1 416 X"},
           {"HTTP/1.1 416 X", "Content-Range: bytes 0-3/10"},
           {"HTTP/1.1 416 X", "Content-Range: bytes */x"}}) {
    ExpectKeyedError(CheckHead(HeadOf(lines), Ranged(within)).status(), StatusCode::kOutOfRange,
                     "HTTP 416: the range is past the end of the object");
  }
  // A 416 to a plain GET is just an error status.
  GetOptions whole;
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 416 X", "Content-Range: bytes */10"}), Whole(whole)).status(),
                   StatusCode::kIoError, "HTTP 416");
}

TEST(CheckHeadTest, StatusCodesMapToStatuses) {
  struct Case {
    std::string_view line;
    StatusCode code;
    std::string_view message;
  };
  GetOptions options = RangeOptions(0, 4);
  for (const Case& c : {
           Case{"HTTP/1.1 404 Not Found", StatusCode::kNotFound, "HTTP 404"},
           Case{"HTTP/1.1 410 Gone", StatusCode::kNotFound, "HTTP 410"},
           Case{"HTTP/1.1 408 Request Timeout", StatusCode::kUnavailable, "HTTP 408"},
           Case{"HTTP/1.1 429 Too Many Requests", StatusCode::kUnavailable, "HTTP 429"},
           Case{"HTTP/1.1 500 Internal Server Error", StatusCode::kUnavailable, "HTTP 500"},
           Case{"HTTP/1.1 599 X", StatusCode::kUnavailable, "HTTP 599"},
           Case{"HTTP/1.1 301 Moved", StatusCode::kIoError,
                "HTTP 301: redirects are not followed (an object must be served at its own URL)"},
           Case{"HTTP/1.1 304 Not Modified", StatusCode::kIoError,
                "HTTP 304: redirects are not followed (an object must be served at its own URL)"},
           Case{"HTTP/1.1 401 Unauthorized", StatusCode::kIoError, "HTTP 401"},
           Case{"HTTP/1.1 403 Forbidden", StatusCode::kIoError, "HTTP 403"},
           Case{"HTTP/1.1 600 X", StatusCode::kIoError, "HTTP 600"},
           Case{"HTTP/1.1 100 Continue", StatusCode::kIoError, "HTTP 100"},
           Case{"HTTP/1.1 204 No Content", StatusCode::kIntegrityError,
                "HTTP 204 to a range request (the server ignores Range)"},
       }) {
    ExpectKeyedError(CheckHead(HeadOf({std::string(c.line), "Content-Range: bytes 0-3/4"}), Ranged(options)).status(),
                     c.code,
                     c.message);
  }
  ExpectKeyedError(CheckHead(ResponseHead{}, Ranged(options)).status(), StatusCode::kIoError, "HTTP 0");
}

TEST(CheckHeadTest, ContentEncodingOtherThanIdentityIsRefused) {
  GetOptions options;
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Encoding: gzip"}), Whole(options)).status(),
                   StatusCode::kIntegrityError,
                   "HTTP 200 with Content-Encoding gzip: objects must be served as stored");
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Encoding:"}), Whole(options)).status(),
                   StatusCode::kIntegrityError, "HTTP 200 with Content-Encoding : objects must be served as stored");
  // Checked before the range: a compressed 206 is refused as such.
  GetOptions ranged = RangeOptions(0, 4);
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 206 P", "Content-Range: bytes 0-3/4", "Content-Encoding: br"}),
                             Ranged(ranged))
                       .status(),
                   StatusCode::kIntegrityError, "HTTP 206 with Content-Encoding br: objects must be served as stored");
  for (std::string_view identity : {"identity", "IDENTITY", "Identity"}) {
    EXPECT_TRUE(CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Encoding: " + std::string(identity)}), Whole(options))
                    .ok())
        << identity;
  }
}

TEST(CheckHeadTest, WholeObjectAnswer) {
  GetOptions sized;
  sized.expected_size = 16;
  auto by_size = CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 16"}), Whole(sized));
  ASSERT_TRUE(by_size.ok()) << by_size.status().ToString();
  EXPECT_EQ(by_size->body_expected, 16u);
  EXPECT_EQ(by_size->body_cap, 16u);
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 17"}), Whole(sized)).status(),
                   StatusCode::kIntegrityError, "object is 17 bytes, expected 16");
  // Chunked: no Content-Length, so expected_size alone fixes the length.
  auto chunked = CheckHead(HeadOf({"HTTP/1.1 200 OK", "Transfer-Encoding: chunked"}), Whole(sized));
  ASSERT_TRUE(chunked.ok()) << chunked.status().ToString();
  EXPECT_EQ(chunked->body_expected, 16u);
  EXPECT_EQ(chunked->body_cap, 16u);

  GetOptions capped;
  capped.max_bytes = 15;
  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 16"}), Whole(capped)).status(),
                   StatusCode::kLimitExceeded, "reading 16 bytes exceeds the limit of 15");
  auto by_length = CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 15"}), Whole(capped));
  ASSERT_TRUE(by_length.ok()) << by_length.status().ToString();
  EXPECT_EQ(by_length->body_expected, 15u);
  EXPECT_EQ(by_length->body_cap, 15u);
  auto unsized = CheckHead(HeadOf({"HTTP/1.1 200 OK"}), Whole(capped));
  ASSERT_TRUE(unsized.ok()) << unsized.status().ToString();
  EXPECT_FALSE(unsized->body_expected.has_value());
  EXPECT_EQ(unsized->body_cap, 15u);

  ExpectKeyedError(CheckHead(HeadOf({"HTTP/1.1 206 Partial Content", "Content-Range: bytes 0-3/4"}), Whole(sized))
                       .status(),
                   StatusCode::kIntegrityError, "HTTP 206 to a plain GET");
}

// --- the body ---

TEST(CheckBodyTest, RangedBodyMustBeExactlyTheRange) {
  GetOptions options = RangeOptions(0, 4);
  RangeRequest request = Ranged(options);
  Expectation expectation{.status = 206, .empty_answer = false, .body_cap = 4, .body_expected = 4};
  EXPECT_TRUE(CheckBodyGrowth(expectation, request, 0, 4).ok());
  EXPECT_TRUE(CheckBodyGrowth(expectation, request, 3, 1).ok());
  ExpectKeyedError(CheckBodyGrowth(expectation, request, 3, 2), StatusCode::kIntegrityError,
                   "HTTP 206 with a body longer than 4 bytes");
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  ExpectKeyedError(CheckBodyGrowth(expectation, request, 2, kMax), StatusCode::kIntegrityError,
                   "HTTP 206 with a body longer than 4 bytes");
  ExpectKeyedError(CheckBodyGrowth(expectation, request, kMax, 0), StatusCode::kIntegrityError,
                   "HTTP 206 with a body longer than 4 bytes");
  EXPECT_TRUE(CheckBodyLength(expectation, request, 4).ok());
  ExpectKeyedError(CheckBodyLength(expectation, request, 3), StatusCode::kIntegrityError,
                   "HTTP 206 with a body of 3 bytes, expected 4");
}

TEST(CheckBodyTest, UnsizedBodyStopsAtMaxBytes) {
  GetOptions options;
  options.max_bytes = 1000;
  RangeRequest request = Whole(options);
  auto expectation = CheckHead(HeadOf({"HTTP/1.1 200 OK", "Connection: close"}), request);
  ASSERT_TRUE(expectation.ok()) << expectation.status().ToString();
  EXPECT_TRUE(CheckBodyGrowth(*expectation, request, 600, 400).ok());
  ExpectKeyedError(CheckBodyGrowth(*expectation, request, 600, 401), StatusCode::kLimitExceeded,
                   "reading more than 1000 bytes exceeds the limit");
  EXPECT_TRUE(CheckBodyLength(*expectation, request, 0).ok());
  EXPECT_TRUE(CheckBodyLength(*expectation, request, 1000).ok());
}

TEST(CheckBodyTest, BodyPastItsContentLengthIsIntegrityError) {
  GetOptions options;
  RangeRequest request = Whole(options);
  auto expectation = CheckHead(HeadOf({"HTTP/1.1 200 OK", "Content-Length: 5"}), request);
  ASSERT_TRUE(expectation.ok()) << expectation.status().ToString();
  ExpectKeyedError(CheckBodyGrowth(*expectation, request, 0, 6), StatusCode::kIntegrityError,
                   "HTTP 200 with a body longer than 5 bytes");
  ExpectKeyedError(CheckBodyLength(*expectation, request, 4), StatusCode::kIntegrityError,
                   "HTTP 200 with a body of 4 bytes, expected 5");
}

}  // namespace
}  // namespace vigilo::store
