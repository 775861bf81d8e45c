// jit basics: compiled results against eager ones, pass-through outputs, constants, weak types.
#include "strata/jit.h"
#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

TEST(Jit, ElementwiseMatchesEager) {
  auto f = [](const Array &x, const Array &b) { return tanh(exp(x) + b) * 2.0; };
  auto jf = jit(f);
  Array x = make({0.1, -0.5, 1.5, 2.0}, {4}, float32);
  Array b = make({1.0, 2.0, -3.0, 0.5}, {4}, float32);
  Array want = f(x, b);
  Array got = jf(x, b);
  EXPECT_EQ(got.type_str(), want.type_str());
  expect_array(got, values(want), {4}, float32, 1e-6);
  EXPECT_EQ(jf.stats().misses, 1);
  got = jf(x, b);
  EXPECT_EQ(jf.stats().hits, 1);
  EXPECT_EQ(jf.explain(), "");
}

TEST(Jit, PassThroughAndConstantOutputs) {
  Array c = make({1, 2, 3}, {3}, float32);
  auto jf = jit([c](const Array &x) { return std::vector<Array>{x, c, x + c}; });
  Array x = make({4, 5, 6}, {3}, float32);
  std::vector<Array> out = jf(x);
  ASSERT_EQ(out.size(), 3u);
  expect_array(out[0], {4, 5, 6}, {3}, float32);
  expect_array(out[1], {1, 2, 3}, {3}, float32);
  expect_array(out[2], {5, 7, 9}, {3}, float32);
}

TEST(Jit, RecompilesOnNewShapeAndExplains) {
  auto jf = jit([](const Array &x) { return sum(x * x); });
  expect_array(jf(make({1, 2}, {2}, float32)), {5}, {}, float32);
  EXPECT_EQ(jf.explain(), "first call");
  expect_array(jf(make({1, 2, 3}, {3}, float32)), {14}, {}, float32);
  EXPECT_NE(jf.explain().find("f32[2] -> f32[3]"), std::string::npos) << jf.explain();
  EXPECT_EQ(jf.stats().misses, 2);
}

TEST(Jit, StaticArgumentsKeyTheCache) {
  auto jf = jit([](const Array &x, int k) { return x * static_cast<double>(k); });
  Array x = make({1, 2}, {2}, float32);
  expect_array(jf(x, 2), {2, 4}, {2}, float32);
  expect_array(jf(x, 3), {3, 6}, {2}, float32);
  EXPECT_NE(
      jf.explain().find("static argument 0 (in order of the static arguments) changed: 2 -> 3"),
      std::string::npos)
      << jf.explain();
  expect_array(jf(x, 2), {2, 4}, {2}, float32);
  EXPECT_EQ(jf.stats().hits, 1);
}

TEST(Jit, LowerShowsEveryStage) {
  Lowered l = lower([](const Array &x) { return exp(x); }, make({1, 2}, {2}, float32));
  EXPECT_NE(l.as_text("strata").find("strata.exp"), std::string::npos) << l.as_text("strata");
  EXPECT_NE(l.as_text("linalg").find("linalg.generic"), std::string::npos);
  EXPECT_NE(l.as_text("llvm-ir").find("define"), std::string::npos);
  expect_error([&] { l.as_text("nope"); }, {"[lower]", "no stage 'nope'", "strata"});
}

} // namespace

#include <thread>

namespace {

// One jitted function called from several threads at once, for two signatures: every result is
// right, and the counters add up (each signature compiles once or, racing, at most once per
// thread; every other call hits).
TEST(Jit, ConcurrentCallsAreSafe) {
  auto jf = jit([](const Array &x) { return tanh(x) * 2.0 + 1.0; });
  const int threads = 4, calls = 50;
  std::vector<std::thread> pool;
  std::vector<int> bad(threads, 0);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < calls; ++i) {
        int64_t n = 1 + (i + t) % 2; // two shapes
        Array x = full({n}, 0.5f);
        std::vector<float> y = jf(x).to_vector<float>();
        for (float v : y)
          bad[t] += std::fabs(v - (std::tanh(0.5f) * 2.0f + 1.0f)) > 1e-6f;
      }
    });
  for (auto &th : pool)
    th.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(bad[t], 0) << "thread " << t;
  JitStats s = jf.stats();
  EXPECT_EQ(s.hits + s.misses, threads * calls);
  EXPECT_GE(s.misses, 2);
  EXPECT_LE(s.misses, 2 * threads);
}

} // namespace

namespace {

// A signature dropped by the bounded cache is compiled again, and explain() says why.
TEST(Jit, EvictionIsExplained) {
  set_jit_cache_capacity(1);
  auto jf = jit([](const Array &x) { return x + 1.0; });
  jf(full({2}, 1.0f));
  jf(full({3}, 1.0f)); // evicts f32[2]
  jf(full({2}, 1.0f));
  std::string why = jf.explain();
  set_jit_cache_capacity(512);
  EXPECT_NE(why.find("evicted from the cache (capacity 1)"), std::string::npos) << why;
  EXPECT_EQ(jf.stats().misses, 3);
}

} // namespace

// int16, uint16 and uint64 through the compiled path (wrapping arithmetic, unsigned compare,
// division and shifts, conversions, reductions) against eager, and 64-bit mode in the key.
TEST(Jit, SixteenBitAndUInt64MatchEager) {
  auto f = [](const Array &a, const Array &b, const Array &c) {
    Array a2 = a * a + a;                       // wraps in i16
    Array lt = lax::lt(b, full_like(b, 40000)); // unsigned compare (40000 > the i16 range)
    Array k = full_like(c, 3);
    Array q = lax::div(c, k); // unsigned 64-bit divide and shift (values past 2^63)
    Array s = lax::shift_right_logical(c, k);
    return std::vector<Array>{
        a2, lt, q + s, astype(b, uint64) + c, sum(a), max(b), astype(c, float64)};
  };
  Array a = Array::from_vector<int16_t>({-300, 7, 32767, 181});
  Array b = Array::from_vector<uint16_t>({0, 1, 65535, 40000});
  Array c = Array::from_vector<uint64_t>({1, 10, uint64_t{1} << 63, ~uint64_t{0}});
  std::vector<Array> want = f(a, b, c);
  auto jf = jit(f);
  std::vector<Array> got = jf(a, b, c);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].type_str(), want[i].type_str()) << i;
    std::vector<uint8_t> g(static_cast<size_t>(got[i].nbytes())), w(g.size());
    got[i].copy_to(g.data());
    want[i].copy_to(w.data());
    EXPECT_EQ(g, w) << "output " << i << " " << want[i].type_str();
  }
  // Exact values (C++ integer arithmetic as the oracle).
  const uint64_t big = ~uint64_t{0};
  EXPECT_EQ(static_cast<uint64_t>(got[2][3].item<int64_t>()), big / 3 + (big >> 3));
  EXPECT_EQ(static_cast<uint64_t>(got[2][2].item<int64_t>()),
            (uint64_t{1} << 63) / 3 + (uint64_t{1} << 60));
  expect_array(got[1], {1, 1, 0, 0}, {4}, bool_);
  EXPECT_EQ(want[0].dtype(), int16);
  EXPECT_EQ(want[4].dtype(), int32); // sum widens to the default int
  // The 16-bit wrap itself: 32767 * 32767 + 32767 mod 2^16, as int16.
  EXPECT_EQ(want[0][2].item<int64_t>(),
            static_cast<int16_t>(static_cast<uint16_t>(32767u * 32767u + 32767u)));
}

TEST(Jit, X64ModeIsPartOfTheKey) {
  bool saved = x64_enabled();
  auto jf = jit([](const Array &x) { return x + zeros({2}); });
  Array x = make({1, 2}, {2}, float32);
  EXPECT_EQ(jf(x).dtype(), float32);
  set_enable_x64(true);
  EXPECT_EQ(jf(x).dtype(), float64);
  set_enable_x64(saved);
  EXPECT_EQ(jf(x).dtype(), float32);
  EXPECT_EQ(jf.stats().misses, 2);
}
