// The oneDNN kernel behind conv_kernel (strata/internal/conv_kernel.h) and the activations of
// the epilogues both of its paths apply.
#pragma once

#include <cmath>

#include "strata/internal/conv_kernel.h"

namespace strata {

/// What conv_dnnl_f32 did: nothing (oneDNN does not take the problem), the convolution alone
/// (the caller still applies the epilogue), or the convolution with its epilogue.
enum class DnnlConvResult { NotTaken, WithoutEpilogue, WithEpilogue };

/// Computes the convolution with oneDNN in f32 when oneDNN takes the problem (no batch groups;
/// lhs dilation only with unit strides and no feature groups; otherwise padding that is not
/// negative), with the epilogue as the bias argument and an eltwise post-op when the problem
/// is a forward convolution; writes nothing when it returns NotTaken.
DnnlConvResult conv_dnnl_f32(const ConvProblem &p, const float *lhs, const float *rhs, float *out,
                             const ConvEpilogue &epilogue);

/// The epilogue's activation of x in C's precision, as the strata ops it replaces compute it.
template <class C> C conv_activation(const ConvEpilogue &e, C x) {
  using Act = ConvEpilogue::Act;
  switch (e.act) {
  case Act::None:
    return x;
  case Act::Relu:
    return std::isnan(x) || x > C(0) ? x : C(0);
  case Act::LeakyRelu:
    return x >= C(0) ? x : x * static_cast<C>(e.alpha);
  case Act::Clamp:
    return std::isnan(x) ? x
                         : std::min(std::max(x, static_cast<C>(e.alpha)), static_cast<C>(e.beta));
  case Act::Tanh:
    return std::tanh(x);
  case Act::Logistic:
    return C(1) / (C(1) + std::exp(-x));
  case Act::Silu:
    return x / (C(1) + std::exp(-x));
  case Act::GeluTanh: {
    const C k = static_cast<C>(0.7978845608028654); // sqrt(2 / pi)
    return x * (C(0.5) * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x))));
  }
  }
  return x;
}

/// The epilogue of output feature f on n consecutive elements of C.
template <class C> void apply_conv_epilogue(const ConvEpilogue &e, int64_t f, C *y, int64_t n) {
  if (e.bias) {
    C b = static_cast<C>(static_cast<const C *>(e.bias)[f]);
    for (int64_t i = 0; i < n; ++i)
      y[i] += b;
  }
  if (e.act != ConvEpilogue::Act::None)
    for (int64_t i = 0; i < n; ++i)
      y[i] = conv_activation(e, y[i]);
}

} // namespace strata
