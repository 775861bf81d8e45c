// strata_rt_cuda_conv: cuDNN's forward convolution on strided Nd descriptors (the operands'
// own strides), the algorithm chosen by cudnnGetConvolutionForwardAlgorithm_v7 and cached per
// device and problem, the workspace from the caching allocator; problems cuDNN does not take,
// or a missing cuDNN, stage through host memory to libstrata's convolution kernel.
#include "runtime/cuda/Dnn.h"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/cuda/DnnSupport.h"
#include "runtime/cuda/LibraryState.h"

namespace strata::cuda {
namespace {

constexpr const char *kOp = "conv_general_dilated";

int cudnn_type(DType d) {
  switch (d) {
  case DType::Float64:
    return api::CUDNN_DATA_DOUBLE;
  case DType::Float16:
    return api::CUDNN_DATA_HALF;
  case DType::BFloat16:
    return api::CUDNN_DATA_BFLOAT16;
  default:
    return api::CUDNN_DATA_FLOAT;
  }
}

/// The ConvProblem table at device address `table` (its rank first, then the rest).
std::vector<int64_t> read_table(int device, const void *table) {
  int64_t rank = 0;
  copy_to_host(device, &rank, table, sizeof rank);
  if (rank < 0 || rank > 8)
    fail(kOp, "the convolution table has rank ", rank);
  std::vector<int64_t> t(static_cast<size_t>(13 + 11 * rank));
  copy_to_host(device, t.data(), table, t.size() * sizeof(int64_t));
  return t;
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

/// The operands staged through host memory and libstrata's kernel (the eager primitive's).
void on_host(int device, const ConvProblem &p, DType in, DType out_dt, const void *lhs,
             const void *rhs, void *out) {
  int64_t in_per_group = p.in_features / std::max<int64_t>(p.feature_groups, 1);
  size_t lhs_n = static_cast<size_t>(p.batch * p.in_features * product(p.in_size));
  size_t rhs_n = static_cast<size_t>(p.out_features * in_per_group * product(p.kernel_size));
  size_t out_n = static_cast<size_t>(p.out_batch * p.out_features * product(p.out_size));
  std::vector<char> l(lhs_n * itemsize(in)), r(rhs_n * itemsize(in)), o(out_n * itemsize(out_dt));
  if (!l.empty())
    copy_to_host(device, l.data(), lhs, l.size());
  if (!r.empty())
    copy_to_host(device, r.data(), rhs, r.size());
  conv_kernel(p, in, out_dt, l.data(), r.data(), o.data());
  if (!o.empty())
    copy_to_device(device, out, o.data(), o.size());
}

/// Owns cuDNN descriptors for one call.
struct Descriptors {
  const api::Dnn &f;
  api::cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  api::cudnnFilterDescriptor_t w = nullptr;
  api::cudnnConvolutionDescriptor_t conv = nullptr;
  explicit Descriptors(const api::Dnn &fns) : f(fns) {}
  ~Descriptors() {
    if (x)
      f.cudnnDestroyTensorDescriptor(x);
    if (y)
      f.cudnnDestroyTensorDescriptor(y);
    if (w)
      f.cudnnDestroyFilterDescriptor(w);
    if (conv)
      f.cudnnDestroyConvolutionDescriptor(conv);
  }
};

void on_cudnn(DeviceState &s, const api::Dnn &f, const ConvProblem &p, DType dt,
              const std::vector<int64_t> &key, const void *lhs, const void *rhs, void *out) {
  api::cudnnHandle_t h = dnn_handle(s, kOp);
  auto ok = [&](api::cudnnStatus_t st, const char *call) { check_dnn(st, call, kOp, s.index); };
  // N, C, spatial... (one unit spatial dimension appended to a 1-D convolution: cuDNN takes
  // 4-D and 5-D descriptors).
  auto as_int = [](const std::vector<int64_t> &v) { return std::vector<int>(v.begin(), v.end()); };
  std::vector<int64_t> xd = {p.batch, p.in_features}, xs = {p.lhs_b, p.lhs_f};
  std::vector<int64_t> yd = {p.out_batch, p.out_features}, ys = {p.out_b, p.out_f};
  std::vector<int64_t> wd = {p.out_features, p.in_features / p.feature_groups};
  std::vector<int64_t> pad, stride, dilation;
  for (size_t d = 0; d < p.rank(); ++d) {
    xd.push_back(p.in_size[d]);
    xs.push_back(p.lhs_s[d]);
    yd.push_back(p.out_size[d]);
    ys.push_back(p.out_s[d]);
    wd.push_back(p.kernel_size[d]);
    pad.push_back(p.pad_lo[d]);
    stride.push_back(p.strides[d]);
    dilation.push_back(p.rhs_dilation[d]);
  }
  if (p.rank() == 1) {
    for (auto *v : {&xd, &yd, &wd})
      v->push_back(1);
    xs.push_back(1);
    ys.push_back(1);
    pad.push_back(0);
    stride.push_back(1);
    dilation.push_back(1);
  }
  int type = cudnn_type(dt);
  int compute = dt == DType::Float64 ? api::CUDNN_DATA_DOUBLE : api::CUDNN_DATA_FLOAT;
  Descriptors d(f);
  ok(f.cudnnCreateTensorDescriptor(&d.x), "cudnnCreateTensorDescriptor");
  ok(f.cudnnCreateTensorDescriptor(&d.y), "cudnnCreateTensorDescriptor");
  ok(f.cudnnCreateFilterDescriptor(&d.w), "cudnnCreateFilterDescriptor");
  ok(f.cudnnCreateConvolutionDescriptor(&d.conv), "cudnnCreateConvolutionDescriptor");
  std::vector<int> xdi = as_int(xd), xsi = as_int(xs), ydi = as_int(yd), ysi = as_int(ys),
                   wdi = as_int(wd), padi = as_int(pad), stri = as_int(stride),
                   dili = as_int(dilation);
  int nd = static_cast<int>(xdi.size());
  ok(f.cudnnSetTensorNdDescriptor(d.x, type, nd, xdi.data(), xsi.data()),
     "cudnnSetTensorNdDescriptor");
  ok(f.cudnnSetTensorNdDescriptor(d.y, type, nd, ydi.data(), ysi.data()),
     "cudnnSetTensorNdDescriptor");
  int format = cudnn_filter_format(p) == 1 ? api::CUDNN_TENSOR_NHWC : api::CUDNN_TENSOR_NCHW;
  ok(f.cudnnSetFilterNdDescriptor(d.w, type, format, nd, wdi.data()), "cudnnSetFilterNdDescriptor");
  ok(f.cudnnSetConvolutionNdDescriptor(d.conv, nd - 2, padi.data(), stri.data(), dili.data(),
                                       api::CUDNN_CROSS_CORRELATION, compute),
     "cudnnSetConvolutionNdDescriptor");
  ok(f.cudnnSetConvolutionGroupCount(d.conv, static_cast<int>(p.feature_groups)),
     "cudnnSetConvolutionGroupCount");
  // f32 in full precision unless TF32 is allowed, as the gemms are.
  int math = dt == DType::Float32 && !allow_tf32() ? api::CUDNN_FMA_MATH : api::CUDNN_DEFAULT_MATH;
  ok(f.cudnnSetConvolutionMathType(d.conv, math), "cudnnSetConvolutionMathType");

  LibraryState &l = library_state(s);
  auto it = l.conv_algos.find(key);
  if (it == l.conv_algos.end()) {
    api::cudnnConvolutionFwdAlgoPerf_t perf[8] = {};
    int found = 0;
    ok(f.cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, 8, &found, perf),
       "cudnnGetConvolutionForwardAlgorithm_v7");
    int algo = -1;
    size_t bytes = 0;
    for (int i = 0; i < found && algo < 0; ++i)
      if (perf[i].status == api::CUDNN_STATUS_SUCCESS) {
        algo = perf[i].algo;
        ok(f.cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, algo, &bytes),
           "cudnnGetConvolutionForwardWorkspaceSize");
      }
    if (l.conv_algos.size() >= 256)
      l.conv_algos.clear();
    it = l.conv_algos.emplace(key, std::make_pair(algo, bytes)).first;
  }
  auto [algo, bytes] = it->second;
  if (algo < 0) { // no algorithm for this problem: the host kernel
    on_host(s.index, p, dt, dt, lhs, rhs, out);
    return;
  }
  DeviceBlock work(s, bytes);
  float one32 = 1, zero32 = 0;
  double one64 = 1, zero64 = 0;
  bool f64 = dt == DType::Float64;
  const void *alpha = f64 ? static_cast<const void *>(&one64) : &one32;
  const void *beta = f64 ? static_cast<const void *>(&zero64) : &zero32;
  ok(f.cudnnConvolutionForward(h, alpha, d.x, lhs, d.w, rhs, d.conv, algo, work.get(), bytes, beta,
                               d.y, out),
     "cudnnConvolutionForward");
}

void run(int64_t in_dtype, int64_t out_dtype, const void *lhs, const void *rhs, void *out,
         const void *table) {
  int device = current_device();
  std::vector<int64_t> t = read_table(device, table);
  ConvProblem p = ConvProblem::decode(t.data());
  auto in = static_cast<DType>(in_dtype), out_dt = static_cast<DType>(out_dtype);
  const api::Dnn *f = api::dnn();
  if (!f || !cudnn_takes(p, in_dtype, out_dtype)) {
    on_host(device, p, in, out_dt, lhs, rhs, out);
    return;
  }
  DeviceState &s = enter(device);
  std::lock_guard<std::mutex> lock(s.libs_mu);
  t.push_back(in_dtype);
  on_cudnn(s, *f, p, in, t, lhs, rhs, out);
}

} // namespace

bool dnn_available() { return api::dnn() != nullptr; }
std::string dnn_unavailable_reason() { return api::dnn() ? "" : api::dnn_error(); }

} // namespace strata::cuda

extern "C" void strata_rt_cuda_conv(int64_t in_dtype, int64_t out_dtype, int64_t lhs, int64_t rhs,
                                    int64_t out, int64_t problem) {
  using namespace strata::cuda;
  if (has_pending_error())
    return;
  auto ptr = [](int64_t a) { return reinterpret_cast<void *>(static_cast<intptr_t>(a)); };
  try {
    run(in_dtype, out_dtype, ptr(lhs), ptr(rhs), ptr(out), ptr(problem));
  } catch (const strata::Error &e) {
    record_error(e.what(), e.kind());
  } catch (const std::exception &e) {
    record_error(std::string("[conv_general_dilated] ") + e.what());
  }
}
