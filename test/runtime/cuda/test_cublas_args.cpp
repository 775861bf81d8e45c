// cuBLAS without a GPU: the libraries load (they need no driver to load) and resolve every
// symbol Strata uses; strata_rt_cuda_gemm and gemm check their arguments before touching a
// device and name the operand whose strides cuBLAS cannot take.
#include <gtest/gtest.h>

#include <filesystem>

#include "runtime/cuda/CudaRuntime.h"
#include "test_util.h"

using namespace strata;
using namespace strata::cuda;
using testutil::expect_error;

namespace {

/// A fake device address: the checks run before any device access.
constexpr int64_t kAddr = 0x7f0000000000;

/// strata_rt_cuda_gemm with row-major A (m x k), B (k x n), C (m x n) and the given overrides.
struct Call {
  int64_t type = 0, batch = 1, m = 64, n = 16, k = 32;
  int64_t a_bs = 0, a_rs = 32, a_cs = 1, b_bs = 0, b_rs = 16, b_cs = 1, c_bs = 0, c_rs = 16,
          c_cs = 1;
  std::string run() const {
    clear_pending_error();
    strata_rt_cuda_gemm(type, batch, m, n, k, kAddr, 0, a_bs, a_rs, a_cs, kAddr, 0, b_bs, b_rs,
                        b_cs, kAddr, 0, c_bs, c_rs, c_cs, 0);
    std::string msg;
    try {
      rethrow_pending_error();
    } catch (const Error &e) {
      msg = e.what();
    }
    return msg;
  }
};

void expect_has(const std::string &msg, std::initializer_list<const char *> parts) {
  ASSERT_FALSE(msg.empty()) << "expected an error";
  for (const char *p : parts)
    EXPECT_NE(msg.find(p), std::string::npos) << "'" << msg << "' lacks '" << p << "'";
}

/// The error a call with valid arguments gets: none with a device, else the device's absence.
void expect_arguments_accepted(const std::string &msg) {
  EXPECT_EQ(msg.find("strides"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("[cuda_gemm]"), std::string::npos) << msg;
  if (device_count() == 0)
    EXPECT_NE(msg.find("cuda:0 is not available"), std::string::npos) << msg;
}

} // namespace

TEST(CublasLoad, LoadsWithoutADriverAndResolvesEverySymbol) {
  if (!std::filesystem::exists("/usr/local/cuda/lib64/libcublasLt.so.13") && !blas_available())
    GTEST_SKIP() << "cuBLAS 13 is not installed: " << blas_unavailable_reason();
  ASSERT_TRUE(blas_available()) << blas_unavailable_reason();
  EXPECT_EQ(blas_unavailable_reason(), "");
  EXPECT_GE(blas_version(), 130000u) << "cuBLASLt 13 or later";
}

TEST(CublasArgs, RowAndColumnMajorOperandsAreAccepted) {
  if (device_count() > 0)
    GTEST_SKIP() << "with a device the call would touch the fake addresses";
  expect_arguments_accepted(Call{}.run());
  Call col; // all column-major
  col.a_rs = 1, col.a_cs = 64, col.b_rs = 1, col.b_cs = 32, col.c_rs = 1, col.c_cs = 64;
  expect_arguments_accepted(col.run());
  Call padded; // leading dimensions larger than the extents
  padded.a_rs = 40, padded.b_cs = 1, padded.b_rs = 100, padded.c_rs = 17;
  expect_arguments_accepted(padded.run());
  Call vec; // a 1-row C takes any row stride
  vec.m = 1, vec.c_rs = 12345, vec.a_rs = 999;
  expect_arguments_accepted(vec.run());
  Call batched;
  batched.batch = 3, batched.a_bs = 64 * 32, batched.b_bs = 0, batched.c_bs = 64 * 16;
  expect_arguments_accepted(batched.run());
}

TEST(CublasArgs, OperandsWithoutAUnitStrideAreNamed) {
  Call a;
  a.a_rs = 2, a.a_cs = 64;
  expect_has(a.run(), {"[cuda_gemm] A (64 x 32) has strides (row 2, col 64)", "one unit stride"});
  Call b;
  b.b_rs = 32, b.b_cs = 2;
  expect_has(b.run(), {"B (32 x 16) has strides (row 32, col 2)"});
  Call c;
  c.c_rs = 3, c.c_cs = 3;
  expect_has(c.run(), {"C (64 x 16) has strides (row 3, col 3)"});
  Call overlap; // unit stride but a leading dimension below the other extent
  overlap.a_rs = 8;
  expect_has(overlap.run(), {"A (64 x 32) has strides (row 8, col 1)"});
  Call transposed_c; // the same checks when C is column-major (the product is not transposed)
  transposed_c.c_rs = 1, transposed_c.c_cs = 64, transposed_c.b_rs = 5, transposed_c.b_cs = 7;
  expect_has(transposed_c.run(), {"B (32 x 16) has strides (row 5, col 7)"});
}

TEST(CublasArgs, TypeExtentsAndBatchStridesAreChecked) {
  Call t;
  t.type = 7;
  expect_has(t.run(), {"[cuda_gemm] type 7 is not 0 (f32), 1 (f64), 2 (f16) or 3 (bf16)"});
  Call neg;
  neg.k = -1;
  expect_has(neg.run(), {"negative extent", "k -1"});
  Call c0;
  c0.batch = 4, c0.c_bs = 0;
  expect_has(c0.run(), {"batch strides", "C 0"});
  Call empty; // nothing to compute: no error even without a device
  empty.m = 0;
  EXPECT_EQ(empty.run(), "");
}

TEST(CublasArgs, PendingErrorSkipsLaterCalls) {
  Call bad;
  bad.a_rs = 2, bad.a_cs = 64;
  clear_pending_error();
  strata_rt_cuda_gemm(0, 1, 64, 16, 32, kAddr, 0, 0, 2, 64, kAddr, 0, 0, 16, 1, kAddr, 0, 0, 16, 1,
                      0);
  strata_rt_cuda_gemm(9, 1, 1, 1, 1, kAddr, 0, 0, 1, 1, kAddr, 0, 0, 1, 1, kAddr, 0, 0, 1, 1, 0);
  expect_error([] { rethrow_pending_error(); }, {"A (64 x 32)"});
}

TEST(CublasArgs, EpiloguesNeedWhatCublasLtTakes) {
  GemmArgs g;
  g.m = 8, g.n = 4, g.k = 2;
  g.a = MatrixRef{reinterpret_cast<void *>(kAddr), 0, 0, 2, 1};
  g.b = MatrixRef{reinterpret_cast<void *>(kAddr), 0, 0, 4, 1};
  g.c = MatrixRef{reinterpret_cast<void *>(kAddr), 0, 0, 1, 8}; // column-major C
  g.epilogue = Epilogue::Bias;
  expect_error([&] { gemm(0, g); }, {"[cuda_gemm] the bias epilogue needs a bias vector"});
  g.bias = reinterpret_cast<void *>(kAddr);
  expect_error([&] { gemm(0, g); }, {"bias epilogue needs a row-major C", "C (8 x 4)"});
  g.type = GemmType::F64;
  g.epilogue = Epilogue::Relu;
  expect_error([&] { gemm(0, g); }, {"no epilogues for f64"});
}
