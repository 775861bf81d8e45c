// The CPU kernels of conv_general_dilated: a convolution described by its logical sizes and the
// element strides of each logical dimension, so any dimension numbers reach them without a copy.
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
};

/// The problem of conv_general_dilated on operands and output of these shapes with these params
/// (the primitive's; the shape rule has checked them), all stored row-major.
ConvProblem conv_problem(const Shape &lhs, const Shape &rhs, const Shape &out,
                         const Params &params);

/// Computes the convolution with oneDNN in f32 when oneDNN takes the problem (no lhs dilation
/// or batch groups, padding that is not negative); returns false, having written nothing,
/// when it does not.
bool conv_dnnl_f32(const ConvProblem &p, const float *lhs, const float *rhs, float *out);

} // namespace strata
