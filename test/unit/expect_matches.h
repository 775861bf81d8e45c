// The one comparison of a computed array against an expected one that every test binary uses:
// shape and dtype (and optionally weak type) must agree, NaN matches NaN, infinities and
// non-float values match exactly, finite floats within a Tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "strata/strata.h"

namespace strata::testutil {

/// The default relative tolerance of a dtype, suited to its precision (0: exact).
inline double tol_for(DType t) {
  switch (t) {
  case DType::Float16:
    return 2e-3;
  case DType::BFloat16:
    return 1.6e-2;
  case DType::Float32:
    return 2e-6;
  case DType::Float64:
    return 1e-12;
  case DType::Complex64: // each part as its real dtype
    return 2e-6;
  case DType::Complex128:
    return 1e-12;
  default:
    return 0.0;
  }
}

/// How close a finite float must be: |got - want| <= atol + rtol * |want|. An unset bound takes
/// tol_for(want's dtype), so Tolerance{} is the per-dtype default with atol == rtol. Values of
/// non-float dtypes always match exactly.
struct Tolerance {
  std::optional<double> rtol, atol;
  /// Whether the weak-type flags must agree too (the compiled path must keep them).
  bool weak_type = false;

  /// tol * (1 + |want|): the relative-plus-absolute rule most tests state as one number.
  static Tolerance of(double tol) { return Tolerance{tol, tol}; }
  /// Bitwise-equal values (NaN still matches NaN).
  static Tolerance exact() { return of(0); }
  /// An absolute bound only, for results whose scale the caller knows.
  static Tolerance absolute(double atol) { return Tolerance{0.0, atol}; }
  /// The same bounds, also requiring equal weak types.
  Tolerance with_weak_type() const {
    Tolerance t = *this;
    t.weak_type = true;
    return t;
  }
};

/// The differences between got and want (flat, row-major values of a `dtype` array) under tol:
/// one line per differing index naming the index, got, want and the bound, at most `limit`
/// lines and then a count of the rest. Empty when they match.
inline std::string value_mismatches(const std::vector<double> &got, const std::vector<double> &want,
                                    DType dtype, const Tolerance &tol, size_t limit = 8) {
  if (got.size() != want.size())
    return "got " + std::to_string(got.size()) + " values, want " + std::to_string(want.size()) +
           "\n";
  bool fl = is_floating(dtype) || is_complex(dtype);
  double rtol = tol.rtol.value_or(tol_for(dtype)), atol = tol.atol.value_or(tol_for(dtype));
  std::string out;
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got[i], w = want[i], bound = 0;
    bool ok;
    if (std::isnan(w))
      ok = std::isnan(g);
    else if (!fl || std::isinf(w))
      ok = g == w;
    else {
      bound = atol + rtol * std::fabs(w);
      ok = std::fabs(g - w) <= bound; // false for a NaN or infinite g
    }
    if (ok)
      continue;
    if (bad++ < limit) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "at flat index %zu: got %.17g, want %.17g", i, g, w);
      out += buf;
      if (bound > 0) {
        std::snprintf(buf, sizeof buf, " (|diff| %.3g > %.3g)", std::fabs(g - w), bound);
        out += buf;
      }
      out += "\n";
    }
  }
  if (bad > limit)
    out +=
        "... and " + std::to_string(bad - limit) + " more of " + std::to_string(want.size()) + "\n";
  return out;
}

/// An array's values as doubles (row-major), whatever its dtype.
/// A complex array's values are its real parts then its imaginary parts (each row-major).
inline std::vector<double> values(const Array &a) {
  if (is_complex(a.dtype())) {
    std::vector<double> re = values(lax::real(a)), im = values(lax::imag(a));
    re.insert(re.end(), im.begin(), im.end());
    return re;
  }
  return lax::convert_element_type(a, float64).to_vector<double>();
}

/// What differs between got and want under tol (types first, then values); empty when they
/// match.
inline std::string mismatches(const Array &got, const Array &want, const Tolerance &tol = {}) {
  auto weak = [](const Array &a) { return a.weak_type() ? " (weak)" : ""; };
  if (got.type_str() != want.type_str() || (tol.weak_type && got.weak_type() != want.weak_type()))
    return "got " + got.type_str() + weak(got) + ", want " + want.type_str() + weak(want) + "\n";
  std::string v = value_mismatches(values(got), values(want), want.dtype(), tol);
  return v.empty() ? v : want.type_str() + " " + v;
}

/// Checks got against want under tol (by default the per-dtype tolerance), naming what differs.
inline void expect_matches(const Array &got, const Array &want, const Tolerance &tol = {},
                           const std::string &what = "") {
  std::string m = mismatches(got, want, tol);
  EXPECT_TRUE(m.empty()) << what << (what.empty() ? "" : ": ") << m;
}

/// The same, output by output.
inline void expect_matches(const std::vector<Array> &got, const std::vector<Array> &want,
                           const Tolerance &tol = {}, const std::string &what = "") {
  ASSERT_EQ(got.size(), want.size()) << what << ": number of outputs";
  for (size_t i = 0; i < got.size(); ++i)
    expect_matches(got[i], want[i], tol,
                   (what.empty() ? "" : what + ", ") + "output " + std::to_string(i));
}

} // namespace strata::testutil
