#include "vigilo/store/http_store.h"

#include <curl/curl.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace vigilo::store {
namespace {

// Byte offsets travel as curl_off_t and in nginx as off_t: a range ending
// past this is past the end of any object a server can hold.
constexpr uint64_t kMaxRemoteOffset = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
// Between checks of the no-progress timer and the cancel token while a
// transfer waits for its socket.
constexpr int kMaxPollMillis = 20;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20) || x == y;
         });
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<uint64_t> ParseDecimal(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// "bytes a-b/N" (first, last, total) or "bytes */N" (only total).
struct ContentRange {
  std::optional<uint64_t> first;
  std::optional<uint64_t> last;
  uint64_t total = 0;
};

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
// request is not downloaded), recording why in `failure`.
struct Transfer {
  std::string_view key;
  const GetOptions* options = nullptr;
  // The range in the Range header; none for a plain GET. A zero-length
  // range is sent as a one-byte probe whose answer only tells the size.
  std::optional<ByteRange> sent;
  bool probe = false;
  ProgressTimer* timer = nullptr;

  bool headers_done = false;
  long http_status = 0;
  std::optional<std::string> content_range;
  std::optional<std::string> content_encoding;
  std::optional<uint64_t> content_length;
  uint64_t body_cap = 0;       // more body bytes than this: stop
  std::optional<uint64_t> body_expected;
  bool empty_answer = false;   // a probe answered 416 at the very end
  Status failure;              // set when a callback stopped the transfer
  std::vector<uint8_t> body;

  Status Fail(Status status) {
    failure = std::move(status).WithPath(std::string(key));
    return failure;
  }
};

std::string StatusText(long code) { return "HTTP " + std::to_string(code); }

// The decision once the final response's headers are in. False stops the
// transfer (failure set, or a probe's answer complete).
bool OnHeadersComplete(Transfer& t) {
  const long code = t.http_status;
  const GetOptions& options = *t.options;
  if (code == 404 || code == 410) {
    t.Fail(NotFound(StatusText(code)));
    return false;
  }
  if (code == 429 || code == 408 || (code >= 500 && code <= 599)) {
    t.Fail(Unavailable(StatusText(code)));
    return false;
  }
  if (code >= 300 && code <= 399) {
    t.Fail(IoError(StatusText(code) + ": redirects are not followed (an object must be served at its own URL)"));
    return false;
  }
  if (t.content_encoding && !EqualsIgnoreCase(*t.content_encoding, "identity")) {
    t.Fail(IntegrityError(StatusText(code) + " with Content-Encoding " + *t.content_encoding +
                          ": objects must be served as stored"));
    return false;
  }
  if (code == 416 && t.sent) {
    auto range = t.content_range ? ParseContentRange(*t.content_range) : std::nullopt;
    if (!range || range->first) {
      t.Fail(OutOfRange(StatusText(code) + ": the range is past the end of the object"));
      return false;
    }
    // The server's total decides, with the same checks as every backend.
    auto planned = PlanGet(t.key, range->total, options);
    if (!planned.ok()) {
      t.Fail(planned.status());
      return false;
    }
    if (!t.probe) {
      t.Fail(IntegrityError(StatusText(code) + " for a range within the " + std::to_string(range->total) +
                            "-byte object"));
      return false;
    }
    t.empty_answer = true;  // a zero-length read at the very end
    return false;
  }
  if (code < 200 || code > 299) {
    t.Fail(IoError(StatusText(code)));
    return false;
  }
  if (t.sent) {
    // nginx (and others) answer a range of an empty object with 200 and no
    // body: the object's size is then known to be 0, and no byte is accepted.
    if (code == 200 && t.content_length == uint64_t{0}) {
      auto planned = PlanGet(t.key, 0, options);
      if (!planned.ok()) {
        t.Fail(planned.status());
        return false;
      }
      t.empty_answer = true;  // only a zero-length read at offset 0 gets here
      return false;
    }
    if (code != 206) {
      t.Fail(IntegrityError(StatusText(code) + " to a range request (the server ignores Range)"));
      return false;
    }
    auto range = t.content_range ? ParseContentRange(*t.content_range) : std::nullopt;
    if (!range || !range->first) {
      t.Fail(IntegrityError(StatusText(code) + " without a valid Content-Range"));
      return false;
    }
    auto planned = PlanGet(t.key, range->total, options);
    if (!planned.ok()) {
      t.Fail(planned.status());
      return false;
    }
    const uint64_t last = t.sent->offset + t.sent->length - 1;
    if (*range->first != t.sent->offset || *range->last != last) {
      t.Fail(IntegrityError("Content-Range bytes " + std::to_string(*range->first) + "-" +
                            std::to_string(*range->last) + " does not match the requested bytes " +
                            std::to_string(t.sent->offset) + "-" + std::to_string(last)));
      return false;
    }
    t.body_expected = t.sent->length;
    t.body_cap = t.sent->length;
  } else {
    if (code != 200) {
      t.Fail(IntegrityError(StatusText(code) + " to a plain GET"));
      return false;
    }
    if (t.content_length) {
      if (options.expected_size && *t.content_length != *options.expected_size) {
        t.Fail(IntegrityError("object is " + std::to_string(*t.content_length) + " bytes, expected " +
                              std::to_string(*options.expected_size)));
        return false;
      }
      if (*t.content_length > options.max_bytes) {
        t.Fail(LimitExceeded("reading " + std::to_string(*t.content_length) + " bytes exceeds the limit of " +
                             std::to_string(options.max_bytes)));
        return false;
      }
      t.body_expected = t.content_length;
    }
    if (options.expected_size) t.body_expected = options.expected_size;
    t.body_cap = t.body_expected.value_or(options.max_bytes);
  }
  if (t.body_expected) t.body.reserve(static_cast<size_t>(*t.body_expected));
  return true;
}

size_t HeaderCallback(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const size_t n = size * count;
  t.timer->OnBytes(n);
  std::string_view line(data, n);
  if (StartsWithIgnoreCase(line, "HTTP/")) {  // a status line: a new response (after a 1xx)
    t.content_range.reset();
    t.content_encoding.reset();
    t.content_length.reset();
    return n;
  }
  if (Trim(line).empty()) return n;  // the end of a header block: decided by DecideOnce
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string_view name = line.substr(0, colon);
  std::string_view value = Trim(line.substr(colon + 1));
  if (EqualsIgnoreCase(name, "Content-Range")) t.content_range = std::string(value);
  if (EqualsIgnoreCase(name, "Content-Encoding")) t.content_encoding = std::string(value);
  if (EqualsIgnoreCase(name, "Content-Length")) t.content_length = ParseDecimal(value);
  return n;
}

// Called once the headers are complete, before any body byte: the first
// write, or the end of a transfer without a body.
bool DecideOnce(Transfer& t, CURL* easy) {
  if (t.headers_done) return t.failure.ok() && !t.empty_answer;
  t.headers_done = true;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &t.http_status);
  return OnHeadersComplete(t);
}

struct WriteContext {
  Transfer* transfer;
  CURL* easy;
};

size_t WriteCallback(char* data, size_t size, size_t count, void* user) {
  auto& w = *static_cast<WriteContext*>(user);
  Transfer& t = *w.transfer;
  const size_t n = size * count;
  t.timer->OnBytes(n);
  if (!DecideOnce(t, w.easy)) return CURL_WRITEFUNC_ERROR;
  if (n > t.body_cap - t.body.size()) {
    if (t.sent || t.options->expected_size) {
      t.Fail(IntegrityError(StatusText(t.http_status) + " with a body longer than " + std::to_string(t.body_cap) +
                            " bytes"));
    } else {
      t.Fail(LimitExceeded("reading more than " + std::to_string(t.options->max_bytes) + " bytes exceeds the limit"));
    }
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
      status = InvalidArgument("only http and https are allowed");
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
    t.key = key;
    t.options = &options;
    t.sent = sent;
    t.probe = probe;
    t.timer = &timer;
    WriteContext write{&t, pair->easy};
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
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &write);

    Status status = Drive(*pair, t, timer, context);
    curl_slist_free_all(headers);
    ReturnPair(std::move(pair));
    if (!status.ok()) return status;
    if (t.empty_answer) return Bytes();
    if (t.body_expected && t.body.size() != *t.body_expected) {
      return IntegrityError(StatusText(t.http_status) + " with a body of " + std::to_string(t.body.size()) +
                            " bytes, expected " + std::to_string(*t.body_expected))
          .WithPath(std::string(key));
    }
    if (probe) return Bytes();
    return Bytes::FromVector(std::move(t.body));
  }

  // Runs one transfer to its end, checking the no-progress timer and the
  // cancel token at least every kMaxPollMillis.
  Status Drive(CurlPair& pair, Transfer& t, ProgressTimer& timer, const AttemptContext& context) {
    if (curl_multi_add_handle(pair.multi, pair.easy) != CURLM_OK) {
      return Internal("libcurl refused the transfer").WithPath(std::string(t.key));
    }
    Status status;
    CURLcode result = CURLE_OK;
    for (;;) {
      int running = 0;
      if (curl_multi_perform(pair.multi, &running) != CURLM_OK) {
        status = Internal("libcurl multi interface failed").WithPath(std::string(t.key));
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
        status = Cancelled("the transfer was cancelled").WithPath(std::string(t.key));
        break;
      }
      if (Status stalled = timer.Check(); !stalled.ok()) {
        status = std::move(stalled).WithPath(std::string(t.key));
        break;
      }
      const Micros remaining = timer.Remaining();
      const int wait = static_cast<int>(std::clamp<Micros>(remaining / 1000 + 1, 1, kMaxPollMillis));
      curl_multi_poll(pair.multi, nullptr, 0, wait, nullptr);
    }
    curl_multi_remove_handle(pair.multi, pair.easy);
    if (!status.ok()) return status;
    if (!t.failure.ok()) return t.failure;
    if (t.empty_answer) return Status::Ok();
    if (result != CURLE_OK) return FromCurlCode(result, t.key);
    // A response without a body never reached the write callback.
    if (!DecideOnce(t, pair.easy)) return t.failure.ok() ? Status::Ok() : t.failure;
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
  RequestGovernor& governor = options.governor ? *options.governor : DefaultGovernor();
  return std::unique_ptr<ObjectStore>(std::make_unique<HttpStore>(std::move(base), governor, options.cancel));
}

}  // namespace vigilo::store
