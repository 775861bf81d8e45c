// The convolution kernel that libstrata's eager conv_general_dilated and jit-compiled CPU code
// share (through runtime/host/ConvRuntime.cpp), and the problem description both pass it.
#pragma once

#include <cstdint>
#include <vector>

#include "strata/array.h"
#include "strata/primitive.h"

namespace strata {

/// One convolution in logical terms (batch, feature, spatial dims of lhs, rhs and out) plus
/// where each logical dimension lies in memory (element strides of the stored arrays).
struct ConvProblem {
  int64_t batch = 0, in_features = 0, out_features = 0, out_batch = 0;
  int64_t feature_groups = 1, batch_groups = 1;
  std::vector<int64_t> in_size, kernel_size, out_size;
  std::vector<int64_t> strides, pad_lo, pad_hi, lhs_dilation, rhs_dilation;
  int64_t lhs_b = 0, lhs_f = 0, rhs_o = 0, rhs_i = 0, out_b = 0, out_f = 0;
  std::vector<int64_t> lhs_s, rhs_s, out_s;
  size_t rank() const { return in_size.size(); }

  /// The problem as a flat list of integers (what compiled code passes the runtime), and back.
  std::vector<int64_t> encode() const;
  static ConvProblem decode(const int64_t *data);
};

/// An elementwise epilogue folded into a convolution: out = act(conv + bias), written once.
/// `bias` (null: none) holds out_features elements of the output dtype, added along the output
/// feature dimension; the activation is applied in the output dtype's precision.
struct ConvEpilogue {
  /// The activations, with their parameters: LeakyRelu x >= 0 ? x : alpha * x; Clamp
  /// min(max(x, alpha), beta) (alpha <= beta); Silu x * logistic(x); GeluTanh JAX's tanh
  /// approximation 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
  enum class Act : int64_t { None, Relu, LeakyRelu, Clamp, Tanh, Logistic, Silu, GeluTanh };
  const void *bias = nullptr;
  Act act = Act::None;
  double alpha = 0, beta = 0;
  bool empty() const { return !bias && act == Act::None; }
};

/// The problem of conv_general_dilated on row-major operands and output of these shapes with
/// these params (the primitive's, already checked by its shape rule).
STRATA_EXPORT ConvProblem conv_problem(const Shape &lhs, const Shape &rhs, const Shape &out,
                                       const Params &params);

/// out = the convolution of lhs and rhs (of dtype `in`) into out (of dtype `out_dtype`), as
/// the eager primitive computes it: f32 on oneDNN, the rest im2col over BLIS gemm. A non-empty
/// `epilogue` (float outputs only) is applied before the output is written: as oneDNN's bias
/// and eltwise post-op, or per output block right after its gemm on the im2col path.
STRATA_EXPORT void conv_kernel(const ConvProblem &p, DType in, DType out_dtype, const void *lhs,
                               const void *rhs, void *out, const ConvEpilogue &epilogue = {});

inline std::vector<int64_t> ConvProblem::encode() const {
  std::vector<int64_t> v = {static_cast<int64_t>(rank()),
                            batch,
                            in_features,
                            out_features,
                            out_batch,
                            feature_groups,
                            batch_groups,
                            lhs_b,
                            lhs_f,
                            rhs_o,
                            rhs_i,
                            out_b,
                            out_f};
  for (const auto *dims : {&in_size, &kernel_size, &out_size, &strides, &pad_lo, &pad_hi,
                           &lhs_dilation, &rhs_dilation, &lhs_s, &rhs_s, &out_s})
    v.insert(v.end(), dims->begin(), dims->end());
  return v;
}

inline ConvProblem ConvProblem::decode(const int64_t *d) {
  ConvProblem p;
  size_t n = static_cast<size_t>(d[0]);
  p.batch = d[1];
  p.in_features = d[2];
  p.out_features = d[3];
  p.out_batch = d[4];
  p.feature_groups = d[5];
  p.batch_groups = d[6];
  p.lhs_b = d[7];
  p.lhs_f = d[8];
  p.rhs_o = d[9];
  p.rhs_i = d[10];
  p.out_b = d[11];
  p.out_f = d[12];
  const int64_t *next = d + 13;
  for (auto *dims : {&p.in_size, &p.kernel_size, &p.out_size, &p.strides, &p.pad_lo, &p.pad_hi,
                     &p.lhs_dilation, &p.rhs_dilation, &p.lhs_s, &p.rhs_s, &p.out_s}) {
    dims->assign(next, next + n);
    next += n;
  }
  return p;
}

} // namespace strata
