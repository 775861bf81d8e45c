// Complex64 and complex128: the dtype lattice, arrays, the complex primitives (complex, real,
// imag, conj), the elementwise, reduction and dot_general kernels on complex values against
// closed-form long-double oracles and numpy's special values, and derivatives (JAX's convention:
// grad of a real f of z is df/dx - i df/dy) against finite differences.
#include <complex>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("complex", "real", "imag", "conj");

namespace {

/// Sets 64-bit mode for a scope.
struct X64Scope {
  bool saved = x64_enabled();
  explicit X64Scope(bool on) { set_enable_x64(on); }
  ~X64Scope() { set_enable_x64(saved); }
};

using LD = long double;
using CLD = std::complex<LD>;
using CD = std::complex<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A complex array of `dtype` (c64 or c128) from complex doubles.
Array cmake(const std::vector<CD> &v, DType dtype = complex128) {
  Array a = Array::from_vector(v);
  return dtype == complex128 ? a : lax::convert_element_type(a, dtype);
}
/// The values of a complex array as complex doubles.
std::vector<CD> cvalues(const Array &a) {
  return lax::convert_element_type(a, complex128).to_vector<CD>();
}
/// Checks dtype, then each part within tol * (1 + |want|) (NaN matches NaN, inf exactly).
void expect_complex(const Array &got, const std::vector<CD> &want, DType dtype, double tol) {
  ASSERT_EQ(got.dtype(), dtype) << got.type_str();
  std::vector<CD> g = cvalues(got);
  ASSERT_EQ(g.size(), want.size());
  auto close = [&](double a, double b) {
    if (std::isnan(b))
      return std::isnan(a);
    if (std::isinf(b))
      return a == b;
    return std::fabs(a - b) <= tol * (1 + std::fabs(b));
  };
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(close(g[i].real(), want[i].real()) && close(g[i].imag(), want[i].imag()))
        << got.type_str() << " at " << i << ": got " << g[i] << ", want " << want[i];
}
double tol_of(DType t) { return t == complex64 ? 4e-6 : 1e-13; }

// ---- Closed-form oracles in long double ----------------------------------------------------
CLD o_exp(CLD z) { return std::exp(z.real()) * CLD(std::cos(z.imag()), std::sin(z.imag())); }
CLD o_log(CLD z) {
  return {std::log(std::hypot(z.real(), z.imag())), std::atan2(z.imag(), z.real())};
}
CLD o_sqrt(CLD z) {
  LD r = std::hypot(z.real(), z.imag());
  return {std::sqrt((r + z.real()) / 2), std::copysign(std::sqrt((r - z.real()) / 2), z.imag())};
}
CLD o_sin(CLD z) {
  return {std::sin(z.real()) * std::cosh(z.imag()), std::cos(z.real()) * std::sinh(z.imag())};
}
CLD o_cos(CLD z) {
  return {std::cos(z.real()) * std::cosh(z.imag()), -std::sin(z.real()) * std::sinh(z.imag())};
}
CLD o_sinh(CLD z) {
  return {std::sinh(z.real()) * std::cos(z.imag()), std::cosh(z.real()) * std::sin(z.imag())};
}
CLD o_cosh(CLD z) {
  return {std::cosh(z.real()) * std::cos(z.imag()), std::sinh(z.real()) * std::sin(z.imag())};
}
const CLD kI(0, 1);
CLD o_asinh(CLD z) { return o_log(z + o_sqrt(z * z + LD(1))); }
CLD o_acosh(CLD z) { return o_log(z + o_sqrt(z + LD(1)) * o_sqrt(z - LD(1))); }
CLD o_atanh(CLD z) { return (o_log(LD(1) + z) - o_log(LD(1) - z)) / LD(2); }

struct UnaryRow {
  const char *name;
  std::function<Array(const Array &)> op;
  std::function<CLD(CLD)> oracle;
};
const std::vector<UnaryRow> &unary_rows() {
  static const std::vector<UnaryRow> rows = {
      {"neg", lax::neg, [](CLD z) { return -z; }},
      {"exp", lax::exp, o_exp},
      {"log", lax::log, o_log},
      {"log1p", lax::log1p, [](CLD z) { return o_log(LD(1) + z); }},
      {"expm1", lax::expm1, [](CLD z) { return o_exp(z) - LD(1); }},
      {"sqrt", lax::sqrt, o_sqrt},
      {"rsqrt", lax::rsqrt, [](CLD z) { return LD(1) / o_sqrt(z); }},
      {"sin", lax::sin, o_sin},
      {"cos", lax::cos, o_cos},
      {"tan", lax::tan, [](CLD z) { return o_sin(z) / o_cos(z); }},
      {"sinh", lax::sinh, o_sinh},
      {"cosh", lax::cosh, o_cosh},
      {"tanh", lax::tanh, [](CLD z) { return o_sinh(z) / o_cosh(z); }},
      {"asin", lax::asin, [](CLD z) { return -kI * o_asinh(kI * z); }},
      {"acos", lax::acos, [](CLD z) { return CLD(std::acos(LD(-1)) / 2) + kI * o_asinh(kI * z); }},
      {"atan", lax::atan, [](CLD z) { return -kI * o_atanh(kI * z); }},
      {"asinh", lax::asinh, o_asinh},
      {"acosh", lax::acosh, o_acosh},
      {"atanh", lax::atanh, o_atanh},
      {"sign", lax::sign, [](CLD z) { return z / std::hypot(z.real(), z.imag()); }},
      {"exp2", lax::exp2, [](CLD z) { return o_exp(z * std::log(LD(2))); }},
      {"logistic", lax::logistic, [](CLD z) { return LD(1) / (LD(1) + o_exp(-z)); }},
      {"integer_pow3", [](const Array &x) { return lax::integer_pow(x, 3); },
       [](CLD z) { return z * z * z; }},
      {"integer_pow-2", [](const Array &x) { return lax::integer_pow(x, -2); },
       [](CLD z) { return LD(1) / (z * z); }},
  };
  return rows;
}
// Points off every branch cut, of both signs in each part, small and large.
const std::vector<CD> kPoints = {{0.5, 0.3},   {-1.2, 0.7}, {2.0, -1.5},
                                 {-0.3, -0.8}, {0.1, 2.5},  {1e-3, -2e-3}};

std::vector<CD> oracle_of(const std::function<CLD(CLD)> &f, const std::vector<CD> &in) {
  std::vector<CD> out;
  for (CD z : in) {
    CLD r = f(CLD(z.real(), z.imag()));
    out.emplace_back(static_cast<double>(r.real()), static_cast<double>(r.imag()));
  }
  return out;
}

} // namespace

// ---- dtype ----------------------------------------------------------------------------------
TEST(Complex, DTypeNamesAndParts) {
  EXPECT_EQ(short_name(complex64), "c64");
  EXPECT_EQ(dtype_name(complex128), "complex128");
  EXPECT_EQ(dtype_from_name("complex64"), complex64);
  EXPECT_EQ(dtype_from_name("c128"), complex128);
  EXPECT_EQ(itemsize(complex64), 8u);
  EXPECT_EQ(itemsize(complex128), 16u);
  EXPECT_TRUE(is_complex(complex64) && is_inexact(complex128) && is_inexact(float16));
  EXPECT_FALSE(is_floating(complex64) || is_complex(float64) || is_inexact(int32));
  EXPECT_EQ(real_dtype(complex64), float32);
  EXPECT_EQ(real_dtype(complex128), float64);
  EXPECT_EQ(real_dtype(int8), int8);
  EXPECT_EQ(complex_dtype(float64), complex128);
  EXPECT_EQ(complex_dtype(float32), complex64);
  EXPECT_EQ(complex_dtype(float16), complex64);
  EXPECT_EQ(complex_dtype(complex128), complex128);
}

TEST(Complex, PromotionLattice) {
  auto s = [](DType t) { return TypedDType{t, false}; };
  for (bool x64 : {false, true}) {
    X64Scope scope(x64);
    DType dc = x64 ? complex128 : complex64;
    TypedDType wc{dc, true}, wf{x64 ? float64 : float32, true}, wi{x64 ? int64 : int32, true};
    EXPECT_EQ(promote_types(s(float32), s(complex64)), s(complex64));
    EXPECT_EQ(promote_types(s(float64), s(complex64)), s(complex128));
    EXPECT_EQ(promote_types(s(bfloat16), s(complex64)), s(complex64));
    EXPECT_EQ(promote_types(s(int64), s(complex64)), s(complex64));
    EXPECT_EQ(promote_types(s(uint64), s(complex64)), s(complex64));
    EXPECT_EQ(promote_types(s(bool_), s(complex128)), s(complex128));
    EXPECT_EQ(promote_types(s(complex64), s(complex128)), s(complex128));
    // A weak complex (Python complex) does not widen a strong float's precision.
    EXPECT_EQ(promote_types(s(float16), wc), s(complex64));
    EXPECT_EQ(promote_types(s(bfloat16), wc), s(complex64));
    EXPECT_EQ(promote_types(s(float32), wc), s(complex64));
    EXPECT_EQ(promote_types(s(float64), wc), s(complex128));
    EXPECT_EQ(promote_types(s(complex64), wc), s(complex64));
    EXPECT_EQ(promote_types(s(int32), wc), wc);
    EXPECT_EQ(promote_types(s(bool_), wc), wc);
    EXPECT_EQ(promote_types(wi, wc), wc);
    EXPECT_EQ(promote_types(wf, wc), wc);
    EXPECT_EQ(promote_types(s(complex64), wf), s(complex64));
    EXPECT_EQ(promote_types(s(complex128), wi), s(complex128));
    EXPECT_EQ(promote_types(complex64, float64), complex128);
    EXPECT_EQ(promote_types(int8, complex64), complex64);
  }
  X64Scope off(false);
  EXPECT_EQ(canonicalize_dtype(complex128), complex64);
  EXPECT_EQ(canonicalize_dtype(complex64), complex64);
  EXPECT_EQ(default_complex_dtype(), complex64);
  X64Scope on(true);
  EXPECT_EQ(canonicalize_dtype(complex128), complex128);
  EXPECT_EQ(default_complex_dtype(), complex128);
}

// ---- arrays ---------------------------------------------------------------------------------
TEST(Complex, ArraysScalarsAndItems) {
  Array a = Array(std::complex<float>(1, 2));
  EXPECT_EQ(a.type_str(), "c64[]");
  EXPECT_EQ(a.item<std::complex<float>>(), std::complex<float>(1, 2));
  EXPECT_EQ(Array(CD(3, -4)).item<CD>(), CD(3, -4));
  EXPECT_EQ(Array(2.5f).item<CD>(), CD(2.5, 0));
  expect_error([&] { a.item<double>(); }, {"[item]", "complex", "c64[]"});
  Array w = Array::weak_scalar_complex(CD(0, 1));
  EXPECT_TRUE(w.weak_type());
  EXPECT_EQ(w.dtype(), default_complex_dtype());
  Array v = cmake({{1, 2}, {3, 4}, {5, 6}}, complex64);
  EXPECT_EQ(v.to_vector<std::complex<float>>()[2], std::complex<float>(5, 6));
  // Moving elements without reading them (16-byte c128 elements too).
  for (DType t : {complex64, complex128}) {
    Array m = cmake({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}}, t).reshape({2, 3});
    expect_complex(transpose(m), {{1, 2}, {7, 8}, {3, 4}, {9, 10}, {5, 6}, {11, 12}}, t, 0);
    expect_complex(lax::broadcast_in_dim(Array(CD(1, -1)).astype(t), {3}, {}),
                   {{1, -1}, {1, -1}, {1, -1}}, t, 0);
    expect_complex(m[{1, Slice(0, std::nullopt, 2)}], {{7, 8}, {11, 12}}, t, 0);
  }
}

TEST(Complex, ConvertElementType) {
  Array z = cmake({{1.5, 2}, {-3.25, -4}, {0, 7}});
  // complex -> real keeps the real part (numpy's and JAX's cast, without a warning).
  expect_array(z.astype(float32), {1.5, -3.25, 0}, {3}, float32);
  expect_array(z.astype(float16), {1.5, -3.25, 0}, {3}, float16);
  expect_array(z.astype(int32), {1, -3, 0}, {3}, int32);
  expect_array(z.astype(bool_), {1, 1, 1}, {3}, bool_);
  expect_array(cmake({{0, 0}, {0, -1}}).astype(bool_), {0, 1}, {2}, bool_);
  expect_complex(make({1.5, -2}, float32).astype(complex128), {{1.5, 0}, {-2, 0}}, complex128, 0);
  expect_complex(make({3, -2}, int32).astype(complex64), {{3, 0}, {-2, 0}}, complex64, 0);
  expect_complex(z.astype(complex64).astype(complex128), cvalues(z), complex128, 0);
}

// ---- the complex primitives -------------------------------------------------------------------
TEST(Complex, PartsAndConstruction) {
  for (DType r : {float32, float64}) {
    DType c = complex_dtype(r);
    Array x = make({1, -2, 0.5}, r), y = make({3, 0, -4}, r);
    Array z = lax::complex(x, y);
    expect_complex(z, {{1, 3}, {-2, 0}, {0.5, -4}}, c, 0);
    expect_array(lax::real(z), {1, -2, 0.5}, {3}, r);
    expect_array(lax::imag(z), {3, 0, -4}, {3}, r);
    expect_complex(lax::conj(z), {{1, -3}, {-2, -0.0}, {0.5, 4}}, c, 0);
    expect_complex(lax::conj(x), {{1, 0}, {-2, 0}, {0.5, 0}}, c, 0);
    expect_array(lax::abs(lax::complex(make({3, -5, 0}, r), make({4, 12, 0}, r))), {5, 13, 0}, {3},
                 r);
  }
  expect_error([] { lax::real(make({1.0})); }, {"[real]", "complex", "f64[1]"});
  expect_error([] { lax::complex(make({1.0}, float16), make({1.0}, float16)); },
               {"[complex]", "f16[1]"});
  expect_error([] { lax::complex(make({1.0}, float32), make({1.0})); }, {"[complex]", "f64[1]"});
  expect_error([] { lax::conj(make({1.0}, int32)); }, {"[conj]", "i32[1]"});
  expect_error([] { lax::lt(cmake({{1, 1}}), cmake({{1, 1}})); }, {"[lt]", "c128[1]"});
  expect_error([] { lax::floor(cmake({{1, 1}})); }, {"[floor]", "c128[1]"});
  expect_error([] { lax::argmax(cmake({}), 0, int32); }, {"[argmax]", "empty", "c128[0]"});
  // Empty and rank-0 operands.
  expect_complex(lax::complex(make({}, float32), make({}, float32)), {}, complex64, 0);
  EXPECT_EQ(lax::real(Array(CD(2, 3))).item<double>(), 2);
}

// ---- elementwise values -------------------------------------------------------------------
TEST(Complex, UnaryAgainstClosedForms) {
  for (DType t : {complex64, complex128}) {
    Array x = cmake(kPoints, t);
    std::vector<CD> in = cvalues(x); // the rounded inputs
    for (const UnaryRow &row : unary_rows()) {
      SCOPED_TRACE(std::string(row.name) + " " + std::string(short_name(t)));
      expect_complex(row.op(x), oracle_of(row.oracle, in), t, tol_of(t) * 4);
    }
  }
}

TEST(Complex, BinaryAgainstClosedForms) {
  std::vector<CD> b = {{-0.7, 1.1}, {2.0, 0.5}, {0.25, -3}, {1, 1}, {-2, -0.5}, {0.9, 0.1}};
  for (DType t : {complex64, complex128}) {
    Array x = cmake(kPoints, t), y = cmake(b, t);
    std::vector<CD> xi = cvalues(x), yi = cvalues(y);
    auto both = [&](auto f) {
      std::vector<CD> out;
      for (size_t i = 0; i < xi.size(); ++i) {
        CLD r = f(CLD(xi[i].real(), xi[i].imag()), CLD(yi[i].real(), yi[i].imag()));
        out.emplace_back(static_cast<double>(r.real()), static_cast<double>(r.imag()));
      }
      return out;
    };
    double tol = tol_of(t) * 4;
    expect_complex(lax::add(x, y), both([](CLD a, CLD c) { return a + c; }), t, tol);
    expect_complex(lax::sub(x, y), both([](CLD a, CLD c) { return a - c; }), t, tol);
    expect_complex(lax::mul(x, y), both([](CLD a, CLD c) { return a * c; }), t, tol);
    expect_complex(lax::div(x, y), both([](CLD a, CLD c) { return a / c; }), t, tol);
    expect_complex(lax::pow(x, y), both([](CLD a, CLD c) { return o_exp(c * o_log(a)); }), t,
                   tol * 4);
    std::vector<double> eq = values(lax::eq(
        x, lax::select(make({1, 0, 1, 0, 1, 0}, bool_) == make({1, 1, 1, 1, 1, 1}, bool_), x, y)));
    EXPECT_EQ(eq, (std::vector<double>{1, 0, 1, 0, 1, 0}));
    std::vector<double> ne = values(lax::ne(x, y));
    EXPECT_EQ(ne, (std::vector<double>{1, 1, 1, 1, 1, 1}));
  }
  // Equality compares both parts.
  EXPECT_EQ(values(lax::eq(cmake({{1, 2}, {1, 2}}), cmake({{1, 2}, {1, -2}}))),
            (std::vector<double>{1, 0}));
}

// numpy 1.24's values at infinities, NaNs and zeros (C99 Annex G); sign is JAX's z / |z|.
TEST(Complex, SpecialValuesAsNumpy) {
  for (DType t : {complex64, complex128}) {
    auto one = [&](auto f, CD z) { return cvalues(f(cmake({z}, t)))[0]; };
    auto same = [](CD got, CD want) {
      auto eq = [](double a, double b) {
        return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
      };
      return eq(got.real(), want.real()) && eq(got.imag(), want.imag());
    };
    auto exp = [](const Array &x) { return lax::exp(x); };
    auto log = [](const Array &x) { return lax::log(x); };
    auto sqrt = [](const Array &x) { return lax::sqrt(x); };
    EXPECT_TRUE(same(one(exp, {-kInf, 0}), {0, 0}));
    EXPECT_TRUE(same(one(exp, {kInf, 0}), {kInf, 0}));
    EXPECT_TRUE(same(one(log, {0, 0}), {-kInf, 0}));
    CD l = one(log, {-0.0, 0.0});
    EXPECT_EQ(l.real(), -kInf);
    EXPECT_NEAR(l.imag(), 3.14159265358979, 1e-6);
    EXPECT_TRUE(same(one(sqrt, {-1, 0}), {0, 1}));
    EXPECT_TRUE(same(one(sqrt, {-1, -0.0}), {0, -1}));
    EXPECT_TRUE(same(one(sqrt, {kInf, kNaN}), {kInf, kNaN}));
    EXPECT_TRUE(same(one(sqrt, {-kInf, 2}), {0, kInf}));
    EXPECT_TRUE(same(one(log, {kInf, kNaN}), {kInf, kNaN}));
    EXPECT_TRUE(same(one([](const Array &x) { return lax::sign(x); }, {0, 0}), {0, 0}));
    std::vector<double> a = values(lax::abs(cmake({{kInf, kNaN}, {kNaN, kInf}, {kNaN, 1}}, t)));
    EXPECT_EQ(a[0], kInf);
    EXPECT_EQ(a[1], kInf);
    EXPECT_TRUE(std::isnan(a[2]));
  }
  // hypot: no overflow or underflow in the intermediate squares.
  expect_array(lax::abs(cmake({{3e38, 3e38}, {1e-30, 1e-30}}, complex64)),
               {kInf, 1.4142135623730951e-30}, {2}, float32, 1e-7);
  expect_array(lax::abs(cmake({{3e200, 4e200}})), {5e200}, {1}, float64, 1e-15);
}

TEST(Complex, ReductionsAndDot) {
  for (DType t : {complex64, complex128}) {
    std::vector<CD> v = {{1, 2}, {3, -1}, {-2, 0.5}, {0.5, 0.5}, {1, 0}, {0, -2}};
    Array x = cmake(v, t).reshape({2, 3});
    expect_complex(lax::reduce_sum(x, {1}), {{2, 1.5}, {1.5, -1.5}}, t, tol_of(t));
    expect_complex(lax::reduce_sum(x, {0}), {{1.5, 2.5}, {4, -1}, {-2, -1.5}}, t, tol_of(t));
    CLD p(1);
    for (CD z : v)
      p *= CLD(z.real(), z.imag());
    expect_complex(lax::reduce_prod(x, {0, 1}), {{double(p.real()), double(p.imag())}}, t,
                   tol_of(t));
    expect_complex(lax::reduce_sum(cmake({}, t), {0}), {{0, 0}}, t, 0);
    expect_complex(lax::cumsum(cmake(v, t), 0),
                   {{1, 2}, {4, 1}, {2, 1.5}, {2.5, 2}, {3.5, 2}, {3.5, 0}}, t, tol_of(t));
    // A 2x3 by 3x2 product, a batched one and k = 0.
    std::vector<CD> w = {{0, 1}, {1, 1}, {2, 0}, {-1, 0.5}, {0.5, -1}, {1, 2}};
    Array y = cmake(w, t).reshape({3, 2});
    std::vector<CD> want(4);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        CLD acc = 0;
        for (int k = 0; k < 3; ++k)
          acc += CLD(v[i * 3 + k].real(), v[i * 3 + k].imag()) *
                 CLD(w[k * 2 + j].real(), w[k * 2 + j].imag());
        want[i * 2 + j] = CD(double(acc.real()), double(acc.imag()));
      }
    expect_complex(matmul(x, y), want, t, tol_of(t));
    expect_complex(matmul(stack({x, x}), stack({y, y})).reshape({8}),
                   {want[0], want[1], want[2], want[3], want[0], want[1], want[2], want[3]}, t,
                   tol_of(t));
    expect_complex(matmul(cmake({}, t).reshape({2, 0}), cmake({}, t).reshape({0, 2})).reshape({4}),
                   {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, t, 0);
  }
}

// ---- derivatives --------------------------------------------------------------------------
// JAX's convention: for real f(z), grad f = df/dx - i df/dy (grad(|z|^2)(3+4j) = 6-8j).
CD fd_grad(const std::function<double(CD)> &f, CD z, double h = 1e-6) {
  double dx = (f(z + CD(h, 0)) - f(z - CD(h, 0))) / (2 * h);
  double dy = (f(z + CD(0, h)) - f(z - CD(0, h))) / (2 * h);
  return {dx, -dy};
}

TEST(Complex, GradConvention) {
  auto abs2 = [](const Array &z) { return lax::integer_pow(lax::abs(z), 2); };
  expect_complex(grad(abs2)(Array(CD(3, 4))), {{6, -8}}, complex128, 1e-12);
  expect_complex(grad([](const Array &z) { return lax::abs(z); })(Array(CD(3, 4))), {{0.6, -0.8}},
                 complex128, 1e-12);
  expect_complex(grad([](const Array &z) { return lax::real(z); })(Array(CD(3, 4))), {{1, 0}},
                 complex128, 0);
  expect_complex(grad([](const Array &z) { return lax::imag(z); })(Array(CD(3, 4))), {{0, -1}},
                 complex128, 0);
  // abs at 0 has derivative 0, as JAX.
  expect_complex(grad([](const Array &z) { return lax::abs(z); })(Array(CD(0, 0))), {{0, 0}},
                 complex128, 0);
  // A real input through complex(x, y): the gradient of each part.
  auto g = grad<0, 1>([](const Array &x, const Array &y) {
    return lax::abs(lax::mul(lax::complex(x, y), lax::complex(y, x)));
  })(Array(1.5), Array(-0.5));
  double h = 1e-6;
  auto f = [](double x, double y) { return std::abs(CD(x, y) * CD(y, x)); };
  EXPECT_NEAR(std::get<0>(g).item<double>(), (f(1.5 + h, -0.5) - f(1.5 - h, -0.5)) / (2 * h), 1e-6);
  EXPECT_NEAR(std::get<1>(g).item<double>(), (f(1.5, -0.5 + h) - f(1.5, -0.5 - h)) / (2 * h), 1e-6);
  expect_error([] { grad([](const Array &z) { return lax::exp(z); })(Array(CD(1, 1))); },
               {"[grad]", "real scalar", "c128[]", "holomorphic"});
}

// Every holomorphic unary op through real, imag and abs: grad against finite differences,
// and the jvp (f'(z) t) against a directional difference.
TEST(Complex, HolomorphicDerivativesAgainstFiniteDifferences) {
  for (const UnaryRow &row : unary_rows()) {
    if (std::string(row.name) == "sign")
      continue; // not holomorphic; its derivative is zero as JAX's
    SCOPED_TRACE(row.name);
    for (CD z0 : {CD(0.5, 0.3), CD(-1.2, 0.7), CD(2.0, -1.5)}) {
      auto eval = [&](CD z) { return cvalues(row.op(Array(z)))[0]; };
      using Part = std::function<Array(const Array &)>;
      std::vector<std::pair<Part, std::function<double(CD)>>> parts = {
          {lax::real, [](CD w) { return w.real(); }},
          {lax::imag, [](CD w) { return w.imag(); }},
          {lax::abs, [](CD w) { return std::abs(w); }}};
      for (auto &[part, num] : parts) {
        Array g = grad([&](const Array &z) { return part(row.op(z)); })(Array(z0));
        CD want = fd_grad([&](CD z) { return num(eval(z)); }, z0);
        expect_complex(g, {want}, complex128, 2e-7);
      }
      CD t(0.3, -0.9);
      auto [y, ty] = jvp([&](const Array &z) { return row.op(z); }, std::tuple{Array(z0)},
                         std::tuple{Array(t)});
      double h = 1e-6;
      CD want = (eval(z0 + h * t) - eval(z0 - h * t)) / (2 * h);
      expect_complex(ty, {want}, complex128, 2e-7);
    }
  }
}

TEST(Complex, LinearPrimitivesVjpAndVmap) {
  // vjp of conj, real, imag, complex with JAX's transposes.
  auto [out, pull] = vjp([](const Array &z) { return lax::conj(z); }, Array(CD(1, 2)));
  expect_complex(pull(Array(CD(0.5, 3))), {{0.5, -3}}, complex128, 0);
  auto [o2, pull2] = vjp([](const Array &z) { return lax::imag(z); }, Array(CD(1, 2)));
  expect_complex(pull2(Array(2.0)), {{0, -2}}, complex128, 0);
  auto [o3, pull3] = vjp([](const Array &x) { return lax::conj(x); }, Array(1.5));
  EXPECT_EQ(pull3(Array(CD(2, 5))).item<double>(), 2);
  auto [o4, pull4] = vjp([](const Array &x, const Array &y) { return lax::complex(x, y); },
                         Array(1.0), Array(2.0));
  auto g4 = pull4(Array(CD(3, 4)));
  EXPECT_EQ(std::get<0>(g4).item<double>(), 3);
  EXPECT_EQ(std::get<1>(g4).item<double>(), -4);
  // vmap of a complex function against the per-example loop.
  auto f = [](const Array &z) {
    return lax::mul(lax::exp(z), lax::conj(lax::complex(lax::abs(z), lax::imag(z))));
  };
  Array zs = cmake(kPoints, complex64);
  Array batched = vmap(f)(zs);
  std::vector<CD> loop;
  for (int64_t i = 0; i < zs.shape(0); ++i)
    loop.push_back(cvalues(f(zs[{i}]))[0]);
  expect_complex(batched, loop, complex64, 0);
  // vmap of grad.
  Array gb = vmap(grad([](const Array &z) { return lax::abs(lax::sin(z)); }))(zs);
  std::vector<CD> gl;
  for (int64_t i = 0; i < zs.shape(0); ++i)
    gl.push_back(cvalues(grad([](const Array &z) { return lax::abs(lax::sin(z)); })(zs[{i}]))[0]);
  expect_complex(gb, gl, complex64, 1e-6);
}

// max and min order complex numbers lexicographically (real part, then imaginary part), as
// XLA's; a NaN part propagates; the derivative follows the chosen operand, halved at ties.
TEST(Complex, MaxMinLexicographic) {
  for (DType t : {complex64, complex128}) {
    Array x = cmake({{1, 5}, {2, -1}, {1, 2}, {kNaN, 0}, {3, 3}}, t);
    Array y = cmake({{2, -9}, {2, 1}, {1, 1}, {0, 0}, {3, 3}}, t);
    expect_complex(lax::max(x, y), {{2, -9}, {2, 1}, {1, 2}, {kNaN, 0}, {3, 3}}, t, 0);
    expect_complex(lax::min(x, y), {{1, 5}, {2, -1}, {1, 1}, {kNaN, 0}, {3, 3}}, t, 0);
  }
  auto [out, tan] =
      jvp([](const Array &a, const Array &b) { return lax::max(a, b); },
          std::tuple{cmake({{1, 5}, {2, -1}, {3, 3}}), cmake({{2, -9}, {2, 1}, {3, 3}})},
          std::tuple{cmake({{1, 1}, {1, 1}, {1, 1}}), cmake({{0, 2}, {0, 2}, {0, 2}})});
  expect_complex(tan, {{0, 2}, {0, 2}, {0.5, 1.5}}, complex128, 0);
  expect_complex(grad([](const Array &z) { return lax::real(lax::max(z, Array(CD(0.5, 0)))); })(
                     Array(CD(1, 2))),
                 {{1, 0}}, complex128, 0);
}

TEST(Complex, ReduceMaxMinAndCummaxLexicographic) {
  for (DType t : {complex64, complex128}) {
    Array x = cmake({{1, 5}, {2, -1}, {2, -3}, {-1, 9}, {0, 0}, {2, -2}}, t).reshape({2, 3});
    expect_complex(lax::reduce_max(x, {1}), {{2, -1}, {2, -2}}, t, 0);
    expect_complex(lax::reduce_min(x, {0, 1}), {{-1, 9}}, t, 0);
    expect_complex(lax::reduce_max(cmake({{1, kNaN}, {5, 5}}, t), {0}), {{1, kNaN}}, t, 0);
    expect_complex(lax::cummax(cmake({{1, 5}, {1, 6}, {0, 9}, {2, 0}}, t), 0),
                   {{1, 5}, {1, 6}, {1, 6}, {2, 0}}, t, 0);
    expect_complex(lax::reduce_max(cmake({}, t), {0}), {{-kInf, -kInf}}, t, 0);
  }
  // The derivative goes to the chosen element (split evenly between ties).
  expect_complex(grad([](const Array &z) { return lax::real(lax::reduce_max(z, {0})); })(
                     cmake({{1, 5}, {2, -1}, {2, -3}})),
                 {{0, 0}, {1, 0}, {0, 0}}, complex128, 0);
}

// sort orders complex keys lexicographically (real part, then imaginary part), as numpy's
// sort and XLA's; other operands follow the permutation, and its derivative moves tangents
// along.
TEST(Complex, SortLexicographic) {
  for (DType t : {complex64, complex128}) {
    Array x = cmake({{2, 1}, {1, 5}, {2, -1}, {-1, 0}, {1, -5}}, t);
    std::vector<Array> s = lax::sort({x, make({0, 1, 2, 3, 4}, int32)}, 0, 1);
    expect_complex(s[0], {{-1, 0}, {1, -5}, {1, 5}, {2, -1}, {2, 1}}, t, 0);
    expect_array(s[1], {3, 4, 1, 2, 0}, {5}, int32);
    // A complex operand as a payload behind a real key.
    std::vector<Array> p = lax::sort({make({3, 1, 2}), cmake({{3, 3}, {1, 1}, {2, 2}}, t)}, 0, 1);
    expect_complex(p[1], {{1, 1}, {2, 2}, {3, 3}}, t, 0);
  }
  auto [out, tan] = jvp([](const Array &z) { return lax::sort({z}, 0, 1)[0]; },
                        std::tuple{cmake({{2, 0}, {1, 0}})}, std::tuple{cmake({{0, 1}, {0, 2}})});
  expect_complex(tan, {{0, 2}, {0, 1}}, complex128, 0);
}

// argmax, argmin and clamp order complex numbers lexicographically too; the first NaN (either
// part) is the extremum, and a NaN bound or operand makes clamp's result NaN.
TEST(Complex, ArgmaxArgminClampLexicographic) {
  for (DType t : {complex64, complex128}) {
    Array x = cmake({{1, 5}, {2, -1}, {2, 3}, {-1, 9}, {2, 3}, {-1, -2}}, t);
    expect_array(lax::argmax(x, 0, int32), {2}, {}, int32);
    expect_array(lax::argmin(x, 0, int64), {5}, {}, int64);
    // Along a non-minor axis (the column kernel) and a minor one.
    Array m = x.reshape({3, 2});
    expect_array(lax::argmax(m, 0, int32), {1, 0}, {2}, int32);
    expect_array(lax::argmin(m, 1, int32), {0, 1, 1}, {3}, int32);
    Array n = cmake({{1, 0}, {0, kNaN}, {kNaN, 0}, {9, 9}}, t);
    expect_array(lax::argmax(n, 0, int32), {1}, {}, int32);
    expect_array(lax::argmin(n, 0, int32), {1}, {}, int32);
    expect_array(lax::argmax(n.reshape({4, 1}), 0, int32), {1}, {1}, int32);
    Array lo = Array(CD(1, 0)).astype(t), hi = Array(CD(2, 0)).astype(t);
    expect_complex(lax::clamp(lo, cmake({{0, 9}, {1, -1}, {1, 3}, {2, 1}, {kNaN, 0}}, t), hi),
                   {{1, 0}, {1, 0}, {1, 3}, {2, 0}, {kNaN, 0}}, t, 0);
  }
  // The operand's derivative is 1 strictly inside [lo, hi] in the same order.
  auto [out, tan] =
      jvp([](const Array &z) { return lax::clamp(Array(CD(1, 0)), z, Array(CD(2, 0))); },
          std::tuple{cmake({{1, 3}, {0, 9}, {2, 1}})}, std::tuple{cmake({{1, 1}, {1, 1}, {1, 1}})});
  expect_complex(tan, {{1, 1}, {0, 0}, {0, 0}}, complex128, 0);
}
