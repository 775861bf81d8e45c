// strata::Error, the exception every op throws on bad input, and helpers to build its message.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "strata/export.h"

namespace strata {

/// Why an error was raised; the Python module maps kinds to TypeError/ValueError/IndexError
/// (NotImplemented: NotImplementedError, where JAX raises it, e.g. a derivative it does not
/// define).
enum class ErrorKind { Value, Type, Index, Internal, NotImplemented };

/// Thrown by every op on bad input. The message starts with the op in brackets:
/// `[reshape] cannot reshape f32[2,3] (6 elements) to [4]`.
class STRATA_EXPORT Error : public std::runtime_error {
public:
  explicit Error(const std::string &msg, ErrorKind kind = ErrorKind::Value)
      : std::runtime_error(msg), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

private:
  ErrorKind kind_;
};

namespace detail {
template <class... Args> std::string cat(const Args &...args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
} // namespace detail

/// Throws strata::Error with "[op] " followed by the streamed arguments.
template <class... Args> [[noreturn]] void fail(std::string_view op, const Args &...args) {
  throw Error(detail::cat("[", op, "] ", args...));
}
template <class... Args>
[[noreturn]] void fail_kind(ErrorKind kind, std::string_view op, const Args &...args) {
  throw Error(detail::cat("[", op, "] ", args...), kind);
}

} // namespace strata
