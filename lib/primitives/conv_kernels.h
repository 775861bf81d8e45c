// The oneDNN kernel behind conv_kernel (strata/internal/conv_kernel.h).
#pragma once

#include "strata/internal/conv_kernel.h"

namespace strata {

/// Computes the convolution with oneDNN in f32 when oneDNN takes the problem (no batch groups;
/// lhs dilation only with unit strides and no feature groups; otherwise padding that is not
/// negative); returns false, having written nothing, when it does not.
bool conv_dnnl_f32(const ConvProblem &p, const float *lhs, const float *rhs, float *out);

} // namespace strata
