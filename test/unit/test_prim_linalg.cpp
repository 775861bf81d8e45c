// The linear-algebra primitives against external oracles: numpy's values for fixed matrices,
// reconstructions computed here in long double (L L^T, op(a) x, P a = L U, Q R, V diag(w) V^T,
// U diag(s) V^T), orthogonality, the shapes of full and reduced factors, f32 and edge sizes,
// errors; and their derivatives (every triangular_solve variant, wide and tall shapes, repeated
// eigenvalues) against finite differences and the adjoint identity.
#include <cmath>
#include <limits>
#include <random>

#include "rules_check.h"
#include "strata/linalg.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;
namespace la = strata::lax::linalg;

STRATA_TESTS_PRIMITIVES("cholesky", "triangular_solve", "lu", "lu_pivots_to_permutation", "qr",
                        "eigh", "svd");

namespace {

/// A row-major matrix of long doubles, for the reconstructions.
struct Mat {
  int64_t m, n;
  std::vector<long double> v;
  long double &operator()(int64_t i, int64_t j) { return v[static_cast<size_t>(i * n + j)]; }
  long double operator()(int64_t i, int64_t j) const { return v[static_cast<size_t>(i * n + j)]; }
};
/// Matrix b of the batch in x ([..., m, n]).
Mat mat(const Array &x, int64_t b = 0) {
  std::vector<double> all = values(x);
  int64_t m = x.shape()[x.ndim() - 2], n = x.shape()[x.ndim() - 1];
  Mat r{m, n, {}};
  for (int64_t i = 0; i < m * n; ++i)
    r.v.push_back(all[static_cast<size_t>(b * m * n + i)]);
  return r;
}
Mat mul(const Mat &a, const Mat &b) {
  Mat c{a.m, b.n, std::vector<long double>(static_cast<size_t>(a.m * b.n), 0)};
  for (int64_t i = 0; i < a.m; ++i)
    for (int64_t j = 0; j < b.n; ++j)
      for (int64_t k = 0; k < a.n; ++k)
        c(i, j) += a(i, k) * b(k, j);
  return c;
}
Mat tr(const Mat &a) {
  Mat t{a.n, a.m, std::vector<long double>(a.v.size())};
  for (int64_t i = 0; i < a.m; ++i)
    for (int64_t j = 0; j < a.n; ++j)
      t(j, i) = a(i, j);
  return t;
}
void expect_near(const Mat &got, const Mat &want, double tol, const std::string &what) {
  ASSERT_EQ(got.m, want.m) << what;
  ASSERT_EQ(got.n, want.n) << what;
  for (size_t i = 0; i < got.v.size(); ++i)
    EXPECT_NEAR(static_cast<double>(got.v[i]), static_cast<double>(want.v[i]),
                tol * (1 + std::fabs(static_cast<double>(want.v[i]))))
        << what << " element " << i;
}
Mat identity(int64_t n) {
  Mat r{n, n, std::vector<long double>(static_cast<size_t>(n * n), 0)};
  for (int64_t i = 0; i < n; ++i)
    r(i, i) = 1;
  return r;
}
Array random(const Shape &s, uint32_t seed, DType dtype = float64) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> v(static_cast<size_t>(num_elements(s)));
  for (double &x : v)
    x = d(rng);
  return make(v, s, dtype);
}
/// Batches of positive definite matrices M M^T + n I.
Array spd(int64_t batch, int64_t n, uint32_t seed, DType dtype = float64) {
  Array m = random({batch, n, n}, seed);
  std::vector<double> v;
  for (int64_t b = 0; b < batch; ++b) {
    Mat a = mat(m, b), s = mul(a, tr(a));
    for (int64_t i = 0; i < n; ++i)
      s(i, i) += static_cast<long double>(n);
    for (long double x : s.v)
      v.push_back(static_cast<double>(x));
  }
  return make(v, {batch, n, n}, dtype);
}
double tol_of(DType d) { return d == float32 ? 2e-5 : 1e-12; }

const Array kA = make({4, 2, 0.4, 2, 5, 1, 0.4, 1, 3}, {3, 3});
const Array kB = make({1, 2, 3, 4, 5, 6.5, 7, 8.5, 10, 2, -1, 0.5}, {4, 3});

// ---- cholesky ----------------------------------------------------------------------------------

TEST(Cholesky, MatchesNumpy) {
  // numpy.linalg.cholesky(kA)
  expect_array(la::cholesky(kA), {2.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.2, 0.4, 1.6733200530681511},
               {3, 3}, float64, 1e-14);
}

TEST(Cholesky, ReconstructsBatchesInBothPrecisions) {
  for (DType d : {float64, float32})
    for (int64_t n : {1, 2, 5, 33}) {
      Array a = spd(3, n, static_cast<uint32_t>(n), d);
      Array l = la::cholesky(a);
      ASSERT_EQ(l.dtype(), d);
      for (int64_t b = 0; b < 3; ++b) {
        Mat lm = mat(l, b);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = i + 1; j < n; ++j)
            EXPECT_EQ(lm(i, j), 0) << "upper triangle not zero";
        expect_near(mul(lm, tr(lm)), mat(a, b), 10 * tol_of(d), "L L^T");
      }
    }
}

TEST(Cholesky, ReadsTheLowerTriangleAndSymmetrizes) {
  Array a = make({4, 100, 2, 5}, {2, 2}); // the upper entry differs from the lower one
  // Without symmetrization only the lower triangle is read: as if a were [[4, 2], [2, 5]].
  expect_array(la::cholesky(a, false), {2, 0, 1, 2}, {2, 2}, float64, 1e-15);
  // With it, (a + a^T) / 2 = [[4, 51], [51, 5]] is not positive definite.
  for (double x : values(la::cholesky(a)))
    EXPECT_TRUE(std::isnan(x));
}

TEST(Cholesky, NotPositiveDefiniteGivesNaNsPerMatrix) {
  Array a = make({1, 0, 0, 1, 1, 2, 2, 1}, {2, 2, 2});
  std::vector<double> l = values(la::cholesky(a));
  EXPECT_EQ(l[0], 1);
  EXPECT_EQ(l[3], 1);
  for (int i = 4; i < 8; ++i)
    EXPECT_TRUE(std::isnan(l[i]));
}

TEST(Cholesky, EmptyAndErrors) {
  EXPECT_EQ(la::cholesky(Array::empty({2, 0, 0}, float64)).shape(), (Shape{2, 0, 0}));
  EXPECT_EQ(la::cholesky(Array::empty({0, 3, 3}, float64)).shape(), (Shape{0, 3, 3}));
  expect_error([] { la::cholesky(Array::empty({2, 3}, float64)); },
               {"[cholesky]", "square", "f64[2,3]"});
  expect_error([] { la::cholesky(Array::empty({3}, float64)); }, {"[cholesky]", "rank >= 2"});
  expect_error([] { la::cholesky(make({1, 0, 0, 1}, {2, 2}, int32)); },
               {"[cholesky]", "float32 or float64", "i32[2,2]"});
  expect_error([] { la::cholesky(make({1, 0, 0, 1}, {2, 2}, float16)); },
               {"[cholesky]", "f16[2,2]"});
}

// ---- triangular_solve --------------------------------------------------------------------------

/// op(a) with the triangle and diagonal the solve reads.
Mat op_of(const Mat &a, bool lower, bool trans, bool unit) {
  Mat t = a;
  for (int64_t i = 0; i < a.m; ++i)
    for (int64_t j = 0; j < a.n; ++j) {
      if ((lower && j > i) || (!lower && j < i))
        t(i, j) = 0;
      if (i == j && unit)
        t(i, j) = 1;
    }
  return trans ? tr(t) : t;
}

TEST(TriangularSolve, EveryVariantSolvesItsSystem) {
  for (DType d : {float64, float32})
    for (int mask = 0; mask < 16; ++mask) {
      bool left = mask & 1, lower = mask & 2, trans = mask & 4, unit = mask & 8;
      SCOPED_TRACE(testing::Message() << "left " << left << " lower " << lower << " trans " << trans
                                      << " unit " << unit << " " << dtype_name(d));
      int64_t m = 4, n = 3, k = left ? m : n;
      std::vector<double> av = values(random({2, k, k}, 7));
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < k; ++i)
          av[static_cast<size_t>((b * k + i) * k + i)] += 3; // well-conditioned
      Array a = make(av, {2, k, k}, d), rhs = random({2, m, n}, 8, d);
      Array x = la::triangular_solve(a, rhs, left, lower, trans, false, unit);
      for (int64_t b = 0; b < 2; ++b) {
        Mat op = op_of(mat(a, b), lower, trans, unit);
        Mat got = left ? mul(op, mat(x, b)) : mul(mat(x, b), op);
        expect_near(got, mat(rhs, b), 10 * tol_of(d), "op(a) x or x op(a)");
      }
    }
}

TEST(TriangularSolve, EdgesAndErrors) {
  Array a = make({2}, {1, 1}), b = make({6, 8}, {1, 2});
  expect_array(la::triangular_solve(a, b, true, true), {3, 4}, {1, 2}, float64);
  EXPECT_EQ(
      la::triangular_solve(Array::empty({3, 3}, float64), Array::empty({3, 0}, float64), true, true)
          .shape(),
      (Shape{3, 0}));
  expect_error(
      [] {
        la::triangular_solve(Array::empty({3, 3}, float64), Array::empty({2, 3}, float64), true);
      },
      {"[triangular_solve]", "f64[3,3]", "f64[2,3]", "left"});
  expect_error(
      [] {
        la::triangular_solve(Array::empty({2, 3, 3}, float64), Array::empty({3, 3, 3}, float64),
                             true);
      },
      {"[triangular_solve]", "batch dimensions"});
  expect_error(
      [] {
        la::triangular_solve(Array::empty({3, 3}, float32), Array::empty({3, 3}, float64), true);
      },
      {"[triangular_solve]", "dtypes"});
}

// ---- lu and lu_pivots_to_permutation ----------------------------------------------------------

TEST(Lu, MatchesScipy) {
  // scipy.linalg.lu_factor(kB): pivots [2, 3, 2]
  la::LuResult f = la::lu(kB);
  expect_array(f.lu,
               {7.0, 8.5, 10.0, 0.2857142857142857, -3.4285714285714284, -2.3571428571428568,
                0.14285714285714285, -0.2291666666666667, 1.0312500000000002, 0.5714285714285714,
                -0.04166666666666678, 0.6666666666666674},
               {4, 3}, float64, 1e-13);
  expect_array(f.pivots, {2, 3, 2}, {3}, int32);
  expect_array(f.permutation, {2, 3, 0, 1}, {4}, int32);
}

TEST(Lu, PermutedInputIsLTimesU) {
  for (DType d : {float64, float32})
    for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {5, 5}, {6, 3}, {3, 6}}) {
      Array a = random({2, m, n}, static_cast<uint32_t>(m * 10 + n), d);
      la::LuResult f = la::lu(a);
      int64_t k = std::min(m, n);
      ASSERT_EQ(f.pivots.shape(), (Shape{2, k}));
      ASSERT_EQ(f.permutation.shape(), (Shape{2, m}));
      std::vector<double> perm = values(f.permutation);
      for (int64_t b = 0; b < 2; ++b) {
        Mat lu = mat(f.lu, b), am = mat(a, b);
        Mat l{m, k, std::vector<long double>(static_cast<size_t>(m * k), 0)},
            u{k, n, std::vector<long double>(static_cast<size_t>(k * n), 0)}, pa = am;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < k; ++j)
            l(i, j) = i == j ? 1 : i > j ? lu(i, j) : 0;
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = i; j < n; ++j)
            u(i, j) = lu(i, j);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            pa(i, j) = am(static_cast<int64_t>(perm[static_cast<size_t>(b * m + i)]), j);
        expect_near(mul(l, u), pa, 10 * tol_of(d), "a[perm] = L U");
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < k; ++j)
            EXPECT_LE(std::fabs(static_cast<double>(l(i, j))), 1 + 1e-6) << "partial pivoting";
      }
    }
}

TEST(LuPivotsToPermutation, AppliesTheSwapsInOrder) {
  // Swap 0<->2, then 1<->2 of [0 1 2 3]: [2 1 0 3] then [2 0 1 3]; 0<->1 then 1<->0: back.
  Array piv = Array::from_vector(std::vector<int32_t>{2, 2, 1, 0}, {2, 2});
  expect_array(la::lu_pivots_to_permutation(piv, 4), {2, 0, 1, 3, 0, 1, 2, 3}, {2, 4}, int32);
  expect_error([&] { la::lu_pivots_to_permutation(piv, 1); },
               {"[lu_pivots_to_permutation]", "permutation_size"});
  expect_error(
      [] { la::lu_pivots_to_permutation(Array::from_vector(std::vector<int32_t>{5}, {1}), 3); },
      {"[lu_pivots_to_permutation]", "pivot 5"});
}

// ---- qr ----------------------------------------------------------------------------------------

TEST(Qr, MatchesNumpy) {
  // numpy.linalg.qr(kB) (reduced) gives this R; LAPACK's Householder signs are numpy's.
  auto [q, r] = la::qr(kB, false, false);
  expect_array(r,
               {-8.366600265340756, -9.502067444208429, -11.952286093343936, 0.0,
                -3.4584265621398247, -2.7262604132723602, 0.0, 0.0, 1.10016421587014},
               {3, 3}, float64, 1e-13);
  EXPECT_EQ(q.shape(), (Shape{4, 3}));
}

TEST(Qr, FullAndReducedFactorsReconstruct) {
  for (DType d : {float64, float32})
    for (bool full : {true, false})
      for (auto [m, n] :
           std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {4, 4}, {6, 3}, {3, 6}, {3, 0}}) {
        SCOPED_TRACE(testing::Message() << m << "x" << n << " full " << full);
        Array a = random({2, m, n}, static_cast<uint32_t>(m + 7 * n), d);
        auto [q, r] = la::qr(a, false, full);
        int64_t k = std::min(m, n), qc = full ? m : k;
        ASSERT_EQ(q.shape(), (Shape{2, m, qc}));
        ASSERT_EQ(r.shape(), (Shape{2, full ? m : k, n}));
        for (int64_t b = 0; b < 2; ++b) {
          Mat qm = mat(q, b), rm = mat(r, b);
          expect_near(mul(tr(qm), qm), identity(qc), 10 * tol_of(d), "Q^T Q");
          expect_near(mul(qm, rm), mat(a, b), 10 * tol_of(d), "Q R");
          for (int64_t i = 0; i < rm.m; ++i)
            for (int64_t j = 0; j < std::min(i, n); ++j)
              EXPECT_EQ(rm(i, j), 0);
        }
      }
  expect_error([] { la::qr(kB, true); }, {"[qr]", "pivoting"});
}

// ---- eigh --------------------------------------------------------------------------------------

TEST(Eigh, MatchesNumpy) {
  auto [v, w] = la::eigh(kA);
  // numpy.linalg.eigvalsh(kA)
  expect_array(w, {2.256472221147988, 2.901971219300918, 6.841556559551096}, {3}, float64, 1e-14);
}

TEST(Eigh, DecomposesBatchesFromEitherTriangle) {
  for (DType d : {float64, float32})
    for (int64_t n : {1, 3, 8}) {
      Array a = spd(2, n, static_cast<uint32_t>(n) + 40);
      // Garbage in the triangle that is not read.
      std::vector<double> g = values(a);
      for (bool lower : {true, false}) {
        std::vector<double> h = g;
        for (int64_t b = 0; b < 2; ++b)
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
              if (lower ? j > i : j < i)
                h[static_cast<size_t>((b * n + i) * n + j)] = 99;
        auto [v, w] = la::eigh(make(h, {2, n, n}, d), lower, false);
        for (int64_t b = 0; b < 2; ++b) {
          Mat vm = mat(v, b), wd = identity(n);
          std::vector<double> wv = values(w);
          for (int64_t i = 0; i < n; ++i) {
            wd(i, i) = wv[static_cast<size_t>(b * n + i)];
            if (i > 0)
              EXPECT_LE(wv[static_cast<size_t>(b * n + i - 1)], wv[static_cast<size_t>(b * n + i)]);
          }
          expect_near(mul(tr(vm), vm), identity(n), 10 * tol_of(d), "V^T V");
          expect_near(mul(mul(vm, wd), tr(vm)), mat(make(g, {2, n, n}, d), b), 100 * tol_of(d),
                      "V diag(w) V^T");
        }
      }
    }
}

TEST(Eigh, SubsetByIndex) {
  auto [v, w] = la::eigh(kA, true, true, true, std::pair<int64_t, int64_t>{1, 3});
  expect_array(w, {2.901971219300918, 6.841556559551096}, {2}, float64, 1e-14);
  EXPECT_EQ(v.shape(), (Shape{3, 2}));
  expect_error([] { la::eigh(kA, true, true, true, std::pair<int64_t, int64_t>{2, 4}); },
               {"[eigh]", "subset_by_index"});
}

// ---- svd ---------------------------------------------------------------------------------------

TEST(Svd, MatchesNumpy) {
  // numpy.linalg.svd(kB, compute_uv=False)
  std::vector<double> want = {17.83502846455074, 2.242356446593493, 0.7959882129061022};
  expect_array(la::svd_values(kB), want, {3}, float64, 1e-13);
  expect_array(la::svd(kB).s, want, {3}, float64, 1e-13);
}

TEST(Svd, FullAndReducedFactorsReconstruct) {
  for (DType d : {float64, float32})
    for (bool full : {true, false})
      for (auto [m, n] :
           std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {4, 4}, {6, 3}, {3, 6}, {0, 2}}) {
        SCOPED_TRACE(testing::Message() << m << "x" << n << " full " << full);
        Array a = random({2, m, n}, static_cast<uint32_t>(3 * m + n), d);
        la::SvdResult f = la::svd(a, full);
        int64_t k = std::min(m, n);
        ASSERT_EQ(f.u.shape(), (Shape{2, m, full ? m : k}));
        ASSERT_EQ(f.s.shape(), (Shape{2, k}));
        ASSERT_EQ(f.vh.shape(), (Shape{2, full ? n : k, n}));
        std::vector<double> s = values(f.s);
        for (int64_t b = 0; b < 2; ++b) {
          Mat um = mat(f.u, b), vm = mat(f.vh, b);
          expect_near(mul(tr(um), um), identity(um.n), 10 * tol_of(d), "U^T U");
          expect_near(mul(vm, tr(vm)), identity(vm.m), 10 * tol_of(d), "V^T V");
          Mat sd{um.n, vm.m, std::vector<long double>(static_cast<size_t>(um.n * vm.m), 0)};
          for (int64_t i = 0; i < k; ++i) {
            sd(i, i) = s[static_cast<size_t>(b * k + i)];
            if (i > 0)
              EXPECT_GE(s[static_cast<size_t>(b * k + i - 1)], s[static_cast<size_t>(b * k + i)]);
          }
          expect_near(mul(mul(um, sd), vm), mat(a, b), 10 * tol_of(d), "U S V^T");
        }
      }
}

// ---- Derivatives beyond the table's row
// ----------------------------------------------------------

using rules_check::check_first_and_second_order;
using rules_check::Rng;

TEST(LinalgRules, TriangularSolveEveryVariant) {
  for (int mask = 0; mask < 16; ++mask) {
    bool left = mask & 1, lower = mask & 2, trans = mask & 4, unit = mask & 8;
    SCOPED_TRACE(testing::Message() << "left " << left << " lower " << lower << " trans " << trans
                                    << " unit " << unit);
    Rng rng(static_cast<unsigned>(mask));
    std::vector<double> av = values(random({3, 3}, 11));
    for (int i = 0; i < 3; ++i)
      av[static_cast<size_t>(i * 4)] += 3;
    Array a = make(av, {3, 3}), b = left ? random({3, 2}, 12) : random({2, 3}, 12);
    FlatFn f = [=](const std::vector<Array> &x) {
      return std::vector<Array>{la::triangular_solve(x[0], x[1], left, lower, trans, false, unit)};
    };
    check_first_and_second_order(f, {a, b}, rng);
  }
}

TEST(LinalgRules, LuQrSvdOtherShapes) {
  Rng rng(5);
  FlatFn lu = [](const std::vector<Array> &x) { return std::vector<Array>{la::lu(x[0]).lu}; };
  // Pivots away from ties: one entry per column clearly largest.
  Array wide = make({5, 0.3, -0.2, 0.4, 0.1, 4, 0.5, -0.3, 0.2, -0.4, 3, 0.6}, {3, 4});
  check_first_and_second_order(lu, {wide}, rng);
  check_first_and_second_order(lu, {lax::transpose(wide, {1, 0})}, rng);
  FlatFn qr_square = [](const std::vector<Array> &x) {
    auto [q, r] = la::qr(x[0], false, true);
    return std::vector<Array>{q, r};
  };
  check_first_and_second_order(qr_square, {random({3, 3}, 21)}, rng);
  FlatFn sv = [](const std::vector<Array> &x) { return std::vector<Array>{la::svd_values(x[0])}; };
  check_first_and_second_order(sv, {random({3, 5}, 22)}, rng);
  FlatFn svd_wide = [](const std::vector<Array> &x) {
    la::SvdResult f = la::svd(x[0], false);
    // u vh is free of the signs that each singular pair may take.
    return std::vector<Array>{f.s, lax::dot_general(f.u, f.vh, {{1}, {0}, {}, {}})};
  };
  check_first_and_second_order(svd_wide, {random({3, 5}, 23)}, rng);
  expect_error(
      [] {
        jvp_flat(
            [](const std::vector<Array> &x) { return std::vector<Array>{la::svd(x[0], true).u}; },
            {random({3, 5}, 1)}, {random({3, 5}, 2)});
      },
      {"[svd]", "full_matrices"});
  expect_error(
      [] {
        jvp_flat(
            [](const std::vector<Array> &x) {
              return std::vector<Array>{la::qr(x[0], false, false).first};
            },
            {random({3, 5}, 1)}, {random({3, 5}, 2)});
      },
      {"[qr]", "derivative"});
}

TEST(LinalgRules, EighUpperAndRepeatedEigenvalues) {
  Rng rng(6);
  FlatFn w_upper = [](const std::vector<Array> &x) {
    return std::vector<Array>{la::eigh(x[0], false).second};
  };
  check_first_and_second_order(w_upper, {spd(1, 3, 3)}, rng);
  // At the identity (a repeated eigenvalue) the eigenvalues' tangents are diag(V^T dA V) for
  // LAPACK's V, whose sum is still trace(dA); the eigenvectors' are undefined (non-finite), as
  // in JAX.
  Array eye = make({1, 0, 0, 1}, {2, 2}), da = make({1, 2, 2, 3}, {2, 2});
  auto [w, tw] = jvp_flat(
      [](const std::vector<Array> &x) {
        auto [v, e] = la::eigh(x[0]);
        return std::vector<Array>{e, v};
      },
      {eye}, {da});
  std::vector<double> dw = values(tw[0]);
  EXPECT_NEAR(dw[0] + dw[1], 4.0, 1e-12) << "trace of dA";
  bool nonfinite = false;
  for (double x : values(tw[1]))
    nonfinite |= !std::isfinite(x);
  EXPECT_TRUE(nonfinite);
}

} // namespace
