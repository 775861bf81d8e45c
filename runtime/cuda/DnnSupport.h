// Which convolutions cuDNN's forward API takes: one header-only predicate that the GPU lowering
// (strata-conv-to-runtime{cuda=true}) and the CUDA runtime (Dnn.cpp) share, so that the
// lowering sends cuDNN exactly what it can run and leaves the rest to the generated kernels.
#pragma once

#include <cstdint>
#include <string>

#include "strata/dtype.h"
#include "strata/internal/conv_kernel.h"

namespace strata::cuda {

/// The filter's packed layout cuDNN names: 0 OIHW (CUDNN_TENSOR_NCHW), 1 OHWI
/// (CUDNN_TENSOR_NHWC), -1 neither.
inline int cudnn_filter_format(const ConvProblem &p) {
  int64_t in_per_group = p.feature_groups > 0 ? p.in_features / p.feature_groups : 0;
  size_t n = p.rank();
  int64_t window = 1;
  for (int64_t k : p.kernel_size)
    window *= k;
  auto spatial_packed = [&](int64_t inner) {
    int64_t s = inner;
    for (size_t d = n; d-- > 0;) {
      if (p.kernel_size[d] != 1 && p.rhs_s[d] != s)
        return false;
      s *= p.kernel_size[d];
    }
    return true;
  };
  bool o_packed = p.out_features == 1 || p.rhs_o == in_per_group * window;
  if (o_packed && (in_per_group == 1 || p.rhs_i == window) && spatial_packed(1))
    return 0;
  if (o_packed && (in_per_group == 1 || p.rhs_i == 1) && spatial_packed(in_per_group))
    return 1;
  return -1;
}

/// Whether cuDNN's forward convolution takes `p` with these strata::DType codes: 1 to 3
/// spatial dimensions, symmetric non-negative padding, no lhs dilation, batch_group_count 1,
/// in == out dtype of float32/float64/float16/bfloat16, a packed OIHW or OHWI filter, every
/// extent within int. Else `why` (when given) says what it lacks.
inline bool cudnn_takes(const ConvProblem &p, int64_t in_dtype, int64_t out_dtype,
                        std::string *why = nullptr) {
  auto no = [&](const char *reason) {
    if (why)
      *why = reason;
    return false;
  };
  auto dt = static_cast<DType>(in_dtype);
  if (in_dtype != out_dtype)
    return no("its result dtype differs from its operands'");
  if (dt != DType::Float32 && dt != DType::Float64 && dt != DType::Float16 && dt != DType::BFloat16)
    return no("cuDNN takes float32, float64, float16 and bfloat16 only");
  if (p.rank() < 1 || p.rank() > 3)
    return no("cuDNN takes 1 to 3 spatial dimensions");
  if (p.batch_groups != 1)
    return no("batch_group_count > 1");
  for (size_t d = 0; d < p.rank(); ++d) {
    if (p.lhs_dilation[d] != 1)
      return no("lhs dilation");
    if (p.pad_lo[d] != p.pad_hi[d] || p.pad_lo[d] < 0)
      return no("asymmetric or negative padding");
  }
  if (cudnn_filter_format(p) < 0)
    return no("its filter is neither packed OIHW nor OHWI");
  const int64_t big = 1ll << 31;
  if (p.batch >= big || p.in_features >= big || p.out_features >= big)
    return no("an extent beyond int");
  return true;
}

} // namespace strata::cuda
