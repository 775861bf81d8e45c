// The CUDA runtime's convolution (strata_rt_cuda_conv on cuDNN): cuDNN resolves without a GPU,
// the predicate the lowering and the runtime share accepts exactly what cuDNN's forward API
// takes, and on a GPU the results agree with libstrata's kernel (eager's) for NCHW and NHWC
// operands, OIHW and OHWI filters, groups, strides, padding, dilation, f32/f64/f16, and for a
// problem cuDNN does not take (staged through the host).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "cuda_test_util.h"
#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/Dnn.h"
#include "runtime/cuda/DnnSupport.h"
#include "runtime/cuda/LibraryApi.h"
#include "strata/dtype.h"
#include "strata/error.h"
#include "strata/internal/conv_kernel.h"

using namespace strata;
using namespace strata::cuda;
using cudatest::pending_message;

namespace {

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

/// Row-major strides of logical dims (b, f, spatial...) stored channels-first or -last.
void strides(int64_t f, const std::vector<int64_t> &sp, bool last, int64_t &sb, int64_t &sf,
             std::vector<int64_t> &ss) {
  size_t n = sp.size();
  ss.assign(n, 0);
  int64_t s = last ? f : 1;
  for (size_t d = n; d-- > 0;) {
    ss[d] = s;
    s *= sp[d];
  }
  sf = last ? 1 : product(sp);
  sb = f * product(sp);
}

/// A convolution of row-major operands: NCHW (or NHWC with `nhwc`) input and output, OIHW (or
/// OHWI with `ohwi`) filter, symmetric padding `pad`.
ConvProblem problem(int64_t batch, int64_t cin, int64_t cout, int64_t groups,
                    std::vector<int64_t> in, std::vector<int64_t> k, int64_t stride, int64_t pad,
                    int64_t dilation, bool nhwc, bool ohwi) {
  ConvProblem p;
  size_t n = in.size();
  p.batch = p.out_batch = batch;
  p.in_features = cin;
  p.out_features = cout;
  p.feature_groups = groups;
  p.in_size = in;
  p.kernel_size = k;
  p.strides.assign(n, stride);
  p.pad_lo.assign(n, pad);
  p.pad_hi.assign(n, pad);
  p.lhs_dilation.assign(n, 1);
  p.rhs_dilation.assign(n, dilation);
  for (size_t d = 0; d < n; ++d)
    p.out_size.push_back((in[d] + 2 * pad - dilation * (k[d] - 1) - 1) / stride + 1);
  strides(cin, in, nhwc, p.lhs_b, p.lhs_f, p.lhs_s);
  strides(cout, p.out_size, nhwc, p.out_b, p.out_f, p.out_s);
  int64_t ig = cin / groups, window = product(k);
  p.rhs_o = ig * window;
  p.rhs_i = ohwi ? 1 : window;
  p.rhs_s.assign(n, 0);
  int64_t s = ohwi ? ig : 1;
  for (size_t d = n; d-- > 0;) {
    p.rhs_s[d] = s;
    s *= k[d];
  }
  return p;
}

constexpr int64_t kF32 = static_cast<int64_t>(DType::Float32);

} // namespace

TEST(CudaDnn, CudnnResolvesEverySymbolWithoutADevice) {
  if (!std::filesystem::exists("/usr/local/cuda/lib64/libcudnn.so.9") && !dnn_available())
    GTEST_SKIP() << "cuDNN is not installed: " << api::dnn_error();
  ASSERT_TRUE(dnn_available()) << dnn_unavailable_reason();
  EXPECT_GE(api::dnn()->cudnnGetVersion(), 90000u);
  EXPECT_NE(api::dnn_status_text(2000).find("BAD_PARAM"), std::string::npos)
      << api::dnn_status_text(2000);
}

TEST(CudaDnn, TakesExactlyWhatTheForwardApiRuns) {
  std::string why;
  ConvProblem ok = problem(2, 4, 6, 2, {8, 8}, {3, 3}, 1, 1, 1, false, false);
  EXPECT_TRUE(cudnn_takes(ok, kF32, kF32, &why)) << why;
  EXPECT_EQ(cudnn_filter_format(ok), 0);
  ConvProblem ohwi = problem(2, 4, 6, 1, {7}, {3}, 2, 1, 2, true, true);
  EXPECT_TRUE(cudnn_takes(ohwi, kF32, kF32, &why)) << why;
  EXPECT_EQ(cudnn_filter_format(ohwi), 1);
  EXPECT_FALSE(cudnn_takes(ok, static_cast<int64_t>(DType::Int32),
                           static_cast<int64_t>(DType::Int32), &why));
  EXPECT_EQ(why, "cuDNN takes float32, float64, float16 and bfloat16 only");
  EXPECT_FALSE(cudnn_takes(ok, kF32, static_cast<int64_t>(DType::Float64), &why));
  ConvProblem asym = ok;
  asym.pad_hi[1] = 0;
  EXPECT_FALSE(cudnn_takes(asym, kF32, kF32, &why));
  EXPECT_EQ(why, "asymmetric or negative padding");
  ConvProblem dilated = ok;
  dilated.lhs_dilation[0] = 2;
  EXPECT_FALSE(cudnn_takes(dilated, kF32, kF32, &why));
  EXPECT_EQ(why, "lhs dilation");
  ConvProblem batch_groups = ok;
  batch_groups.batch_groups = 2;
  EXPECT_FALSE(cudnn_takes(batch_groups, kF32, kF32, &why));
  // HWIO: O innermost.
  ConvProblem hwio = ok;
  hwio.rhs_o = 1;
  hwio.rhs_i = 6;
  hwio.rhs_s = {3 * 2 * 6, 2 * 6};
  EXPECT_FALSE(cudnn_takes(hwio, kF32, kF32, &why));
  EXPECT_EQ(why, "its filter is neither packed OIHW nor OHWI");
  ConvProblem four_d = problem(1, 1, 1, 1, {3, 3, 3, 3}, {1, 1, 1, 1}, 1, 0, 1, false, false);
  EXPECT_FALSE(cudnn_takes(four_d, kF32, kF32, &why));
}

TEST(CudaDnn, MatchesTheHostKernelOnDevice) {
  if (device_count() == 0)
    GTEST_SKIP() << "no GPU: " << unavailable_reason();
  set_current_device(0);
  clear_pending_error();
  struct Case {
    ConvProblem p;
    DType dt;
    double tol;
  };
  ConvProblem lhs_dilated = problem(1, 2, 3, 1, {5}, {2}, 1, 0, 1, false, false);
  lhs_dilated.lhs_dilation = {2};
  lhs_dilated.in_size = {5};
  lhs_dilated.out_size = {8};
  strides(3, lhs_dilated.out_size, false, lhs_dilated.out_b, lhs_dilated.out_f, lhs_dilated.out_s);
  std::vector<Case> cases = {
      {problem(2, 3, 4, 1, {8, 8}, {3, 3}, 1, 1, 1, false, false), DType::Float32, 1e-5},
      {problem(2, 4, 6, 2, {9}, {3}, 2, 1, 2, false, true), DType::Float64, 1e-12},
      {problem(1, 4, 8, 1, {6, 5}, {3, 2}, 1, 0, 1, true, true), DType::Float32, 1e-5},
      {problem(2, 3, 2, 1, {4, 4, 4}, {2, 2, 2}, 1, 1, 1, false, false), DType::Float64, 1e-12},
      {problem(2, 8, 8, 8, {7, 7}, {3, 3}, 1, 1, 1, false, false), DType::Float32, 1e-5},
      {problem(2, 3, 4, 1, {8, 8}, {3, 3}, 1, 1, 1, false, false), DType::Float16, 2e-2},
      {lhs_dilated, DType::Float32, 0}, // not cuDNN's: staged through the host, bit for bit
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (size_t c = 0; c < cases.size(); ++c) {
    const ConvProblem &p = cases[c].p;
    DType dt = cases[c].dt;
    size_t size = itemsize(dt);
    size_t ln = p.batch * p.in_features * product(p.in_size),
           rn = p.out_features * (p.in_features / p.feature_groups) * product(p.kernel_size),
           on = p.out_batch * p.out_features * product(p.out_size);
    auto fill = [&](size_t count) {
      std::vector<char> b(count * size);
      for (size_t i = 0; i < count; ++i) {
        float v = u(rng);
        if (dt == DType::Float64) {
          double d = v;
          std::memcpy(b.data() + 8 * i, &d, 8);
        } else if (dt == DType::Float32) {
          std::memcpy(b.data() + 4 * i, &v, 4);
        } else { // f16 bits of a value that f16 holds exactly: k/8 for small k
          float q = std::round(v * 8) / 8;
          uint32_t bits;
          std::memcpy(&bits, &q, 4);
          uint16_t h = q == 0 ? 0
                              : static_cast<uint16_t>(((bits >> 16) & 0x8000) |
                                                      ((((bits >> 23) & 0xff) - 112) << 10) |
                                                      ((bits >> 13) & 0x3ff));
          std::memcpy(b.data() + 2 * i, &h, 2);
        }
      }
      return b;
    };
    std::vector<char> l = fill(ln), r = fill(rn), want(on * size), got(on * size);
    conv_kernel(p, dt, dt, l.data(), r.data(), want.data());
    std::vector<int64_t> table = p.encode();
    void *dl = allocate(0, l.size()), *dr = allocate(0, r.size()), *dout = allocate(0, got.size()),
         *dt_table = allocate(0, table.size() * 8);
    copy_to_device(0, dl, l.data(), l.size());
    copy_to_device(0, dr, r.data(), r.size());
    copy_to_device(0, dt_table, table.data(), table.size() * 8);
    auto a = [](void *q) { return static_cast<int64_t>(reinterpret_cast<intptr_t>(q)); };
    strata_rt_cuda_conv(static_cast<int64_t>(dt), static_cast<int64_t>(dt), a(dl), a(dr), a(dout),
                        a(dt_table));
    ASSERT_EQ(pending_message(), "") << "case " << c;
    copy_to_host(0, got.data(), dout, got.size());
    double worst = 0, scale = 1e-30;
    for (size_t i = 0; i < on; ++i) {
      double w, g;
      if (dt == DType::Float64) {
        std::memcpy(&w, want.data() + 8 * i, 8);
        std::memcpy(&g, got.data() + 8 * i, 8);
      } else if (dt == DType::Float32) {
        float wf, gf;
        std::memcpy(&wf, want.data() + 4 * i, 4);
        std::memcpy(&gf, got.data() + 4 * i, 4);
        w = wf;
        g = gf;
      } else { // compare the raw f16 bits' magnitude roughly: decode
        auto dec = [](const char *q) {
          uint16_t h;
          std::memcpy(&h, q, 2);
          int e = (h >> 10) & 0x1f, m = h & 0x3ff;
          double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
          return (h & 0x8000) ? -v : v;
        };
        w = dec(want.data() + 2 * i);
        g = dec(got.data() + 2 * i);
      }
      scale = std::max(scale, std::abs(w));
      worst = std::max(worst, std::abs(w - g));
    }
    EXPECT_LE(worst / scale, cases[c].tol) << "case " << c << " (" << dtype_name(dt) << ")";
    for (void *q : {dl, dr, dout, dt_table})
      deallocate(0, q);
  }
}
