#include "vigilo/store/s3_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "http_response.h"
#include "http_transport.h"
#include "s3_settings.h"
#include "vigilo/common/file.h"
#include "vigilo/hash/sha256.h"

namespace vigilo::store {
namespace {

using s3::ClassifyError;
using s3::Credentials;
using s3::Settings;

// An error answer's body is read up to this for its <Code>; the rest is dropped.
constexpr size_t kMaxErrorBody = 8 << 10;

constexpr std::string_view kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// Every request is signed with SigV4 by libcurl (CURLOPT_AWS_SIGV4). libcurl
// 7.88 takes the payload hash from an x-amz-content-sha256 header and signs
// every header it sends (Range, If-None-Match, the session token); without
// that header it hashes nothing and sends none, which S3 and RGW refuse.
class Signer final : public http::RequestSigner {
 public:
  Signer(std::string region, Credentials credentials)
      : provider_("aws:amz:" + region + ":s3"), credentials_(std::move(credentials)) {}

  Result<std::optional<http::SigV4>> Sign(http::Request& request) override {
    bool hashed = false;
    for (const std::string& header : request.headers) {
      if (StartsWithIgnoreCase(header, "x-amz-content-sha256:")) hashed = true;
    }
    if (!hashed) {
      std::string hash(kEmptySha256);
      if (!request.body.empty()) {
        VIGILO_ASSIGN_OR_RETURN(hash, Sha256Hex(request.body));
      }
      request.headers.push_back("x-amz-content-sha256: " + hash);
    }
    if (!credentials_.session_token.empty()) {
      request.headers.push_back("x-amz-security-token: " + credentials_.session_token);
    }
    return std::optional<http::SigV4>(
        http::SigV4{provider_, credentials_.access_key_id, credentials_.secret_access_key});
  }

 private:
  const std::string provider_;
  const Credentials credentials_;
};

// What every S3 answer handler shares: the head, and an error answer's body
// (up to kMaxErrorBody) turned into a classified Status at the end.
class AnswerBase : public http::ResponseHandler {
 public:
  explicit AnswerBase(std::string key) : key_(std::move(key)) {}

  Status OnHeaderLine(std::string_view line) override { return AddHeaderLine(head_, line); }

  int status() const { return head_.status; }
  const ResponseHead& head() const { return head_; }

 protected:
  // Whether the answer is an error to classify from its body.
  bool error_ = false;
  Status CollectError(std::span<const uint8_t> bytes) {
    const size_t room = kMaxErrorBody - std::min(kMaxErrorBody, error_body_.size());
    error_body_.append(reinterpret_cast<const char*>(bytes.data()), std::min(room, bytes.size()));
    return Status::Ok();
  }
  Status ErrorStatus() const {
    return ClassifyError(head_.status, s3::ErrorCode(error_body_)).WithPath(key_);
  }

  std::string key_;
  ResponseHead head_;
  std::string error_body_;
};

// PUT, HEAD, DELETE: the status decides; an error's body names its code.
class StatusAnswer final : public AnswerBase {
 public:
  using AnswerBase::AnswerBase;
  Result<bool> OnHeadComplete() override {
    error_ = head_.status < 200 || head_.status > 299;
    return true;
  }
  Status OnBody(std::span<const uint8_t> bytes) override { return error_ ? CollectError(bytes) : Status::Ok(); }
  Status OnComplete() override { return Status::Ok(); }
  // The classified error of a non-2xx answer (call only then).
  Status Error() const { return ErrorStatus(); }
};

// One GET (whole or a single range), checked by http_response.h's rules as
// the http store checks its answers; an error answer is classified by its
// S3 code instead.
class GetAnswer final : public AnswerBase {
 public:
  GetAnswer(std::string key, RangeRequest request) : AnswerBase(std::move(key)), body_(request) {}

  Result<bool> OnHeadComplete() override {
    if (head_.status >= 300 && head_.status != 416) {
      error_ = true;
      return true;
    }
    return body_.Begin(head_);
  }
  Status OnBody(std::span<const uint8_t> bytes) override { return error_ ? CollectError(bytes) : body_.Add(bytes); }
  Status OnComplete() override { return error_ ? ErrorStatus() : body_.Finish(); }
  Bytes TakeBytes() { return body_.Take(); }

 private:
  RangeBody body_;
};

// The read-back after a 412: the existing object compared with the bytes
// this create wanted to write, as they arrive (nothing is kept). A size or
// byte difference stops the transfer as AlreadyExists.
class CompareAnswer final : public AnswerBase {
 public:
  CompareAnswer(std::string key, std::span<const uint8_t> expected) : AnswerBase(std::move(key)), expected_(expected) {}

  Result<bool> OnHeadComplete() override {
    if (head_.status != 200) {
      error_ = true;
      return true;
    }
    if (head_.content_encoding && !EqualsIgnoreCase(*head_.content_encoding, "identity")) {
      return IntegrityError("HTTP 200 with Content-Encoding " + *head_.content_encoding +
                            ": objects must be served as stored")
          .WithPath(key_);
    }
    if (head_.content_length && *head_.content_length != expected_.size()) return Differs();
    return true;
  }
  Status OnBody(std::span<const uint8_t> bytes) override {
    if (error_) return CollectError(bytes);
    if (bytes.size() > expected_.size() - compared_ ||
        std::memcmp(bytes.data(), expected_.data() + compared_, bytes.size()) != 0) {
      return Differs();
    }
    compared_ += bytes.size();
    return Status::Ok();
  }
  Status OnComplete() override {
    if (error_) {
      if (head_.status == 404) {
        // It existed a moment ago (412): deleted in between; the create is
        // worth another attempt.
        return Unavailable("the object was removed between the conditional PUT and its read-back").WithPath(key_);
      }
      return ErrorStatus();
    }
    if (compared_ != expected_.size()) return Differs();
    return Status::Ok();
  }

 private:
  Status Differs() const {
    return AlreadyExists("the key holds other bytes (left unchanged)").WithPath(key_);
  }
  std::span<const uint8_t> expected_;
  uint64_t compared_ = 0;
};

Status ReadOnly(std::string_view key) {
  return InvalidArgument("the store is opened read-only").WithPath(std::string(key));
}

class S3Store;

// A streaming create: bytes spool to an unnamed temporary file (O_TMPFILE:
// nothing is left behind, whatever happens to the process) and go out in
// one conditional PUT at Commit, from a read-only mapping of that file.
class S3Writer final : public ObjectWriter {
 public:
  S3Writer(S3Store& store, std::string key, UniqueFd fd) : store_(store), key_(std::move(key)), fd_(std::move(fd)) {}
  ~S3Writer() override;

  Status Append(std::span<const uint8_t> bytes) override;
  uint64_t size() const override { return size_; }
  Result<CreateResult> Commit(const AttemptContext* attempt) override;

 private:
  S3Store& store_;
  std::string key_;
  UniqueFd fd_;
  uint64_t size_ = 0;
  Status failed_;
  bool committed_ = false;
};

class S3Store final : public ObjectStore {
 public:
  S3Store(Settings settings, Credentials credentials, bool writable)
      : settings_(std::move(settings)),
        signer_(settings_.region, std::move(credentials)),
        transport_(&signer_) {
    capabilities_.writable = writable;
    capabilities_.conditional_create = true;
    capabilities_.read_after_create = true;
    capabilities_.single_ranges = true;
    capabilities_.revisions = false;
  }

  const Capabilities& capabilities() const override { return capabilities_; }

  Result<Bytes> Get(std::string_view key, const GetOptions& options) override {
    GetRequest request{key, options};
    std::vector<GetResponse> answer = GetMany(std::span<const GetRequest>(&request, 1));
    return std::move(answer.front().bytes);
  }

  std::vector<GetResponse> GetMany(std::span<const GetRequest> requests) override {
    std::vector<GetResponse> out(requests.size(), GetResponse{Result<Bytes>(Internal("unanswered"))});
    std::vector<std::unique_ptr<GetAnswer>> answers;
    std::vector<http::Exchange> exchanges;
    std::vector<size_t> sent;
    for (size_t i = 0; i < requests.size(); ++i) {
      const GetRequest& r = requests[i];
      Result<std::optional<ByteRange>> planned = Plan(r.key, r.options);
      if (!planned.ok()) {
        out[i].bytes = planned.status();
        continue;
      }
      if (r.options.range && r.options.range->length == 0) {
        // A zero-length read: RGW answers a one-byte probe at the end with
        // 416 and no size, so HEAD tells the size the checks need.
        out[i].bytes = EmptyRead(r.key, r.options);
        continue;
      }
      answers.push_back(std::make_unique<GetAnswer>(
          std::string(r.key), RangeRequest{.key = r.key, .options = &r.options, .sent = *planned, .probe = false}));
      http::Exchange exchange = MakeExchange("GET", r.key, r.options.attempt);
      if (*planned) {
        exchange.request.headers.push_back("Range: bytes=" + std::to_string((*planned)->offset) + "-" +
                                           std::to_string((*planned)->offset + (*planned)->length - 1));
      }
      exchange.handler = answers.back().get();
      exchanges.push_back(std::move(exchange));
      sent.push_back(i);
    }
    std::vector<Status> results = transport_.Run(exchanges);
    for (size_t k = 0; k < sent.size(); ++k) {
      out[sent[k]].bytes = results[k].ok() ? Result<Bytes>(answers[k]->TakeBytes()) : Result<Bytes>(results[k]);
    }
    return out;
  }

  Result<ObjectInfo> Head(std::string_view key, const AttemptContext* attempt) override {
    VIGILO_RETURN_IF_ERROR(CheckKey(key));
    StatusAnswer answer{std::string(key)};
    http::Exchange exchange = MakeExchange("HEAD", key, attempt);
    exchange.handler = &answer;
    VIGILO_RETURN_IF_ERROR(transport_.Run(exchange));
    if (answer.status() == 404) return NotFound("HTTP 404").WithPath(std::string(key));
    if (answer.status() != 200) return answer.Error();
    if (!answer.head().content_length) {
      return IoError("HTTP 200 to HEAD without a Content-Length").WithPath(std::string(key));
    }
    return ObjectInfo{.size = *answer.head().content_length, .revision = std::nullopt};
  }

  Result<CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                      const AttemptContext* attempt) override {
    VIGILO_RETURN_IF_ERROR(CheckKey(key));
    if (!capabilities_.writable) return ReadOnly(key);
    return ConditionalPut(key, bytes, attempt);
  }

  Result<std::unique_ptr<ObjectWriter>> BeginCreate(std::string_view key, const AttemptContext*) override {
    VIGILO_RETURN_IF_ERROR(CheckKey(key));
    if (!capabilities_.writable) return ReadOnly(key);
    VIGILO_ASSIGN_OR_RETURN(UniqueFd fd, OpenSpool(key));
    return std::unique_ptr<ObjectWriter>(std::make_unique<S3Writer>(*this, std::string(key), std::move(fd)));
  }

  Status Delete(std::string_view key, const AttemptContext* attempt) override {
    VIGILO_RETURN_IF_ERROR(CheckKey(key));
    if (!capabilities_.writable) return ReadOnly(key);
    StatusAnswer answer{std::string(key)};
    http::Exchange exchange = MakeExchange("DELETE", key, attempt);
    exchange.handler = &answer;
    VIGILO_RETURN_IF_ERROR(transport_.Run(exchange));
    const int code = answer.status();
    if (code == 200 || code == 204) return Status::Ok();
    Status error = answer.Error();
    // A missing key is done (S3 answers 204 anyway); a missing bucket is not.
    if (code == 404 && error.code() == StatusCode::kNotFound) return Status::Ok();
    return error;
  }

  // One PUT with If-None-Match: * and, on 412, the read-back compare, in
  // one attempt (the same deadline, timeouts and cancel token).
  Result<CreateResult> ConditionalPut(std::string_view key, std::span<const uint8_t> bytes,
                                      const AttemptContext* attempt) {
    if (bytes.size() > kS3MaxPutBytes) return TooLarge(key, bytes.size());
    VIGILO_ASSIGN_OR_RETURN(std::string hash, bytes.empty() ? Result<std::string>(std::string(kEmptySha256))
                                                            : Sha256Hex(bytes));
    StatusAnswer answer{std::string(key)};
    http::Exchange exchange = MakeExchange("PUT", key, attempt);
    exchange.request.body = bytes;
    exchange.request.headers.push_back("If-None-Match: *");
    exchange.request.headers.push_back("x-amz-content-sha256: " + hash);
    exchange.request.headers.push_back("Content-Type: application/octet-stream");
    exchange.handler = &answer;
    VIGILO_RETURN_IF_ERROR(transport_.Run(exchange));
    const int code = answer.status();
    if (code == 200) return CreateResult{.outcome = CreateOutcome::kCreated, .size = bytes.size(), .revision = {}};
    if (code != 412) return answer.Error();
    // The key exists: ours (a retried PUT whose answer was lost) or another's.
    CompareAnswer compare{std::string(key), bytes};
    http::Exchange read_back = MakeExchange("GET", key, attempt);
    read_back.handler = &compare;
    VIGILO_RETURN_IF_ERROR(transport_.Run(read_back));
    return CreateResult{.outcome = CreateOutcome::kAlreadyIdentical, .size = bytes.size(), .revision = {}};
  }

  static Status TooLarge(std::string_view key, uint64_t size) {
    return LimitExceeded("an object of " + std::to_string(size) + " bytes is larger than one S3 PUT takes (" +
                         std::to_string(kS3MaxPutBytes) + " bytes)")
        .WithPath(std::string(key));
  }

 private:
  Status CheckKey(std::string_view key) const {
    VIGILO_RETURN_IF_ERROR(ValidateStoreKey(key));
    if (s3::ObjectKey(settings_, key).size() > 1024) {
      return InvalidArgument("the key with the store's prefix is longer than S3's 1024 bytes")
          .WithPath(std::string(key));
    }
    return Status::Ok();
  }

  // The range a Get sends (none: the whole object), or its refusal.
  Result<std::optional<ByteRange>> Plan(std::string_view key, const GetOptions& options) const {
    VIGILO_RETURN_IF_ERROR(CheckKey(key));
    VIGILO_RETURN_IF_ERROR(CheckRemoteGet(key, options));
    return options.range;
  }

  Result<Bytes> EmptyRead(std::string_view key, const GetOptions& options) {
    VIGILO_ASSIGN_OR_RETURN(ObjectInfo info, Head(key, options.attempt));
    VIGILO_RETURN_IF_ERROR(PlanGet(key, info.size, options).status());
    return Bytes();
  }

  http::Exchange MakeExchange(std::string method, std::string_view key, const AttemptContext* attempt) const {
    http::Exchange exchange;
    exchange.request.method = std::move(method);
    exchange.request.url = s3::ObjectUrl(settings_, key);
    exchange.request.key = std::string(key);
    exchange.attempt = attempt;
    return exchange;
  }

  Result<UniqueFd> OpenSpool(std::string_view key) const {
    std::string dir = settings_.spool_directory;
    if (dir.empty()) {
      std::error_code error;
      dir = std::filesystem::temp_directory_path(error).string();
      if (error) return IoError("no temporary directory to spool to").WithPath(std::string(key));
    }
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
      // The directory is the operator's setting: named by its field.
      return IoError("cannot create a spool file in the spool directory (backend.spool_directory): " +
                     std::string(std::strerror(errno)))
          .WithPath(std::string(key));
    }
    return UniqueFd(fd);
  }

  Settings settings_;
  Signer signer_;
  Capabilities capabilities_;
  http::Transport transport_;
};

S3Writer::~S3Writer() = default;

Status S3Writer::Append(std::span<const uint8_t> bytes) {
  if (!failed_.ok()) return failed_;
  if (committed_) return InvalidArgument("the writer is committed already").WithPath(key_);
  if (bytes.size() > kS3MaxPutBytes - size_) {
    failed_ = S3Store::TooLarge(key_, size_ + bytes.size());
    return failed_;
  }
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd_.get(), bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failed_ = ErrnoStatus(n < 0 ? errno : EIO, "writing the spool file", key_);
      return failed_;
    }
    written += static_cast<size_t>(n);
  }
  size_ += bytes.size();
  return Status::Ok();
}

Result<CreateResult> S3Writer::Commit(const AttemptContext* attempt) {
  if (committed_) return InvalidArgument("a writer commits at most once").WithPath(key_);
  committed_ = true;
  if (!failed_.ok()) return failed_;
  if (size_ == 0) return store_.ConditionalPut(key_, {}, attempt);
  void* map = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_.get(), 0);
  if (map == MAP_FAILED) return ErrnoStatus(errno, "mapping the spool file", key_);
  Result<CreateResult> result =
      store_.ConditionalPut(key_, std::span<const uint8_t>(static_cast<const uint8_t*>(map), size_), attempt);
  ::munmap(map, size_);
  return result;
}

class S3Backend final : public Backend {
 public:
  explicit S3Backend(S3BackendOptions options) : options_(std::move(options)) {}
  bool remote() const override { return true; }
  Status CheckEntry(const StoreEntry& entry, const std::string& path) const override {
    return s3::ParseSettings(entry, path).status();
  }
  Result<std::unique_ptr<ObjectStore>> Open(const StoreEntry& entry, const OpenOptions& options) const override {
    VIGILO_ASSIGN_OR_RETURN(Settings settings, s3::ParseSettings(entry, "$.stores." + entry.alias));
    VIGILO_ASSIGN_OR_RETURN(Credentials credentials, s3::ResolveCredentials(settings, options_.environment));
    return std::unique_ptr<ObjectStore>(std::make_unique<S3Store>(std::move(settings), std::move(credentials),
                                                                  options.writable && entry.declared.writable));
  }

 private:
  S3BackendOptions options_;
};

}  // namespace

std::shared_ptr<const Backend> MakeS3Backend(S3BackendOptions options) {
  return std::make_shared<S3Backend>(std::move(options));
}

}  // namespace vigilo::store
