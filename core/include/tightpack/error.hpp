// Errors as values: every failure that input can cause carries the JSON path
// (or field) and the offending text, and crosses the wasm boundary unchanged.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace tightpack {

struct Error {
  std::string path;     // "$.nodes[3].status.allocatable.cpu", or a field name; may be empty
  std::string message;  // what is wrong, naming the value

  std::string what() const { return path.empty() ? message : path + ": " + message; }
};

// Shortens user-provided text quoted in an error so that a 10 MB value does not
// become a 10 MB message.
std::string quote_value(std::string_view text);

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace tightpack
