// The runtime functions of strata-conv-to-runtime's calls: jit-compiled CPU convolutions run
// libstrata's kernel (strata/internal/conv_kernel.h).
#pragma once

#include <cstdint>

/// out = conv_general_dilated(lhs, rhs) for the problem encoded at address `problem`
/// (strata::ConvProblem::encode), operands of dtype code `in_dtype` and the result of
/// `out_dtype` (strata::DType); every buffer row-major.
extern "C" void strata_rt_conv(int64_t in_dtype, int64_t out_dtype, int64_t lhs, int64_t rhs,
                               int64_t out, int64_t problem);

/// strata_rt_conv with an epilogue folded in: out = act(conv + bias). `bias` is the address of
/// out_features elements of `out_dtype` (0: no bias); `epilogue` the address of three doubles,
/// the activation (strata::ConvEpilogue::Act) and its alpha and beta.
extern "C" void strata_rt_conv_epilogue(int64_t in_dtype, int64_t out_dtype, int64_t lhs,
                                        int64_t rhs, int64_t out, int64_t problem, int64_t bias,
                                        int64_t epilogue);
