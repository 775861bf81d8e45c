// Building blocks for elementwise primitives: dtype classes, shape rules, and the parallel
// unary/binary kernels that the primitive definitions instantiate.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "primitives/kernels_impl.h"
#include "strata/internal/thread_pool.h"

namespace strata {

/// Which dtypes an elementwise primitive accepts. Any is every real dtype; the complex dtypes
/// join in Inexact (float or complex), Number (integer, float or complex) and All.
enum class Accepts { Float, Numeric, Signed, Integer, IntOrBool, Any, Inexact, Number, All };

template <Accepts A, class T> constexpr bool accepts_v() {
  constexpr bool f = is_float_v<T>, b = std::is_same_v<T, bool>, c = is_complex_v<T>;
  constexpr bool i = std::is_integral_v<T> && !b;
  if constexpr (A == Accepts::Inexact)
    return f || c;
  if constexpr (A == Accepts::Number)
    return f || i || c;
  if constexpr (A == Accepts::All)
    return true;
  if constexpr (A == Accepts::Any)
    return !c;
  if constexpr (A == Accepts::Float)
    return f;
  if constexpr (A == Accepts::Numeric)
    return f || i;
  if constexpr (A == Accepts::Signed)
    return f || (i && std::is_signed_v<T>);
  if constexpr (A == Accepts::Integer)
    return i;
  if constexpr (A == Accepts::IntOrBool)
    return i || b;
  return true;
}
bool accepts(Accepts a, DType t);
std::string_view accepts_str(Accepts a);

/// Elements per chunk below which kernels stay on one thread.
inline constexpr int64_t kElementwiseGrain = 1 << 15;

/// y[i] = f(x[i]) with load/store of 16-bit floats, in parallel.
template <class T, class U, class F> void map_unary(const T *x, U *y, int64_t n, F &&f) {
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      y[i] = store<U>(f(load(x[i])));
  });
}
/// z[i] = f(x[i], y[i]).
template <class T, class U, class F>
void map_binary(const T *x, const T *y, U *z, int64_t n, F &&f) {
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      z[i] = store<U>(f(load(x[i]), load(y[i])));
  });
}

/// Shape rule of unary elementwise primitives: same aval (or bool for predicates).
std::vector<AbstractValue> unary_shape_rule(std::string_view op, Accepts acc, bool bool_out,
                                            std::span<const AbstractValue> in);
/// Shape rule of binary elementwise primitives: equal shapes and dtypes (lax semantics).
std::vector<AbstractValue> binary_shape_rule(std::string_view op, Accepts acc, bool bool_out,
                                             std::span<const AbstractValue> in);
void expect_arity(std::string_view op, std::span<const AbstractValue> in, size_t n);

} // namespace strata
