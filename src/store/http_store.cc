#include "vigilo/store/http_store.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "http_response.h"

namespace vigilo::store {
namespace {

// Byte offsets travel as curl_off_t and in nginx as off_t: a range ending
// past this is past the end of any object a server can hold.
constexpr uint64_t kMaxRemoteOffset = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
// Between checks of the no-progress timer and the cancel token while a
// transfer waits for its socket.
constexpr int kMaxPollMillis = 20;

// Each key segment percent-encoded except RFC 3986 unreserved characters;
// '/' separates segments (keys are validated logical keys: no "." or ".."
// segments, no empty ones).
std::string EncodeKey(std::string_view key) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    auto u = static_cast<unsigned char>(c);
    bool unreserved = (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u == '-' ||
                      u == '.' || u == '_' || u == '~' || u == '/';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// One easy handle and the multi handle that drives it; the multi handle
// keeps the connection cache, so a reused pair keeps its connections alive.
struct CurlPair {
  CURLM* multi = nullptr;
  CURL* easy = nullptr;
  ~CurlPair() {
    if (easy) curl_easy_cleanup(easy);
    if (multi) curl_multi_cleanup(multi);
  }
};

// What one request expects and what its callbacks saw. The callbacks stop a
// transfer as soon as its answer is known to be wrong (a 200 to a ranged
// request is not downloaded), recording why in `failure`. The rules
// themselves are in http_response.h.
struct Transfer {
  RangeRequest request;
  ProgressTimer* timer = nullptr;

  ResponseHead head;
  bool headers_done = false;
  Expectation expectation;  // once headers_done and failure is OK
  Status failure;           // set when a callback stopped the transfer
  std::vector<uint8_t> body;

  // Records why a callback stopped the transfer (the drive loop reports it).
  void Fail(Status status) { failure = std::move(status).WithPath(std::string(request.key)); }
};

// Reserved up front at most: a Content-Length is the server's claim, not a
// size worth allocating before a byte arrives.
constexpr uint64_t kMaxBodyReserve = uint64_t{64} << 20;

// The decision once the final response's headers are in. False stops the
// transfer (failure set, or an empty answer complete).
bool OnHeadersComplete(Transfer& t) {
  auto expectation = CheckHead(t.head, t.request);
  if (!expectation.ok()) {
    t.Fail(expectation.status());
    return false;
  }
  t.expectation = *expectation;
  if (t.expectation.empty_answer) return false;
  if (t.expectation.body_expected) {
    t.body.reserve(static_cast<size_t>(std::min(*t.expectation.body_expected, kMaxBodyReserve)));
  }
  return true;
}

size_t HeaderCallback(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const size_t n = size * count;
  t.timer->OnBytes(n);
  // Trailers after the body change nothing that was decided.
  if (t.headers_done) return n;
  if (Status added = AddHeaderLine(t.head, std::string_view(data, n)); !added.ok()) {
    t.Fail(std::move(added));
    return 0;  // libcurl stops the transfer
  }
  return n;
}

// Called once the headers are complete, before any body byte: the first
// write, or the end of a transfer without a body.
bool DecideOnce(Transfer& t) {
  if (t.headers_done) return t.failure.ok() && !t.expectation.empty_answer;
  t.headers_done = true;
  return OnHeadersComplete(t);
}

size_t WriteCallback(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const size_t n = size * count;
  t.timer->OnBytes(n);
  if (!DecideOnce(t)) return CURL_WRITEFUNC_ERROR;
  if (Status fits = CheckBodyGrowth(t.expectation, t.request, t.body.size(), n); !fits.ok()) {
    t.Fail(std::move(fits));
    return CURL_WRITEFUNC_ERROR;
  }
  t.body.insert(t.body.end(), reinterpret_cast<const uint8_t*>(data), reinterpret_cast<const uint8_t*>(data) + n);
  return n;
}

// A libcurl failure as a Status. Messages are ours: libcurl's own name
// hosts and URLs, which must not reach an error.
Status FromCurlCode(CURLcode code, std::string_view key) {
  Status status;
  switch (code) {
    case CURLE_COULDNT_CONNECT:
      status = Unavailable("connection refused");
      break;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      status = Unavailable("host name not resolved");
      break;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      status = Unavailable("connection closed or reset (" + std::string(curl_easy_strerror(code)) + ")");
      break;
    case CURLE_OPERATION_TIMEDOUT:
      status = DeadlineExceeded("connect or transfer timed out");
      break;
    case CURLE_PARTIAL_FILE:
      status = IntegrityError("the body ended before its Content-Length");
      break;
    case CURLE_UNSUPPORTED_PROTOCOL:
      // The base URL's scheme was checked when the store was opened, so at
      // transfer time this is the answer: a status line that is not
      // HTTP/1.x (libcurl reads it as HTTP/0.9, which is refused).
      status = IoError("malformed HTTP status line (" + std::string(curl_easy_strerror(code)) + ")");
      break;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      status = IoError("TLS failed (" + std::string(curl_easy_strerror(code)) + ")");
      break;
    default:
      status = IoError("transfer failed (" + std::string(curl_easy_strerror(code)) + ")");
      break;
  }
  return std::move(status).WithPath(std::string(key));
}

class HttpStore final : public ObjectStore {
 public:
  HttpStore(std::string base_url, RequestGovernor& governor, const CancelToken* cancel)
      : base_url_(std::move(base_url)), governor_(governor), cancel_(cancel) {
    capabilities_.writable = false;
    capabilities_.single_ranges = true;
  }

  const Capabilities& capabilities() const override { return capabilities_; }

  Result<Bytes> Get(std::string_view key, const GetOptions& options) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    auto fail = [&](Status status) { return std::move(status).WithPath(std::string(key)); };
    std::optional<ByteRange> sent;
    bool probe = false;
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
      probe = range.length == 0;
      sent = probe ? ByteRange{range.offset, 1} : range;
    } else if (options.expected_size && *options.expected_size > options.max_bytes) {
      return fail(LimitExceeded("reading " + std::to_string(*options.expected_size) + " bytes exceeds the limit of " +
                                std::to_string(options.max_bytes)));
    }
    const std::string url = base_url_ + EncodeKey(key);
    return governor_.RunResult(
        "get " + std::string(key),
        [&](const AttemptContext& context) { return Attempt(key, url, options, sent, probe, context); }, cancel_);
  }

  // A round's ranges at once: as many workers as the governor has permits
  // (each Get still takes one permit for all its attempts), each taking the
  // next request and a pooled connection. Answers stay in request order.
  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override {
    const size_t workers =
        std::min<size_t>(requests.size(), std::max<uint64_t>(1, governor_.limits().concurrent_remote_requests));
    if (workers <= 1) return ObjectStore::GetMany(requests);
    std::vector<std::optional<Result<Bytes>>> answers(requests.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < requests.size(); i = next++) answers[i].emplace(Get(requests[i].key, requests[i].options));
    };
    std::vector<std::thread> threads;
    threads.reserve(workers - 1);
    for (size_t w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    std::vector<GetResponse> out;
    out.reserve(requests.size());
    for (auto& a : answers) out.push_back(GetResponse{std::move(*a)});
    return out;
  }

  Result<ObjectInfo> Head(std::string_view key) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    return Unimplemented("HEAD is never sent over HTTP: sizes come from the manifest").WithPath(std::string(key));
  }
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t>) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    return ReadOnly(key);
  }
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    return ReadOnly(key);
  }
  Status Delete(std::string_view key) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    return ReadOnly(key);
  }

 private:
  static Status ReadOnly(std::string_view key) {
    return InvalidArgument("an http(s) store is read-only").WithPath(std::string(key));
  }

  Result<Bytes> Attempt(std::string_view key, const std::string& url, const GetOptions& options,
                        const std::optional<ByteRange>& sent, bool probe, const AttemptContext& context) {
    std::unique_ptr<CurlPair> pair = TakePair();
    if (!pair) return Internal("libcurl handle allocation failed").WithPath(std::string(key));
    ProgressTimer timer = context.StartProgressTimer();
    Transfer t;
    t.request = RangeRequest{.key = key, .options = &options, .sent = sent, .probe = probe};
    t.timer = &timer;
    std::string range_header;
    if (sent) {
      range_header = "Range: bytes=" + std::to_string(sent->offset) + "-" +
                     std::to_string(sent->offset + sent->length - 1);
    }
    curl_slist* headers = nullptr;
    if (sent) headers = curl_slist_append(headers, range_header.c_str());
    CURL* easy = pair->easy;
    curl_easy_reset(easy);
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_IGNORED));
    curl_easy_setopt(easy, CURLOPT_USERAGENT, "vigilo");
    const long connect_ms = std::max<long>(1, static_cast<long>(context.connect_timeout / 1000));
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, HeaderCallback);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, WriteCallback);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);

    Status status = Drive(*pair, t, timer, context);
    curl_slist_free_all(headers);
    ReturnPair(std::move(pair));
    if (!status.ok()) return status;
    if (t.expectation.empty_answer) return Bytes();
    VIGILO_RETURN_IF_ERROR(CheckBodyLength(t.expectation, t.request, t.body.size()));
    if (probe) return Bytes();
    return Bytes::FromVector(std::move(t.body));
  }

  // Runs one transfer to its end, checking the no-progress timer and the
  // cancel token at least every kMaxPollMillis.
  Status Drive(CurlPair& pair, Transfer& t, ProgressTimer& timer, const AttemptContext& context) {
    if (curl_multi_add_handle(pair.multi, pair.easy) != CURLM_OK) {
      return Internal("libcurl refused the transfer").WithPath(std::string(t.request.key));
    }
    Status status;
    CURLcode result = CURLE_OK;
    for (;;) {
      int running = 0;
      if (curl_multi_perform(pair.multi, &running) != CURLM_OK) {
        status = Internal("libcurl multi interface failed").WithPath(std::string(t.request.key));
        break;
      }
      if (running == 0) {
        int left = 0;
        while (CURLMsg* message = curl_multi_info_read(pair.multi, &left)) {
          if (message->msg == CURLMSG_DONE) result = message->data.result;
        }
        break;
      }
      if (context.cancel && context.cancel->cancelled()) {
        status = Cancelled("the transfer was cancelled").WithPath(std::string(t.request.key));
        break;
      }
      if (Status stalled = timer.Check(); !stalled.ok()) {
        status = std::move(stalled).WithPath(std::string(t.request.key));
        break;
      }
      const Micros remaining = timer.Remaining();
      const int wait = static_cast<int>(std::clamp<Micros>(remaining / 1000 + 1, 1, kMaxPollMillis));
      curl_multi_poll(pair.multi, nullptr, 0, wait, nullptr);
    }
    curl_multi_remove_handle(pair.multi, pair.easy);
    if (!status.ok()) return status;
    if (!t.failure.ok()) return t.failure;
    if (t.expectation.empty_answer) return Status::Ok();
    if (result != CURLE_OK) return FromCurlCode(result, t.request.key);
    // A response without a body never reached the write callback.
    if (!DecideOnce(t)) return t.failure.ok() ? Status::Ok() : t.failure;
    return Status::Ok();
  }

  std::unique_ptr<CurlPair> TakePair() {
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        auto pair = std::move(idle_.back());
        idle_.pop_back();
        return pair;
      }
    }
    auto pair = std::make_unique<CurlPair>();
    pair->multi = curl_multi_init();
    pair->easy = curl_easy_init();
    if (!pair->multi || !pair->easy) return nullptr;
    return pair;
  }
  void ReturnPair(std::unique_ptr<CurlPair> pair) {
    std::lock_guard lock(mu_);
    idle_.push_back(std::move(pair));
  }

  const std::string base_url_;
  RequestGovernor& governor_;
  const CancelToken* cancel_;
  Capabilities capabilities_;
  std::mutex mu_;
  std::vector<std::unique_ptr<CurlPair>> idle_;
};

}  // namespace

bool IsHttpUrl(std::string_view value) {
  return StartsWithIgnoreCase(value, "http://") || StartsWithIgnoreCase(value, "https://");
}

Result<std::unique_ptr<ObjectStore>> OpenHttpStore(const HttpStoreOptions& options) {
  if (options.governor == nullptr) return InvalidArgument("an http store needs a request governor");
  std::string_view url = options.base_url;
  if (!IsHttpUrl(url)) return InvalidArgument("an http store's base URL must start with http:// or https://");
  for (char c : url) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || c == '?' || c == '#' || c == '\\') {
      return InvalidArgument("an http store's base URL may not hold a query, fragment, space or control character");
    }
  }
  std::string_view rest = url.substr(url.find("://") + 3);
  std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.empty()) return InvalidArgument("an http store's base URL has no host");
  if (authority.find('@') != std::string_view::npos) {
    return InvalidArgument("an http store's base URL may not hold user info (credentials belong in the store config)");
  }
  InitCurlOnce();
  std::string base(url);
  if (base.back() != '/') base += '/';
  return std::unique_ptr<ObjectStore>(std::make_unique<HttpStore>(std::move(base), *options.governor, options.cancel));
}

}  // namespace vigilo::store
