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
  EXPECT_NE(jf.explain().find("static argument 0 (in order of the static arguments) changed: 2 -> 3"),
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
