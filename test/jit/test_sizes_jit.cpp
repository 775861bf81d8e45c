// Jitted functions whose values are too large to exist or to allocate fail cleanly (an
// AllocationError naming the op, the array and the bytes), and the jitted function works after.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "strata/allocation_error.h"
#include "strata/jit.h"
#include "strata/strata.h"

namespace {

constexpr int64_t k47 = int64_t{1} << 47, k62 = int64_t{1} << 62;

template <class F> std::string allocation_error_of(F &&fn) {
  try {
    fn();
  } catch (const strata::AllocationError &e) {
    return e.what();
  } catch (const std::exception &e) {
    return std::string("not an AllocationError: ") + e.what();
  }
  return "no error";
}

TEST(JitSizes, OutputPastAddressSpaceFailsAtStaging) {
  auto f = strata::jit(
      [](const strata::Array &x) { return strata::lax::broadcast_in_dim(x, {k62}, {}); });
  std::string msg = allocation_error_of([&] { f(strata::Array(1.0f)); });
  EXPECT_NE(msg.find("[broadcast_in_dim] too large: f32[4611686018427387904] needs 16 EiB"),
            std::string::npos)
      << msg;
}

TEST(JitSizes, OutputThatCannotBeAllocatedNamesJit) {
  // 512 TiB: a valid size, past any 47-bit user address space, so the output allocation fails.
  auto f = strata::jit(
      [](const strata::Array &x) { return strata::lax::broadcast_in_dim(x, {k47}, {}); });
  strata::MemoryStats before = strata::memory_stats();
  std::string msg = allocation_error_of([&] { f(strata::Array(1.0f)); });
  EXPECT_NE(msg.find("[jit] out of memory: f32[140737488355328] needs 512 TiB of host memory"),
            std::string::npos)
      << msg;
  EXPECT_EQ(strata::memory_stats().live_buffers, before.live_buffers);
  // The same executable still runs where its output fits.
  auto g =
      strata::jit([](const strata::Array &x) { return strata::lax::broadcast_in_dim(x, {3}, {}); });
  EXPECT_EQ(g(strata::Array(2.0f)).to_vector<float>(), (std::vector<float>{2, 2, 2}));
}

TEST(JitSizes, EvalShapeOfJittedHugeOutputWorks) {
  auto f = strata::jit(
      [](const strata::Array &x) { return strata::lax::broadcast_in_dim(x, {k62}, {}); });
  auto out = strata::eval_shape([&](const strata::Array &x) { return f(x); }, strata::Array(1.0f));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (strata::Shape{k62}));
}

} // namespace
