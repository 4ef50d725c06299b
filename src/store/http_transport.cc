#include "http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace vigilo::store::http {
namespace {

// Between checks of the no-progress timers and the cancel tokens while
// transfers wait for their sockets.
constexpr int kMaxPollMillis = 20;

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
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
      // The connection closed (FIN) before the body's Content-Length: a
      // transport failure like a reset one (RECV_ERROR) or a stall, not
      // wrong bytes, so retried as they are (docs/format/http-reading.md).
      status = Unavailable("connection closed before the body's Content-Length");
      break;
    case CURLE_UNSUPPORTED_PROTOCOL:
      // The URL's scheme was checked when the backend was opened, so at
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

// One exchange in flight: its attempt context, its stall timer and what
// its callbacks saw.
struct Active {
  Exchange* exchange = nullptr;
  AttemptContext context;
  std::optional<ProgressTimer> timer;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::optional<SigV4> sigv4;
  std::string credentials;  // "key:secret" for libcurl, kept alive for the transfer
  size_t uploaded = 0;

  bool head_done = false;
  bool ended_by_handler = false;  // OnHeadComplete said: no body to read
  Status failure;                 // a callback stopped the transfer
  Status aborted;                 // cancelled or stalled while running
  bool running = false;
  CURLcode result = CURLE_OK;

  const std::string& key() const { return exchange->request.key; }
  void Fail(Status status) { failure = std::move(status).WithPath(key()); }

  ~Active() {
    if (headers != nullptr) curl_slist_free_all(headers);
  }
};

// Called once the final head is in, before any body byte: the first write,
// or the end of a transfer without a body. False stops the transfer.
bool DecideHead(Active& a) {
  if (a.head_done) return a.failure.ok() && !a.ended_by_handler;
  a.head_done = true;
  Result<bool> go_on = a.exchange->handler->OnHeadComplete();
  if (!go_on.ok()) {
    a.Fail(go_on.status());
    return false;
  }
  if (!*go_on) a.ended_by_handler = true;
  return *go_on;
}

size_t HeaderCallback(char* data, size_t size, size_t count, void* user) {
  auto& a = *static_cast<Active*>(user);
  const size_t n = size * count;
  a.timer->OnBytes(n);
  // Trailers after the body change nothing that was decided.
  if (a.head_done) return n;
  if (Status s = a.exchange->handler->OnHeaderLine(std::string_view(data, n)); !s.ok()) {
    a.Fail(std::move(s));
    return 0;  // libcurl stops the transfer
  }
  return n;
}

size_t WriteCallback(char* data, size_t size, size_t count, void* user) {
  auto& a = *static_cast<Active*>(user);
  const size_t n = size * count;
  a.timer->OnBytes(n);
  if (!DecideHead(a)) return CURL_WRITEFUNC_ERROR;
  Status s = a.exchange->handler->OnBody(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data), n));
  if (!s.ok()) {
    a.Fail(std::move(s));
    return CURL_WRITEFUNC_ERROR;
  }
  return n;
}

size_t ReadCallback(char* buffer, size_t size, size_t count, void* user) {
  auto& a = *static_cast<Active*>(user);
  std::span<const uint8_t> body = a.exchange->request.body;
  const size_t n = std::min(size * count, body.size() - a.uploaded);
  if (n > 0) std::memcpy(buffer, body.data() + a.uploaded, n);
  a.uploaded += n;
  a.timer->OnBytes(n);
  return n;
}

}  // namespace

// A multi handle (its connection cache is the pool) and the easy handles it
// has used; a reused driver keeps its connections alive.
struct Transport::Driver {
  CURLM* multi = nullptr;
  std::vector<CURL*> idle;

  ~Driver() {
    for (CURL* easy : idle) curl_easy_cleanup(easy);
    if (multi != nullptr) curl_multi_cleanup(multi);
  }
  CURL* TakeEasy() {
    if (idle.empty()) return curl_easy_init();
    CURL* easy = idle.back();
    idle.pop_back();
    return easy;
  }
};

Transport::Transport(RequestSigner* signer, Clock* clock)
    : signer_(signer), clock_(clock != nullptr ? clock : &DefaultClock()) {
  InitCurlOnce();
}

Transport::~Transport() = default;

std::unique_ptr<Transport::Driver> Transport::TakeDriver() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      auto driver = std::move(idle_.back());
      idle_.pop_back();
      return driver;
    }
  }
  auto driver = std::make_unique<Driver>();
  driver->multi = curl_multi_init();
  if (driver->multi == nullptr) return nullptr;
  return driver;
}

void Transport::ReturnDriver(std::unique_ptr<Driver> driver) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(driver));
}

namespace {

// The easy handle's options for one attempt of `a`'s request. A signing
// failure is the request's result; nothing is sent.
Status Configure(Active& a, RequestSigner* signer) {
  Request& request = a.exchange->request;
  if (signer != nullptr) {
    Result<std::optional<SigV4>> signed_with = signer->Sign(request);
    if (!signed_with.ok()) return signed_with.status().WithPath(request.key);
    a.sigv4 = *std::move(signed_with);
  }
  CURL* easy = a.easy;
  curl_easy_reset(easy);
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_IGNORED));
  curl_easy_setopt(easy, CURLOPT_USERAGENT, "vigilo");
  const long connect_ms = std::max<long>(1, static_cast<long>(a.context.connect_timeout / 1000));
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, HeaderCallback);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &a);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, WriteCallback);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &a);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, &a);

  std::vector<std::string> headers = request.headers;
  if (request.method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT") {
    curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(easy, CURLOPT_READFUNCTION, ReadCallback);
    curl_easy_setopt(easy, CURLOPT_READDATA, &a);
    curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    // No 100-continue round trip, except for a signed request: libcurl
    // 7.88's SigV4 signs the "Expect:" removal directive as an empty header
    // it never sends, so the server's signature cannot match
    // (SignatureDoesNotMatch). Its own "Expect: 100-continue" is sent unsigned.
    if (!a.sigv4) headers.emplace_back("Expect:");
  } else if (request.method == "DELETE") {
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "DELETE");
  } else {
    return InvalidArgument("unsupported HTTP method " + request.method).WithPath(request.key);
  }
  for (const std::string& header : headers) a.headers = curl_slist_append(a.headers, header.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, a.headers);
  if (a.sigv4) {
    a.credentials = a.sigv4->access_key_id + ":" + a.sigv4->secret_access_key;
    curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, a.sigv4->provider.c_str());
    curl_easy_setopt(easy, CURLOPT_USERPWD, a.credentials.c_str());
  }
  return Status::Ok();
}

// The request's result once its transfer has ended.
Status Conclude(Active& a) {
  if (!a.aborted.ok()) return a.aborted;
  if (!a.failure.ok()) return a.failure;
  ResponseHandler& handler = *a.exchange->handler;
  if (a.ended_by_handler) return handler.OnComplete();
  if (a.result != CURLE_OK) return FromCurlCode(a.result, a.key());
  // An answer without a body never reached the write callback.
  if (!DecideHead(a)) return a.failure.ok() ? handler.OnComplete() : a.failure;
  return handler.OnComplete();
}

}  // namespace

std::vector<Status> Transport::Run(std::span<Exchange> exchanges) {
  std::vector<Status> out(exchanges.size());
  if (exchanges.empty()) return out;
  std::unique_ptr<Driver> driver = TakeDriver();
  if (driver == nullptr) {
    for (size_t i = 0; i < exchanges.size(); ++i) {
      out[i] = Internal("libcurl multi handle allocation failed").WithPath(exchanges[i].request.key);
    }
    return out;
  }
  std::vector<Active> active(exchanges.size());
  size_t running = 0;
  for (size_t i = 0; i < exchanges.size(); ++i) {
    Active& a = active[i];
    a.exchange = &exchanges[i];
    a.context = exchanges[i].attempt != nullptr ? *exchanges[i].attempt : DefaultAttempt(*clock_);
    a.timer.emplace(a.context.StartProgressTimer());
    a.easy = driver->TakeEasy();
    if (a.easy == nullptr) {
      out[i] = Internal("libcurl handle allocation failed").WithPath(a.key());
      continue;
    }
    if (Status configured = Configure(a, signer_); !configured.ok()) {
      out[i] = std::move(configured);
      continue;
    }
    if (curl_multi_add_handle(driver->multi, a.easy) != CURLM_OK) {
      out[i] = Internal("libcurl refused the transfer").WithPath(a.key());
      continue;
    }
    a.running = true;
    ++running;
  }
  auto finish = [&](Active& a) {
    curl_multi_remove_handle(driver->multi, a.easy);
    a.running = false;
    --running;
  };
  while (running > 0) {
    int still = 0;
    if (curl_multi_perform(driver->multi, &still) != CURLM_OK) {
      for (Active& a : active) {
        if (!a.running) continue;
        a.aborted = Internal("libcurl multi interface failed").WithPath(a.key());
        finish(a);
      }
      break;
    }
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(driver->multi, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      Active* a = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&a));
      if (a == nullptr || !a->running) continue;
      a->result = message->data.result;
      finish(*a);
    }
    Micros wait = Micros{kMaxPollMillis} * 1000;
    for (Active& a : active) {
      if (!a.running) continue;
      if (a.context.cancel != nullptr && a.context.cancel->cancelled()) {
        a.aborted = Cancelled("the transfer was cancelled").WithPath(a.key());
        finish(a);
      } else if (Status stalled = a.timer->Check(); !stalled.ok()) {
        a.aborted = std::move(stalled).WithPath(a.key());
        finish(a);
      } else {
        wait = std::min(wait, a.timer->Remaining());
      }
    }
    if (running == 0) break;
    const int wait_ms = static_cast<int>(std::clamp<Micros>(wait / 1000 + 1, 1, kMaxPollMillis));
    curl_multi_poll(driver->multi, nullptr, 0, wait_ms, nullptr);
  }
  for (size_t i = 0; i < exchanges.size(); ++i) {
    Active& a = active[i];
    if (a.easy == nullptr) continue;
    if (out[i].ok()) out[i] = Conclude(a);
    driver->idle.push_back(a.easy);
  }
  ReturnDriver(std::move(driver));
  return out;
}

Status Transport::Run(Exchange& exchange) { return std::move(Run(std::span<Exchange>(&exchange, 1)).front()); }

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

}  // namespace vigilo::store::http
