// Result<T>: either a value or a non-OK Status (C++20 has no std::expected).
#pragma once

#include <cassert>
#include <optional>
#include <type_traits>
#include <utility>

#include "vigilo/common/status.h"

namespace vigilo {

template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit from a value or from an error Status, so `return value;` and
  // `return InvalidFormat("...");` both work.
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = Internal("Result constructed from an OK status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  Status take_status() && { return std::move(status_); }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace vigilo

#define VIGILO_CONCAT_INNER_(a, b) a##b
#define VIGILO_CONCAT_(a, b) VIGILO_CONCAT_INNER_(a, b)

// VIGILO_ASSIGN_OR_RETURN(auto v, Compute()); returns the error Status if any.
#define VIGILO_ASSIGN_OR_RETURN(decl, expr) \
  VIGILO_ASSIGN_OR_RETURN_IMPL_(VIGILO_CONCAT_(vigilo_result_, __COUNTER__), decl, expr)
#define VIGILO_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return std::move(tmp).take_status();  \
  decl = std::move(tmp).value()
