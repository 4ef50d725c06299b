#include "vigilo/store/http_store.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "http_response.h"
#include "http_transport.h"

namespace vigilo::store {
namespace {

// The answer to one Get, checked as it arrives: the callbacks stop a
// transfer as soon as its answer is known to be wrong (a 200 to a ranged
// request is not downloaded). The rules themselves are in http_response.h.
class RangeAnswer final : public http::ResponseHandler {
 public:
  explicit RangeAnswer(RangeRequest request) : body_(request) {}

  Status OnHeaderLine(std::string_view line) override { return AddHeaderLine(head_, line); }
  Result<bool> OnHeadComplete() override { return body_.Begin(head_); }
  Status OnBody(std::span<const uint8_t> bytes) override { return body_.Add(bytes); }
  Status OnComplete() override { return body_.Finish(); }

  // The bytes the caller asked for, once the transfer succeeded.
  Bytes TakeBytes() { return body_.Take(); }

 private:
  ResponseHead head_;
  RangeBody body_;
};

// What a Get sends, decided before any request: the range header's range
// (a zero-length range is a one-byte probe) or the refusal.
struct PlannedGet {
  std::optional<ByteRange> sent;
  bool probe = false;
};

Result<PlannedGet> PlanRequest(std::string_view key, const GetOptions& options) {
  VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
  VIGILO_RETURN_IF_ERROR(CheckRemoteGet(key, options));
  PlannedGet planned;
  if (options.range) {
    planned.probe = options.range->length == 0;
    planned.sent = planned.probe ? ByteRange{options.range->offset, 1} : *options.range;
  }
  return planned;
}

// The read-only http(s) backend: each Get is one GET (one attempt; the
// request governor in front of it retries), a batch runs at once on the
// transport's connection pool.
class HttpBackend final : public ObjectStore {
 public:
  explicit HttpBackend(std::string base_url) : base_url_(std::move(base_url)) {
    capabilities_.writable = false;
    capabilities_.single_ranges = true;
  }

  const Capabilities& capabilities() const override { return capabilities_; }

  Result<Bytes> Get(std::string_view key, const GetOptions& options) override {
    GetRequest request{key, options};
    std::vector<GetResponse> answer = GetMany(std::span<const GetRequest>(&request, 1));
    return std::move(answer.front().bytes);
  }

  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override {
    std::vector<GetResponse> out(requests.size(), GetResponse{Result<Bytes>(Internal("unanswered"))});
    std::vector<std::unique_ptr<RangeAnswer>> answers;
    std::vector<http::Exchange> exchanges;
    std::vector<size_t> sent;
    for (size_t i = 0; i < requests.size(); ++i) {
      const GetRequest& r = requests[i];
      Result<PlannedGet> planned = PlanRequest(r.key, r.options);
      if (!planned.ok()) {
        out[i].bytes = planned.status();
        continue;
      }
      answers.push_back(std::make_unique<RangeAnswer>(
          RangeRequest{.key = r.key, .options = &r.options, .sent = planned->sent, .probe = planned->probe}));
      http::Exchange exchange;
      exchange.request.url = base_url_ + http::EncodeKey(r.key);
      exchange.request.key = std::string(r.key);
      if (planned->sent) {
        exchange.request.headers.push_back("Range: bytes=" + std::to_string(planned->sent->offset) + "-" +
                                           std::to_string(planned->sent->offset + planned->sent->length - 1));
      }
      exchange.handler = answers.back().get();
      exchange.attempt = r.options.attempt;
      exchanges.push_back(std::move(exchange));
      sent.push_back(i);
    }
    std::vector<Status> results = transport_.Run(exchanges);
    for (size_t k = 0; k < sent.size(); ++k) {
      out[sent[k]].bytes = results[k].ok() ? Result<Bytes>(answers[k]->TakeBytes()) : Result<Bytes>(results[k]);
    }
    return out;
  }

  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    return Unimplemented("HEAD is never sent over HTTP: sizes come from the manifest").WithPath(std::string(key));
  }
  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t>,
                                      const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    return ReadOnly(key);
  }
  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    return ReadOnly(key);
  }
  Status Delete(std::string_view key, const AttemptContext* = nullptr) override {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    return ReadOnly(key);
  }

 private:
  static Status ReadOnly(std::string_view key) {
    return InvalidArgument("an http(s) store is read-only").WithPath(std::string(key));
  }

  const std::string base_url_;
  Capabilities capabilities_;
  http::Transport transport_;
};

Status CheckBaseUrl(std::string_view url) {
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
  return Status::Ok();
}

}  // namespace

bool IsHttpUrl(std::string_view value) {
  return StartsWithIgnoreCase(value, "http://") || StartsWithIgnoreCase(value, "https://");
}

Result<std::unique_ptr<ObjectStore>> OpenHttpBackend(std::string_view base_url) {
  VIGILO_RETURN_IF_ERROR(CheckBaseUrl(base_url));
  std::string base(base_url);
  if (base.back() != '/') base += '/';
  return std::unique_ptr<ObjectStore>(std::make_unique<HttpBackend>(std::move(base)));
}

Result<std::unique_ptr<ObjectStore>> OpenHttpStore(const HttpStoreOptions& options) {
  if (options.governor == nullptr) return InvalidArgument("an http store needs a request governor");
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> backend, OpenHttpBackend(options.base_url));
  return std::unique_ptr<ObjectStore>(
      std::make_unique<GovernedStore>(std::move(backend), *options.governor, options.cancel));
}

}  // namespace vigilo::store
