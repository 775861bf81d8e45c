// The monoids of the reductions and windowed reductions (reduce.cpp, window.cpp): an identity
// and an associative combine on the accumulation type C.
#pragma once

#include <limits>
#include <type_traits>

#include "primitives/kernels_impl.h"

namespace strata {

/// Sum: signed integers wrap (two's complement) instead of overflowing into undefined behaviour.
struct SumOp {
  template <class C> static C identity() { return C(0); }
  template <class C> static C apply(C a, C b) { return wrap_add(a, b); }
};
/// Product, wrapping as the sum does.
struct ProdOp {
  template <class C> static C identity() { return C(1); }
  template <class C> static C apply(C a, C b) { return wrap_mul(a, b); }
};
/// Complex numbers order lexicographically (real part, then imaginary part), as XLA's; one with
/// a NaN part is NaN (it compares unequal to itself).
template <class C> bool lex_greater(C a, C b) {
  return a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
}

/// max and min propagate NaN; on bool they are any and all.
struct MaxOp {
  template <class C> static C identity() {
    if constexpr (std::is_same_v<C, bool>)
      return false;
    else if constexpr (is_complex_v<C>)
      return C(identity<typename C::value_type>(), identity<typename C::value_type>());
    else if constexpr (std::is_floating_point_v<C>)
      return -std::numeric_limits<C>::infinity();
    else
      return std::numeric_limits<C>::lowest();
  }
  template <class C> static C apply(C a, C b) {
    if constexpr (is_complex_v<C>)
      return (lex_greater(a, b) || a != a) ? a : b;
    else if constexpr (std::is_floating_point_v<C>)
      return (a > b || a != a) ? a : b;
    else
      return a > b ? a : b;
  }
};
struct MinOp {
  template <class C> static C identity() {
    if constexpr (std::is_same_v<C, bool>)
      return true;
    else if constexpr (is_complex_v<C>)
      return C(identity<typename C::value_type>(), identity<typename C::value_type>());
    else if constexpr (std::is_floating_point_v<C>)
      return std::numeric_limits<C>::infinity();
    else
      return std::numeric_limits<C>::max();
  }
  template <class C> static C apply(C a, C b) {
    if constexpr (is_complex_v<C>)
      return (lex_greater(b, a) || a != a) ? a : b;
    else if constexpr (std::is_floating_point_v<C>)
      return (a < b || a != a) ? a : b;
    else
      return a < b ? a : b;
  }
};

} // namespace strata
