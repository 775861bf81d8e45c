// Random bits: the threefry2x32, shift and bitcast primitives (known answers, naive loops, edge
// shapes, errors), and strata::random against values from JAX's own tests and docs, a naive
// model of JAX's algorithms written here, and statistical sanity checks.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("threefry2x32", "shift_left", "shift_right_logical",
                        "bitcast_convert_type");

namespace {

using U32s = std::vector<uint32_t>;

// Threefry-2x32, 20 rounds, written out round by round from the Random123 specification.
std::pair<uint32_t, uint32_t> naive_threefry(uint32_t k0, uint32_t k1, uint32_t x0, uint32_t x1) {
  auto rotl = [](uint32_t v, int r) { return (v << r) | (v >> (32 - r)); };
  const uint32_t k2 = k0 ^ k1 ^ 0x1BD11BDAu;
  const uint32_t inject[6][2] = {{k0, k1},      {k1, k2 + 1u}, {k2, k0 + 2u},
                                 {k0, k1 + 3u}, {k1, k2 + 4u}, {k2, k0 + 5u}};
  const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  x0 += inject[0][0];
  x1 += inject[0][1];
  for (int round = 0; round < 20; ++round) {
    x0 += x1;
    x1 = rotl(x1, rot[round % 8]);
    x1 ^= x0;
    if (round % 4 == 3) {
      x0 += inject[round / 4 + 1][0];
      x1 += inject[round / 4 + 1][1];
    }
  }
  return {x0, x1};
}

// JAX's threefry_2x32(key, count) on a flat count, as a loop.
U32s naive_counts(uint32_t k0, uint32_t k1, U32s count) {
  const size_t n = count.size();
  if (n % 2)
    count.push_back(0);
  const size_t h = count.size() / 2;
  U32s out(2 * h);
  for (size_t i = 0; i < h; ++i) {
    auto [a, b] = naive_threefry(k0, k1, count[i], count[h + i]);
    out[i] = a;
    out[h + i] = b;
  }
  out.resize(n);
  return out;
}
U32s naive_bits(const U32s &key, size_t n) {
  U32s c(n);
  for (size_t i = 0; i < n; ++i)
    c[i] = static_cast<uint32_t>(i);
  return naive_counts(key[0], key[1], c);
}
U32s naive_split(const U32s &key, size_t num) { return naive_bits(key, 2 * num); }

Array u32s(const U32s &v) { return Array::from_vector<uint32_t>(v); }
Array u32s(const U32s &v, const Shape &s) { return Array::from_vector<uint32_t>(v, s); }

double mean_of(const std::vector<double> &v) {
  double s = 0;
  for (double x : v)
    s += x;
  return s / static_cast<double>(v.size());
}
double var_of(const std::vector<double> &v) {
  double m = mean_of(v), s = 0;
  for (double x : v)
    s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

} // namespace

// ---- threefry2x32 -------------------------------------------------------------------------------

TEST(PrimThreefry, KnownAnswers) {
  // Random123's known-answer tests for threefry2x32_20 (also in JAX's tests).
  auto [y0, y1] =
      lax::threefry2x32(u32s({0x13198a2e, 0, 0xffffffff}), u32s({0x03707344, 0, 0xffffffff}),
                        u32s({0x243f6a88, 0, 0xffffffff}), u32s({0x85a308d3, 0, 0xffffffff}));
  EXPECT_EQ(y0.to_vector<uint32_t>(), (U32s{0xc4923a9c, 0x6b200159, 0x1cb996fc}));
  EXPECT_EQ(y1.to_vector<uint32_t>(), (U32s{0x483df7a0, 0x99ba4efe, 0xbb002be7}));
  EXPECT_EQ(y0.dtype(), uint32);
}

TEST(PrimThreefry, MatchesNaiveLoopOnLargeInputs) {
  const int64_t n = 100003; // large enough for the parallel path, odd
  U32s k0(n), k1(n), x0(n), x1(n);
  for (int64_t i = 0; i < n; ++i) {
    k0[i] = static_cast<uint32_t>(i * 2654435761u);
    k1[i] = static_cast<uint32_t>(i ^ 0xdeadbeef);
    x0[i] = static_cast<uint32_t>(i);
    x1[i] = static_cast<uint32_t>(n - i);
  }
  auto [y0, y1] = lax::threefry2x32(u32s(k0), u32s(k1), u32s(x0), u32s(x1));
  U32s a = y0.to_vector<uint32_t>(), b = y1.to_vector<uint32_t>();
  bool ok = true;
  for (int64_t i = 0; i < n && ok; ++i) {
    auto [e0, e1] = naive_threefry(k0[i], k1[i], x0[i], x1[i]);
    ok = a[i] == e0 && b[i] == e1;
  }
  EXPECT_TRUE(ok);
}

TEST(PrimThreefry, EdgeShapesAndErrors) {
  Array z = Array(uint32_t{0});
  auto [s0, s1] = lax::threefry2x32(z, z, z, z);
  EXPECT_EQ(s0.shape(), Shape{});
  EXPECT_EQ(s0.item<uint32_t>(), 0x6b200159u);
  EXPECT_EQ(s1.item<uint32_t>(), 0x99ba4efeu);
  Array e = u32s({}, {2, 0});
  auto [e0, e1] = lax::threefry2x32(e, e, e, e);
  EXPECT_EQ(e0.shape(), (Shape{2, 0}));
  EXPECT_EQ(e1.shape(), (Shape{2, 0}));

  Array a = u32s({1, 2});
  expect_error([&] { lax::threefry2x32(a, a, a, make({1, 2}, int32)); },
               {"[threefry2x32]", "expects u32 operands", "i32[2]"});
  expect_error([&] { lax::threefry2x32(a, a, a, u32s({1, 2, 3})); },
               {"[threefry2x32]", "operand shapes differ", "u32[2]", "u32[3]"});
}

// ---- shifts -------------------------------------------------------------------------------------

TEST(PrimShift, ValuesForEveryIntegerDtype) {
  for (DType t : {int8, int32, int64, uint8, uint32}) {
    const double bw = static_cast<double>(itemsize(t) * 8);
    Array x = make({1, 3, 5, 7, 1}, t), s = make({0, 1, 2, bw - 1, bw}, t);
    std::vector<double> left = {1, 6, 20, 0, 0};
    // 7 << (bw - 1): only the lowest bit survives, at the top: the sign bit of signed types.
    left[3] = is_signed_integer(t) ? -std::ldexp(1.0, static_cast<int>(bw) - 1)
                                   : std::ldexp(1.0, static_cast<int>(bw) - 1);
    expect_array(lax::shift_left(x, s), left, {5}, t);
    expect_array(lax::shift_right_logical(x, s), {1, 1, 1, 0, 0}, {5}, t);
  }
}

TEST(PrimShift, LogicalOnSignedAndOutOfRangeAmounts) {
  // -1 >> 1 fills with zeros: 0x7F for i8; shifts >= the width, or negative, give 0.
  expect_array(lax::shift_right_logical(make({-1, -1, -1, -128}, int8), make({1, 8, -1, 7}, int8)),
               {127, 0, 0, 1}, {4}, int8);
  expect_array(lax::shift_left(make({-1, 1, 1}, int32), make({31, 32, -3}, int32)),
               {-2147483648.0, 0, 0}, {3}, int32);
  Array big = Array::from_vector<int64_t>({-1, 1}), amt = Array::from_vector<int64_t>({60, 63});
  EXPECT_EQ(lax::shift_right_logical(big, amt).to_vector<int64_t>(), (std::vector<int64_t>{15, 0}));
  EXPECT_EQ(lax::shift_left(big, amt).to_vector<int64_t>(),
            (std::vector<int64_t>{static_cast<int64_t>(0xF000000000000000ull),
                                  std::numeric_limits<int64_t>::min()}));
  EXPECT_EQ(lax::shift_right_logical(u32s({0xdeadbeef}), u32s({9})).to_vector<uint32_t>(),
            (U32s{0xdeadbeefu >> 9}));
}

TEST(PrimShift, EdgeShapesAndErrors) {
  expect_array(lax::shift_left(Array(uint8_t{3}), Array(uint8_t{2})), {12}, {}, uint8);
  expect_array(lax::shift_right_logical(make({}, {0, 3}, int32), make({}, {0, 3}, int32)), {},
               {0, 3}, int32);
  for (const char *op : {"shift_left", "shift_right_logical"}) {
    auto f = [&](const Array &x, const Array &y) {
      return std::string(op) == "shift_left" ? lax::shift_left(x, y)
                                             : lax::shift_right_logical(x, y);
    };
    std::string tag = std::string("[") + op + "]";
    expect_error([&] { f(make({1}, float32), make({1}, float32)); },
                 {tag.c_str(), "expects integer operands", "f32[1]"});
    expect_error([&] { f(make({1}, bool_), make({1}, bool_)); },
                 {tag.c_str(), "expects integer operands", "bool[1]"});
    expect_error([&] { f(make({1}, int32), make({1}, uint32)); },
                 {tag.c_str(), "dtypes differ", "i32[1]", "u32[1]"});
    expect_error([&] { f(make({1, 2}, int32), make({1}, int32)); },
                 {tag.c_str(), "shapes differ", "i32[2]", "i32[1]"});
  }
}

// ---- bitcast_convert_type -----------------------------------------------------------------------

TEST(PrimBitcast, ReinterpretsBits) {
  Array f = lax::bitcast_convert_type(u32s({0x3F800000, 0xC0000000, 0x7F800000}), float32);
  expect_array(f, {1.0, -2.0, INFINITY}, {3}, float32);
  EXPECT_EQ(lax::bitcast_convert_type(make({1.0, -0.0}, float32), uint32).to_vector<uint32_t>(),
            (U32s{0x3F800000u, 0x80000000u}));
  expect_array(lax::bitcast_convert_type(make({-1, 5}, int32), uint32), {4294967295.0, 5}, {2},
               uint32);
  Array d = lax::bitcast_convert_type(Array::from_vector<int64_t>({0x3FF8000000000000}), float64);
  expect_array(d, {1.5}, {1}, float64);
  expect_array(lax::bitcast_convert_type(make({255, 128}, uint8), int8), {-1, -128}, {2}, int8);
  // f16 1.0 (0x3C00) read as bf16 is 2^(0x78 - 127) = 2^-7.
  expect_array(lax::bitcast_convert_type(make({1.0}, float16), bfloat16), {0.0078125}, {1},
               bfloat16);
  Array r = lax::bitcast_convert_type(Array(uint32_t{0x40490FDB}), float32);
  EXPECT_EQ(r.shape(), Shape{});
  EXPECT_FLOAT_EQ(r.item<float>(), 3.14159274f);
  expect_array(lax::bitcast_convert_type(make({}, {2, 0}, float64), int64), {}, {2, 0}, int64);
}

TEST(PrimBitcast, Errors) {
  expect_error([&] { lax::bitcast_convert_type(make({1}, float32), float64); },
               {"[bitcast_convert_type]", "cannot bitcast f32[1] to f64", "itemsizes differ"});
  expect_error([&] { lax::bitcast_convert_type(make({1}, bool_), uint8); },
               {"[bitcast_convert_type]", "bool"});
  expect_error([&] { lax::bitcast_convert_type(make({1}, int8), bool_); },
               {"[bitcast_convert_type]", "cannot bitcast i8[1] to bool"});
}

// ---- keys ---------------------------------------------------------------------------------------

TEST(Random, KeysMatchJax) {
  EXPECT_EQ(random::key(0).to_vector<uint32_t>(), (U32s{0, 0}));
  EXPECT_EQ(random::key(42).to_vector<uint32_t>(), (U32s{0, 42}));
  EXPECT_EQ(random::key((uint64_t{1} << 32) + 5).to_vector<uint32_t>(), (U32s{1, 5}));
  EXPECT_EQ(random::key(0).shape(), Shape{2});
  EXPECT_EQ(random::key(0).dtype(), uint32);
}

TEST(Random, SplitAndFoldInMatchJax) {
  // jax.random.split(PRNGKey(0)).
  EXPECT_EQ(random::split(random::key(0)).to_vector<uint32_t>(),
            (U32s{4146024105u, 967050713u, 2718843009u, 1272950319u}));
  // JAX's testPRNGValues (random_test.py): split(PRNGKey(0), 4) and fold_in(PRNGKey(0), 4).
  Array s4 = random::split(random::key(0), 4);
  EXPECT_EQ(s4.shape(), (Shape{4, 2}));
  EXPECT_EQ(s4.to_vector<uint32_t>(), (U32s{2285895361u, 1501764800u, 1518642379u, 4090693311u,
                                            433833334u, 4221794875u, 839183663u, 3740430601u}));
  EXPECT_EQ(random::fold_in(random::key(0), 4).to_vector<uint32_t>(),
            (U32s{2285895361u, 433833334u}));
  // fold_in(key, d) is the cipher of counts [0, d] under the key.
  EXPECT_EQ(random::fold_in(random::key(0), 1).to_vector<uint32_t>(), naive_counts(0, 0, {0, 1}));
  EXPECT_EQ(random::fold_in(random::key(0), 1).to_vector<uint32_t>(),
            (U32s{928981903u, 3453687069u}));
  // Other keys and counts against the naive model.
  U32s k = {0x12345678, 0x9abcdef0};
  EXPECT_EQ(random::split(u32s(k), 3).to_vector<uint32_t>(), naive_split(k, 3));
  EXPECT_EQ(random::fold_in(u32s(k), 0xfeedface).to_vector<uint32_t>(),
            naive_counts(k[0], k[1], {0, 0xfeedface}));
  EXPECT_EQ(random::split(u32s(k), 0).shape(), (Shape{0, 2}));
}

TEST(Random, BitsMatchModel) {
  U32s k = {0, 42};
  for (int64_t n : {1, 2, 5, 6, 1001}) {
    Array b = random::bits(u32s(k), {n});
    EXPECT_EQ(b.to_vector<uint32_t>(), naive_bits(k, static_cast<size_t>(n))) << n;
  }
  EXPECT_EQ(random::bits(u32s(k), {5}).to_vector<uint32_t>(),
            (U32s{3134548294u, 3733159049u, 843694964u, 894150801u, 801545058u}));
  Array b = random::bits(u32s(k), {2, 3});
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(b.to_vector<uint32_t>(), naive_bits(k, 6));
  EXPECT_EQ(random::bits(u32s(k), {}).shape(), Shape{});
  EXPECT_EQ(random::bits(u32s(k), {3, 0}).shape(), (Shape{3, 0}));
}

// ---- distributions against JAX's values and the model -------------------------------------------

TEST(Random, UniformMatchesJax) {
  // jax.random.uniform(PRNGKey(0)) == 0.41845703 (bits 0x6b200159 >> 9 over the exponent of 1).
  Array u = random::uniform(random::key(0));
  EXPECT_EQ(u.shape(), Shape{});
  EXPECT_EQ(u.dtype(), float32);
  EXPECT_EQ(u.item<float>(), 0.41845703125f);
  // f32 for any shape: mantissa = the top 23 bits.
  U32s w = naive_bits({0, 42}, 7);
  std::vector<float> v = random::uniform(random::key(42), {7}).to_vector<float>();
  for (size_t i = 0; i < w.size(); ++i) {
    uint32_t bits = (w[i] >> 9) | 0x3F800000u;
    float want;
    std::memcpy(&want, &bits, 4);
    EXPECT_EQ(v[i], want - 1.0f) << i;
  }
  // Scaled: f * (max - min) + min in f32.
  std::vector<float> s = random::uniform(random::key(42), {7}, float32, -2, 3).to_vector<float>();
  for (size_t i = 0; i < w.size(); ++i)
    EXPECT_EQ(s[i], std::max(-2.0f, v[i] * 5.0f + -2.0f)) << i;
}

TEST(Random, UniformNarrowAndWideFloatsMatchModel) {
  const size_t n = 9;
  // f16: 16-bit fields of the u32 stream, lowest first; mantissa = top 10 bits.
  U32s w16 = naive_bits({0, 7}, (n + 1) / 2);
  std::vector<double> f16 = values(random::uniform(random::key(7), {9}, float16));
  // bf16: 8-bit fields; mantissa = top 7 bits.
  U32s w8 = naive_bits({0, 7}, (n + 3) / 4);
  std::vector<double> bf16 = values(random::uniform(random::key(7), {9}, bfloat16));
  // f64: 64-bit words, high halves first; mantissa = top 52 bits.
  U32s w64 = naive_bits({0, 7}, 2 * n);
  std::vector<double> f64 = values(random::uniform(random::key(7), {9}, float64));
  for (size_t i = 0; i < n; ++i) {
    uint32_t h = (w16[i / 2] >> (16 * (i % 2))) & 0xFFFF;
    EXPECT_EQ(f16[i], static_cast<double>(h >> 6) / 1024.0) << i;
    uint32_t b = (w8[i / 4] >> (8 * (i % 4))) & 0xFF;
    EXPECT_EQ(bf16[i], static_cast<double>(b >> 1) / 128.0) << i;
    uint64_t q = (uint64_t{w64[i]} << 32) | w64[n + i];
    EXPECT_EQ(f64[i], std::ldexp(static_cast<double>(q >> 12), -52)) << i;
  }
}

TEST(Random, NormalMatchesJax) {
  // jax.random.normal(PRNGKey(0)) == -0.20584226; jax.random.normal(PRNGKey(42)) == -0.18471177
  // (the latter from JAX's "Pseudorandom numbers" tutorial).
  EXPECT_NEAR(random::normal(random::key(0)).item<float>(), -0.20584226f, 2e-7);
  EXPECT_NEAR(random::normal(random::key(42)).item<float>(), -0.18471177f, 2e-7);
  EXPECT_EQ(random::normal(random::key(0), {}, float64).dtype(), float64);
}

TEST(Random, RandintMatchesJax) {
  // JAX's testPRNGValues: randint(PRNGKey(0), (3, 3), 0, 8).
  Array r = random::randint(random::key(0), {3, 3}, 0, 8);
  EXPECT_EQ(r.dtype(), int32);
  EXPECT_EQ(r.to_vector<int32_t>(), (std::vector<int32_t>{2, 1, 3, 6, 1, 5, 6, 3, 4}));
}

// ---- statistics ---------------------------------------------------------------------------------

TEST(Random, UniformStatistics) {
  for (DType t : float_dtypes()) {
    std::vector<double> v = values(random::uniform(random::key(1), {100000}, t));
    EXPECT_NEAR(mean_of(v), 0.5, 0.005) << short_name(t);
    EXPECT_NEAR(var_of(v), 1.0 / 12, 0.002) << short_name(t);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0);
    std::vector<double> s = values(random::uniform(random::key(2), {100000}, t, -2, 3));
    EXPECT_NEAR(mean_of(s), 0.5, 0.03) << short_name(t);
    EXPECT_GE(*std::min_element(s.begin(), s.end()), -2.0);
    EXPECT_LT(*std::max_element(s.begin(), s.end()), 3.0);
  }
  // Rounding can never reach maxval: a span whose scaling rounds up still stays below it.
  std::vector<double> tight = values(random::uniform(random::key(3), {10000}, float16, 1000, 1001));
  EXPECT_LT(*std::max_element(tight.begin(), tight.end()), 1001.0);
  // An empty range gives minval.
  expect_array(random::uniform(random::key(3), {2}, float32, 4, 4), {4, 4}, {2}, float32);
}

TEST(Random, NormalStatistics) {
  for (DType t : float_dtypes()) {
    std::vector<double> v = values(random::normal(random::key(5), {100000}, t));
    EXPECT_NEAR(mean_of(v), 0.0, 0.02) << short_name(t);
    EXPECT_NEAR(std::sqrt(var_of(v)), 1.0, 0.02) << short_name(t);
    for (double x : v)
      ASSERT_TRUE(std::isfinite(x)) << short_name(t);
  }
}

TEST(Random, BernoulliFrequency) {
  for (double p : {0.0, 0.3, 0.5, 1.0}) {
    Array b = random::bernoulli(random::key(11), p, {100000});
    EXPECT_EQ(b.dtype(), bool_);
    std::vector<double> v = values(b);
    EXPECT_NEAR(mean_of(v), p, 0.01) << p;
  }
  EXPECT_EQ(random::bernoulli(random::key(11)).shape(), Shape{});
}

TEST(Random, RandintRangesAndDtypes) {
  struct Case {
    DType t;
    int64_t lo, hi;
  };
  std::vector<Case> cases = {{int32, -5, 5},
                             {int32, 0, 1},
                             {uint8, 0, 256},
                             {int8, -128, 128},
                             {uint32, 0, 10},
                             {int8, -3, 200},
                             {int64, -10, 10},
                             {int64, INT64_MIN, INT64_MAX},
                             {uint32, 0, int64_t{1} << 32},
                             {int32, INT32_MIN, INT32_MAX}};
  for (const Case &c : cases) {
    Array r = random::randint(random::key(9), {20000}, c.lo, c.hi, c.t);
    EXPECT_EQ(r.dtype(), c.t);
    std::vector<double> v = values(r);
    const double lo = static_cast<double>(c.lo);
    const double hi = static_cast<double>(c.hi);
    auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    EXPECT_GE(*mn, lo) << short_name(c.t) << " " << c.lo;
    EXPECT_LT(*mx, std::min(hi, c.t == int8 ? 128.0 : hi)) << short_name(c.t) << " " << c.hi;
    if (hi - lo <= 256 && hi - lo > 0) {
      // Small ranges: every value shows up and the mean is near the middle.
      std::set<double> seen(v.begin(), v.end());
      int64_t span = std::min<int64_t>(c.hi, c.t == int8 ? 128 : c.hi) - c.lo;
      EXPECT_EQ(static_cast<int64_t>(seen.size()), span) << short_name(c.t) << " " << c.lo;
    }
  }
  // Uniform frequencies: 6 values over 60000 draws, each within 3% of 10000.
  std::vector<double> d = values(random::randint(random::key(4), {60000}, 1, 7));
  for (int k = 1; k <= 6; ++k)
    EXPECT_NEAR(std::count(d.begin(), d.end(), k), 10000, 300) << k;
  // int64 with a span beyond 32 bits: the mean sits in the middle.
  std::vector<double> w =
      values(random::randint(random::key(4), {20000}, 0, int64_t{1} << 40, int64));
  EXPECT_NEAR(mean_of(w) / std::ldexp(1.0, 40), 0.5, 0.01);
  // Empty and inverted ranges give minval (JAX's behaviour).
  expect_array(random::randint(random::key(1), {3}, 7, 7), {7, 7, 7}, {3}, int32);
  expect_array(random::randint(random::key(1), {2}, 7, 3, int64), {7, 7}, {2}, int64);
}

TEST(Random, PermutationIsAPermutation) {
  for (int64_t n : {0, 1, 2, 10, 1000, 3000}) { // 3000 needs two sorting rounds
    Array p = random::permutation(random::key(6), n);
    EXPECT_EQ(p.dtype(), int32);
    EXPECT_EQ(p.shape(), Shape{n});
    std::vector<int32_t> v = p.to_vector<int32_t>();
    std::sort(v.begin(), v.end());
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(v[i], i) << n;
  }
  std::vector<int32_t> a = random::permutation(random::key(6), 1000).to_vector<int32_t>();
  int fixed = 0;
  for (int32_t i = 0; i < 1000; ++i)
    fixed += a[i] == i;
  EXPECT_LT(fixed, 10); // a random permutation has about one fixed point
  EXPECT_NE(a, random::permutation(random::key(7), 1000).to_vector<int32_t>());
}

TEST(Random, PermutationOfArrayMovesRows) {
  Array key = random::key(8);
  std::vector<int32_t> perm = random::permutation(key, 5).to_vector<int32_t>();
  Array x = make({0, 1, 10, 11, 20, 21, 30, 31, 40, 41}, {5, 2}, float32);
  Array y = random::permutation(key, x);
  std::vector<double> want;
  for (int32_t r : perm)
    for (int c = 0; c < 2; ++c)
      want.push_back(10.0 * r + c);
  expect_array(y, want, {5, 2}, float32);
  Array v = random::permutation(key, make({0, 10, 20, 30, 40}, int8));
  std::vector<double> want1;
  for (int32_t r : perm)
    want1.push_back(10.0 * r);
  expect_array(v, want1, {5}, int8);
  // An integer scalar means permutation(key, n).
  EXPECT_EQ(random::permutation(key, Array(5)).to_vector<int32_t>(), perm);
}

TEST(Random, DeterministicAndKeySensitive) {
  Array k = random::key(123);
  EXPECT_EQ(random::bits(k, {64}).to_vector<uint32_t>(),
            random::bits(k, {64}).to_vector<uint32_t>());
  EXPECT_EQ(values(random::normal(k, {16})), values(random::normal(random::key(123), {16})));
  EXPECT_NE(random::bits(k, {64}).to_vector<uint32_t>(),
            random::bits(random::key(124), {64}).to_vector<uint32_t>());
  Array ks = random::split(k, 2);
  Array k0 = lax::reshape(lax::slice(ks, {0, 0}, {1, 2}), {2});
  Array k1 = lax::reshape(lax::slice(ks, {1, 0}, {2, 2}), {2});
  EXPECT_NE(values(random::uniform(k0, {8})), values(random::uniform(k1, {8})));
  EXPECT_NE(random::fold_in(k, 1).to_vector<uint32_t>(),
            random::fold_in(k, 2).to_vector<uint32_t>());
}

TEST(Random, ZeroSizeShapes) {
  Array k = random::key(0);
  EXPECT_EQ(random::uniform(k, {0, 3}).shape(), (Shape{0, 3}));
  EXPECT_EQ(random::normal(k, {0}, float16).shape(), Shape{0});
  EXPECT_EQ(random::randint(k, {2, 0}, 0, 5, uint8).shape(), (Shape{2, 0}));
  EXPECT_EQ(random::bernoulli(k, 0.5, {0}).shape(), Shape{0});
  EXPECT_EQ(random::permutation(k, make({}, {0, 2})).shape(), (Shape{0, 2}));
}

TEST(Random, Errors) {
  expect_error([] { random::split(make({0, 0}, float32)); },
               {"[random.split]", "key of type u32[2]", "f32[2]"});
  expect_error([] { random::bits(Array::from_vector<uint32_t>({1, 2, 3}), {2}); },
               {"[random.bits]", "u32[3]"});
  expect_error([] { random::uniform(random::key(0), {2}, int32); },
               {"[random.uniform]", "dtype must be floating-point, got i32"});
  expect_error([] { random::normal(random::key(0), {2}, uint8); },
               {"[random.normal]", "floating-point"});
  expect_error([] { random::randint(random::key(0), {2}, 0, 3, float32); },
               {"[random.randint]", "integer type, got f32"});
  expect_error([] { random::randint(random::key(0), {2}, 0, 3, bool_); },
               {"[random.randint]", "integer type, got bool"});
  expect_error([] { random::uniform(random::key(0), {-1}); },
               {"[random.uniform]", "negative dimension"});
  expect_error([] { random::split(random::key(0), -1); }, {"[random.split]", "non-negative"});
  expect_error([] { random::permutation(random::key(0), -2); }, {"[random.permutation]"});
  expect_error([] { random::permutation(random::key(0), Array(1.5f)); },
               {"[random.permutation]", "at least 1-dimensional", "f32[]"});
}
