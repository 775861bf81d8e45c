// The fft primitive (FFT, IFFT, RFFT, IRFFT over 1 to 3 trailing axes) against a direct
// long-double DFT, in c64/c128 at even, odd, unit and empty lengths with batches; its shape and
// dtype errors; its transpose rules against the adjoint identities under JAX's convention; and
// concurrent calls that share cached plans.
#include <cmath>
#include <complex>
#include <numbers>
#include <thread>
#include <vector>

#include "strata/transforms.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("fft");

namespace {

using LD = long double;
using CLD = std::complex<LD>;
using CD = std::complex<double>;

/// A row-major array of complex long doubles with its shape: the oracle's working form.
struct Tensor {
  Shape shape;
  std::vector<CLD> v;
};

/// The unnormalized 1-D DFT along `axis`, exp(sign * 2 pi i j m / n), summed directly.
Tensor dft_axis(const Tensor &t, size_t axis, int sign) {
  int64_t n = t.shape[axis], inner = 1, outer = 1;
  for (size_t i = axis + 1; i < t.shape.size(); ++i)
    inner *= t.shape[i];
  for (size_t i = 0; i < axis; ++i)
    outer *= t.shape[i];
  Tensor out = t;
  const LD pi = std::numbers::pi_v<LD>;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in)
      for (int64_t j = 0; j < n; ++j) {
        CLD s = 0;
        for (int64_t m = 0; m < n; ++m) {
          LD ang = sign * 2 * pi * static_cast<LD>((j * m) % n) / static_cast<LD>(n);
          s += t.v[(o * n + m) * inner + in] * CLD(std::cos(ang), std::sin(ang));
        }
        out.v[(o * n + j) * inner + in] = s;
      }
  return out;
}

/// numpy's 1-D irfft of the last axis (its length h = n/2+1): the real signal whose half
/// spectrum it is, imaginary parts of the zero (and Nyquist) entries ignored; unnormalized.
Tensor c2r_last(const Tensor &t, int64_t n) {
  int64_t h = t.shape.back(), outer = static_cast<int64_t>(t.v.size()) / std::max<int64_t>(h, 1);
  Tensor out{t.shape, std::vector<CLD>(static_cast<size_t>(outer * n))};
  out.shape.back() = n;
  const LD pi = std::numbers::pi_v<LD>;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k) {
      LD s = t.v[o * h].real();
      for (int64_t j = 1; j < h; ++j) {
        LD ang = 2 * pi * static_cast<LD>((j * k) % n) / static_cast<LD>(n);
        CLD term = t.v[o * h + j] * CLD(std::cos(ang), std::sin(ang));
        s += (2 * j == n ? 1 : 2) * term.real();
      }
      out.v[o * n + k] = s;
    }
  return out;
}

/// lax.fft's definition, computed directly.
Tensor oracle(const Tensor &x, const std::string &type, const std::vector<int64_t> &n) {
  size_t rank = x.shape.size(), k = n.size();
  LD total = 1;
  for (int64_t v : n)
    total *= static_cast<LD>(v);
  Tensor t = x;
  if (type == "FFT" || type == "RFFT" || type == "IFFT") {
    for (size_t a = rank - k; a < rank; ++a)
      t = dft_axis(t, a, type == "IFFT" ? 1 : -1);
    if (type == "IFFT")
      for (CLD &c : t.v)
        c /= total;
    if (type == "RFFT") { // keep entries 0 .. n/2 of the last axis
      int64_t last = t.shape.back(), h = last / 2 + 1, outer = num_elements(t.shape) / last;
      Tensor cut{t.shape, {}};
      cut.shape.back() = h;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < h; ++j)
          cut.v.push_back(t.v[o * last + j]);
      t = cut;
    }
    return t;
  }
  for (size_t a = rank - k; a + 1 < rank; ++a) // IRFFT: inverse DFTs, then the last axis
    t = dft_axis(t, a, 1);
  t = c2r_last(t, n.back());
  for (CLD &c : t.v)
    c /= total;
  return t;
}

/// Deterministic values in [-1, 1] (real, or complex with independent parts).
Tensor pattern(const Shape &s, bool complex_values, int seed) {
  Tensor t{s, {}};
  for (int64_t i = 0; i < num_elements(s); ++i) {
    LD re = std::sin(1.7L * static_cast<LD>(i + seed) + 0.3L);
    LD im = complex_values ? std::cos(2.3L * static_cast<LD>(i) + 0.1L * seed) : 0;
    t.v.emplace_back(re, im);
  }
  return t;
}

Array to_array(const Tensor &t, DType dtype) {
  if (is_complex(dtype)) {
    std::vector<CD> v(t.v.begin(), t.v.end());
    return lax::convert_element_type(Array::from_vector(v, t.shape), dtype);
  }
  std::vector<double> v;
  for (const CLD &c : t.v)
    v.push_back(static_cast<double>(c.real()));
  return make(v, t.shape, dtype);
}

/// Checks dtype, shape and every part within tol * (1 + max |want|).
void expect_tensor(const Array &got, const Tensor &want, DType dtype, double tol) {
  ASSERT_EQ(got.dtype(), dtype) << got.type_str();
  ASSERT_EQ(got.shape(), want.shape) << got.type_str();
  LD scale = 1;
  for (const CLD &c : want.v)
    scale = std::max(scale, std::abs(c));
  std::vector<CD> g;
  if (is_complex(dtype))
    g = lax::convert_element_type(got, complex128).to_vector<CD>();
  else
    for (double d : lax::convert_element_type(got, float64).to_vector<double>())
      g.emplace_back(d, 0.0);
  ASSERT_EQ(g.size(), want.v.size());
  for (size_t i = 0; i < g.size(); ++i) {
    LD err = std::abs(CLD(g[i].real(), g[i].imag()) - want.v[i]);
    EXPECT_LE(static_cast<double>(err), tol * static_cast<double>(scale))
        << got.type_str() << " at " << i << ": got " << g[i] << ", want "
        << static_cast<double>(want.v[i].real()) << "+" << static_cast<double>(want.v[i].imag())
        << "i";
  }
}

struct Case {
  std::string type;
  Shape in_shape; // the operand's shape
  std::vector<int64_t> lengths;
};

/// Every fft_type at even, odd, prime, power-of-two, unit and batched shapes, 1 to 3 axes.
std::vector<Case> cases() {
  std::vector<Case> c;
  for (const char *t : {"FFT", "IFFT"}) {
    c.push_back({t, {8}, {8}});
    c.push_back({t, {7}, {7}});
    c.push_back({t, {1}, {1}});
    c.push_back({t, {3, 5}, {5}});
    c.push_back({t, {2, 3, 6}, {3, 6}});
    c.push_back({t, {2, 2, 3, 5}, {2, 3, 5}});
    c.push_back({t, {4, 6}, {4, 6}});
  }
  c.push_back({"RFFT", {8}, {8}});
  c.push_back({"RFFT", {7}, {7}});
  c.push_back({"RFFT", {1}, {1}});
  c.push_back({"RFFT", {3, 10}, {10}});
  c.push_back({"RFFT", {2, 5, 6}, {5, 6}});
  c.push_back({"RFFT", {2, 3, 4, 5}, {3, 4, 5}});
  c.push_back({"IRFFT", {5}, {8}});
  c.push_back({"IRFFT", {4}, {7}});
  c.push_back({"IRFFT", {1}, {1}});
  c.push_back({"IRFFT", {3, 6}, {10}});
  c.push_back({"IRFFT", {3, 5, 4}, {5, 6}});
  c.push_back({"IRFFT", {2, 3, 4, 3}, {3, 4, 5}});
  return c;
}

std::string str(const Case &c) {
  std::string s = c.type + " of " + type_str(float64, c.in_shape) + " lengths";
  for (int64_t v : c.lengths)
    s += " " + std::to_string(v);
  return s;
}

TEST(PrimFft, MatchesTheDirectDftInEveryPrecision) {
  for (DType real : {float32, float64}) {
    DType cpx = complex_dtype(real);
    for (const Case &c : cases()) {
      SCOPED_TRACE(str(c) + (real == float32 ? " f32" : " f64"));
      bool real_in = c.type == "RFFT";
      Tensor x = pattern(c.in_shape, !real_in, 3);
      Tensor want = oracle(x, c.type, c.lengths);
      Array got = lax::fft(to_array(x, real_in ? real : cpx), c.type, c.lengths);
      DType out_dtype = c.type == "IRFFT" ? real : cpx;
      expect_tensor(got, want, out_dtype, real == float32 ? 3e-6 : 1e-13);
    }
  }
}

TEST(PrimFft, LargeAndNonSmoothLengths) {
  // FFTW's planner picks different algorithms here (large powers of two, a large prime,
  // Bluestein's case); the direct DFT is O(n^2), so lengths stay in the low thousands.
  for (int64_t n : {1024, 1031, 2 * 3 * 5 * 7 * 11}) {
    SCOPED_TRACE(n);
    Tensor x = pattern({n}, true, 1);
    expect_tensor(lax::fft(to_array(x, complex128), "fft", {n}), oracle(x, "FFT", {n}), complex128,
                  1e-12);
    Tensor r = pattern({n}, false, 2);
    expect_tensor(lax::fft(to_array(r, float32), "rfft", {n}), oracle(r, "RFFT", {n}), complex64,
                  2e-5);
  }
}

TEST(PrimFft, EmptyBatchesAndZeroLengths) {
  Array e = lax::fft(Array::empty({0, 4}, complex64), "FFT", {4});
  EXPECT_EQ(e.shape(), (Shape{0, 4}));
  EXPECT_EQ(lax::fft(Array::empty({0, 6}, float32), "RFFT", {6}).shape(), (Shape{0, 4}));
  EXPECT_EQ(lax::fft(Array::empty({0, 4}, complex128), "IRFFT", {6}).shape(), (Shape{0, 6}));
  // A transform of no points has n/2+1 = 1 output: the empty sum, zero.
  Array z = lax::fft(Array::empty({3, 0}, float64), "RFFT", {0});
  expect_array(lax::real(z), {0, 0, 0}, {3, 1}, float64);
  EXPECT_EQ(lax::fft(Array::empty({2, 0}, complex64), "FFT", {0}).shape(), (Shape{2, 0}));
}

TEST(PrimFft, ShapeAndDtypeErrors) {
  Array c = lax::convert_element_type(Array::empty({2, 4}, float32), complex64);
  Array r = Array::empty({2, 4}, float32);
  expect_error([&] { lax::fft(r, "FFT", {4}); },
               {"[fft]", "FFT input must be complex64 or complex128", "f32[2,4]"});
  expect_error([&] { lax::fft(c, "RFFT", {4}); },
               {"[fft]", "RFFT input must be float32 or float64", "c64[2,4]"});
  expect_error([&] { lax::fft(Array::empty({4}, float16), "RFFT", {4}); },
               {"[fft]", "RFFT input must be float32 or float64", "f16[4]"});
  expect_error([&] { lax::fft(r, "IRFFT", {6}); }, {"[fft]", "IRFFT input must be complex"});
  expect_error([&] { lax::fft(c, "FFT", {5}); },
               {"[fft]", "minor dimensions must be equal to fft_lengths (5,)", "c64[2,4]"});
  expect_error([&] { lax::fft(r, "RFFT", {2, 5}); }, {"[fft]", "(2, 5)", "f32[2,4]"});
  expect_error([&] { lax::fft(c, "IRFFT", {8}); }, {"[fft]", "fft_lengths[-1] // 2 + 1 = 5"});
  expect_error([&] { lax::fft(c, "FFT", {1, 2, 4}); }, {"[fft]", "more entries", "c64[2,4]"});
  expect_error([&] { lax::fft(Array::empty({1, 1, 1, 1}, complex64), "FFT", {1, 1, 1, 1}); },
               {"[fft]", "1 to 3 entries"});
  expect_error([&] { lax::fft(c, "DCT", {4}); }, {"[fft]", "fft_type", "DCT"});
}

/// sum(a * b) (bilinear, no conjugate) as a complex double.
CD bilinear(const Array &a, const Array &b) {
  Array p =
      lax::mul(lax::convert_element_type(a, complex128), lax::convert_element_type(b, complex128));
  std::vector<int64_t> all(static_cast<size_t>(p.ndim()));
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<int64_t>(i);
  return lax::reduce_sum(p, all).to_vector<CD>()[0];
}

/// The transpose rules satisfy JAX's identities: for the complex-linear FFT and IFFT,
/// sum(T(x) * y) == sum(x * T^t(y)); for RFFT (real to complex) and IRFFT (complex to real,
/// linear over the reals only), Re sum(T(x) * y) == Re sum(x * T^t(y)).
TEST(PrimFft, TransposeRulesSatisfyTheAdjointIdentity) {
  for (const Case &c : cases()) {
    SCOPED_TRACE(str(c));
    bool real_in = c.type == "RFFT", real_out = c.type == "IRFFT";
    Array x = to_array(pattern(c.in_shape, !real_in, 5), real_in ? float64 : complex128);
    Array y0 = lax::fft(x, c.type, c.lengths);
    Array y = to_array(pattern(y0.shape(), !real_out, 9), y0.dtype());
    auto f = [&](const std::vector<Array> &a) {
      return std::vector<Array>{lax::fft(a[0], c.type, c.lengths)};
    };
    VjpResult r = vjp_flat(f, {x}, "vjp");
    std::vector<Array> outs = r.outputs;
    Array xt = r.pullback({y})[0];
    ASSERT_EQ(xt.dtype(), x.dtype());
    ASSERT_EQ(xt.shape(), x.shape());
    CD lhs = bilinear(outs[0], y), rhs = bilinear(x, xt);
    double tol = 1e-12 * (1 + std::abs(lhs));
    EXPECT_NEAR(lhs.real(), rhs.real(), tol);
    if (!real_in && !real_out)
      EXPECT_NEAR(lhs.imag(), rhs.imag(), tol);
  }
}

TEST(PrimFft, ConcurrentCallsShareCachedPlans) {
  Tensor x = pattern({4, 12}, true, 7);
  Tensor want = oracle(x, "FFT", {12});
  Array in = to_array(x, complex128);
  std::vector<std::thread> threads;
  std::vector<Array> got(8);
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] {
      for (int rep = 0; rep < 20; ++rep)
        got[i] = lax::fft(in, "FFT", {12});
    });
  for (std::thread &t : threads)
    t.join();
  for (const Array &g : got)
    expect_tensor(g, want, complex128, 1e-13);
}

} // namespace
