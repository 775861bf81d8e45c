// The core runtime: Array creation and accessors, weak scalars, buffer sharing, memory
// counters, bind's dispatch to trace levels, and the parallel_for thread pool.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "strata/internal/thread_pool.h"
#include "strata/internal/trace.h"
#include "test_util.h"

using namespace strata;
using testutil::expect_error;

namespace {

// ---- Creation -----------------------------------------------------------------------------------

template <class T> void check_from_vector(DType dt, std::vector<T> v) {
  SCOPED_TRACE(short_name(dt));
  Array a = Array::from_vector(v, {2, 2});
  EXPECT_EQ(a.dtype(), dt);
  EXPECT_EQ(a.shape(), (Shape{2, 2}));
  EXPECT_EQ(a.ndim(), 2);
  EXPECT_EQ(a.size(), 4);
  EXPECT_EQ(a.nbytes(), static_cast<int64_t>(4 * itemsize(dt)));
  EXPECT_FALSE(a.weak_type());
  EXPECT_TRUE(a.valid());
  EXPECT_TRUE(a.is_concrete());
  EXPECT_EQ(a.device(), cpu_device());
  EXPECT_EQ(std::memcmp(a.data(), v.data(), 4 * sizeof(T)), 0);
  // The data is a copy: changing the source afterwards does not change the array.
  std::vector<T> copy = v;
  v[0] = v[1];
  EXPECT_EQ(std::memcmp(a.data(), copy.data(), 4 * sizeof(T)), 0);
  // 1-D by default, and from raw data.
  Array b = Array::from_vector(copy);
  EXPECT_EQ(b.shape(), Shape{4});
  Array c = Array::from_data(copy.data(), {4, 1}, dt);
  EXPECT_EQ(c.shape(), (Shape{4, 1}));
  std::vector<T> back(4);
  c.copy_to(back.data());
  EXPECT_EQ(std::memcmp(back.data(), copy.data(), 4 * sizeof(T)), 0);
}

TEST(Array, FromDataAndVectorsForEveryDtype) {
  check_from_vector<int8_t>(int8, {-128, -1, 0, 127});
  check_from_vector<int32_t>(int32, {std::numeric_limits<int32_t>::min(), -1, 0, 7});
  check_from_vector<int64_t>(
      int64, {std::numeric_limits<int64_t>::min(), -1, 0, std::numeric_limits<int64_t>::max()});
  check_from_vector<uint8_t>(uint8, {0, 1, 200, 255});
  check_from_vector<uint32_t>(uint32, {0, 1, 7, 4294967295u});
  check_from_vector<f16_t>(float16, {to_f16(1.5f), to_f16(-2), to_f16(65504), to_f16(0)});
  check_from_vector<bf16_t>(bfloat16, {to_bf16(1.5f), to_bf16(-2), to_bf16(3e38f), to_bf16(0)});
  check_from_vector<float>(float32, {1.5f, -0.0f, 3e38f, 1e-45f});
  check_from_vector<double>(float64, {1.5, -0.0, 1e308, 5e-324});

  Array b = Array::from_vector(std::vector<bool>{true, false, true}, {3});
  EXPECT_EQ(b.dtype(), bool_);
  EXPECT_EQ(b.nbytes(), 3);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Array::from_vector(std::vector<float>{1, 2}).to_vector<float>(),
            (std::vector<float>{1, 2}));
}

TEST(Array, BoolDataIsNormalizedToZeroOrOne) {
  const uint8_t raw[] = {0, 2, 255, 1, 128};
  Array a = Array::from_data(raw, {5}, bool_);
  const auto *bytes = static_cast<const uint8_t *>(a.data());
  EXPECT_EQ(std::vector<uint8_t>(bytes, bytes + 5), (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  EXPECT_EQ(a.to_vector<bool>(), (std::vector<bool>{false, true, true, true, true}));
}

TEST(Array, ScalarConstructors) {
  struct Case {
    Array a;
    DType dt;
    double v;
  };
  const Case cases[] = {
      {Array(2.5f), float32, 2.5},
      {Array(2.5), float64, 2.5},
      {Array(3), int32, 3},
      {Array(int64_t{-4}), int64, -4},
      {Array(int8_t{-5}), int8, -5},
      {Array(uint8_t{250}), uint8, 250},
      {Array(uint32_t{7}), uint32, 7},
      {Array(true), bool_, 1},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(short_name(c.dt));
    EXPECT_EQ(c.a.dtype(), c.dt);
    EXPECT_EQ(c.a.shape(), Shape{});
    EXPECT_EQ(c.a.ndim(), 0);
    EXPECT_EQ(c.a.size(), 1);
    EXPECT_FALSE(c.a.weak_type());
    EXPECT_EQ(c.a.item<double>(), c.v);
  }
}

TEST(Array, WeakScalars) {
  Array f = Array::weak_scalar(2.5);
  EXPECT_TRUE(is_floating(f.dtype())); // the storage type is an internal choice
  EXPECT_TRUE(f.weak_type());
  EXPECT_EQ(f.shape(), Shape{});
  EXPECT_EQ(f.item<float>(), 2.5f);
  Array i = Array::weak_scalar_int(-7);
  EXPECT_EQ(i.dtype(), kDefaultInt);
  EXPECT_TRUE(i.weak_type());
  EXPECT_EQ(i.item<int>(), -7);
  // Values beyond i32 keep their value in i64.
  for (int64_t v : {int64_t{1} << 40, int64_t{2147483648}, int64_t{-2147483649}}) {
    Array w = Array::weak_scalar_int(v);
    EXPECT_EQ(w.dtype(), int64) << v;
    EXPECT_TRUE(w.weak_type());
    EXPECT_EQ(w.item<int64_t>(), v);
  }
  EXPECT_EQ(Array::weak_scalar_int(-2147483648LL).dtype(), int32);
  EXPECT_EQ(Array::weak_scalar_int(2147483647).dtype(), int32);
  // with_weak_type flips the flag and shares the buffer.
  Array s = f.with_weak_type(false);
  EXPECT_FALSE(s.weak_type());
  EXPECT_TRUE(f.weak_type());
  EXPECT_EQ(s.buffer(), f.buffer());
}

TEST(Array, ShapeDtypeAndTypeStr) {
  Array a = Array::from_vector(std::vector<float>(6, 1.0f), {2, 3});
  EXPECT_EQ(a.type_str(), "f32[2,3]");
  EXPECT_EQ(a.shape(0), 2);
  EXPECT_EQ(a.shape(1), 3);
  EXPECT_EQ(a.shape(-1), 3);
  EXPECT_EQ(a.shape(-2), 2);
  expect_error([&] { a.shape(2); }, {"[shape] axis 2 out of range for f32[2,3]"});
  expect_error([&] { a.shape(-3); }, {"[shape] axis -3 out of range for f32[2,3]"});
  EXPECT_EQ(Array(int64_t{1}).type_str(), "i64[]");
  EXPECT_EQ(Array::empty({0, 3}, bool_).type_str(), "bool[0,3]");
  EXPECT_EQ(Array::empty({2}, bfloat16).type_str(), "bf16[2]");
  EXPECT_EQ(type_str(uint32, {4, 1}), "u32[4,1]");
  EXPECT_EQ(shape_str({}), "[]");
  EXPECT_EQ(num_elements({}), 1);
  EXPECT_EQ(num_elements({3, 0, 2}), 0);
  EXPECT_EQ(cpu_device().to_string(), "cpu:0");
  EXPECT_EQ((Device{Device::Kind::CUDA, 1}).to_string(), "cuda:1");
  // abstract_of is what shape rules see.
  Array w = Array::weak_scalar(1.0);
  EXPECT_EQ(abstract_of(a), (AbstractValue{{2, 3}, float32, false}));
  EXPECT_EQ(abstract_of(w), (AbstractValue{{}, w.dtype(), true}));
  EXPECT_EQ(abstract_of(a).str(), "f32[2,3]");
}

TEST(Array, ZeroSizeArrays) {
  Array z = Array::from_vector(std::vector<double>{}, {0, 3});
  EXPECT_EQ(z.size(), 0);
  EXPECT_EQ(z.nbytes(), 0);
  EXPECT_EQ(z.to_vector<double>(), std::vector<double>{});
  z.copy_to(nullptr); // nothing to copy
  Array e = Array::empty({4, 0}, int8);
  EXPECT_EQ(e.shape(), (Shape{4, 0}));
  EXPECT_EQ(e.with_shape({0}).shape(), Shape{0});
}

TEST(Array, Item) {
  EXPECT_EQ(Array(2.75f).item<float>(), 2.75f);
  EXPECT_EQ(Array(2.75f).item<int>(), 2); // truncates toward zero
  EXPECT_EQ(Array(-2.75).item<int64_t>(), -2);
  EXPECT_EQ(Array(int64_t{9007199254740993}).item<int64_t>(), 9007199254740993); // no f64 trip
  EXPECT_EQ(Array(std::numeric_limits<int64_t>::min()).item<int64_t>(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Array(uint32_t{4294967295u}).item<uint32_t>(), 4294967295u);
  EXPECT_TRUE(Array(true).item<bool>());
  EXPECT_FALSE(Array(0).item<bool>());
  EXPECT_TRUE(Array(-3).item<bool>());
  f16_t h = to_f16(0.333333f);
  EXPECT_EQ(Array::from_data(&h, {}, float16).item<float>(), to_float(h));
  bf16_t g = to_bf16(-1.5f);
  EXPECT_EQ(Array::from_data(&g, {1, 1}, bfloat16).item<double>(), -1.5); // any size-1 shape
  expect_error([] { Array::from_vector(std::vector<float>{1, 2}).item<float>(); },
               {"[item] expected an array with one element, got f32[2]"});
  expect_error([] { Array::empty({0}, int32).item<int>(); },
               {"[item] expected an array with one element, got i32[0]"});
  // Float to integer of a value no integer holds is an error, not undefined behaviour.
  expect_error([] { Array(std::numeric_limits<float>::quiet_NaN()).item<int>(); },
               {"[item] cannot convert", "f32[]", "to an integer"});
  expect_error([] { Array(1e30).item<int64_t>(); }, {"[item]", "f64[]"});
}

TEST(Array, ToVectorChecksTheDtype) {
  Array a = Array::from_vector(std::vector<float>{1, 2, 3});
  expect_error([&] { a.to_vector<int32_t>(); }, {"[to_vector] array is f32[3], requested i32"});
  expect_error([&] { a.to_vector<double>(); }, {"[to_vector] array is f32[3], requested f64"});
  expect_error([&] { Array(true).to_vector<uint8_t>(); },
               {"[to_vector] array is bool[], requested u8"});
}

TEST(Array, ShapeValidation) {
  expect_error([] { Array::from_vector(std::vector<float>{1, 2}, {-1, -2}); },
               {"[array] negative dimension in shape [-1,-2]"});
  expect_error([] { Array::empty({2, -3}, float32); },
               {"[array] negative dimension in shape [2,-3]"});
  float v[6] = {};
  expect_error([&] { Array::from_data(v, {-6}, float32); }, {"[array] negative dimension"});
  expect_error([] { Array::from_vector(std::vector<float>{1, 2, 3, 4, 5}, {2, 3}); },
               {"[array] got 5 values for shape [2,3] (6 elements)"});
  expect_error([] { Array::from_vector(std::vector<int32_t>{1}, {0}); },
               {"[array] got 1 values for shape [0] (0 elements)"});
  expect_error([] { Array::from_vector(std::vector<bool>{true, false}, {3}); },
               {"[array] got 2 values for shape [3]"});
}

TEST(Array, DefaultConstructedArrayIsAnError) {
  Array e;
  EXPECT_FALSE(e.valid());
  Array copy = e;
  EXPECT_FALSE(copy.valid());
  const char *msg = "[array] use of an empty (default-constructed) Array";
  expect_error([&] { e.shape(); }, {msg});
  expect_error([&] { e.dtype(); }, {msg});
  expect_error([&] { e.size(); }, {msg});
  expect_error([&] { e.weak_type(); }, {msg});
  expect_error([&] { e.data(); }, {msg});
  expect_error([&] { e.type_str(); }, {msg});
  expect_error([&] { e.with_shape({}); }, {msg});
  expect_error([&] { e.item<float>(); }, {msg});
  expect_error([&] { lax::neg(e); }, {"[neg] an input is an empty (default-constructed) Array"});
  expect_error([&] { lax::add(Array(1.0f), e); }, {"[add] an input is an empty"});
}

TEST(Array, WithShapeSharesTheBuffer) {
  Array a = Array::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  int64_t allocs = memory_stats().total_allocations;
  Array b = a.with_shape({3, 2});
  Array c = a.with_shape({6});
  Array s = Array(1.0f).with_shape({1, 1, 1});
  EXPECT_EQ(memory_stats().total_allocations, allocs + 1); // only Array(1.0f)
  EXPECT_EQ(b.buffer(), a.buffer());
  EXPECT_EQ(b.data(), a.data());
  EXPECT_EQ(b.shape(), (Shape{3, 2}));
  EXPECT_EQ(a.shape(), (Shape{2, 3})); // the original handle is unchanged
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(s.shape(), (Shape{1, 1, 1}));
  expect_error([&] { a.with_shape({4}); },
               {"[reshape] cannot reshape f32[2,3] (6 elements) to [4]"});
  expect_error([&] { a.with_shape({-2, -3}); }, {"[reshape] negative dimension in shape [-2,-3]"});
  // The buffer lives while any handle to it does.
  const void *data = a.data();
  a = Array();
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

// ---- Memory counters ----------------------------------------------------------------------------

TEST(Array, MemoryStatsCountLiveBuffersAndReturnToBaseline) {
  MemoryStats base = memory_stats();
  {
    Array a = Array::empty({1000}, float32);
    MemoryStats s1 = memory_stats();
    EXPECT_EQ(s1.live_bytes, base.live_bytes + 4000);
    EXPECT_EQ(s1.live_buffers, base.live_buffers + 1);
    EXPECT_EQ(s1.total_allocations, base.total_allocations + 1);
    EXPECT_GE(s1.peak_bytes, s1.live_bytes);
    Array handle = a, view = a.with_shape({10, 100}), weak = a.with_weak_type(true);
    EXPECT_EQ(memory_stats().live_bytes, s1.live_bytes); // handles share one buffer
    Array b = Array::from_vector(std::vector<double>(10, 1.0));
    Array z = Array::empty({0, 5}, float64);
    MemoryStats s2 = memory_stats();
    EXPECT_EQ(s2.live_bytes, s1.live_bytes + 80);
    EXPECT_EQ(s2.live_buffers, s1.live_buffers + 2); // the zero-size array has a buffer too
    Array c = lax::exp(b);                           // a kernel's output is one more buffer
    EXPECT_EQ(memory_stats().live_bytes, s2.live_bytes + 80);
    a = Array(); // the buffer outlives this handle: three more share it
    EXPECT_EQ(memory_stats().live_bytes, s2.live_bytes + 80);
  }
  MemoryStats after = memory_stats();
  EXPECT_EQ(after.live_bytes, base.live_bytes);
  EXPECT_EQ(after.live_buffers, base.live_buffers);
  EXPECT_EQ(after.total_allocations, base.total_allocations + 4);
}

TEST(Array, PeakMemoryAndReset) {
  reset_peak_memory();
  MemoryStats base = memory_stats();
  EXPECT_EQ(base.peak_bytes, base.live_bytes);
  {
    Array big = Array::empty({1 << 20}, float32);
    Array small = Array::empty({16}, int8);
    EXPECT_EQ(memory_stats().peak_bytes, base.live_bytes + (4 << 20) + 16);
  }
  MemoryStats after = memory_stats();
  EXPECT_EQ(after.live_bytes, base.live_bytes);
  EXPECT_EQ(after.peak_bytes, base.live_bytes + (4 << 20) + 16); // the peak stays
  {
    Array smaller = Array::empty({100}, float64);
    EXPECT_EQ(memory_stats().peak_bytes, after.peak_bytes); // below the peak: unchanged
  }
  reset_peak_memory();
  EXPECT_EQ(memory_stats().peak_bytes, base.live_bytes);
}

// ---- Trace levels: bind's dispatch --------------------------------------------------------------

class TestLevel : public TraceLevel {
public:
  std::vector<std::string> seen;
  std::string name() const override { return "test"; }
  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &) override {
    seen.push_back(prim.name + "@" + std::to_string(depth) + "/" + std::to_string(inputs.size()));
    return {Array(42.0f)};
  }
};

class TestTracer : public Tracer {
public:
  using Tracer::Tracer;
};

TEST(Array, TracedArraysDispatchToTheirLevel) {
  auto low_p = std::make_shared<TestLevel>(), high_p = std::make_shared<TestLevel>();
  TestLevel &low = *low_p, &high = *high_p;
  low.depth = 1, high.depth = 2;
  Array t1 = Array::from_tracer(std::make_shared<TestTracer>(low_p), {2}, float32, false);
  Array t2 = Array::from_tracer(std::make_shared<TestTracer>(high_p), {2}, float32, true);
  EXPECT_FALSE(t1.is_concrete());
  EXPECT_EQ(t1.type_str(), "f32[2]");
  EXPECT_TRUE(t2.weak_type());
  EXPECT_NE(t1.tracer(), nullptr);
  EXPECT_EQ(t1.buffer(), nullptr);
  try {
    t1.data();
    ADD_FAILURE() << "a tracer has no data";
  } catch (const Error &e) {
    EXPECT_EQ(
        std::string(e.what()).rfind(
            "[array] f32[2] is a traced value of the test transform; it has no concrete data", 0),
        0u)
        << e.what();
    EXPECT_EQ(e.kind(), ErrorKind::Type);
  }
  // The highest level among the inputs handles the primitive; concrete inputs ride along.
  Array c = Array::from_vector(std::vector<float>{1, 2});
  EXPECT_EQ(lax::add(c, t1).item<float>(), 42.0f);
  lax::mul(t1, t2);
  lax::neg(t2);
  EXPECT_EQ(low.seen, (std::vector<std::string>{"add@1/2"}));
  EXPECT_EQ(high.seen, (std::vector<std::string>{"mul@2/2", "neg@2/1"}));
}

TEST(Array, EscapedTracerIsReported) {
  auto ended = std::make_shared<TestLevel>();
  ended->alive = false; // its transform has returned
  Array t = Array::from_tracer(std::make_shared<TestTracer>(ended), {3}, float32, false);
  try {
    lax::exp(t);
    ADD_FAILURE() << "escaped tracer accepted";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "[exp] a value traced by the test transform was used after that "
                           "transform ended (escaped tracer)");
    EXPECT_EQ(e.kind(), ErrorKind::Type);
  }
}

// ---- parallel_for -------------------------------------------------------------------------------

TEST(ThreadPool, EveryIndexVisitedExactlyOnce) {
  ASSERT_GE(num_threads(), 1);
  for (int64_t n : {1, 2, 7, 100, 1000, 65536, 100003}) {
    for (int64_t grain : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{1000}, int64_t{1} << 15}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " grain=" << grain);
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      std::atomic<int> calls{0}, bad{0};
      parallel_for(n, grain, [&](int64_t b, int64_t e) {
        ++calls;
        if (!(0 <= b && b < e && e <= n))
          ++bad;
        for (int64_t i = b; i < e; ++i)
          hits[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
      });
      EXPECT_EQ(bad.load(), 0);
      int64_t wrong = 0;
      for (auto &h : hits)
        wrong += h.load() != 1;
      EXPECT_EQ(wrong, 0);
      EXPECT_LE(calls.load(), num_threads());
      if (n < 2 * grain) {
        EXPECT_EQ(calls.load(), 1) << "small ranges stay on one thread";
      }
    }
  }
}

TEST(ThreadPool, EmptyRangesAndTinyGrains) {
  int calls = 0;
  parallel_for(0, 1, [&](int64_t, int64_t) { ++calls; });
  parallel_for(-5, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  for (int64_t grain : {int64_t{0}, int64_t{-3}}) { // treated as 1
    std::vector<std::atomic<int>> hits(5000);
    parallel_for(5000, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        ++hits[static_cast<size_t>(i)];
    });
    for (auto &h : hits)
      ASSERT_EQ(h.load(), 1);
  }
}

TEST(ThreadPool, ExceptionsPropagateAndThePoolRecovers) {
  const int64_t n = 1 << 20;
  // From the last chunk: a worker's, whenever the range is split.
  try {
    parallel_for(n, 1, [&](int64_t, int64_t e) {
      if (e == n)
        throw Error("[test] from the last chunk", ErrorKind::Index);
    });
    ADD_FAILURE() << "exception lost";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "[test] from the last chunk");
    EXPECT_EQ(e.kind(), ErrorKind::Index);
  }
  // From the caller's own chunk, and from every chunk at once.
  EXPECT_THROW(parallel_for(n, 1,
                            [&](int64_t b, int64_t) {
                              if (b == 0)
                                throw std::runtime_error("first");
                            }),
               std::runtime_error);
  EXPECT_THROW(parallel_for(n, 1, [&](int64_t, int64_t) { throw std::out_of_range("all"); }),
               std::out_of_range);
  // Afterwards the pool still covers every index.
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  parallel_for(n, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      ++hits[static_cast<size_t>(i)];
  });
  int64_t wrong = 0;
  for (auto &h : hits)
    wrong += h.load() != 1;
  EXPECT_EQ(wrong, 0);
}

TEST(ThreadPool, NestedCallsRunInline) {
  std::atomic<int> outer{0}, inner{0}, wrong{0};
  parallel_for(1 << 16, 1, [&](int64_t, int64_t) {
    ++outer;
    auto me = std::this_thread::get_id();
    int calls = 0;
    parallel_for(100000, 1, [&](int64_t b, int64_t e) {
      ++calls;
      ++inner;
      if (b != 0 || e != 100000 || std::this_thread::get_id() != me)
        ++wrong;
    });
    if (calls != 1)
      ++wrong;
  });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(inner.load(), outer.load());
  EXPECT_GE(outer.load(), 1);
}

TEST(ThreadPool, ConcurrentCallersBothComplete) {
  const int64_t n = 1 << 18;
  std::vector<std::atomic<int>> a(n), b(n);
  auto run = [n](std::vector<std::atomic<int>> &hits) {
    for (int rep = 0; rep < 20; ++rep)
      parallel_for(n, 1024, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i)
          hits[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
      });
  };
  std::thread t1(run, std::ref(a)), t2(run, std::ref(b));
  t1.join();
  t2.join();
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i)
    wrong += (a[i].load() != 20) + (b[i].load() != 20);
  EXPECT_EQ(wrong, 0);
}

} // namespace

TEST(Array, ElementCountOverflowIsAnError) {
  expect_error([] { num_elements({int64_t{1} << 62, 4}); }, {"[shape]", "overflows int64"});
  expect_error([] { zeros({int64_t{1} << 62, 4}); }, {"overflows int64"});
  expect_error([] { lax::reshape(zeros({0}), {int64_t{1} << 62, 4}); }, {"overflows int64"});
}
