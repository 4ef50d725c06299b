#include "vigilo/common/status.h"

namespace vigilo {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kParseError: return "parse_error";
    case StatusCode::kInvalidFormat: return "invalid_format";
    case StatusCode::kNotCanonical: return "not_canonical";
    case StatusCode::kIntegrityError: return "integrity_error";
    case StatusCode::kLimitExceeded: return "limit_exceeded";
    case StatusCode::kOutOfRange: return "out_of_range";
    case StatusCode::kNotFound: return "not_found";
    case StatusCode::kAlreadyExists: return "already_exists";
    case StatusCode::kIoError: return "io_error";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kDeadlineExceeded: return "deadline_exceeded";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kFenced: return "fenced";
    case StatusCode::kUnimplemented: return "unimplemented";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

Status::Status(StatusCode code, std::string message) {
  if (code == StatusCode::kOk) return;
  rep_ = std::make_unique<Rep>(Rep{code, std::move(message), {}, std::nullopt});
}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

Status Status::WithPath(std::string path) const& { return Status(*this).WithPath(std::move(path)); }
Status Status::WithPath(std::string path) && {
  if (rep_) rep_->path = std::move(path);
  return std::move(*this);
}
Status Status::WithOffset(uint64_t offset) const& { return Status(*this).WithOffset(offset); }
Status Status::WithOffset(uint64_t offset) && {
  if (rep_) rep_->offset = offset;
  return std::move(*this);
}
Status Status::PrependPath(std::string_view outer) && {
  if (rep_) rep_->path = std::string(outer) + rep_->path;
  return std::move(*this);
}

std::string Status::ToString() const {
  if (!rep_) return "ok";
  std::string out(StatusCodeName(rep_->code));
  out += ": ";
  if (!rep_->path.empty()) {
    out += rep_->path;
    out += ": ";
  }
  out += rep_->message;
  if (rep_->offset) {
    out += " (at byte ";
    out += std::to_string(*rep_->offset);
    out += ")";
  }
  return out;
}

Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
Status ParseError(std::string m) { return Status(StatusCode::kParseError, std::move(m)); }
Status InvalidFormat(std::string m) { return Status(StatusCode::kInvalidFormat, std::move(m)); }
Status NotCanonical(std::string m) { return Status(StatusCode::kNotCanonical, std::move(m)); }
Status IntegrityError(std::string m) { return Status(StatusCode::kIntegrityError, std::move(m)); }
Status LimitExceeded(std::string m) { return Status(StatusCode::kLimitExceeded, std::move(m)); }
Status OutOfRange(std::string m) { return Status(StatusCode::kOutOfRange, std::move(m)); }
Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
Status AlreadyExists(std::string m) { return Status(StatusCode::kAlreadyExists, std::move(m)); }
Status IoError(std::string m) { return Status(StatusCode::kIoError, std::move(m)); }
Status Unavailable(std::string m) { return Status(StatusCode::kUnavailable, std::move(m)); }
Status DeadlineExceeded(std::string m) { return Status(StatusCode::kDeadlineExceeded, std::move(m)); }
Status Cancelled(std::string m) { return Status(StatusCode::kCancelled, std::move(m)); }
Status Fenced(std::string m) { return Status(StatusCode::kFenced, std::move(m)); }
Status Unimplemented(std::string m) { return Status(StatusCode::kUnimplemented, std::move(m)); }
Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }

}  // namespace vigilo
