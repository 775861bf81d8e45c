// The nonsymmetric eigenproblem's primitives (eig, schur, hessenberg, householder_product)
// against external oracles: eigenvalues known in closed form, reconstructions in long double
// complex (A V = V diag(w), U^H A = diag(w) U^H, A = Z T Z^H, A = Q H Q^T), unit and unitary
// columns, f32/f64/complex inputs, empty and 1 x 1 matrices, errors; eigenvalue derivatives
// against finite differences; and the derivatives JAX does not define raising NotImplemented.
#include <algorithm>
#include <cmath>
#include <complex>
#include <random>

#include "strata/linalg.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;
namespace la = strata::lax::linalg;

STRATA_TESTS_PRIMITIVES("eig", "schur", "hessenberg", "householder_product");

namespace {

using C = std::complex<long double>;
/// A row-major complex matrix in long double.
struct CMat {
  int64_t n, m;
  std::vector<C> v;
  C &operator()(int64_t i, int64_t j) { return v[static_cast<size_t>(i * m + j)]; }
  C operator()(int64_t i, int64_t j) const { return v[static_cast<size_t>(i * m + j)]; }
};
/// Matrix (or vector: n = 1) b of a batch in x, real or complex.
CMat cmat(const Array &x, int64_t b = 0) {
  bool cx = is_complex(x.dtype());
  std::vector<double> re = values(cx ? lax::real(x) : x);
  std::vector<double> im = cx ? values(lax::imag(x)) : std::vector<double>(re.size(), 0.0);
  int64_t n = x.ndim() >= 2 ? x.shape()[x.ndim() - 2] : 1, m = x.shape().back();
  CMat r{n, m, {}};
  for (int64_t i = 0; i < n * m; ++i)
    r.v.push_back(
        C(re[static_cast<size_t>(b * n * m + i)], im[static_cast<size_t>(b * n * m + i)]));
  return r;
}
CMat mul(const CMat &a, const CMat &b) {
  CMat c{a.n, b.m, std::vector<C>(static_cast<size_t>(a.n * b.m))};
  for (int64_t i = 0; i < a.n; ++i)
    for (int64_t j = 0; j < b.m; ++j)
      for (int64_t k = 0; k < a.m; ++k)
        c(i, j) += a(i, k) * b(k, j);
  return c;
}
CMat adjoint(const CMat &a) {
  CMat t{a.m, a.n, std::vector<C>(a.v.size())};
  for (int64_t i = 0; i < a.n; ++i)
    for (int64_t j = 0; j < a.m; ++j)
      t(j, i) = std::conj(a(i, j));
  return t;
}
void expect_near(const CMat &got, const CMat &want, double tol, const std::string &what) {
  ASSERT_EQ(got.v.size(), want.v.size()) << what;
  for (size_t i = 0; i < got.v.size(); ++i)
    EXPECT_LE(static_cast<double>(std::abs(got.v[i] - want.v[i])),
              tol * (1 + static_cast<double>(std::abs(want.v[i]))))
        << what << " element " << i;
}
CMat identity(int64_t n) {
  CMat e{n, n, std::vector<C>(static_cast<size_t>(n * n))};
  for (int64_t i = 0; i < n; ++i)
    e(i, i) = 1;
  return e;
}

Array random_matrices(std::mt19937_64 &rng, const Shape &s, DType dtype) {
  std::normal_distribution<double> d;
  auto draw = [&] {
    std::vector<double> v(static_cast<size_t>(num_elements(s)));
    for (double &x : v)
      x = d(rng);
    return Array::from_vector(v, s);
  };
  if (is_complex(dtype)) {
    DType r = dtype == complex64 ? float32 : float64;
    return lax::complex(lax::convert_element_type(draw(), r), lax::convert_element_type(draw(), r));
  }
  return lax::convert_element_type(draw(), dtype);
}

double tol_for(DType t) { return t == float32 || t == complex64 ? 2e-4 : 1e-11; }

TEST(Eig, ClosedFormEigenvalues) {
  // [[0, -2], [1, 3]]: eigenvalues 1 and 2; the rotation [[0, -1], [1, 0]]: -i and i.
  la::EigResult r = la::eig(make({0, -2, 1, 3}, {2, 2}), false, false);
  ASSERT_EQ(r.w.dtype(), complex128);
  std::vector<double> re = values(lax::real(r.w)), im = values(lax::imag(r.w));
  std::sort(re.begin(), re.end());
  EXPECT_NEAR(re[0], 1, 1e-14);
  EXPECT_NEAR(re[1], 2, 1e-14);
  EXPECT_NEAR(std::fabs(im[0]) + std::fabs(im[1]), 0, 1e-14);
  la::EigResult rot = la::eig(make({0, -1, 1, 0}, {2, 2}, float32), false, false);
  ASSERT_EQ(rot.w.dtype(), complex64);
  std::vector<double> ri = values(lax::imag(rot.w));
  std::sort(ri.begin(), ri.end());
  EXPECT_NEAR(ri[0], -1, 1e-6);
  EXPECT_NEAR(ri[1], 1, 1e-6);
  EXPECT_FALSE(rot.vl.valid());
}

TEST(Eig, ReconstructsEveryDtype) {
  std::mt19937_64 rng(11);
  for (DType t : {float32, float64, complex64, complex128})
    for (int64_t n : {1, 2, 5, 9}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n));
      Array a = random_matrices(rng, {2, n, n}, t);
      la::EigResult r = la::eig(a);
      DType c = t == float32 || t == complex64 ? complex64 : complex128;
      ASSERT_EQ(r.w.dtype(), c);
      ASSERT_EQ(r.vr.shape(), (Shape{2, n, n}));
      ASSERT_EQ(r.vl.shape(), (Shape{2, n, n}));
      for (int64_t b = 0; b < 2; ++b) {
        CMat A = cmat(a, b), w = cmat(r.w), vl = cmat(r.vl, b), vr = cmat(r.vr, b);
        CMat vw = vr, wu = adjoint(vl);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            vw(i, j) *= w(b, j);
            wu(i, j) *= w(b, i);
          }
        expect_near(mul(A, vr), vw, 20 * tol_for(t), "A vr = vr diag(w)");
        expect_near(mul(adjoint(vl), A), wu, 20 * tol_for(t), "vl^H A = diag(w) vl^H");
        for (int64_t j = 0; j < n; ++j) {
          long double norm = 0;
          for (int64_t i = 0; i < n; ++i)
            norm += std::norm(vr(i, j));
          EXPECT_NEAR(static_cast<double>(norm), 1, tol_for(t)) << "column " << j;
        }
      }
    }
}

TEST(Eig, EmptyAndErrors) {
  la::EigResult r = la::eig(Array::empty({3, 0, 0}, float64, false));
  EXPECT_EQ(r.w.shape(), (Shape{3, 0}));
  EXPECT_EQ(r.vr.shape(), (Shape{3, 0, 0}));
  expect_error([] { la::eig(make({1, 2, 3, 4, 5, 6}, {2, 3})); }, {"[eig]", "square", "f64[2,3]"});
  expect_error([] { la::eig(make({1, 2, 3})); }, {"[eig]", "rank >= 2"});
  expect_error([] { la::eig(make({1, 2, 3, 4}, {2, 2}, int32)); },
               {"[eig]", "float32, float64, complex64 or complex128", "i32[2,2]"});
}

TEST(Eig, EigenvalueJvpMatchesFiniteDifferences) {
  std::mt19937_64 rng(5);
  for (DType t : {float64, complex128}) {
    SCOPED_TRACE(dtype_name(t));
    // Diagonally dominant with separated diagonal: distinct eigenvalues, stable order.
    Array d = make({1, 0, 0, 0, 3, 0, 0, 0, 5}, {3, 3});
    Array a =
        lax::add(lax::mul(random_matrices(rng, {3, 3}, t),
                          lax::convert_element_type(make(std::vector<double>(9, 0.2), {3, 3}), t)),
                 lax::convert_element_type(d, t));
    Array u = random_matrices(rng, {3, 3}, t);
    FlatFn f = [](const std::vector<Array> &x) {
      return std::vector<Array>{la::eig(x[0], false, false).w};
    };
    Array tw = jvp_flat(f, {a}, {u}).second[0];
    double h = 1e-6;
    Array step = lax::convert_element_type(make(std::vector<double>(9, h), {3, 3}), t);
    Array hi = f({lax::add(a, lax::mul(u, step))})[0], lo = f({lax::sub(a, lax::mul(u, step))})[0];
    CMat got = cmat(tw), fh = cmat(hi), fl = cmat(lo), fd = fh;
    for (size_t i = 0; i < fd.v.size(); ++i)
      fd.v[i] = (fh.v[i] - fl.v[i]) / C(2 * h);
    expect_near(got, fd, 1e-6, "eigenvalue jvp vs finite differences");
  }
}

TEST(Eig, DerivativesJaxDoesNotDefineRaiseNotImplemented) {
  Array a = make({1, 2, 3, 5}, {2, 2});
  auto kind = [](auto &&fn) {
    try {
      fn();
    } catch (const Error &e) {
      return e.kind();
    }
    return ErrorKind::Value;
  };
  auto jvp_of = [&](FlatFn f) { return [f, a] { jvp_flat(f, {a}, {a}); }; };
  EXPECT_EQ(kind(jvp_of(
                [](const std::vector<Array> &x) { return std::vector<Array>{la::eig(x[0]).vr}; })),
            ErrorKind::NotImplemented);
  EXPECT_EQ(kind(jvp_of([](const std::vector<Array> &x) {
              return std::vector<Array>{la::schur(x[0]).first};
            })),
            ErrorKind::NotImplemented);
  EXPECT_EQ(kind(jvp_of([](const std::vector<Array> &x) {
              return std::vector<Array>{la::hessenberg(x[0]).first};
            })),
            ErrorKind::NotImplemented);
  EXPECT_EQ(kind([&] { la::schur(a, true, true); }), ErrorKind::NotImplemented);
}

TEST(Schur, ReconstructsEveryDtype) {
  std::mt19937_64 rng(3);
  for (DType t : {float32, float64, complex64, complex128})
    for (int64_t n : {0, 1, 4, 7}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n));
      Array a = random_matrices(rng, {2, n, n}, t);
      auto [tt, vs] = la::schur(a);
      ASSERT_EQ(tt.dtype(), t);
      ASSERT_EQ(vs.shape(), a.shape());
      auto [t_only, none] = la::schur(a, false);
      EXPECT_FALSE(none.valid());
      for (int64_t b = 0; b < 2 && n > 0; ++b) {
        CMat A = cmat(a, b), T = cmat(tt, b), Z = cmat(vs, b);
        expect_near(mul(mul(Z, T), adjoint(Z)), A, 20 * tol_for(t), "A = Z T Z^H");
        expect_near(mul(adjoint(Z), Z), identity(n), 20 * tol_for(t), "Z^H Z = I");
        expect_near(cmat(t_only, b), T, tol_for(t), "T without vectors");
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j + (is_complex(t) ? 1 : 2) <= i; ++j)
            EXPECT_EQ(T(i, j), C(0)) << "T below its (sub)diagonal at " << i << "," << j;
      }
    }
}

TEST(Hessenberg, ReconstructsWithHouseholderProduct) {
  std::mt19937_64 rng(9);
  for (DType t : {float32, float64, complex128})
    for (int64_t n : {1, 2, 6}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n));
      Array a = random_matrices(rng, {n, n}, t);
      auto [h, taus] = la::hessenberg(a);
      ASSERT_EQ(taus.shape(), (Shape{n - 1}));
      CMat A = cmat(a), H = cmat(h);
      // Q = diag(1, householder_product(h[1:, :-1], taus)).
      CMat Q = identity(n);
      if (n > 1) {
        Array q = la::householder_product(lax::slice(h, {1, 0}, {n, n - 1}), taus);
        CMat q1 = cmat(q);
        for (int64_t i = 1; i < n; ++i)
          for (int64_t j = 1; j < n; ++j)
            Q(i, j) = q1(i - 1, j - 1);
      }
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j + 1 < i; ++j)
          H(i, j) = 0;
      expect_near(mul(mul(Q, H), adjoint(Q)), A, 20 * tol_for(t), "A = Q H Q^H");
    }
  expect_error([] { la::householder_product(make({1, 2, 3, 4, 5, 6}, {2, 3}), make({1, 2})); },
               {"[householder_product]", "at least as many rows", "f64[2,3]"});
  expect_error([] { la::householder_product(make({1, 2, 3, 4, 5, 6}, {3, 2}), make({1, 2, 3})); },
               {"[householder_product]", "more than min(m, n) = 2"});
}

} // namespace
