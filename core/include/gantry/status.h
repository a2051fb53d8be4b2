#pragma once
/// Status and Result: expected failures as values. Nothing throws across the module boundary.

#include <optional>
#include <string>
#include <utility>

namespace gantry {

/// Outcome class of an operation: whether a retry can help.
enum class StatusCode { kOk, kRetry, kError, kCancelled };

/// An outcome with a message naming what failed and what to check.
class Status {
 public:
  Status() = default;
  static Status ok() { return {}; }
  /// A failure that may succeed when tried again (network fault, 429, 5xx).
  static Status retry(std::string message) { return {StatusCode::kRetry, std::move(message)}; }
  /// A failure a retry will not fix (bad input, 401, malformed reply).
  static Status error(std::string message) { return {StatusCode::kError, std::move(message)}; }
  /// The operation was cancelled by the caller.
  static Status cancelled(std::string message = "cancelled") {
    return {StatusCode::kCancelled, std::move(message)};
  }

  bool isOk() const { return code_ == StatusCode::kOk; }
  bool retryable() const { return code_ == StatusCode::kRetry; }
  bool isCancelled() const { return code_ == StatusCode::kCancelled; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

/// A value or the Status explaining why there is none.
template <class T>
class Result {
 public:
  Result(T v) : value_(std::move(v)) {}        // NOLINT(google-explicit-constructor)
  Result(Status s) : status_(std::move(s)) {}  // NOLINT(google-explicit-constructor)

  bool isOk() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_ = Status::error("no value");
};

}  // namespace gantry
