// The composition matrix's operators, shared by test_transforms_compose.cpp and
// test_control_flow_compose.cpp: each maps a scalar function to another (G: <grad f, w>,
// J: jvp along u, V: a vmap over three nearby points, C: checkpoint), and its oracle does the
// same without transforms (central finite differences, a loop). check_operator_chain applies a
// chain of them to a function and to its oracle and compares the values.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "strata/transforms.h"
#include "test_util.h"

namespace strata::testutil {

using ScalarFn = std::function<Array(const Array &)>;

struct Op {
  char tag;
  std::function<ScalarFn(ScalarFn, const Shape &)> apply, oracle;
};

/// x -> (f(x + h dir) - f(x - h dir)) / 2h.
inline ScalarFn fd_along(ScalarFn f, Array dir, double h) {
  return [f, dir, h](const Array &x) { return (f(x + h * dir) - f(x - h * dir)) / (2 * h); };
}

/// G, J, V, C with directions and perturbations fixed per operator; `fd_step` is the finite-
/// difference step of the G and J oracles.
inline std::vector<Op> compose_operators(double fd_step) {
  std::vector<Op> ops;
  // G: x -> <grad f(x), w>
  ops.push_back(
      {'G',
       [](ScalarFn f, const Shape &s) -> ScalarFn {
         Array w = rnd(101, s);
         return [f, w](const Array &x) { return sum(grad(f)(x) * w); };
       },
       [fd_step](ScalarFn f, const Shape &s) { return fd_along(f, rnd(101, s), fd_step); }});
  // J: x -> jvp(f, x, u)
  ops.push_back(
      {'J',
       [](ScalarFn f, const Shape &s) -> ScalarFn {
         Array u = rnd(102, s);
         return [f, u](const Array &x) {
           return jvp(f, std::make_tuple(x), std::make_tuple(u)).second;
         };
       },
       [fd_step](ScalarFn f, const Shape &s) { return fd_along(f, rnd(102, s), fd_step); }});
  // V: x -> sum_k c_k f(x + d_k), via vmap over the stacked points
  ops.push_back({'V',
                 [](ScalarFn f, const Shape &s) -> ScalarFn {
                   std::vector<Array> d = {rnd(103, s, 0.1), rnd(104, s, 0.1), rnd(105, s, 0.1)};
                   Array c = Array::from_vector(std::vector<double>{1.0, -0.5, 0.25});
                   return [f, d, c](const Array &x) {
                     Array pts = stack({x + d[0], x + d[1], x + d[2]});
                     return sum(vmap(f)(pts) * c);
                   };
                 },
                 [](ScalarFn f, const Shape &s) -> ScalarFn {
                   std::vector<Array> d = {rnd(103, s, 0.1), rnd(104, s, 0.1), rnd(105, s, 0.1)};
                   return [f, d](const Array &x) {
                     return f(x + d[0]) - 0.5 * f(x + d[1]) + 0.25 * f(x + d[2]);
                   };
                 }});
  // C: checkpoint(f)
  ops.push_back({'C', [](ScalarFn f, const Shape &) -> ScalarFn { return checkpoint(f); },
                 [](ScalarFn f, const Shape &) { return f; }});
  return ops;
}

/// Applies `chain` (the first listed innermost) to f and to its oracle, evaluates both at x and
/// compares within a tolerance that grows with the number of derivatives taken (`exact` when
/// none is).
inline void check_operator_chain(ScalarFn f, ScalarFn oracle, const Shape &shape, const Array &x,
                                 const std::vector<const Op *> &chain, std::string label,
                                 double exact) {
  for (const Op *op : chain) {
    f = op->apply(f, shape);
    oracle = op->oracle(oracle, shape);
    label += op->tag;
  }
  double got = f(x).item<double>(), want = oracle(x).item<double>();
  int derivs = 0;
  for (const Op *op : chain)
    derivs += op->tag == 'G' || op->tag == 'J';
  double tol = derivs == 0 ? exact : derivs == 1 ? 1e-5 : derivs == 2 ? 1e-3 : 2e-2;
  EXPECT_NEAR(got, want, tol * (1 + std::fabs(want))) << label;
  if (std::getenv("STRATA_TEST_VERBOSE"))
    std::printf("%-30s %.10g %.10g\n", label.c_str(), got, want);
}

} // namespace strata::testutil
