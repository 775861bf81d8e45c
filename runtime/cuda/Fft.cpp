// strata_rt_cuda_fft: cuFFT plans made with cufftMakePlanMany64 (cached per device by kind,
// dtype, lengths and batch), executed on the device's stream with a work area from its caching
// allocator; inverses scaled by cuBLAS.
#include "runtime/cuda/Fft.h"

#include <algorithm>
#include <memory>
#include <string>

#include "runtime/cuda/LibraryState.h"
#include "strata/dtype.h"

namespace strata::cuda {
namespace {

constexpr const char *kOp = "fft";

/// cuFFT's transform type for kind (0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT) in f32 or f64.
int fft_type(int64_t kind, bool f64) {
  if (kind == 2)
    return f64 ? api::CUFFT_D2Z : api::CUFFT_R2C;
  if (kind == 3)
    return f64 ? api::CUFFT_Z2D : api::CUFFT_C2R;
  return f64 ? api::CUFFT_Z2Z : api::CUFFT_C2C;
}

/// The plan for this transform, made on first use. libs_mu held.
const FftPlan &plan_for(DeviceState &s, const api::Fft &f, int64_t kind, bool f64,
                        std::vector<long long> n, int64_t batch, int64_t in_dist,
                        int64_t out_dist) {
  std::vector<int64_t> key = {kind, f64 ? 1 : 0, batch};
  key.insert(key.end(), n.begin(), n.end());
  LibraryState &l = library_state(s);
  auto it = l.fft_plans.find(key);
  if (it != l.fft_plans.end())
    return it->second;
  if (l.fft_plans.size() >= 256) { // bounded, like the CPU kernel's plan cache
    for (auto &[k, p] : l.fft_plans)
      f.cufftDestroy(p.handle);
    l.fft_plans.clear();
  }
  FftPlan plan;
  check_fft(f.cufftCreate(&plan.handle), "cufftCreate", kOp, s.index);
  try {
    // The work area comes from the caching allocator at each execution.
    check_fft(f.cufftSetAutoAllocation(plan.handle, 0), "cufftSetAutoAllocation", kOp, s.index);
    check_fft(f.cufftMakePlanMany64(plan.handle, static_cast<int>(n.size()), n.data(), nullptr, 1,
                                    in_dist, nullptr, 1, out_dist, fft_type(kind, f64), batch,
                                    &plan.work_bytes),
              "cufftMakePlanMany64", kOp, s.index);
    check_fft(f.cufftSetStream(plan.handle, s.stream), "cufftSetStream", kOp, s.index);
  } catch (...) {
    f.cufftDestroy(plan.handle);
    throw;
  }
  return l.fft_plans.emplace(key, plan).first->second;
}

void run(int64_t kind, int64_t real_dtype, int64_t rank, const int64_t *lengths, int64_t batch,
         void *in, void *out) {
  if (kind < 0 || kind > 3)
    fail(kOp, "kind ", kind, " is not 0 (FFT), 1 (IFFT), 2 (RFFT) or 3 (IRFFT)");
  bool f64 = real_dtype == static_cast<int64_t>(DType::Float64);
  if (!f64 && real_dtype != static_cast<int64_t>(DType::Float32))
    fail_kind(ErrorKind::Type, kOp, "cuFFT takes float32 or float64 (complex64 or complex128) ",
              "data, not dtype code ", real_dtype);
  if (rank < 1 || rank > 3)
    fail(kOp, "cuFFT runs over 1 to 3 trailing axes, not ", rank);
  if (batch < 0)
    fail(kOp, "negative batch ", batch);
  int64_t full = 1, half = 1;
  std::vector<long long> n;
  for (int64_t i = 0; i < rank; ++i) {
    if (lengths[i] < 0)
      fail(kOp, "negative length ", lengths[i], " of axis ", i);
    full *= lengths[i];
    half *= i + 1 == rank ? lengths[i] / 2 + 1 : lengths[i];
    n.push_back(lengths[i]);
  }
  size_t real_size = f64 ? 8 : 4;
  // Elements (complex ones count 2 reals) per transform on each side.
  int64_t in_elems = kind == 2 ? full : kind == 3 ? half : full;
  int64_t out_elems = kind == 3 ? full : kind == 2 ? half : full;
  size_t in_bytes = static_cast<size_t>(batch * in_elems) * real_size * (kind == 2 ? 1 : 2);
  size_t out_reals = static_cast<size_t>(batch * out_elems) * (kind == 3 ? 1 : 2);
  if (out_reals == 0)
    return;
  const api::Fft *f = api::fft();
  if (!f)
    fail(kOp, "cuFFT is not available: ", api::fft_error());
  DeviceState &s = enter(current_device());
  if (full == 0) { // transforms of no points: every output is zero
    check(api::driver()->cuMemsetD8Async(reinterpret_cast<api::CUdeviceptr>(out), 0,
                                         out_reals * real_size, s.stream),
          "cuMemsetD8Async", s.index);
    return;
  }
  std::lock_guard<std::mutex> lock(s.libs_mu);
  const FftPlan &plan = plan_for(s, *f, kind, f64, n, batch, in_elems, out_elems);
  // C2R overwrites its input (always, for rank > 1): it runs on a copy.
  std::unique_ptr<DeviceBlock> copy;
  if (kind == 3) {
    copy = std::make_unique<DeviceBlock>(s, in_bytes);
    check(api::driver()->cuMemcpyDtoDAsync_v2(reinterpret_cast<api::CUdeviceptr>(copy->get()),
                                              reinterpret_cast<api::CUdeviceptr>(in), in_bytes,
                                              s.stream),
          "cuMemcpyDtoDAsync", s.index);
    in = copy->get();
  }
  DeviceBlock work(s, plan.work_bytes);
  check_fft(f->cufftSetWorkArea(plan.handle, work.get()), "cufftSetWorkArea", kOp, s.index);
  int direction = kind == 0 ? api::CUFFT_FORWARD_DIRECTION : api::CUFFT_INVERSE_DIRECTION;
  switch (kind) {
  case 0:
  case 1:
    check_fft(f64 ? f->cufftExecZ2Z(plan.handle, in, out, direction)
                  : f->cufftExecC2C(plan.handle, in, out, direction),
              f64 ? "cufftExecZ2Z" : "cufftExecC2C", kOp, s.index);
    break;
  case 2:
    check_fft(f64 ? f->cufftExecD2Z(plan.handle, in, out) : f->cufftExecR2C(plan.handle, in, out),
              f64 ? "cufftExecD2Z" : "cufftExecR2C", kOp, s.index);
    break;
  default:
    check_fft(f64 ? f->cufftExecZ2D(plan.handle, in, out) : f->cufftExecC2R(plan.handle, in, out),
              f64 ? "cufftExecZ2D" : "cufftExecC2R", kOp, s.index);
    break;
  }
  if (kind == 1 || kind == 3) { // cuFFT leaves inverses unscaled
    api::cublasHandle_t h = blas_handle(s, kOp);
    const api::BlasRoutines &r = f64 ? api::blas_helpers()->d : api::blas_helpers()->s;
    double scale64 = 1.0 / static_cast<double>(full);
    float scale32 = 1.0f / static_cast<float>(full);
    // The complex or real values as reals, in chunks that fit cuBLAS's int count.
    constexpr size_t kChunk = size_t(1) << 30;
    for (size_t at = 0; at < out_reals; at += kChunk) {
      int count = static_cast<int>(std::min(kChunk, out_reals - at));
      void *p = static_cast<char *>(out) + at * real_size;
      check_blas(r.scal(h, count, f64 ? static_cast<const void *>(&scale64) : &scale32, p, 1),
                 f64 ? "cublasDscal_v2" : "cublasSscal_v2", kOp, s.index);
    }
  }
}

} // namespace

bool fft_available() { return api::fft() != nullptr; }
std::string fft_unavailable_reason() { return api::fft() ? "" : api::fft_error(); }

} // namespace strata::cuda

extern "C" void strata_rt_cuda_fft(int64_t kind, int64_t real_dtype, int64_t rank, int64_t n0,
                                   int64_t n1, int64_t n2, int64_t batch, int64_t in, int64_t out) {
  using namespace strata::cuda;
  if (has_pending_error())
    return;
  try {
    const int64_t lengths[3] = {n0, n1, n2};
    run(kind, real_dtype, rank, lengths, batch, reinterpret_cast<void *>(static_cast<intptr_t>(in)),
        reinterpret_cast<void *>(static_cast<intptr_t>(out)));
  } catch (const strata::Error &e) {
    record_error(e.what(), e.kind());
  } catch (const std::exception &e) {
    record_error(std::string("[fft] ") + e.what());
  }
}
