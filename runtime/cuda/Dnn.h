// strata_rt_cuda_conv: the convolutions of GPU-compiled code on cuDNN, on device buffers, with
// the arguments of the CPU runtime's strata_rt_conv (runtime/host/ConvRuntime.h).
#pragma once

#include <cstdint>
#include <string>

#include "strata/export.h"

extern "C" {
/// out = conv_general_dilated(lhs, rhs) for the strata::ConvProblem table at `problem` (device
/// memory, ConvProblem::encode), in_dtype/out_dtype strata::DType codes. cuDNN's forward
/// convolution where it takes the problem (DnnSupport.h: cudnn_takes) and the library loads;
/// otherwise the operands are staged through host memory to libstrata's kernel. It acts on the
/// current device after the work queued on its stream; failures are recorded, never thrown.
STRATA_EXPORT void strata_rt_cuda_conv(int64_t in_dtype, int64_t out_dtype, int64_t lhs,
                                       int64_t rhs, int64_t out, int64_t problem);
}

namespace strata::cuda {
/// Whether cuDNN loaded, and why not ("" when it did).
STRATA_EXPORT bool dnn_available();
STRATA_EXPORT std::string dnn_unavailable_reason();
} // namespace strata::cuda
