// The CUDA runtime's linear-algebra calls (strata_rt_cuda_<op>): bad dtypes and a missing device
// are recorded errors, never crashes; on a GPU, results on device buffers against hand-computed
// factorizations (numpy/scipy give the same).
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/Linalg.h"
#include "strata/dtype.h"
#include "strata/error.h"

using namespace strata;
using namespace strata::cuda;

namespace {

/// A fake device address: the dtype check runs before any device access.
constexpr int64_t kAddr = 0x7f0000000000;
constexpr int64_t kF64 = static_cast<int64_t>(DType::Float64);

/// The pending C ABI error's message (cleared), or "" when there is none.
std::string pending_message() {
  std::string msg;
  try {
    rethrow_pending_error();
  } catch (const Error &e) {
    msg = e.what();
  }
  return msg;
}

int64_t addr(void *p) { return static_cast<int64_t>(reinterpret_cast<intptr_t>(p)); }

} // namespace

TEST(CudaLinalg, NonFloatDtypesAreRecordedErrorsNamingTheOp) {
  clear_pending_error();
  strata_rt_cuda_cholesky(static_cast<int64_t>(DType::Int32), 1, 2, kAddr, kAddr, 1);
  std::string msg = pending_message();
  EXPECT_NE(msg.find("[cholesky] the CUDA runtime takes float32 or float64 matrices, not int32"),
            std::string::npos)
      << msg;
  strata_rt_cuda_svd(99, 1, 2, 2, kAddr, kAddr, 0, 0, 0);
  msg = pending_message();
  EXPECT_NE(msg.find("[svd] the CUDA runtime takes float32 or float64 matrices, not code 99"),
            std::string::npos)
      << msg;
}

TEST(CudaLinalg, APendingErrorSkipsLaterCalls) {
  clear_pending_error();
  strata_rt_cuda_qr(static_cast<int64_t>(DType::Int8), 1, 2, 2, kAddr, kAddr, kAddr, 1);
  strata_rt_cuda_eigh(static_cast<int64_t>(DType::Bool), 1, 2, kAddr, kAddr, kAddr, 1);
  std::string msg = pending_message();
  EXPECT_NE(msg.find("[qr]"), std::string::npos) << msg; // the first failure is kept
  EXPECT_EQ(pending_message(), "");
}

TEST(CudaLinalg, WithoutADeviceTheCallRecordsTheDriversReason) {
  if (device_count() > 0)
    GTEST_SKIP() << "a CUDA device is present; the no-device behaviour cannot be observed";
  clear_pending_error();
  strata_rt_cuda_lu(kF64, 1, 2, 2, kAddr, kAddr, kAddr, kAddr);
  std::string msg = pending_message();
  EXPECT_NE(msg.find("cuda"), std::string::npos) << msg;
}

TEST(CudaLinalg, FactorizesDeviceBuffers) {
  if (device_count() == 0)
    GTEST_SKIP() << "no GPU: " << unavailable_reason();
  set_current_device(0);
  clear_pending_error();
  auto put = [](const std::vector<double> &h) {
    void *p = allocate(0, h.size() * sizeof(double));
    copy_to_device(0, p, h.data(), h.size() * sizeof(double));
    return p;
  };
  auto get = [](void *p, size_t n) {
    std::vector<double> h(n);
    copy_to_host(0, h.data(), p, n * sizeof(double));
    return h;
  };
  // cholesky([[4, 2], [2, 3]]) = [[2, 0], [1, sqrt(2)]].
  void *a = put({4, 2, 2, 3});
  void *l = allocate(0, 4 * sizeof(double));
  strata_rt_cuda_cholesky(kF64, 1, 2, addr(a), addr(l), 1);
  ASSERT_EQ(pending_message(), "");
  std::vector<double> got = get(l, 4);
  EXPECT_DOUBLE_EQ(got[0], 2);
  EXPECT_DOUBLE_EQ(got[1], 0);
  EXPECT_DOUBLE_EQ(got[2], 1);
  EXPECT_NEAR(got[3], std::sqrt(2.0), 1e-15);
  // lu([[1, 2], [3, 4]]): rows swapped, lu = [[3, 4], [1/3, 2/3]], pivots [1, 1], perm [1, 0].
  void *b = put({1, 2, 3, 4});
  void *lu = allocate(0, 4 * sizeof(double));
  void *ints = allocate(0, 4 * sizeof(int32_t));
  strata_rt_cuda_lu(kF64, 1, 2, 2, addr(b), addr(lu), addr(ints),
                    addr(static_cast<int32_t *>(ints) + 2));
  ASSERT_EQ(pending_message(), "");
  got = get(lu, 4);
  EXPECT_DOUBLE_EQ(got[0], 3);
  EXPECT_DOUBLE_EQ(got[1], 4);
  EXPECT_NEAR(got[2], 1.0 / 3, 1e-15);
  EXPECT_NEAR(got[3], 2.0 / 3, 1e-15);
  std::vector<int32_t> piv(4);
  copy_to_host(0, piv.data(), ints, sizeof(int32_t) * 4);
  EXPECT_EQ(piv, (std::vector<int32_t>{1, 1, 1, 0}));
  for (void *p : {a, l, b, lu, ints})
    deallocate(0, p);
}
