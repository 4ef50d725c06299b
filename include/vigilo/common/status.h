// Status: an error value with a stable code, a message, and where it applies.
//
// Errors are values in vigilo (LevelDB style): every fallible function returns
// a Status or a Result<T>. An OK status holds no allocation. The code is stable
// and documented (docs/errors.md); the CLI maps it to an exit status.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace vigilo {

// Stable error codes. Never renumber: the numbers appear in docs and the CLI
// exit-status table. Add new codes at the end.
enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument = 1,   // the caller's request is malformed (flags, options)
  kParseError = 2,        // bytes are not well-formed (JSON syntax, Parquet footer)
  kInvalidFormat = 3,     // well-formed but violates a format rule (schema, field)
  kNotCanonical = 4,      // valid JSON but not the exact canonical bytes
  kIntegrityError = 5,    // size or digest does not match the reference
  kLimitExceeded = 6,     // a resource budget or configured limit is exceeded
  kOutOfRange = 7,        // integer overflow or a value outside its bounds
  kNotFound = 8,          // object, file or key does not exist
  kAlreadyExists = 9,     // conditional create lost: the object exists
  kIoError = 10,          // local or remote I/O failed
  kUnavailable = 11,      // transient failure; a retry may succeed
  kDeadlineExceeded = 12, // an operation deadline passed
  kCancelled = 13,        // the caller cancelled the operation
  kFenced = 14,           // a lease or fencing token is no longer current
  kUnimplemented = 15,    // a feature this build does not provide
  kInternal = 16,         // a bug: an invariant did not hold
};

// Stable lowercase name of a code, e.g. "invalid_format".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);

  static Status Ok() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  std::string_view message() const { return rep_ ? std::string_view(rep_->message) : std::string_view(); }

  // Where the error applies: a JSON/field path such as "$.index.metric" or a
  // file/row-group name, and/or a byte offset into the input.
  std::string_view path() const { return rep_ ? std::string_view(rep_->path) : std::string_view(); }
  std::optional<uint64_t> offset() const { return rep_ ? rep_->offset : std::nullopt; }

  // Builders that return a copy with location information attached.
  Status WithPath(std::string path) const&;
  Status WithPath(std::string path) &&;
  Status WithOffset(uint64_t offset) const&;
  Status WithOffset(uint64_t offset) &&;
  // Prefixes the path with `outer` (for nested validation: "$.postings" + "[3].size").
  Status PrependPath(std::string_view outer) &&;

  // "invalid_format: $.index.metric: unknown metric \"dot\"" (offset as "at byte N").
  std::string ToString() const;

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

 private:
  struct Rep {
    StatusCode code;
    std::string message;
    std::string path;
    std::optional<uint64_t> offset;
  };
  std::unique_ptr<Rep> rep_;
};

// Short constructors: Status err = InvalidFormat("unknown field");
Status InvalidArgument(std::string message);
Status ParseError(std::string message);
Status InvalidFormat(std::string message);
Status NotCanonical(std::string message);
Status IntegrityError(std::string message);
Status LimitExceeded(std::string message);
Status OutOfRange(std::string message);
Status NotFound(std::string message);
Status AlreadyExists(std::string message);
Status IoError(std::string message);
Status Unavailable(std::string message);
Status DeadlineExceeded(std::string message);
Status Cancelled(std::string message);
Status Fenced(std::string message);
Status Unimplemented(std::string message);
Status Internal(std::string message);

}  // namespace vigilo

// Propagate a non-OK Status from an expression returning Status. The local's
// name is unique per expansion so that nested uses (a lambda inside the
// argument) do not shadow each other.
#define VIGILO_STATUS_CONCAT_INNER_(a, b) a##b
#define VIGILO_STATUS_CONCAT_(a, b) VIGILO_STATUS_CONCAT_INNER_(a, b)
#define VIGILO_RETURN_IF_ERROR(expr) VIGILO_RETURN_IF_ERROR_IMPL_(VIGILO_STATUS_CONCAT_(vigilo_status_, __COUNTER__), expr)
#define VIGILO_RETURN_IF_ERROR_IMPL_(tmp, expr) \
  do {                                          \
    ::vigilo::Status tmp = (expr);              \
    if (!tmp.ok()) return tmp;                  \
  } while (0)
