// Status and Result<T>: the one error type of the core.
//
// A Status is either ok or carries a stable machine-readable code (the spec's codes, for example
// "child_timeout" or "blocked_address") and a human message. Codes are part of the public contract:
// the binding turns them into JS `Error.code`, the CLI prints them in JSON. Values are cheap to
// copy and thread-compatible (no shared state).
//
// Both are [[nodiscard]]: a call whose Status or Result is dropped is a compile warning. A caller
// that means to ignore one says so with a (void) cast and a comment giving the reason.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pi_fusion {

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok

  static Status Ok() { return Status(); }
  static Status Error(std::string code, std::string message) {
    return Status(std::move(code), std::move(message));
  }

  bool ok() const { return code_.empty(); }
  // REQUIRES: !ok() for a non-empty result.
  const std::string& code() const { return code_; }
  const std::string& message() const { return message_; }
  // "code: message", or "ok".
  std::string ToString() const { return ok() ? "ok" : code_ + ": " + message_; }

 private:
  Status(std::string code, std::string message)
      : code_(std::move(code)), message_(std::move(message)) {}

  std::string code_;
  std::string message_;
};

// Either a value or a non-ok Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: !ok()
  const Status& status() const { return std::get<Status>(v_); }
  // REQUIRES: ok()
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace pi_fusion
