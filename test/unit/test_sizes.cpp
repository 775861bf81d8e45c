// Checked size arithmetic: the helpers' edge cases, and the clean AllocationError that every
// creation op and shape rule raises for a result too large to exist or to allocate.
#include <cstdint>
#include <string>

#include "strata/allocation_error.h"
#include "strata/device.h"
#include "strata/random.h"
#include "strata/sizes.h"
#include "test_util.h"

namespace strata {
namespace {

using testutil::expect_error;

constexpr int64_t k31 = int64_t{1} << 31, k47 = int64_t{1} << 47, k61 = int64_t{1} << 61,
                  k62 = int64_t{1} << 62;

/// Runs `fn` and checks it throws AllocationError (not just any strata::Error) whose message
/// holds every fragment.
template <class F> void expect_too_large(F &&fn, std::initializer_list<const char *> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected strata::AllocationError";
  } catch (const AllocationError &e) {
    std::string msg = e.what();
    for (const char *f : fragments)
      EXPECT_NE(msg.find(f), std::string::npos) << "message '" << msg << "' lacks '" << f << "'";
  } catch (const std::exception &e) {
    ADD_FAILURE() << "expected strata::AllocationError, got: " << e.what();
  }
}

TEST(Sizes, FormatByteCount) {
  EXPECT_EQ(format_byte_count(0), "0 B");
  EXPECT_EQ(format_byte_count(1023), "1023 B");
  EXPECT_EQ(format_byte_count(1024), "1 KiB");
  EXPECT_EQ(format_byte_count(1536), "1.5 KiB");
  EXPECT_EQ(format_byte_count(1024 * 1024 - 1), "1 MiB"); // rounds to one decimal
  EXPECT_EQ(format_byte_count(3.0L * (1 << 30)), "3 GiB");
  EXPECT_EQ(format_byte_count(16.0L * k62 / 4), "16 EiB");
  EXPECT_EQ(format_byte_count(1024.0L * k62 / 4), "1 ZiB"); // past any integer type
}

TEST(Sizes, CheckedNumElementsEdgeCases) {
  EXPECT_EQ(checked_num_elements({}, "t"), 1);
  EXPECT_EQ(checked_num_elements({0}, "t"), 0);
  EXPECT_EQ(checked_num_elements({1}, "t"), 1);
  EXPECT_EQ(checked_num_elements({INT64_MAX}, "t"), INT64_MAX);
  EXPECT_EQ(checked_num_elements({0, INT64_MAX, INT64_MAX}, "t"), 0);
  EXPECT_EQ(checked_num_elements({3, 5, 7}, "t"), 105);
  expect_too_large([] { checked_num_elements({INT64_MAX, 2}, "t"); },
                   {"[t] too large", "overflows int64"});
  expect_too_large([] { checked_num_elements({k31, k31, 4}, "t"); }, {"overflows int64"});
  // A negative dimension is bad input (ValueError), not a size problem.
  try {
    checked_num_elements({2, -1}, "t");
    ADD_FAILURE() << "expected an error";
  } catch (const AllocationError &) {
    ADD_FAILURE() << "a negative dimension is not an AllocationError";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("[t] negative dimension in shape [2,-1]"),
              std::string::npos)
        << e.what();
  }
}

TEST(Sizes, CheckedByteSizeEdgeCases) {
  EXPECT_EQ(checked_byte_size(float32, {}, "t"), 4u);
  EXPECT_EQ(checked_byte_size(float64, {0, 5}, "t"), 0u);
  EXPECT_EQ(checked_byte_size(bool_, {INT64_MAX}, "t"), static_cast<size_t>(INT64_MAX));
  EXPECT_EQ(checked_byte_size(float32, {k61 - 1}, "t"), static_cast<size_t>(4 * (k61 - 1)));
  expect_too_large(
      [] { checked_byte_size(float32, {k61}, "t"); },
      {"[t] too large: f32[2305843009213693952] needs 8 EiB", "more than an address space holds"});
  expect_too_large([] { checked_byte_size(complex128, {k62}, "t"); }, {"needs 64 EiB"});
  expect_too_large([] { checked_byte_size(float32, {k62, 4}, "t"); },
                   {"f32[4611686018427387904,4] needs 64 EiB", "element count overflows int64"});
}

TEST(Sizes, CheckedDimensionArithmetic) {
  EXPECT_EQ(checked_dim_add(INT64_MAX - 1, 1, "t"), INT64_MAX);
  EXPECT_EQ(checked_dim_add(-5, 3, "t"), -2);
  EXPECT_EQ(checked_dim_mul(k31, k31, "t"), k62);
  expect_too_large([] { checked_dim_add(INT64_MAX, 1, "t"); }, {"[t] too large", "overflows"});
  expect_too_large([] { checked_dim_mul(k62, 2, "t"); }, {"[t] too large", "overflows"});
}

TEST(Sizes, CreationOpsTooLarge) {
  expect_too_large([] { zeros({k62}, float32); },
                   {"[zeros] too large: f32[4611686018427387904] needs 16 EiB"});
  expect_too_large([] { ones({k31, k31}, float32); },
                   {"[ones] too large: f32[2147483648,2147483648] needs 16 EiB"});
  expect_too_large([] { full({k62}, 2.0, float64); }, {"[full] too large: f64[", "32 EiB"});
  expect_too_large([] { full({k62}, Array(1.0f)); }, {"[full] too large: f32["});
  expect_too_large([] { eye(k31, std::nullopt, 0, float32); },
                   {"[eye] too large: f32[2147483648,2147483648] needs 16 EiB"});
  expect_too_large([] { eye(k31, std::nullopt, k31 + 5, float32); }, {"[eye] too large"});
  expect_too_large([] { arange(0.0, static_cast<double>(k62), 1.0, float32); },
                   {"[arange] too large: f32[4611686018427387904] needs 16 EiB"});
  expect_too_large([] { arange(0.0, 1e30, 1.0, float32); }, {"[arange] too large", "int64"});
  expect_too_large([] { linspace(0.0, 1.0, k62, true, float32); }, {"[linspace] too large"});
  expect_too_large([] { lax::iota(float32, {k61}, 0); },
                   {"[iota] too large: f32[2305843009213693952] needs 8 EiB"});
  // The message of the old check keeps its words.
  expect_too_large([] { zeros({k62, 4}); }, {"overflows int64"});
}

TEST(Sizes, RandomOpsTooLarge) {
  Array k = random::key(0);
  expect_too_large([&] { random::normal(k, {k62}); },
                   {"[random.normal] too large: f32[4611686018427387904] needs 16 EiB"});
  expect_too_large([&] { random::uniform(k, {k62}); }, {"[random.uniform] too large"});
  expect_too_large([&] { random::bits(k, {k62}); }, {"[random.bits] too large: u32["});
  expect_too_large([&] { random::randint(k, {k62}, 0, 10); }, {"[random.randint] too large"});
  // Below PTRDIFF_MAX the counter limit of one draw stays a ValueError, and the 64-bit word
  // count (2 * n) cannot wrap into a small draw.
  expect_error([&] { random::uniform(k, {k61 - 1}, float32); }, {"cannot draw"});
  expect_error([&] { random::split(k, INT64_MAX); }, {"cannot draw"});
}

TEST(Sizes, OutOfMemoryNamesTheOpAndTheArray) {
  // 512 TiB: within PTRDIFF_MAX, past any 47-bit user address space, so it cannot be mapped
  // whatever the overcommit policy.
  expect_too_large([] { zeros({k47}, float32); },
                   {"[zeros] out of memory: f32[140737488355328] needs 512 TiB of host memory"});
  expect_too_large([] { lax::broadcast_in_dim(Array(1.0f), {k47}, {}); },
                   {"[broadcast_in_dim] out of memory: f32[140737488355328] needs 512 TiB"});
  expect_too_large([] { Array::empty({k47}, float32); },
                   {"[array] out of memory: f32[140737488355328]"});
  // A failed allocation leaves the counters as they were.
  MemoryStats before = memory_stats();
  expect_too_large([] { ones({k47}, float32); }, {"out of memory"});
  EXPECT_EQ(memory_stats().live_bytes, before.live_bytes);
  EXPECT_EQ(memory_stats().live_buffers, before.live_buffers);
}

/// A device whose allocator refuses everything, as the CUDA caching allocator does when
/// cudaMalloc fails after releasing its cache.
class FullDevice : public DeviceBackend {
public:
  int device_count() override { return 1; }
  std::string unavailable_reason() override { return ""; }
  std::string describe(int) override { return "full device"; }
  void *allocate(int, size_t nbytes) override {
    ++calls;
    throw AllocationError("[cuda] out of memory on fake:0: cannot allocate " +
                          format_byte_count(static_cast<long double>(nbytes)));
  }
  void deallocate(int, void *, size_t) noexcept override {}
  void copy_to_host(int, void *, const void *, size_t) override {}
  void copy_from_host(int, void *, const void *, size_t) override {}
  void copy_between(int, const void *, int, void *, size_t) override {}
  int calls = 0;
};

TEST(Sizes, DeviceAllocationFailureHasTheSameForm) {
  FullDevice full;
  register_device_backend(Device::Kind::CUDA, &full);
  const Device gpu{Device::Kind::CUDA, 0};
  expect_too_large([&] { empty_on({256, 4}, float32, gpu); },
                   {"[array] out of memory: f32[256,4] needs 4 KiB of cuda:0 memory",
                    "([cuda] out of memory on fake:0: cannot allocate 4 KiB)"});
  {
    AllocationScope scope("zeros");
    expect_too_large([&] { empty_on({3}, float64, gpu); }, {"[zeros] out of memory: f64[3]"});
  }
  // Too large for any device: refused before the backend is asked.
  expect_too_large([&] { empty_on({k62}, float32, gpu); },
                   {"[array] too large: f32[4611686018427387904] needs 16 EiB"});
  EXPECT_EQ(full.calls, 2);
  register_device_backend(Device::Kind::CUDA, nullptr);
}

TEST(Sizes, ShapeRulesTooLarge) {
  Array x = Array::from_vector<float>({1, 2, 3, 4}, {4});
  expect_too_large([&] { lax::broadcast_in_dim(x, {k62, 4}, {1}); },
                   {"[broadcast_in_dim] too large: f32[4611686018427387904,4] needs 64 EiB"});
  expect_too_large([] { lax::reshape(zeros({0}), {k62, 4}); }, {"overflows int64"});
  expect_too_large([&] { lax::pad(x, Array(0.0f), {0}, {0}, {k62}); },
                   {"[pad] too large", "overflows int64"});
  expect_too_large([&] { lax::pad(x, Array(0.0f), {INT64_MAX}, {1}, {0}); }, {"[pad] too large"});
  expect_too_large([&] { lax::pad(x, Array(0.0f), {0}, {0}, {k61}); },
                   {"[pad] too large: f32[6917529027641081860] needs 24 EiB"});
  // Dilation past int64 in the convolution's output size.
  Array lhs = ones({1, 1, 4}, float32), rhs = ones({1, 1, 2}, float32);
  expect_too_large([&] { lax::conv_general_dilated(lhs, rhs, {1}, {{0, 0}}, {k62}); },
                   {"[conv_general_dilated] too large", "overflows int64"});
  expect_too_large([&] { lax::conv_general_dilated(lhs, rhs, {1}, {{INT64_MAX, 1}}); },
                   {"[conv_general_dilated] too large"});
}

TEST(Sizes, AbstractEvaluationOfHugeShapesWorks) {
  // Abstract values of any size are fine; only allocation fails.
  auto out = eval_shape([] { return zeros({k62}, float32); });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{k62}));
  EXPECT_EQ(out[0].dtype, float32);
  auto eye_out = eval_shape([] { return eye(k31, std::nullopt, 0, float32); });
  EXPECT_EQ(eye_out.at(0).shape, (Shape{k31, k31}));
  auto iota_out = eval_shape([] { return lax::iota(float32, {k61}, 0); });
  EXPECT_EQ(iota_out.at(0).shape, (Shape{k61}));
  // Shape rules on huge abstract operands: dot_general, concatenate (which overflows), gather.
  FlatFn dot = [](const std::vector<Array> &v) {
    return std::vector<Array>{lax::dot_general(v[0], v[1], {{1}, {0}, {}, {}})};
  };
  auto d = eval_shape_flat(dot, {{{k31, 2}, float32}, {{2, k31}, float32}});
  EXPECT_EQ(d.at(0).shape, (Shape{k31, k31}));
  FlatFn cat = [](const std::vector<Array> &v) {
    return std::vector<Array>{lax::concatenate({v[0], v[0]}, 0)};
  };
  EXPECT_EQ(eval_shape_flat(cat, {{{k61}, float32}}).at(0).shape, (Shape{k62}));
  expect_too_large([&] { eval_shape_flat(cat, {{{INT64_MAX - 1}, float32}}); },
                   {"[concatenate] too large", "overflows int64"});
  FlatFn gather = [](const std::vector<Array> &v) {
    return std::vector<Array>{lax::gather(v[0], v[1], {{1}, {}, {0}}, {k31})};
  };
  auto g = eval_shape_flat(gather, {{{k62}, float32}, {{k31, 1}, int32}});
  EXPECT_EQ(g.at(0).shape, (Shape{k31, k31}));
}

} // namespace
} // namespace strata
