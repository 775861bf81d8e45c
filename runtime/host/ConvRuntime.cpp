// strata_rt_conv and strata_rt_conv_epilogue: jit-compiled CPU code's convolutions, on
// libstrata's kernel so that they give the eager primitive's results bit for bit.
#include "runtime/host/ConvRuntime.h"

#include "strata/internal/conv_kernel.h"

#include "strata/export.h"

namespace {
template <class P> P *address(int64_t a) { return reinterpret_cast<P *>(static_cast<intptr_t>(a)); }
} // namespace

// Exported (in libstrata_jit) so that mlir-runner can run strata-lower-to-cpu's output too.
extern "C" STRATA_EXPORT void strata_rt_conv(int64_t in_dtype, int64_t out_dtype, int64_t lhs,
                                             int64_t rhs, int64_t out, int64_t problem) {
  strata::ConvProblem p = strata::ConvProblem::decode(address<const int64_t>(problem));
  strata::conv_kernel(p, static_cast<strata::DType>(in_dtype),
                      static_cast<strata::DType>(out_dtype), address<const void>(lhs),
                      address<const void>(rhs), address<void>(out));
}

extern "C" STRATA_EXPORT void strata_rt_conv_epilogue(int64_t in_dtype, int64_t out_dtype,
                                                      int64_t lhs, int64_t rhs, int64_t out,
                                                      int64_t problem, int64_t bias,
                                                      int64_t epilogue) {
  strata::ConvProblem p = strata::ConvProblem::decode(address<const int64_t>(problem));
  const double *e = address<const double>(epilogue);
  strata::ConvEpilogue ep;
  ep.bias = address<const void>(bias);
  ep.act = static_cast<strata::ConvEpilogue::Act>(static_cast<int64_t>(e[0]));
  ep.alpha = e[1];
  ep.beta = e[2];
  strata::conv_kernel(p, static_cast<strata::DType>(in_dtype),
                      static_cast<strata::DType>(out_dtype), address<const void>(lhs),
                      address<const void>(rhs), address<void>(out), ep);
}
