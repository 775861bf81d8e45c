// Row reductions and their fusions compiled (row loops, vector accumulators) against eager and a
// long-double oracle: row lengths around the vector width and its tail, NaN and infinities in
// the full steps and in the tail, float32 and float64, the softmax family and the norms forward
// and backward.
#include <cmath>
#include <limits>

#include "strata/jit.h"
#include "strata/nn.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

/// Row lengths: shorter than the vector path takes, one step, steps and a tail, many steps.
const std::vector<Shape> &row_shapes() {
  static const std::vector<Shape> s = {{3, 1},    {5, 7},   {2, 16},    {4, 33},   {7, 100},
                                       {2, 1000}, {300, 5}, {6, 4, 70}, {64, 1024}};
  return s;
}

Array input(uint64_t seed, const Shape &shape, DType dtype) {
  return rnd(seed, shape).astype(dtype);
}

double tolerance(DType d) { return d == DType::Float32 ? 2e-6 : 1e-12; }

/// A long-double reduction of each last-axis row of `x` (row-major values).
std::vector<double> row_oracle(const Array &x, bool is_max) {
  std::vector<double> v = values(x);
  int64_t n = x.shape().back(), rows = static_cast<int64_t>(v.size()) / std::max<int64_t>(n, 1);
  std::vector<double> out;
  for (int64_t r = 0; r < rows; ++r) {
    long double acc = is_max ? -std::numeric_limits<long double>::infinity() : 0.0L;
    bool nan = false;
    for (int64_t j = 0; j < n; ++j) {
      double e = v[static_cast<size_t>(r * n + j)];
      nan |= std::isnan(e);
      acc = is_max ? std::max<long double>(acc, e) : acc + e;
    }
    out.push_back(nan ? std::nan("") : static_cast<double>(acc));
  }
  return out;
}

TEST(JitRowReductions, SumAndMaxMatchTheOracle) {
  for (DType d : {float32, float64})
    for (const Shape &s : row_shapes()) {
      Array x = input(11, s, d);
      Shape out(s.begin(), s.end() - 1);
      for (bool is_max : {false, true}) {
        auto f = [is_max](const Array &a) { return is_max ? max(a, -1) : sum(a, -1); };
        Array got = jit(f)(x);
        // A float32 sum of n elements is within n ulp-ish of the exact one.
        double tol = d == DType::Float32 ? 1e-6 * std::sqrt(double(s.back())) : 1e-13;
        expect_array(got, row_oracle(x, is_max), out, d, is_max ? 0.0 : tol);
        // Eager blocks its sums differently (pairwise halves of 16 lanes): both are within the
        // oracle's bound, so of each other within twice it.
        expect_matches(got, f(x), Tolerance::of(is_max ? 0.0 : 2 * tol));
      }
    }
}

TEST(JitRowReductions, NanAndInfinitiesInStepsAndTail) {
  // 100 = three 32-lane steps and a tail of 4 (f32), six 16-lane steps and a tail of 4 (f64).
  for (DType d : {float32, float64}) {
    std::vector<double> v(4 * 100, 1.0);
    v[5] = std::nan("");                                  // row 0: NaN in a full step
    v[100 + 98] = std::nan("");                           // row 1: NaN in the tail
    v[200 + 3] = std::numeric_limits<double>::infinity(); // row 2: inf and -inf: NaN sum
    v[200 + 99] = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < 100; ++j) // row 3: all -0.0
      v[300 + j] = -0.0;
    Array x = make(v, {4, 100}, d);
    for (auto f :
         {+[](const Array &a) { return sum(a, -1); }, +[](const Array &a) { return max(a, -1); },
          +[](const Array &a) { return min(a, -1); },
          +[](const Array &a) { return prod(a, -1); }}) {
      Array got = jit(f)(x), want = f(x);
      expect_matches(got, want, Tolerance::exact());
    }
    Array s = jit([](const Array &a) { return sum(a, -1); })(x);
    std::vector<double> sv = values(s);
    EXPECT_TRUE(std::isnan(sv[0]) && std::isnan(sv[1]) && std::isnan(sv[2]));
    EXPECT_EQ(sv[3], 0.0);
    Array m = jit([](const Array &a) { return max(a, -1); })(x);
    std::vector<double> mv = values(m);
    EXPECT_TRUE(std::isnan(mv[0]) && std::isnan(mv[1]));
    EXPECT_EQ(mv[2], std::numeric_limits<double>::infinity());
  }
}

TEST(JitRowReductions, SoftmaxFamilyAndNormsForwardAndBackward) {
  std::vector<std::pair<const char *, Array (*)(const Array &)>> fns = {
      {"softmax", [](const Array &a) { return nn::softmax(a, -1); }},
      {"log_softmax", [](const Array &a) { return nn::log_softmax(a, -1); }},
      {"logsumexp", [](const Array &a) { return nn::logsumexp(a, -1, true); }},
      {"layer_norm", [](const Array &a) { return nn::layer_norm(a); }},
      {"rms_norm", [](const Array &a) { return nn::rms_norm(a); }},
  };
  for (DType d : {float32, float64})
    for (const Shape &s : row_shapes())
      for (auto [name, f] : fns) {
        SCOPED_TRACE(std::string(name) + " " + std::to_string(s.back()));
        Array x = input(3, s, d);
        Shape ys = s;
        if (std::string(name) == "logsumexp")
          ys.back() = 1;
        Array g = input(4, ys, d);
        auto fb = [f](const Array &a, const Array &ct) {
          auto [y, pullback] = vjp(f, a);
          return std::vector<Array>{y, pullback(ct)};
        };
        std::vector<Array> got = jit(fb)(x, g), want = fb(x, g);
        expect_matches(got, want, Tolerance::of(10 * tolerance(d)));
      }
}

TEST(JitRowReductions, LayerNormWithScaleAndBias) {
  Array x = input(5, {33, 70}, float32), sc = input(6, {70}, float32), b = input(7, {70}, float32);
  auto loss = [](const Array &a, const Array &s, const Array &c) {
    Array y = nn::layer_norm(a, s, c);
    return sum(y * y);
  };
  auto g = [loss](const Array &a, const Array &s, const Array &c) {
    auto [v, gr] = value_and_grad<0, 1, 2>(loss)(a, s, c);
    return std::vector<Array>{v, std::get<0>(gr), std::get<1>(gr), std::get<2>(gr)};
  };
  expect_matches(jit(g)(x, sc, b), g(x, sc, b), Tolerance::of(2e-5));
}

TEST(JitRowReductions, SoftmaxIsOneParallelVectorPass) {
  Lowered l =
      lower([](const Array &a) { return nn::softmax(a, -1); }, input(1, {512, 1024}, float32));
  const std::string &ir = l.as_text("llvm");
  // One OpenMP loop over the rows, the reductions on 32-lane vectors.
  size_t first = ir.find("omp.wsloop");
  EXPECT_NE(first, std::string::npos) << ir;
  EXPECT_EQ(ir.find("omp.wsloop", first + 1), std::string::npos) << ir;
  EXPECT_NE(ir.find("vector<32xf32>"), std::string::npos) << ir;
}

} // namespace
