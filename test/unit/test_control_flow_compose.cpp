// The composition matrix for control flow: each of cond, switch, while_loop (data-dependent trip
// count), fori_loop (static and traced bounds) and scan (forward, reverse, checkpointed, nested)
// in a function of one float64 array, under every transform and every ordered pair and triple
// of grad, jvp, vmap and checkpoint, against the same operators applied without transforms to
// the function's unrolled C++ equivalent (central finite differences, loops over examples).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "compose_ops.h"
#include "strata/control_flow.h"
#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

Array f64(double v) { return Array(v); }
Array i32(int32_t v) { return Array(v); }

struct Case {
  std::string name;
  Shape shape;        // of the argument
  ScalarFn f;         // with control flow
  ScalarFn unrolled;  // the same computation as plain C++ control flow
  double scale = 0.7; // of the random evaluation point
  double offset = 0;  // added to it (to keep arguments in a function's domain)
};

std::vector<Case> cases() {
  std::vector<Case> cs;
  {
    Array w = rnd(1, {4, 4}, 0.5), u = rnd(2, {4, 3}), xs = rnd(3, {6, 3}), c = rnd(4, {4}),
          d = rnd(5, {6});
    auto step = [w, u](const Array &h, const Array &x) {
      return tanh(matmul(w, h) + matmul(u, x));
    };
    cs.push_back({"scan_rnn",
                  {4},
                  [=](const Array &h0) {
                    auto [h, ys] = lax::scan(
                        [step](const Array &h, const Array &x) {
                          Array n = step(h, x);
                          return std::make_pair(n, sum(n * n));
                        },
                        h0, xs);
                    return sum(h * c) + sum(ys * d);
                  },
                  [=](const Array &h0) {
                    Array h = h0, acc = f64(0);
                    for (int t = 0; t < 6; ++t) {
                      h = step(h, xs[t]);
                      acc = acc + sum(h * h) * d[t];
                    }
                    return sum(h * c) + acc;
                  }});
  }
  {
    // The differentiated argument is captured by the body (closure conversion), and the scan
    // runs in reverse with a carry kept every 2 steps.
    Array xs = rnd(6, {6, 3}), h0 = rnd(7, {3});
    cs.push_back({"scan_captured_reverse",
                  {3, 3},
                  [=](const Array &w) {
                    auto [h, ys] = lax::scan(
                        [w](const Array &h, const Array &x) {
                          Array n = sin(matmul(w, h) + x);
                          return std::make_pair(n, n);
                        },
                        h0, xs, std::nullopt, true, 1, lax::LoopGradOptions{2});
                    return sum(h) + sum(ys * xs);
                  },
                  [=](const Array &w) {
                    Array h = h0, acc = f64(0);
                    for (int t = 5; t >= 0; --t) {
                      h = sin(matmul(w, h) + xs[t]);
                      acc = acc + sum(h * xs[t]);
                    }
                    return sum(h) + acc;
                  }});
  }
  {
    // Newton's square root with a data-dependent trip count; finite differences cannot change
    // the (converged) result.
    Array c = rnd(8, {3});
    auto newton = [](const Array &x) {
      return lax::while_loop(
                 [x](const std::pair<Array, Array> &s) {
                   return logical_and(max(abs(s.first * s.first - x)) > 1e-13 * max(x),
                                      s.second < 60);
                 },
                 [x](const std::pair<Array, Array> &s) {
                   return std::make_pair(0.5 * (s.first + x / s.first), s.second + 1);
                 },
                 std::make_pair(x, i32(0)))
          .first;
    };
    cs.push_back({"while_newton",
                  {3},
                  [=](const Array &x) { return sum(newton(x) * c); },
                  [=](const Array &x) {
                    Array y = x;
                    for (int k = 0; k < 60; ++k)
                      y = 0.5 * (y + x / y);
                    return sum(y * c);
                  },
                  0.3,
                  2.0});
  }
  {
    // An ODE by RK2 with static bounds: a scan. The index enters the right-hand side.
    auto rhs = [](const Array &y, const Array &t) { return -y * y * 0.5 + sin(t) * y; };
    auto rk2 = [rhs](const Array &y, const Array &i) {
      Array t = lax::convert_element_type(i, float64) * 0.1;
      Array k1 = rhs(y, t);
      return y + 0.1 * rhs(y + 0.05 * k1, t + 0.05);
    };
    cs.push_back({"fori_rk2",
                  {3},
                  [=](const Array &y0) {
                    return sum(lax::fori_loop(
                        0, 12, [rk2](const Array &i, const Array &y) { return rk2(y, i); }, y0));
                  },
                  [=](const Array &y0) {
                    Array y = y0;
                    for (int32_t i = 0; i < 12; ++i)
                      y = rk2(y, i32(i));
                    return sum(y);
                  }});
    // Traced bounds: a while_loop over the same integrator.
    cs.push_back(
        {"fori_traced_bounds",
         {3},
         [=](const Array &y0) {
           return sum(lax::fori_loop(
               i32(2), i32(9), [rk2](const Array &i, const Array &y) { return rk2(y, i); }, y0));
         },
         [=](const Array &y0) {
           Array y = y0;
           for (int32_t i = 2; i < 9; ++i)
             y = rk2(y, i32(i));
           return sum(y);
         }});
  }
  {
    // A predicate that depends on the argument: under vmap it is batched (a select).
    Array c = rnd(9, {4});
    auto a = [c](const Array &v) { return sum(sin(v) * v * c); };
    auto b = [c](const Array &v) { return sum(exp(v * 0.5) * c) + 1.0; };
    cs.push_back({"cond",
                  {4},
                  [=](const Array &x) { return lax::cond(sum(x) > 0.0, a, b, x); },
                  [=](const Array &x) { return sum(x).item<double>() > 0 ? a(x) : b(x); }});
  }
  {
    std::vector<std::function<Array(const Array &, const Array &)>> br = {
        [](const Array &x, const Array &y) { return sum(x * y); },
        [](const Array &x, const Array &y) { return sum(tanh(x) * y * y); },
        [](const Array &x, const Array &y) { return sum(x * x * x) - sum(y); }};
    Array y = rnd(10, {3});
    auto index = [](const Array &x) {
      return lax::convert_element_type(floor(x[0] * 2.0) + 1.0, int32);
    };
    cs.push_back({"switch",
                  {3},
                  [=](const Array &x) { return lax::switch_(index(x), br, x, y); },
                  [=](const Array &x) {
                    int k = std::clamp(index(x).item<int32_t>(), 0, 2);
                    return br[k](x, y);
                  }});
  }
  {
    // A scan whose body runs a while_loop (traced bounds) closing over the scan's carry.
    Array xs = rnd(11, {4, 3}, 0.5);
    cs.push_back(
        {"scan_of_while",
         {3},
         [=](const Array &a) {
           auto [h, ys] = lax::scan(
               [a](const Array &h, const Array &x) {
                 Array in = lax::fori_loop(
                     i32(0), i32(3),
                     [a, h, x](const Array &, const Array &v) { return tanh(v * a + h * 0.5 + x); },
                     h);
                 return std::make_pair(in, sum(in));
               },
               zeros({3}, float64), xs);
           return sum(h) + sum(ys);
         },
         [=](const Array &a) {
           Array h = zeros({3}, float64), acc = f64(0);
           for (int t = 0; t < 4; ++t) {
             Array v = h;
             for (int k = 0; k < 3; ++k)
               v = tanh(v * a + h * 0.5 + xs[t]);
             h = v;
             acc = acc + sum(h);
           }
           return sum(h) + acc;
         }});
  }
  return cs;
}

std::vector<Op> operators() { return compose_operators(1e-4); }

void check_chain(const Case &c, const std::vector<const Op *> &chain) {
  check_operator_chain(c.f, c.unrolled, c.shape, rnd(200, c.shape, c.scale) + c.offset, chain,
                       c.name + " ", 1e-11);
}

} // namespace

TEST(ControlFlowCompose, PlainValues) {
  for (const Case &c : cases())
    check_chain(c, {});
}

TEST(ControlFlowCompose, SingleTransforms) {
  auto ops = operators();
  for (const Case &c : cases())
    for (const Op &a : ops)
      check_chain(c, {&a});
}

TEST(ControlFlowCompose, EveryOrderedPair) {
  auto ops = operators();
  for (const Case &c : cases())
    for (const Op &a : ops)
      for (const Op &b : ops)
        check_chain(c, {&a, &b});
}

TEST(ControlFlowCompose, EveryOrderedTriple) {
  auto ops = operators();
  for (const Case &c : cases())
    for (const Op &a : ops)
      for (const Op &b : ops)
        for (const Op &d : ops)
          check_chain(c, {&a, &b, &d});
}
