// Status → Python exception. Operations throw StatusError (with the GIL
// held or not); the translator registered in module.cc raises the class of
// vigilo._errors that belongs to the status code, carrying its code, path,
// offset and message. The classes live in Python (one per stable code,
// docs/errors.md) so that they can be caught and subclassed as usual.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include "vigilo/common/result.h"
#include "vigilo/common/status.h"

namespace vigilo::python {

class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)), text_(status_.ToString()) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  Status status_;
  std::string text_;
};

inline void Check(Status status) {
  if (!status.ok()) throw StatusError(std::move(status));
}

template <class T>
T Unwrap(Result<T> result) {
  if (!result.ok()) throw StatusError(std::move(result).take_status());
  return std::move(result).value();
}

// Registers the translator (module init).
void RegisterErrorTranslator();

}  // namespace vigilo::python
