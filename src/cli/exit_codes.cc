#include "exit_codes.h"

#include <cstdio>

namespace vigilo::cli {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidArgument: return kExitUsage;
    case StatusCode::kParseError: return 3;
    case StatusCode::kInvalidFormat: return 4;
    case StatusCode::kNotCanonical: return 5;
    case StatusCode::kIntegrityError: return 6;
    case StatusCode::kLimitExceeded:
    case StatusCode::kOutOfRange: return 7;
    case StatusCode::kNotFound: return 8;
    case StatusCode::kAlreadyExists: return 9;
    case StatusCode::kIoError:
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kCancelled: return 10;
    case StatusCode::kFenced: return 11;
    case StatusCode::kUnimplemented: return 12;
    case StatusCode::kInternal: return 1;
  }
  return 1;
}

int ReportError(const Status& status) {
  std::fprintf(stderr, "vigilo: %s\n", status.ToString().c_str());
  return ExitCodeFor(status);
}

}  // namespace vigilo::cli
