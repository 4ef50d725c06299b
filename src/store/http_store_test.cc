// The http(s) store against a scripted misbehaving server (every fault nginx
// will not produce) and against a private nginx (its access log is the
// independent witness of what was requested). The seam's shared semantics
// over nginx are in store_conformance_test.cc ("Http").
#include "vigilo/store/http_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "http_test_support.h"
#include "vigilo/store/local_store.h"

namespace vigilo::store {
namespace {

using testing::Answer;
using testing::FakeHttpServer;
using testing::ScriptedResponse;

// Timeouts in milliseconds on the real clock (the transfer is real), tiny
// backoff: a fault test takes well under a second.
GovernorLimits FastLimits() {
  GovernorLimits limits;
  limits.retry_backoff_base_ms = std::chrono::milliseconds(1);
  limits.retry_backoff_cap_ms = std::chrono::milliseconds(2);
  limits.connection_timeout_ms = std::chrono::milliseconds(500);
  limits.no_progress_timeout_ms = std::chrono::milliseconds(150);
  limits.object_operation_deadline_ms = std::chrono::milliseconds(5'000);
  return limits;
}

// A governor with the seed's default limits, shared by the tests that
// need no particular schedule.
RequestGovernor& SeedDefaultsGovernor() {
  static std::unique_ptr<RequestGovernor> governor =
      std::move(RequestGovernor::Create(GovernorLimits{}, DefaultClock(), DefaultRandom())).value();
  return *governor;
}

class HttpStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<ObjectStore> Open(const std::string& base_url) {
    auto governor = RequestGovernor::Create(FastLimits(), DefaultClock(), random_);
    EXPECT_TRUE(governor.ok()) << governor.status().ToString();
    governor_ = std::move(governor).value();
    auto store = OpenHttpStore({.base_url = base_url, .governor = governor_.get(), .cancel = nullptr});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return std::move(store).value();
  }

  static Result<Bytes> GetRange(ObjectStore& store, std::string_view key, uint64_t offset, uint64_t length,
                                std::optional<uint64_t> expected_size = std::nullopt) {
    GetOptions options;
    options.range = ByteRange{offset, length};
    options.expected_size = expected_size;
    return store.Get(key, options);
  }

  // Every request any test sends: a GET, with at most one explicit range.
  static void ExpectOnlySingleRangeGets(const std::vector<FakeHttpServer::Request>& requests) {
    static const std::regex kSingleRange("bytes=[0-9]+-[0-9]+");
    for (const auto& request : requests) {
      EXPECT_EQ(request.request_line.rfind("GET ", 0), 0u) << request.request_line;
      if (!request.range.empty()) {
        EXPECT_TRUE(std::regex_match(request.range, kSingleRange)) << request.range;
      }
    }
  }

  SeededRandom random_{3};
  std::unique_ptr<RequestGovernor> governor_;
};

constexpr std::string_view kObject = "0123456789abcdef";  // 16 bytes

ScriptedResponse Partial(uint64_t first, uint64_t last, uint64_t total, std::string body) {
  return Answer(206, "Partial Content", std::move(body),
                {"Content-Range: bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" +
                 std::to_string(total)});
}

TEST_F(HttpStoreTest, RangedGetSendsOneExplicitRangeAndChecksTheAnswer) {
  FakeHttpServer server({Partial(4, 9, 16, "456789")});
  auto store = Open(server.base_url() + "pub/v1");
  auto got = GetRange(*store, "dir/part-0.parquet", 4, 6, 16);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->view(), "456789");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].request_line, "GET /pub/v1/dir/part-0.parquet HTTP/1.1");
  EXPECT_EQ(requests[0].range, "bytes=4-9");
}

TEST_F(HttpStoreTest, KeySegmentsArePercentEncoded) {
  FakeHttpServer server({Answer(200, "OK", "x")});
  auto store = Open(server.base_url());
  auto got = store->Get("a b/c+d%e/f");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(server.requests().at(0).request_line, "GET /a%20b/c%2Bd%25e/f HTTP/1.1");
}

TEST_F(HttpStoreTest, WholeGetIsAPlainGetCheckedAgainstExpectedSize) {
  FakeHttpServer server({Answer(200, "OK", std::string(kObject))});
  auto store = Open(server.base_url());
  GetOptions options;
  options.expected_size = 16;
  auto got = store->Get("manifest.json", options);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->view(), kObject);
  options.expected_size = 15;
  auto wrong = store->Get("manifest.json", options);
  EXPECT_EQ(wrong.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(wrong.status().message(), "object is 16 bytes, expected 15");
  EXPECT_EQ(wrong.status().path(), "manifest.json");
  for (const auto& request : server.requests()) EXPECT_EQ(request.range, "");
  ExpectOnlySingleRangeGets(server.requests());
}

TEST_F(HttpStoreTest, ServerIgnoringRangeIsIntegrityErrorWithoutRetry) {
  FakeHttpServer server({Answer(200, "OK", std::string(kObject))});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 4, 6);
  EXPECT_EQ(got.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(got.status().message(), "HTTP 200 to a range request (the server ignores Range)");
  EXPECT_EQ(got.status().path(), "p/a.parquet");
  EXPECT_EQ(server.requests().size(), 1u);  // final: not retried
}

TEST_F(HttpStoreTest, WrongContentRangeIsIntegrityError) {
  FakeHttpServer server({Partial(5, 10, 16, "56789a")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 4, 6);
  EXPECT_EQ(got.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(got.status().message(), "Content-Range bytes 5-10 does not match the requested bytes 4-9");
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpStoreTest, MissingContentRangeIsIntegrityError) {
  FakeHttpServer server({Answer(206, "Partial Content", "456789")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 4, 6);
  EXPECT_EQ(got.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(got.status().message(), "HTTP 206 without a valid Content-Range");
}

TEST_F(HttpStoreTest, TotalOtherThanExpectedSizeIsIntegrityError) {
  FakeHttpServer server({Partial(4, 9, 17, "456789")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 4, 6, 16);
  EXPECT_EQ(got.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(got.status().message(), "object is 17 bytes, expected 16");
}

// Issue 34: an answer that is not HTTP at all is io_error "malformed HTTP
// status line" (docs/format/http-reading.md), not a complaint about the
// URL's scheme.
TEST_F(HttpStoreTest, AStatusLineThatIsNotHttpIsAMalformedAnswer) {
  ScriptedResponse garbage;
  garbage.head = "SSH-2.0-OpenSSH_9.2\r\n\r\n";
  FakeHttpServer server({garbage});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 0, 10);
  EXPECT_EQ(got.status().code(), StatusCode::kIoError) << got.status().ToString();
  EXPECT_EQ(got.status().message().rfind("malformed HTTP status line (", 0), 0u) << got.status().ToString();
  EXPECT_EQ(got.status().path(), "p/a.parquet");
}

// A body cut short of its Content-Length by a closed connection is a
// transport failure, retried like a reset or a stall (a gateway killed
// while it answers: tests/s3/faults.sh); wrong bytes are integrity errors
// (below).
TEST_F(HttpStoreTest, TruncatedBodyIsUnavailableAndRetried) {
  ScriptedResponse truncated = Partial(0, 9, 16, "0123456789");
  truncated.body_bytes_before_stall = 4;  // then the connection closes
  FakeHttpServer server({truncated, Partial(0, 9, 16, "0123456789")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 0, 10);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->view(), "0123456789");
  EXPECT_EQ(server.requests().size(), 2u);

  FakeHttpServer always_truncates({truncated});
  auto store2 = Open(always_truncates.base_url());
  auto failed = GetRange(*store2, "p/a.parquet", 0, 10);
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(failed.status().message(), "connection closed before the body's Content-Length (after 3 attempts)");
  EXPECT_EQ(failed.status().path(), "p/a.parquet");
  EXPECT_EQ(always_truncates.requests().size(), 3u);
}

TEST_F(HttpStoreTest, ShortBodyWithMatchingContentLengthIsIntegrityError) {
  FakeHttpServer server({Partial(0, 9, 16, "01234")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 0, 10);
  EXPECT_EQ(got.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(got.status().message(), "HTTP 206 with a body of 5 bytes, expected 10");
}

TEST_F(HttpStoreTest, LongBodyIsIntegrityError) {
  FakeHttpServer server({Partial(0, 3, 16, "0123456789")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 0, 4);
  EXPECT_EQ(got.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(got.status().message(), "HTTP 206 with a body longer than 4 bytes");
}

TEST_F(HttpStoreTest, StallIsDeadlineExceededAfterEveryAttempt) {
  ScriptedResponse stalls = Partial(0, 9, 16, "0123456789");
  stalls.body_bytes_before_stall = 2;
  stalls.stall = std::chrono::milliseconds(3'000);
  FakeHttpServer server({stalls});
  auto store = Open(server.base_url());
  auto start = std::chrono::steady_clock::now();
  auto got = GetRange(*store, "p/a.parquet", 0, 10);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded);
  // The timer fires at 150 ms; the loop notices within its poll interval.
  static const std::regex kStalled("no bytes transferred for 1[5-9][0-9]{4} microseconds \\(after 3 attempts\\)");
  EXPECT_TRUE(std::regex_match(std::string(got.status().message()), kStalled)) << got.status().message();
  EXPECT_EQ(got.status().path(), "p/a.parquet");
  // Three stalls of 150 ms, not three of the server's 3 s.
  EXPECT_LT(elapsed, std::chrono::milliseconds(2'000));
  EXPECT_GE(elapsed, std::chrono::milliseconds(3 * 150));
}

TEST_F(HttpStoreTest, ServiceUnavailableIsRetriedThenSucceeds) {
  FakeHttpServer server({Answer(503, "Service Unavailable", "busy"), Answer(429, "Too Many Requests", ""),
                         Partial(4, 9, 16, "456789")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 4, 6, 16);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->view(), "456789");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  for (const auto& request : requests) EXPECT_EQ(request.range, "bytes=4-9");
}

TEST_F(HttpStoreTest, PersistentServerErrorNamesTheStatusAndTheAttempts) {
  FakeHttpServer server({Answer(502, "Bad Gateway", "")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 4, 6);
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(got.status().message(), "HTTP 502 (after 3 attempts)");
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_F(HttpStoreTest, ClosedConnectionIsUnavailableAndRetried) {
  ScriptedResponse closes;
  closes.close_without_answer = true;
  FakeHttpServer server({closes, Partial(4, 9, 16, "456789")});
  auto store = Open(server.base_url());
  auto got = GetRange(*store, "p/a.parquet", 4, 6);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->view(), "456789");
  EXPECT_EQ(server.requests().size(), 2u);

  FakeHttpServer always_closes({closes});
  auto store2 = Open(always_closes.base_url());
  auto failed = GetRange(*store2, "p/a.parquet", 4, 6);
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(always_closes.requests().size(), 3u);
}

TEST_F(HttpStoreTest, RefusedConnectionIsUnavailableAndNamesNoAddress) {
  uint16_t port;
  {
    FakeHttpServer gone({Answer(200, "OK", "")});
    port = gone.port();
  }  // closed: nothing listens there now
  auto store = Open("http://127.0.0.1:" + std::to_string(port) + "/secret-prefix/");
  auto got = store->Get("k");
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(got.status().message(), "connection refused (after 3 attempts)");
  EXPECT_EQ(got.status().ToString().find("127.0.0.1"), std::string::npos);
  EXPECT_EQ(got.status().ToString().find("secret-prefix"), std::string::npos);
}

TEST_F(HttpStoreTest, RedirectIsNotFollowed) {
  FakeHttpServer elsewhere({Answer(200, "OK", std::string(kObject))});
  FakeHttpServer server({Answer(302, "Found", "", {"Location: " + elsewhere.base_url() + "k"})});
  auto store = Open(server.base_url());
  auto got = store->Get("k");
  EXPECT_EQ(got.status().code(), StatusCode::kIoError);
  EXPECT_EQ(got.status().message(),
            "HTTP 302: redirects are not followed (an object must be served at its own URL)");
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(elsewhere.requests().size(), 0u);
}

TEST_F(HttpStoreTest, StatusMapping) {
  struct Case {
    int status;
    StatusCode code;
    std::string message;
  };
  for (const Case& c : {Case{404, StatusCode::kNotFound, "HTTP 404"}, Case{410, StatusCode::kNotFound, "HTTP 410"},
                        Case{403, StatusCode::kIoError, "HTTP 403"},
                        Case{416, StatusCode::kOutOfRange, "HTTP 416: the range is past the end of the object"}}) {
    FakeHttpServer server({Answer(c.status, "X", "error page")});
    auto store = Open(server.base_url());
    auto got = GetRange(*store, "k", 0, 4);
    EXPECT_EQ(got.status().code(), c.code) << c.status;
    EXPECT_EQ(got.status().message(), c.message);
    EXPECT_EQ(got.status().path(), "k");
    EXPECT_EQ(server.requests().size(), 1u) << c.status;
  }
}

TEST_F(HttpStoreTest, CompressedAnswerIsIntegrityError) {
  FakeHttpServer server({Answer(200, "OK", "xx", {"Content-Encoding: gzip"})});
  auto store = Open(server.base_url());
  auto got = store->Get("k");
  EXPECT_EQ(got.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(got.status().message(), "HTTP 200 with Content-Encoding gzip: objects must be served as stored");
}

TEST_F(HttpStoreTest, MaxBytesIsCheckedBeforeTheTransfer) {
  FakeHttpServer server({Answer(200, "OK", std::string(kObject))});
  auto store = Open(server.base_url());
  GetOptions options;
  options.max_bytes = 15;
  // From Content-Length, before the body.
  auto whole = store->Get("k", options);
  EXPECT_EQ(whole.status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(whole.status().message(), "reading 16 bytes exceeds the limit of 15");
  // From the range or the expected size: no request at all.
  options.range = ByteRange{0, 16};
  EXPECT_EQ(store->Get("k", options).status().code(), StatusCode::kLimitExceeded);
  options.range.reset();
  options.expected_size = 16;
  EXPECT_EQ(store->Get("k", options).status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpStoreTest, MaxBytesStopsABodyWithoutContentLength) {
  ScriptedResponse unsized;
  unsized.head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";  // close-delimited body
  unsized.body = std::string(100'000, 'z');
  FakeHttpServer server({unsized});
  auto store = Open(server.base_url());
  GetOptions options;
  options.max_bytes = 1000;
  auto got = store->Get("k", options);
  EXPECT_EQ(got.status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(got.status().message(), "reading more than 1000 bytes exceeds the limit");
}

TEST_F(HttpStoreTest, HeadIsNeverSentAndWritesAreRefused) {
  FakeHttpServer server({Answer(200, "OK", "")});
  auto store = Open(server.base_url());
  EXPECT_FALSE(store->capabilities().writable);
  EXPECT_EQ(RequireWritable(*store, "web").code(), StatusCode::kInvalidArgument);
  auto head = store->Head("k");
  EXPECT_EQ(head.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(head.status().message(), "HEAD is never sent over HTTP: sizes come from the manifest");
  const uint8_t byte = 1;
  auto created = store->CreateIfAbsent("k", {&byte, 1});
  EXPECT_EQ(created.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(created.status().message(), "an http(s) store is read-only");
  EXPECT_EQ(store->BeginCreate("k").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Delete("k").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server.requests().size(), 0u);
}

TEST_F(HttpStoreTest, CancelStopsARunningTransfer) {
  ScriptedResponse stalls = Partial(0, 9, 16, "0123456789");
  stalls.body_bytes_before_stall = 2;
  stalls.stall = std::chrono::milliseconds(3'000);
  FakeHttpServer server({stalls});
  GovernorLimits limits = FastLimits();
  limits.no_progress_timeout_ms = std::chrono::milliseconds(4'000);
  auto governor = std::move(RequestGovernor::Create(limits, DefaultClock(), random_)).value();
  CancelToken cancel;
  auto store = std::move(OpenHttpStore({.base_url = server.base_url(), .governor = governor.get(),
                                        .cancel = &cancel}))
                   .value();
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel.Cancel();
  });
  auto start = std::chrono::steady_clock::now();
  auto got = GetRange(*store, "k", 0, 10);
  canceller.join();
  EXPECT_EQ(got.status().code(), StatusCode::kCancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1'000));
}

TEST(OpenHttpStoreTest, RefusesOtherSchemesQueriesAndCredentialsWithoutEchoingThem) {
  for (std::string_view url : {"file:///etc/", "ftp://h/p", "gopher://h/", "http://user:pw@h/p", "https://h/p?sig=x",
                               "http://h/p#f", "http:///p", "https://h/p q"}) {
    auto opened = OpenHttpStore({.base_url = std::string(url), .governor = &SeedDefaultsGovernor(), .cancel = nullptr});
    EXPECT_EQ(opened.status().code(), StatusCode::kInvalidArgument) << url;
    EXPECT_EQ(opened.status().ToString().find(url.substr(url.find("://") + 3)), std::string::npos) << url;
  }
  EXPECT_TRUE(OpenHttpStore({.base_url = "HTTPS://example.org/pub", .governor = &SeedDefaultsGovernor(), .cancel = nullptr}).ok());
  // A store without a governor would have no deadline, permits or retries.
  EXPECT_EQ(OpenHttpStore({.base_url = "https://example.org/pub", .governor = nullptr, .cancel = nullptr}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(IsHttpUrl("http://x/manifest.json"));
  EXPECT_TRUE(IsHttpUrl("HTTPS://x/"));
  EXPECT_FALSE(IsHttpUrl("file:///x"));
  EXPECT_FALSE(IsHttpUrl("./http://x"));
}

// Against a real nginx: ranged and whole reads, and its access log shows
// exactly the requests sent: GETs with single explicit ranges, no HEAD.
TEST(HttpStoreNginxTest, AccessLogShowsOnlyGetsWithSingleRanges) {
  auto shared = testing::SharedNginx::Get();
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  const auto dir = std::filesystem::temp_directory_path() / ("vigilo-http-log-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto local = std::move(OpenLocalStore(dir.string(), {.writable = true, .create_root = true})).value();
  std::string payload(100'000, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 131 + 7);
  ASSERT_TRUE(local->CreateIfAbsent("pub/data.parquet", {reinterpret_cast<const uint8_t*>(payload.data()),
                                                          payload.size()})
                  .ok());
  auto url = (*shared)->Serve(dir);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  const std::string prefix = url->substr((*shared)->server().base_url().size() - 1);  // "/sN/"
  auto store = std::move(OpenHttpStore({.base_url = *url, .governor = &SeedDefaultsGovernor(), .cancel = nullptr})).value();
  size_t log_before = (*shared)->server().AccessLog().size();

  GetOptions options;
  options.expected_size = payload.size();
  options.range = ByteRange{99'000, 1'000};
  EXPECT_EQ(store->Get("pub/data.parquet", options)->view(), payload.substr(99'000));
  options.range = ByteRange{0, 4};
  EXPECT_EQ(store->Get("pub/data.parquet", options)->view(), payload.substr(0, 4));
  options.range.reset();
  EXPECT_EQ(store->Get("pub/data.parquet", options)->view(), payload);
  EXPECT_EQ(store->Get("pub/missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Head("pub/data.parquet").status().code(), StatusCode::kUnimplemented);

  // nginx writes a request's log line after it has sent the response, so
  // the last line may land a moment after the client has it.
  std::vector<std::string> log = (*shared)->server().AccessLog();
  for (int i = 0; i < 200 && log.size() < log_before + 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    log = (*shared)->server().AccessLog();
  }
  log.erase(log.begin(), log.begin() + static_cast<std::ptrdiff_t>(log_before));
  const std::string object = prefix + "pub/data.parquet";
  EXPECT_EQ(log, (std::vector<std::string>{
                     "GET " + object + " \"bytes=99000-99999\" 206 1000",
                     "GET " + object + " \"bytes=0-3\" 206 4",
                     "GET " + object + " \"-\" 200 100000",
                     "GET " + prefix + "pub/missing \"-\" 404 " + log.back().substr(log.back().rfind(' ') + 1),
                 }));
  std::filesystem::remove_all(dir);
}

// Concurrent Gets on one store share its handle pool and the governor's
// permits: every thread gets exactly its bytes.
TEST(HttpStoreNginxTest, ConcurrentRangedGetsReturnTheirOwnBytes) {
  auto shared = testing::SharedNginx::Get();
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  const auto dir = std::filesystem::temp_directory_path() / ("vigilo-http-par-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto local = std::move(OpenLocalStore(dir.string(), {.writable = true, .create_root = true})).value();
  std::string payload(1 << 20, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>((i * 2654435761u) >> 13);
  ASSERT_TRUE(local->CreateIfAbsent("obj", {reinterpret_cast<const uint8_t*>(payload.data()), payload.size()}).ok());
  auto url = (*shared)->Serve(dir);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  auto store = std::move(OpenHttpStore({.base_url = *url, .governor = &SeedDefaultsGovernor(), .cancel = nullptr})).value();
  constexpr int kThreads = 6;
  constexpr int kGets = 15;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int g = 0; g < kGets; ++g) {
        GetOptions options;
        options.expected_size = payload.size();
        const uint64_t offset = static_cast<uint64_t>(t * 150'001 + g * 9'973) % (payload.size() - 5'000);
        options.range = ByteRange{offset, 1'000 + static_cast<uint64_t>(t * 500 + g)};
        auto got = store->Get("obj", options);
        if (!got.ok() || got->view() != std::string_view(payload).substr(offset, options.range->length)) {
          ++mismatches[static_cast<size_t>(t)];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(kThreads, 0));
  std::filesystem::remove_all(dir);
}

// GetMany (a reader's round): answers in request order, each exactly what
// Get answers, an error in its own slot; nginx saw one request per Get.
TEST(HttpStoreNginxTest, GetManyAnswersEveryRequestInOrder) {
  auto shared = testing::SharedNginx::Get();
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  const auto dir = std::filesystem::temp_directory_path() / ("vigilo-http-many-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto local = std::move(OpenLocalStore(dir.string(), {.writable = true, .create_root = true})).value();
  std::string payload(300'000, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>((i * 2654435761u) >> 11);
  ASSERT_TRUE(local->CreateIfAbsent("obj", {reinterpret_cast<const uint8_t*>(payload.data()), payload.size()}).ok());
  auto url = (*shared)->Serve(dir);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  auto store = std::move(OpenHttpStore({.base_url = *url, .governor = &SeedDefaultsGovernor(), .cancel = nullptr})).value();
  const size_t log_before = (*shared)->server().AccessLog().size();
  std::vector<GetRequest> requests;
  for (uint64_t i = 0; i < 9; ++i) {
    GetOptions options;
    options.expected_size = payload.size();
    options.range = ByteRange{i * 30'000 + i, 1'000 + i};
    requests.push_back(GetRequest{"obj", options});
  }
  requests[4].key = "missing";
  requests[6].options.expected_size = payload.size() + 1;  // the server's total disagrees
  std::vector<GetResponse> answers = store->GetMany(requests);
  ASSERT_EQ(answers.size(), requests.size());
  for (size_t i = 0; i < answers.size(); ++i) {
    EXPECT_FALSE(answers[i].cached);
    if (i == 4) {
      EXPECT_EQ(answers[i].bytes.status().code(), StatusCode::kNotFound);
    } else if (i == 6) {
      EXPECT_EQ(answers[i].bytes.status().code(), StatusCode::kIntegrityError);
    } else {
      ASSERT_TRUE(answers[i].bytes.ok()) << i << ": " << answers[i].bytes.status().ToString();
      const ByteRange& r = *requests[i].options.range;
      EXPECT_EQ(answers[i].bytes->view(), std::string_view(payload).substr(r.offset, r.length)) << i;
    }
  }
  std::vector<std::string> log = (*shared)->server().AccessLog();
  for (int i = 0; i < 200 && log.size() < log_before + 9; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    log = (*shared)->server().AccessLog();
  }
  EXPECT_EQ(log.size() - log_before, 9u);  // one request each, none retried
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vigilo::store
