// The CUDA runtime's FFT (strata_rt_cuda_fft on cuFFT): the library resolves without a GPU, bad
// arguments are recorded errors naming the op, and on a GPU every kind, dtype and rank agrees
// with libstrata's FFTW kernel (the CPU jit's and eager's) on device buffers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "cuda_test_util.h"
#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/Fft.h"
#include "runtime/cuda/LibraryApi.h"
#include "strata/dtype.h"
#include "strata/error.h"
#include "strata/internal/fft.h"

using namespace strata;
using namespace strata::cuda;
using cudatest::pending_message;

namespace {

constexpr int64_t kAddr = 0x7f0000000000;
constexpr int64_t kF32 = static_cast<int64_t>(DType::Float32);
constexpr int64_t kF64 = static_cast<int64_t>(DType::Float64);

bool cufft_installed() {
  return std::filesystem::exists("/usr/local/cuda/lib64/libcufft.so.12") || fft_available();
}

/// Reals per transform on the input and output side of `kind` for these lengths.
std::pair<int64_t, int64_t> reals(FftKind kind, const std::vector<int64_t> &n) {
  int64_t full = 1, half = 1;
  for (size_t i = 0; i < n.size(); ++i) {
    full *= n[i];
    half *= i + 1 == n.size() ? n[i] / 2 + 1 : n[i];
  }
  switch (kind) {
  case FftKind::RFFT:
    return {full, 2 * half};
  case FftKind::IRFFT:
    return {2 * half, full};
  default:
    return {2 * full, 2 * full};
  }
}

/// Runs one transform on cuda:0 and on the host kernel; returns the largest difference
/// relative to the largest host magnitude.
template <class R>
double device_vs_host(FftKind kind, const std::vector<int64_t> &n, int64_t batch, uint32_t seed) {
  auto [in_reals, out_reals] = reals(kind, n);
  std::vector<R> in(static_cast<size_t>(batch * in_reals)), want(batch * out_reals),
      got(batch * out_reals);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (R &v : in)
    v = static_cast<R>(u(rng));
  DType real = sizeof(R) == 8 ? DType::Float64 : DType::Float32;
  fft_run(kind, real, n, batch, in.data(), want.data());
  size_t in_bytes = in.size() * sizeof(R), out_bytes = got.size() * sizeof(R);
  void *din = allocate(0, in_bytes), *dout = allocate(0, out_bytes);
  copy_to_device(0, din, in.data(), in_bytes);
  int64_t len[3] = {1, 1, 1};
  for (size_t i = 0; i < n.size(); ++i)
    len[i] = n[i];
  strata_rt_cuda_fft(static_cast<int64_t>(kind), static_cast<int64_t>(real),
                     static_cast<int64_t>(n.size()), len[0], len[1], len[2], batch,
                     reinterpret_cast<int64_t>(din), reinterpret_cast<int64_t>(dout));
  std::string msg = pending_message();
  EXPECT_EQ(msg, "");
  copy_to_host(0, got.data(), dout, out_bytes);
  // The input is only read (C2R runs on a copy).
  std::vector<R> after(in.size());
  copy_to_host(0, after.data(), din, in_bytes);
  EXPECT_EQ(after, in) << "the operand changed";
  deallocate(0, din);
  deallocate(0, dout);
  double scale = 1e-30, diff = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::abs(static_cast<double>(want[i])));
    diff = std::max(diff, std::abs(static_cast<double>(want[i]) - got[i]));
  }
  return diff / scale;
}

} // namespace

TEST(CudaFft, CufftResolvesEverySymbolWithoutADevice) {
  if (!cufft_installed())
    GTEST_SKIP() << "cuFFT is not installed: " << api::fft_error();
  ASSERT_TRUE(fft_available()) << fft_unavailable_reason();
  EXPECT_EQ(fft_unavailable_reason(), "");
  int version = 0;
  EXPECT_EQ(api::fft()->cufftGetVersion(&version), api::CUFFT_SUCCESS);
  EXPECT_GE(version, 11000) << "cuFFT " << version;
  EXPECT_EQ(api::fft_result_name(8), "CUFFT_INVALID_SIZE");
  EXPECT_EQ(api::fft_result_name(99), "cuFFT error 99");
}

TEST(CudaFft, BadArgumentsAreRecordedErrorsNamingTheOp) {
  clear_pending_error();
  strata_rt_cuda_fft(7, kF32, 1, 8, 1, 1, 1, kAddr, kAddr);
  std::string msg = pending_message();
  EXPECT_NE(msg.find("[fft] kind 7 is not 0 (FFT), 1 (IFFT), 2 (RFFT) or 3 (IRFFT)"),
            std::string::npos)
      << msg;
  strata_rt_cuda_fft(0, static_cast<int64_t>(DType::Int32), 1, 8, 1, 1, 1, kAddr, kAddr);
  msg = pending_message();
  EXPECT_NE(msg.find("[fft] cuFFT takes float32 or float64"), std::string::npos) << msg;
  strata_rt_cuda_fft(0, kF64, 4, 8, 1, 1, 1, kAddr, kAddr);
  msg = pending_message();
  EXPECT_NE(msg.find("[fft] cuFFT runs over 1 to 3 trailing axes, not 4"), std::string::npos)
      << msg;
  strata_rt_cuda_fft(0, kF64, 1, -2, 1, 1, 1, kAddr, kAddr);
  msg = pending_message();
  EXPECT_NE(msg.find("[fft] negative length -2"), std::string::npos) << msg;
}

TEST(CudaFft, AnEmptyResultTouchesNoDevice) {
  clear_pending_error();
  strata_rt_cuda_fft(2, kF32, 1, 8, 1, 1, 0, kAddr, kAddr); // batch 0
  EXPECT_EQ(pending_message(), "");
}

TEST(CudaFft, WithoutADeviceTheCallRecordsTheReason) {
  if (device_count() > 0)
    GTEST_SKIP() << "a CUDA device is present; the no-device behaviour cannot be observed";
  clear_pending_error();
  strata_rt_cuda_fft(0, kF32, 1, 8, 1, 1, 1, kAddr, kAddr);
  std::string msg = pending_message();
  EXPECT_FALSE(msg.empty());
  EXPECT_TRUE(msg.find("cuda") != std::string::npos || msg.find("cuFFT") != std::string::npos)
      << msg;
}

TEST(CudaFft, EveryKindDtypeAndRankMatchesTheHostKernel) {
  if (device_count() == 0)
    GTEST_SKIP() << "no GPU: " << unavailable_reason();
  set_current_device(0);
  clear_pending_error();
  const std::vector<std::vector<int64_t>> lengths = {{1},    {8},    {7},       {1000},
                                                     {4, 6}, {5, 3}, {2, 3, 4}, {3, 5, 7}};
  uint32_t seed = 1;
  for (FftKind kind : {FftKind::FFT, FftKind::IFFT, FftKind::RFFT, FftKind::IRFFT})
    for (const auto &n : lengths)
      for (int64_t batch : {1, 3}) {
        std::string what = "kind " + std::to_string(static_cast<int>(kind)) + " lengths " +
                           std::to_string(n.size()) + "-d first " + std::to_string(n[0]) +
                           " batch " + std::to_string(batch);
        EXPECT_LT(device_vs_host<float>(kind, n, batch, seed++), 2e-5) << what << " f32";
        EXPECT_LT(device_vs_host<double>(kind, n, batch, seed++), 1e-12) << what << " f64";
      }
}

TEST(CudaFft, ZeroLengthTransformsGiveZeros) {
  if (device_count() == 0)
    GTEST_SKIP() << "no GPU: " << unavailable_reason();
  set_current_device(0);
  clear_pending_error();
  // RFFT of 0 points: one (zero) output bin per transform.
  std::vector<float> got(4, 1.0f);
  void *out = allocate(0, got.size() * sizeof(float));
  copy_to_device(0, out, got.data(), got.size() * sizeof(float));
  strata_rt_cuda_fft(2, kF32, 1, 0, 1, 1, 2, kAddr, reinterpret_cast<int64_t>(out));
  ASSERT_EQ(pending_message(), "");
  copy_to_host(0, got.data(), out, got.size() * sizeof(float));
  EXPECT_EQ(got, std::vector<float>(4, 0.0f));
  deallocate(0, out);
}

TEST(CudaFft, ThreadsShareTheCachedPlans) {
  if (device_count() == 0)
    GTEST_SKIP() << "no GPU: " << unavailable_reason();
  std::vector<double> errors(4, 1.0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      set_current_device(0);
      clear_pending_error();
      double worst = 0;
      for (int i = 0; i < 5; ++i)
        worst =
            std::max(worst, device_vs_host<double>(FftKind::FFT, {64, 32}, 5, 100 + t * 10 + i));
      errors[t] = worst;
    });
  for (std::thread &th : threads)
    th.join();
  for (double e : errors)
    EXPECT_LT(e, 1e-12);
}
