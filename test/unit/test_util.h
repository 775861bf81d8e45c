// Helpers shared by the unit tests: building arrays, comparing against expected values
// (expect_matches.h), and the registry of which primitives have test rows.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "expect_matches.h"
#include "strata/strata.h"

namespace strata::testutil {

/// Names of primitives that have rows in a test table; test_registry.cpp checks every
/// registered primitive is here.
inline std::set<std::string> &tested_primitives() {
  static std::set<std::string> s;
  return s;
}
struct MarkTested {
  explicit MarkTested(std::initializer_list<const char *> names) {
    for (const char *n : names)
      tested_primitives().insert(n);
  }
};
#define STRATA_CAT2(a, b) a##b
#define STRATA_CAT(a, b) STRATA_CAT2(a, b)
/// Declares, at file scope, that this file holds the test rows of the named primitives.
#define STRATA_TESTS_PRIMITIVES(...)                                                               \
  static ::strata::testutil::MarkTested STRATA_CAT(strata_mark_, __LINE__) { __VA_ARGS__ }

/// An array of `dtype` from double values (converted as convert_element_type would).
inline Array make(const std::vector<double> &values, const Shape &shape, DType dtype = float64) {
  Array a = Array::from_vector(values, shape);
  return dtype == float64 ? a : lax::convert_element_type(a, dtype);
}
inline Array make(const std::vector<double> &values, DType dtype = float64) {
  return make(values, Shape{static_cast<int64_t>(values.size())}, dtype);
}
/// Checks shape, dtype and values against expected doubles under Tolerance::of(tol) (see
/// expect_matches).
inline void expect_array(const Array &got, const std::vector<double> &want, const Shape &shape,
                         DType dtype, double tol = 0.0) {
  ASSERT_EQ(got.dtype(), dtype) << got.type_str();
  ASSERT_EQ(got.shape(), shape) << got.type_str();
  std::string m = value_mismatches(values(got), want, dtype, Tolerance::of(tol));
  EXPECT_TRUE(m.empty()) << got.type_str() << " " << m;
}

/// Runs `fn` and checks it throws strata::Error whose message contains every fragment.
template <class F> void expect_error(F &&fn, std::initializer_list<const char *> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected strata::Error";
  } catch (const Error &e) {
    std::string msg = e.what();
    for (const char *f : fragments)
      EXPECT_NE(msg.find(f), std::string::npos) << "message '" << msg << "' lacks '" << f << "'";
  }
}

inline const std::vector<DType> &all_dtypes() {
  static const std::vector<DType> v = {bool_,  int8,   int16,   int32,    int64,   uint8,  uint16,
                                       uint32, uint64, float16, bfloat16, float32, float64};
  return v;
}
inline const std::vector<DType> &float_dtypes() {
  static const std::vector<DType> v = {float16, bfloat16, float32, float64};
  return v;
}

using Idx = std::vector<int64_t>;

/// Row-major offset of a multi-index.
inline int64_t ravel(const Idx &idx, const Shape &shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    flat = flat * shape[i] + idx[i];
  return flat;
}

/// Calls fn on every multi-index of `shape` in row-major order (once for rank 0, never for
/// zero-size shapes).
inline void for_each_index(const Shape &shape, const std::function<void(const Idx &)> &fn) {
  if (num_elements(shape) == 0)
    return;
  Idx idx(shape.size(), 0);
  for (;;) {
    fn(idx);
    size_t i = shape.size();
    for (; i > 0; --i) {
      if (++idx[i - 1] < shape[i - 1])
        break;
      idx[i - 1] = 0;
    }
    if (i == 0)
      return;
  }
}

/// An integer value wrapped to a narrow integer dtype, as two's-complement kernels produce it.
inline double wrap_to(DType t, double v) {
  auto i = static_cast<int64_t>(v);
  switch (t) {
  case DType::Int8:
    return static_cast<int8_t>(static_cast<uint8_t>(i));
  case DType::UInt8:
    return static_cast<uint8_t>(i);
  case DType::Int32:
    return static_cast<int32_t>(static_cast<uint32_t>(i));
  case DType::UInt32:
    return static_cast<uint32_t>(i);
  default:
    return v;
  }
}

/// Whether a is of a floating dtype (the operands transforms differentiate).
inline bool floating(const Array &a) { return is_floating(a.dtype()); }

/// The values of the floating arrays of xs, concatenated (others skipped).
inline std::vector<double> flat_floats(const std::vector<Array> &xs) {
  std::vector<double> out;
  for (const Array &x : xs)
    if (floating(x)) {
      std::vector<double> v = values(x);
      out.insert(out.end(), v.begin(), v.end());
    }
  return out;
}

/// x + h * u on the floating operands (the others unchanged): a finite-difference step.
inline std::vector<Array> shifted(const std::vector<Array> &x, const std::vector<Array> &u,
                                  double h) {
  std::vector<Array> out;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!floating(x[i])) {
      out.push_back(x[i]);
      continue;
    }
    std::vector<double> a = values(x[i]), b = values(u[i]);
    for (size_t k = 0; k < a.size(); ++k)
      a[k] += h * b[k];
    out.push_back(make(a, x[i].shape(), x[i].dtype()));
  }
  return out;
}

/// Both sides of the adjoint identity <v, J u> == <J^T v, u> over the floating arrays, and
/// the sum of the magnitudes of their terms (for a relative tolerance). The caller checks that
/// jtv and u hold as many floats.
struct AdjointSums {
  double lhs = 0, rhs = 0, magnitude = 0;
};
inline AdjointSums adjoint_sums(const std::vector<Array> &v, const std::vector<Array> &ju,
                                const std::vector<Array> &jtv, const std::vector<Array> &u) {
  AdjointSums s;
  std::vector<double> fv = flat_floats(v), fju = flat_floats(ju);
  for (size_t k = 0; k < fv.size(); ++k) {
    s.lhs += fv[k] * fju[k];
    s.magnitude += std::fabs(fv[k] * fju[k]);
  }
  std::vector<double> fjtv = flat_floats(jtv), fu = flat_floats(u);
  for (size_t k = 0; k < std::min(fjtv.size(), fu.size()); ++k) {
    s.rhs += fjtv[k] * fu[k];
    s.magnitude += std::fabs(fjtv[k] * fu[k]);
  }
  return s;
}

/// A float64 normal sample, drawn in f32 so the values are the same on every platform.
inline Array rnd(uint64_t seed, const Shape &shape, double scale = 1.0) {
  return lax::convert_element_type(random::normal(random::key(seed), shape, float32), float64) *
         scale;
}

} // namespace strata::testutil
