// Convolution configurations the conv tests share (strides, padding, dilations, groups, layouts,
// 1-D to 3-D) and a direct reference loop over the definition of conv_general_dilated.
#pragma once

#include <string>
#include <vector>

#include "test_util.h"

namespace strata::testutil {

struct ConvCase {
  std::string what;
  Shape lhs, rhs;
  std::vector<int64_t> strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<int64_t> lhs_dilation, rhs_dilation;
  lax::ConvDimensionNumbers dn;
  int64_t feature_groups = 1, batch_groups = 1;

  Array apply(const Array &l, const Array &r) const {
    return lax::conv_general_dilated(l, r, strides, padding, lhs_dilation, rhs_dilation, dn,
                                     feature_groups, batch_groups);
  }
};

inline const lax::ConvDimensionNumbers kNCHW{{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}};
inline const lax::ConvDimensionNumbers kNHWC{{0, 3, 1, 2}, {3, 2, 0, 1}, {0, 3, 1, 2}};

inline const std::vector<ConvCase> &conv_cases() {
  static const std::vector<ConvCase> c = {
      {"2-D NCHW/OIHW, same padding",
       {2, 3, 5, 4},
       {4, 3, 3, 3},
       {1, 1},
       {{1, 1}, {1, 1}},
       {1, 1},
       {1, 1},
       kNCHW},
      {"2-D NHWC/HWIO, strides 2 with a remainder",
       {2, 7, 6, 3},
       {3, 2, 3, 4},
       {2, 2},
       {{0, 0}, {1, 0}},
       {1, 1},
       {1, 1},
       kNHWC},
      {"rhs dilation and asymmetric padding",
       {1, 2, 7, 6},
       {3, 2, 2, 3},
       {1, 2},
       {{2, 1}, {0, 2}},
       {1, 1},
       {2, 2},
       kNCHW},
      {"lhs dilation (a transposed convolution)",
       {2, 2, 3, 4},
       {3, 2, 3, 2},
       {1, 1},
       {{2, 2}, {1, 0}},
       {2, 3},
       {1, 1},
       kNCHW},
      {"negative padding crops",
       {1, 2, 6, 6},
       {2, 2, 2, 2},
       {1, 1},
       {{-1, 0}, {1, -2}},
       {1, 1},
       {1, 1},
       kNCHW},
      {"feature groups",
       {2, 4, 5, 5},
       {6, 2, 3, 2},
       {1, 2},
       {{1, 0}, {0, 1}},
       {1, 1},
       {1, 1},
       kNCHW,
       2},
      {"depthwise (feature groups = channels)",
       {1, 3, 4, 5},
       {3, 1, 3, 3},
       {1, 1},
       {{1, 1}, {1, 1}},
       {1, 1},
       {1, 1},
       kNCHW,
       3},
      {"batch groups",
       {4, 3, 5, 4},
       {4, 3, 2, 2},
       {1, 1},
       {{0, 1}, {1, 0}},
       {1, 1},
       {1, 1},
       kNCHW,
       1,
       2},
      {"1-D NWC/WIO with strides and dilation",
       {2, 9, 3},
       {3, 3, 2},
       {2},
       {{1, 2}},
       {1},
       {2},
       {{0, 2, 1}, {2, 1, 0}, {0, 2, 1}}},
      {"3-D NCDHW",
       {1, 2, 4, 3, 5},
       {2, 2, 2, 2, 3},
       {1, 2, 1},
       {{1, 0}, {0, 1}, {1, 1}},
       {1, 1, 1},
       {1, 1, 2},
       {{0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}}},
      {"window larger than the output (a weight gradient's form)",
       {3, 4, 6, 6},
       {2, 4, 5, 4},
       {1, 1},
       {{0, 0}, {1, 0}},
       {1, 1},
       {1, 1},
       kNCHW},
      {"kernel and image of size 1",
       {1, 1, 1, 1},
       {1, 1, 1, 1},
       {1, 1},
       {{0, 0}, {0, 0}},
       {1, 1},
       {1, 1},
       kNCHW},
      {"no spatial dims (a matmul)", {3, 4}, {5, 4}, {}, {}, {}, {}, {{0, 1}, {0, 1}, {0, 1}}},
  };
  return c;
}

/// The definition, one output element at a time: out[b, o, q] = sum over the group's input
/// features c and the window positions k of lhs[b', c, x] * rhs[o, c', k], where x = q * stride
/// - pad_lo + k * rhs_dilation must land on an lhs element of the lhs-dilated input.
inline std::vector<double> conv_reference(const ConvCase &c, const std::vector<double> &lhs,
                                          const std::vector<double> &rhs, const Shape &out_shape) {
  const auto &ls = c.dn.lhs_spec, &rs = c.dn.rhs_spec, &os = c.dn.out_spec;
  size_t n = c.lhs.size() - 2;
  int64_t N = c.lhs[ls[0]], C = c.lhs[ls[1]], O = c.rhs[rs[0]];
  int64_t G = c.feature_groups, B = c.batch_groups, cg = C / G;
  std::vector<double> out(static_cast<size_t>(num_elements(out_shape)), 0.0);
  Idx oi(out_shape.size(), 0);
  for (int64_t flat = 0; flat < static_cast<int64_t>(out.size()); ++flat) {
    int64_t r = flat;
    for (size_t d = out_shape.size(); d-- > 0;) {
      oi[d] = r % out_shape[d];
      r /= out_shape[d];
    }
    int64_t b = oi[os[0]], o = oi[os[1]];
    int64_t gf = o / (O / G), gb = o / (O / B);
    int64_t lb = gb * (N / B) + b;
    int64_t kn = 1;
    for (size_t d = 0; d < n; ++d)
      kn *= c.rhs[rs[2 + d]];
    double acc = 0;
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t kf = 0; kf < kn; ++kf) {
        Idx li(c.lhs.size()), ri(c.rhs.size());
        li[ls[0]] = lb;
        li[ls[1]] = gf * cg + ci;
        ri[rs[0]] = o;
        ri[rs[1]] = ci;
        bool inside = true;
        int64_t kr = kf;
        for (size_t d = n; d-- > 0;) {
          int64_t k = kr % c.rhs[rs[2 + d]];
          kr /= c.rhs[rs[2 + d]];
          int64_t x = oi[os[2 + d]] * c.strides[d] - c.padding[d].first + k * c.rhs_dilation[d];
          int64_t ld = c.lhs_dilation[d];
          inside = inside && x >= 0 && x % ld == 0 && x / ld < c.lhs[ls[2 + d]];
          li[ls[2 + d]] = x / ld;
          ri[rs[2 + d]] = k;
        }
        if (inside)
          acc += lhs[ravel(li, c.lhs)] * rhs[ravel(ri, c.rhs)];
      }
    out[flat] = acc;
  }
  return out;
}

} // namespace strata::testutil
