// conv_general_dilated: XLA's convolution (window strides, padding, lhs and rhs dilation,
// dimension numbers, feature and batch groups) with its rules; f32 runs on oneDNN, the rest on
// im2col over BLIS gemm.
#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>

#include "primitives/blis_gemm.h"
#include "primitives/conv_kernels.h"
#include "primitives/elementwise_impl.h"
#include "primitives/kernels_impl.h"
#include "primitives/rules_impl.h"
#include "strata/internal/thread_pool.h"
#include "strata/lax.h"
#include "strata/sizes.h"

namespace strata {
namespace {

constexpr const char *kOp = "conv_general_dilated";

// ---- Parameters --------------------------------------------------------------------------------
struct ConvParams {
  std::vector<int64_t> strides, padding, lhs_dilation, rhs_dilation;
  lax::ConvDimensionNumbers dn;
  int64_t feature_groups, batch_groups;
  std::optional<DType> preferred;
};

ConvParams conv_params(const Params &params) {
  ConvParams c{
      params.get_ints("window_strides"),
      params.get_ints("padding"),
      params.get_ints("lhs_dilation"),
      params.get_ints("rhs_dilation"),
      {params.get_ints("lhs_spec"), params.get_ints("rhs_spec"), params.get_ints("out_spec")},
      params.get_int("feature_group_count"),
      params.get_int("batch_group_count"),
      std::nullopt};
  if (params.has("preferred_element_type"))
    c.preferred = params.get_dtype("preferred_element_type");
  return c;
}

std::vector<std::pair<int64_t, int64_t>> pairs(const std::vector<int64_t> &flat) {
  std::vector<std::pair<int64_t, int64_t>> p;
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    p.push_back({flat[i], flat[i + 1]});
  return p;
}

Array conv(const Array &lhs, const Array &rhs, const ConvParams &c) {
  return lax::conv_general_dilated(lhs, rhs, c.strides, pairs(c.padding), c.lhs_dilation,
                                   c.rhs_dilation, c.dn, c.feature_groups, c.batch_groups,
                                   c.preferred);
}

int64_t dilate(int64_t size, int64_t dilation) {
  return size == 0 ? 0 : checked_dim_add(1, checked_dim_mul(dilation, size - 1, kOp), kOp);
}

// ---- Shape rule --------------------------------------------------------------------------------
void check_spec(const std::vector<int64_t> &spec, const char *name, const AbstractValue &lhs,
                const AbstractValue &rhs) {
  size_t rank = lhs.shape.size();
  std::vector<bool> seen(rank, false);
  bool ok = spec.size() == rank;
  for (int64_t d : spec) {
    ok = ok && d >= 0 && d < static_cast<int64_t>(rank) && !seen[d];
    if (ok)
      seen[d] = true;
  }
  if (!ok)
    fail_kind(ErrorKind::Type, kOp, name, " ", shape_str(spec),
              " is not a permutation of the dimensions of ", lhs.str(), " and ", rhs.str());
}

void check_positive(const std::vector<int64_t> &v, size_t n, const char *name,
                    const AbstractValue &lhs, const AbstractValue &rhs) {
  if (v.size() != n)
    fail_kind(ErrorKind::Type, kOp, name, " ", shape_str(v), " needs ", n,
              " entries (one per spatial dimension) for ", lhs.str(), " and ", rhs.str());
  for (int64_t x : v)
    if (x <= 0)
      fail(kOp, name, " must be positive, got ", shape_str(v));
}

std::vector<AbstractValue> conv_shape_rule(std::span<const AbstractValue> in,
                                           const Params &params) {
  expect_arity(kOp, in, 2);
  const AbstractValue &lhs = in[0], &rhs = in[1];
  ConvParams c = conv_params(params);
  if (lhs.dtype != rhs.dtype)
    fail_kind(ErrorKind::Type, kOp, "operand dtypes differ: ", lhs.str(), " and ", rhs.str());
  if (is_bool(lhs.dtype))
    fail_kind(ErrorKind::Type, kOp, "expects numeric operands, got ", lhs.str(), " and ",
              rhs.str());
  if (lhs.shape.size() != rhs.shape.size() || lhs.shape.size() < 2)
    fail_kind(ErrorKind::Type, kOp, "lhs and rhs need the same rank, at least 2, got ", lhs.str(),
              " and ", rhs.str());
  size_t n = lhs.shape.size() - 2;
  check_spec(c.dn.lhs_spec, "lhs_spec", lhs, rhs);
  check_spec(c.dn.rhs_spec, "rhs_spec", lhs, rhs);
  check_spec(c.dn.out_spec, "out_spec", lhs, rhs);
  check_positive(c.strides, n, "window_strides", lhs, rhs);
  check_positive(c.lhs_dilation, n, "lhs_dilation", lhs, rhs);
  check_positive(c.rhs_dilation, n, "rhs_dilation", lhs, rhs);
  if (c.padding.size() != 2 * n)
    fail_kind(ErrorKind::Type, kOp, "padding needs ", n, " (low, high) pairs for ", lhs.str(),
              " and ", rhs.str(), ", got ", c.padding.size() / 2);
  int64_t g = c.feature_groups, bg = c.batch_groups;
  if (g < 1 || bg < 1)
    fail(kOp, "feature_group_count and batch_group_count must be positive, got ", g, " and ", bg);
  if (g > 1 && bg > 1)
    fail(kOp, "at most one of feature_group_count (", g, ") and batch_group_count (", bg,
         ") may exceed 1");
  int64_t batch = lhs.shape[c.dn.lhs_spec[0]], feat = lhs.shape[c.dn.lhs_spec[1]];
  int64_t out_feat = rhs.shape[c.dn.rhs_spec[0]], in_feat = rhs.shape[c.dn.rhs_spec[1]];
  if (feat % g != 0)
    fail_kind(ErrorKind::Type, kOp, "lhs feature dimension size ", feat,
              " is not a multiple of feature_group_count ", g, " for ", lhs.str(), " and ",
              rhs.str());
  if (feat / g != in_feat)
    fail_kind(ErrorKind::Type, kOp, "lhs feature dimension size divided by feature_group_count (",
              feat, " / ", g, ") must equal the rhs input feature dimension size ", in_feat,
              " for ", lhs.str(), " and ", rhs.str());
  if (out_feat % g != 0)
    fail_kind(ErrorKind::Type, kOp, "rhs output feature dimension size ", out_feat,
              " is not a multiple of feature_group_count ", g, " for ", rhs.str());
  if (batch % bg != 0)
    fail_kind(ErrorKind::Type, kOp, "lhs batch dimension size ", batch,
              " is not a multiple of batch_group_count ", bg, " for ", lhs.str());
  if (out_feat % bg != 0)
    fail_kind(ErrorKind::Type, kOp, "rhs output feature dimension size ", out_feat,
              " is not a multiple of batch_group_count ", bg, " for ", rhs.str());

  Shape out_trans{batch / bg, out_feat};
  for (size_t i = 0; i < n; ++i) {
    int64_t padded =
        checked_dim_add(checked_dim_add(dilate(lhs.shape[c.dn.lhs_spec[2 + i]], c.lhs_dilation[i]),
                                        c.padding[2 * i], kOp),
                        c.padding[2 * i + 1], kOp);
    if (padded < 0)
      fail(kOp, "negative padding (", c.padding[2 * i], ", ", c.padding[2 * i + 1],
           ") is larger than spatial dimension ", i, " of ", lhs.str());
    int64_t window = dilate(rhs.shape[c.dn.rhs_spec[2 + i]], c.rhs_dilation[i]);
    out_trans.push_back(std::max<int64_t>(0, (padded - window) / c.strides[i] + 1));
    if (padded < window)
      out_trans.back() = 0;
  }
  Shape out(out_trans.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[c.dn.out_spec[i]] = out_trans[i];

  DType out_dtype = lhs.dtype;
  if (c.preferred) {
    DType p = *c.preferred;
    bool ok = is_floating(lhs.dtype) ? is_floating(p) : (is_integer(p) || is_floating(p));
    if (!ok || itemsize(p) < itemsize(lhs.dtype))
      fail_kind(ErrorKind::Type, kOp, "preferred_element_type ", short_name(p),
                " is incompatible with operands ", lhs.str(), " and ", rhs.str());
    out_dtype = p;
  }
  return {{out, out_dtype, lhs.weak_type && rhs.weak_type && !c.preferred}};
}

} // namespace

// ---- The problem in logical terms --------------------------------------------------------------
ConvProblem conv_problem(const Shape &lhs, const Shape &rhs, const Shape &out,
                         const Params &params) {
  ConvParams c = conv_params(params);
  std::vector<int64_t> ls = strides_of(lhs), rs = strides_of(rhs), os = strides_of(out);
  ConvProblem p;
  const auto &l = c.dn.lhs_spec, &r = c.dn.rhs_spec, &o = c.dn.out_spec;
  p.batch = lhs[l[0]];
  p.in_features = lhs[l[1]];
  p.out_features = rhs[r[0]];
  p.out_batch = out[o[0]];
  p.feature_groups = c.feature_groups;
  p.batch_groups = c.batch_groups;
  p.lhs_b = ls[l[0]];
  p.lhs_f = ls[l[1]];
  p.rhs_o = rs[r[0]];
  p.rhs_i = rs[r[1]];
  p.out_b = os[o[0]];
  p.out_f = os[o[1]];
  for (size_t i = 2; i < l.size(); ++i) {
    p.in_size.push_back(lhs[l[i]]);
    p.kernel_size.push_back(rhs[r[i]]);
    p.out_size.push_back(out[o[i]]);
    p.lhs_s.push_back(ls[l[i]]);
    p.rhs_s.push_back(rs[r[i]]);
    p.out_s.push_back(os[o[i]]);
    p.pad_lo.push_back(c.padding[2 * (i - 2)]);
    p.pad_hi.push_back(c.padding[2 * (i - 2) + 1]);
  }
  p.strides = c.strides;
  p.lhs_dilation = c.lhs_dilation;
  p.rhs_dilation = c.rhs_dilation;
  return p;
}

namespace {

// ---- im2col over gemm --------------------------------------------------------------------------
int64_t product(const std::vector<int64_t> &v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

/// Calls f(row, offset, inner, inner_stride) for each row (the last dimension) of a strided array
/// of logical shape `sizes`, across the pool: `offset` is the row's first element in the strided
/// array, `row * inner` its first element in the contiguous row-major one.
template <class F>
void for_each_strided_row(const std::vector<int64_t> &sizes, const std::vector<int64_t> &strides,
                          F f) {
  int64_t total = product(sizes);
  if (total == 0)
    return;
  size_t rank = sizes.size();
  int64_t inner = rank ? sizes.back() : 1, inner_stride = rank ? strides.back() : 0;
  parallel_for(total / inner, std::max<int64_t>(1, kElementwiseGrain / inner),
               [&](int64_t b, int64_t e) {
                 for (int64_t row = b; row < e; ++row) {
                   int64_t off = 0, flat = row;
                   for (size_t i = rank - 1; i-- > 0;) {
                     off += (flat % sizes[i]) * strides[i];
                     flat /= sizes[i];
                   }
                   f(row, off, inner, inner_stride);
                 }
               });
}

/// Copies a strided array of logical shape `sizes` into a contiguous row-major buffer of D.
template <class S, class D>
void gather_contiguous(const S *src, const std::vector<int64_t> &sizes,
                       const std::vector<int64_t> &strides, D *dst) {
  for_each_strided_row(sizes, strides, [&](int64_t row, int64_t off, int64_t inner, int64_t st) {
    D *out = dst + row * inner;
    for (int64_t j = 0; j < inner; ++j)
      out[j] = static_cast<D>(load(src[off + j * st]));
  });
}

/// The inverse: a contiguous row-major buffer of C into a strided array of T.
template <class C, class T>
void scatter_strided(const C *src, const std::vector<int64_t> &sizes,
                     const std::vector<int64_t> &strides, T *dst) {
  for_each_strided_row(sizes, strides, [&](int64_t row, int64_t off, int64_t inner, int64_t st) {
    const C *in = src + row * inner;
    for (int64_t j = 0; j < inner; ++j)
      dst[off + j * st] = store<T>(in[j]);
  });
}

/// The epilogue on a strided f32 output of logical shape [N, O, Q...] (strides `strides`): the
/// oneDNN forms that take no post-ops.
void apply_epilogue_strided(const ConvEpilogue &e, const std::vector<int64_t> &sizes,
                            const std::vector<int64_t> &strides, float *out) {
  int64_t per_feature = product(sizes) / (sizes[0] * sizes[1]);
  for_each_strided_row(sizes, strides, [&](int64_t row, int64_t off, int64_t inner, int64_t st) {
    int64_t f = (row * inner / per_feature) % sizes[1];
    float *y = out + off;
    if (st == 1) {
      apply_conv_epilogue(e, f, y, inner);
      return;
    }
    for (int64_t j = 0; j < inner; ++j)
      apply_conv_epilogue(e, f, y + j * st, 1);
  });
}

/// c (m x n, row stride n) = a (m x k, row stride k) * b (k x n, row stride n).
template <class C>
void product_into(int64_t m, int64_t n, int64_t k, const C *a, const C *b, C *c) {
  if constexpr (std::is_floating_point_v<C>) {
    blis_gemm<C>(m, n, k, C(1), {a, k, 1}, {b, n, 1}, C(0), {c, n, 1});
  } else {
    std::fill(c, c + m * n, C(0));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk) {
        C av = a[i * k + kk];
        for (int64_t j = 0; j < n; ++j)
          c[i * n + j] += av * b[kk * n + j];
      }
  }
}

/// The convolution on canonical contiguous buffers of C: lhs [N, C, S...], rhs [O, I, K...],
/// out [N / batch_groups, O, Q...]. For each output batch element and group, the patches of the
/// lhs become the columns of a [I * K, Q] matrix (zero where a window position falls in the
/// padding or between dilated elements) and one gemm with the group's [O_g, I * K] weights
/// gives its [O_g, Q] output block, to which the epilogue applies while it is in cache.
template <class C>
void im2col_conv(const ConvProblem &p, const C *lhs, const C *rhs, C *out,
                 const ConvEpilogue &epilogue) {
  size_t n = p.rank();
  int64_t groups = p.feature_groups * p.batch_groups;
  int64_t cg = p.in_features / p.feature_groups, og = p.out_features / groups;
  int64_t ksize = product(p.kernel_size), q = product(p.out_size), in_sp = product(p.in_size);
  int64_t rows = cg * ksize, items = p.out_batch * groups;
  int64_t batch_per_group = p.batch / p.batch_groups;
  if (items == 0 || og == 0 || q == 0)
    return;
  if (rows == 0) {
    std::fill(out, out + p.out_batch * p.out_features * q, C(0));
    if (!epilogue.empty())
      for (int64_t b = 0; b < p.out_batch; ++b)
        for (int64_t f = 0; f < p.out_features; ++f)
          apply_conv_epilogue(epilogue, f, out + (b * p.out_features + f) * q, q);
    return;
  }
  // For each spatial dim, the lhs index of (window position, output position), or -1 where it
  // falls in the padding or between dilated elements.
  std::vector<std::vector<int64_t>> tap(n);
  for (size_t d = 0; d < n; ++d) {
    int64_t qd = p.out_size[d], kd = p.kernel_size[d];
    tap[d].resize(static_cast<size_t>(kd * qd));
    for (int64_t k = 0; k < kd; ++k)
      for (int64_t o = 0; o < qd; ++o) {
        int64_t x = o * p.strides[d] - p.pad_lo[d] + k * p.rhs_dilation[d];
        bool hit = x >= 0 && x % p.lhs_dilation[d] == 0 && x / p.lhs_dilation[d] < p.in_size[d];
        tap[d][k * qd + o] = hit ? x / p.lhs_dilation[d] : -1;
      }
  }
  std::vector<int64_t> in_stride(n, 1);
  for (size_t d = n; d-- > 1;)
    in_stride[d - 1] = in_stride[d] * p.in_size[d];
  auto one = [&](int64_t item, C *col) {
    int64_t b = item / groups, g = item % groups;
    int64_t gf = p.feature_groups > 1 ? g : 0, gb = p.batch_groups > 1 ? g : 0;
    const C *src = lhs + ((gb * batch_per_group + b) * p.in_features + gf * cg) * in_sp;
    std::vector<int64_t> kidx(n), oidx(n);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t ci = r / ksize, kflat = r % ksize;
      for (size_t d = n; d-- > 0;) {
        kidx[d] = kflat % p.kernel_size[d];
        kflat /= p.kernel_size[d];
      }
      const C *plane = src + ci * in_sp;
      C *dst = col + r * q;
      if (n == 0) {
        dst[0] = plane[0];
        continue;
      }
      std::fill(oidx.begin(), oidx.end(), 0);
      int64_t qlast = p.out_size[n - 1];
      for (int64_t j = 0; j < q; j += qlast) {
        int64_t off = 0;
        bool inside = true;
        for (size_t d = 0; d + 1 < n && inside; ++d) {
          int64_t x = tap[d][kidx[d] * p.out_size[d] + oidx[d]];
          inside = x >= 0;
          off += x * in_stride[d];
        }
        if (!inside) {
          std::fill(dst + j, dst + j + qlast, C(0));
        } else {
          const int64_t *t = tap[n - 1].data() + kidx[n - 1] * qlast;
          for (int64_t o = 0; o < qlast; ++o)
            dst[j + o] = t[o] >= 0 ? plane[off + t[o]] : C(0);
        }
        for (size_t d = n - 1; d-- > 0;) {
          if (++oidx[d] < p.out_size[d])
            break;
          oidx[d] = 0;
        }
      }
    }
    const C *w = rhs + g * og * rows;
    C *block = out + (b * p.out_features + g * og) * q;
    product_into<C>(og, q, rows, w, col, block);
    if (!epilogue.empty())
      for (int64_t f = 0; f < og; ++f)
        apply_conv_epilogue(epilogue, g * og + f, block + f * q, q);
  };
  parallel_for(items, 1, [&](int64_t begin, int64_t end) {
    std::unique_ptr<C[]> col(new C[static_cast<size_t>(rows * q)]);
    for (int64_t i = begin; i < end; ++i)
      one(i, col.get());
  });
}

template <class C>
void general_conv(const ConvProblem &p, DType in, DType out_dtype, const void *lhs, const void *rhs,
                  void *out, const ConvEpilogue &epilogue) {
  auto logical = [](std::initializer_list<int64_t> head, const std::vector<int64_t> &tail) {
    std::vector<int64_t> v(head);
    v.insert(v.end(), tail.begin(), tail.end());
    return v;
  };
  std::vector<int64_t> ls = logical({p.batch, p.in_features}, p.in_size);
  std::vector<int64_t> rs =
      logical({p.out_features, p.in_features / p.feature_groups}, p.kernel_size);
  std::vector<int64_t> os = logical({p.out_batch, p.out_features}, p.out_size);
  std::unique_ptr<C[]> a(new C[static_cast<size_t>(std::max<int64_t>(1, product(ls)))]);
  std::unique_ptr<C[]> w(new C[static_cast<size_t>(std::max<int64_t>(1, product(rs)))]);
  std::unique_ptr<C[]> o(new C[static_cast<size_t>(std::max<int64_t>(1, product(os)))]);
  STRATA_DISPATCH(in, S, {
    if constexpr (!std::is_same_v<S, bool>) {
      gather_contiguous(static_cast<const S *>(lhs), ls, logical({p.lhs_b, p.lhs_f}, p.lhs_s),
                        a.get());
      gather_contiguous(static_cast<const S *>(rhs), rs, logical({p.rhs_o, p.rhs_i}, p.rhs_s),
                        w.get());
    }
  });
  im2col_conv<C>(p, a.get(), w.get(), o.get(), epilogue);
  STRATA_DISPATCH(out_dtype, T, {
    if constexpr (!std::is_same_v<T, bool>)
      scatter_strided(o.get(), os, logical({p.out_b, p.out_f}, p.out_s), static_cast<T *>(out));
  });
}

std::vector<Array> conv_impl(std::span<const Array> in, const Params &params,
                             std::span<const AbstractValue> out_avals) {
  Array out = Array::empty(out_avals[0].shape, out_avals[0].dtype, out_avals[0].weak_type);
  if (out.size() == 0)
    return {out};
  ConvProblem p = conv_problem(in[0].shape(), in[1].shape(), out.shape(), params);
  conv_kernel(p, in[0].dtype(), out.dtype(), in[0].data(), in[1].data(), out.mutable_data());
  return {out};
}

// ---- Transform rules ---------------------------------------------------------------------------
// Written with lax:: ops only (as JAX's), so that they are differentiable and batchable.

/// Splits axis src of x into (size1, x.shape[src] / size1), the first major.
Array split_axis(int64_t src, int64_t size1, const Array &x) {
  Shape s = x.shape();
  int64_t size2 = s[src] / size1;
  s[src] = size2;
  s.insert(s.begin() + src, size1);
  return lax::reshape(x, s);
}

/// Merges axis src of x into axis dst (numbered after src is removed), src major.
Array merge_axis(int64_t src, int64_t dst, const Array &x) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < x.ndim(); ++i)
    if (i != src)
      perm.push_back(i);
  perm.insert(perm.begin() + dst, src);
  Shape s;
  for (int64_t i = 0; i < x.ndim(); ++i)
    if (i != src)
      s.push_back(x.shape()[i]);
  s[dst] *= x.shape()[src];
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  return lax::reshape(identity ? x : lax::transpose(x, perm), s);
}

std::vector<int64_t> swap01(std::vector<int64_t> spec) {
  std::swap(spec[0], spec[1]);
  return spec;
}

std::vector<int64_t> take(const Shape &shape, const std::vector<int64_t> &spec) {
  std::vector<int64_t> v;
  for (size_t i = 2; i < spec.size(); ++i)
    v.push_back(shape[spec[i]]);
  return v;
}

Array cast_like(const Array &r, const Array &x) {
  return r.dtype() == x.dtype() ? r : lax::convert_element_type(r, x.dtype(), x.weak_type());
}

/// The cotangent of lhs: a convolution of g with the spatially reversed rhs, input and output
/// features swapped, the strides becoming lhs dilation (JAX's _conv_general_dilated_transpose_lhs).
Array transpose_lhs(const Array &g, const Array &lhs, Array rhs, ConvParams c) {
  const auto &ls = c.dn.lhs_spec, &rs = c.dn.rhs_spec, &os = c.dn.out_spec;
  int64_t bg = c.batch_groups;
  if (c.feature_groups > 1 || bg > 1) {
    rhs = split_axis(rs[0], c.feature_groups > 1 ? c.feature_groups : bg, rhs);
    rhs = merge_axis(rs[0], rs[1], rhs);
  }
  int64_t groups = c.feature_groups > 1 ? c.feature_groups : bg;
  std::vector<int64_t> in = take(lhs.shape(), ls), win = take(rhs.shape(), rs),
                       out = take(g.shape(), os);
  std::vector<std::pair<int64_t, int64_t>> pad;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t before = dilate(win[i], c.rhs_dilation[i]) - c.padding[2 * i] - 1;
    int64_t after = dilate(in[i], c.lhs_dilation[i]) + dilate(win[i], c.rhs_dilation[i]) - 1 -
                    dilate(out[i], c.strides[i]) - before;
    pad.push_back({before, after});
  }
  std::vector<int64_t> sdims(rs.begin() + 2, rs.end());
  Array r =
      lax::conv_general_dilated(g, lax::rev(rhs, sdims), c.lhs_dilation, pad, c.strides,
                                c.rhs_dilation, {{os, swap01(rs), ls}}, groups, 1, c.preferred);
  if (bg > 1) {
    r = split_axis(ls[1], bg, r);
    r = merge_axis(ls[1], ls[0], r);
  }
  return cast_like(r, lhs);
}

/// The cotangent of rhs: a convolution of lhs with g, batch and feature dims swapped on all
/// three, strides and rhs dilation trading places; feature groups become batch groups and back
/// (JAX's _conv_general_dilated_transpose_rhs).
Array transpose_rhs(const Array &g, const Array &lhs, const Array &rhs, ConvParams c) {
  const auto &ls = c.dn.lhs_spec, &rs = c.dn.rhs_spec, &os = c.dn.out_spec;
  if (g.size() == 0)
    return rules::zeros_of(rhs);
  int64_t fg = c.feature_groups, bg = c.batch_groups;
  if (bg > 1) {
    fg = bg;
    bg = 1;
  } else if (fg > 1) {
    bg = fg;
    fg = 1;
  }
  std::vector<int64_t> in = take(lhs.shape(), ls), win = take(rhs.shape(), rs),
                       out = take(g.shape(), os);
  std::vector<std::pair<int64_t, int64_t>> pad;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t lo = c.padding[2 * i];
    int64_t hi = (dilate(out[i], c.strides[i]) - dilate(in[i], c.lhs_dilation[i])) +
                 (dilate(win[i], c.rhs_dilation[i]) - lo - 1);
    pad.push_back({lo, hi});
  }
  Array r = lax::conv_general_dilated(lhs, g, c.rhs_dilation, pad, c.lhs_dilation, c.strides,
                                      {{swap01(ls), swap01(os), swap01(rs)}}, fg, bg, c.preferred);
  return cast_like(r, rhs);
}

// Bilinear: jvp = conv(t_lhs, rhs) + conv(lhs, t_rhs).
std::vector<Array> conv_jvp(std::span<const Array> x, std::span<const Array> t,
                            std::span<const Array>, const Params &params) {
  ConvParams c = conv_params(params);
  Array out;
  if (!rules::is_zero(t[0]))
    out = conv(t[0], x[1], c);
  if (!rules::is_zero(t[1]))
    out = rules::add_tangents(out, conv(x[0], t[1], c));
  return {out};
}

std::vector<Array> conv_vjp(std::span<const Array> x, std::span<const Array>,
                            std::span<const Array> ct, const std::vector<bool> &wanted,
                            const Params &params) {
  if (rules::is_zero(ct[0]) || !is_floating(x[0].dtype()))
    return {Array(), Array()};
  ConvParams c = conv_params(params);
  Array g = ct[0];
  std::vector<Array> out(2);
  if (wanted[0])
    out[0] = transpose_lhs(g, x[0], x[1], c);
  if (wanted[1])
    out[1] = transpose_rhs(g, x[0], x[1], c);
  return out;
}

/// The vmapped axis folds into the batch dim of lhs, or into the output features of rhs (into
/// the feature or batch groups when both are batched), so one convolution serves every example
/// (JAX's _conv_general_dilated_batch_rule).
std::vector<Array> conv_batch(const BatchContext &ctx, std::span<const Array> vals,
                              std::span<const int64_t> dims, const Params &params,
                              std::vector<int64_t> &out_dims) {
  ConvParams c = conv_params(params);
  const auto &ls = c.dn.lhs_spec, &rs = c.dn.rhs_spec, &os = c.dn.out_spec;
  int64_t lb = dims[0], rb = dims[1], size = ctx.axis_size;
  const Array &lhs = vals[0], &rhs = vals[1];
  if (lb != kNotBatched && rb != kNotBatched) {
    Array new_lhs;
    if (c.batch_groups > 1) {
      new_lhs = merge_axis(lb, ls[0], lhs);
      c.batch_groups *= size;
    } else {
      new_lhs = merge_axis(lb, ls[1], lhs);
      c.feature_groups *= size;
    }
    Array out = conv(new_lhs, merge_axis(rb, rs[0], rhs), c);
    out_dims = {os[1]};
    return {split_axis(os[1], size, out)};
  }
  if (lb != kNotBatched) {
    Array new_lhs;
    if (c.batch_groups == 1) {
      new_lhs = merge_axis(lb, ls[0], lhs);
    } else {
      new_lhs = split_axis(ls[0] + (lb <= ls[0] ? 1 : 0), c.batch_groups, lhs);
      new_lhs = merge_axis(lb + (ls[0] < lb ? 1 : 0), ls[0] + 1, new_lhs);
      new_lhs = merge_axis(ls[0], ls[0], new_lhs);
    }
    out_dims = {os[0]};
    return {split_axis(os[0], size, conv(new_lhs, rhs, c))};
  }
  if (c.feature_groups == 1 && c.batch_groups == 1) {
    out_dims = {os[1]};
    return {split_axis(os[1], size, conv(lhs, merge_axis(rb, rs[0], rhs), c))};
  }
  // Groups stay outermost in the output features: factor them out, fold the vmapped axis into
  // what remains, put the groups back; the output is unfolded the same way.
  int64_t groups = c.feature_groups > 1 ? c.feature_groups : c.batch_groups;
  Array new_rhs = split_axis(rs[0] + (rb <= rs[0] ? 1 : 0), groups, rhs);
  new_rhs = merge_axis(rb + (rs[0] < rb ? 1 : 0), rs[0] + 1, new_rhs);
  new_rhs = merge_axis(rs[0], rs[0], new_rhs);
  Array out = conv(lhs, new_rhs, c);
  out = split_axis(os[1], groups, out);
  out = split_axis(os[1] + 1, size, out);
  out = merge_axis(os[1], os[1] + 1, out);
  out_dims = {os[1]};
  return {out};
}

const Primitive &conv_p = register_primitive({
    .name = kOp,
    .shape_rule = conv_shape_rule,
    .impl = conv_impl,
    .jvp = conv_jvp,
    .vjp = conv_vjp,
    .batch = conv_batch,
});

} // namespace

void conv_kernel(const ConvProblem &p, DType in, DType out_dtype, const void *lhs, const void *rhs,
                 void *out, const ConvEpilogue &epilogue) {
  if (product(p.out_size) * p.out_batch * p.out_features == 0)
    return;
  if (!epilogue.empty() && out_dtype != DType::Float32 && out_dtype != DType::Float64)
    throw std::invalid_argument(std::string("[conv_general_dilated] a fused epilogue needs a ") +
                                "float32 or float64 result, got " +
                                std::string(dtype_name(out_dtype)));
  if (out_dtype == DType::Float32 && in == DType::Float32) {
    DnnlConvResult r =
        conv_dnnl_f32(p, static_cast<const float *>(lhs), static_cast<const float *>(rhs),
                      static_cast<float *>(out), epilogue);
    if (r == DnnlConvResult::WithEpilogue)
      return;
    if (r == DnnlConvResult::WithoutEpilogue) {
      std::vector<int64_t> os = {p.out_batch, p.out_features}, st = {p.out_b, p.out_f};
      os.insert(os.end(), p.out_size.begin(), p.out_size.end());
      st.insert(st.end(), p.out_s.begin(), p.out_s.end());
      apply_epilogue_strided(epilogue, os, st, static_cast<float *>(out));
      return;
    }
  }
  if (out_dtype == DType::Float64)
    general_conv<double>(p, in, out_dtype, lhs, rhs, out, epilogue);
  else if (is_floating(out_dtype))
    general_conv<float>(p, in, out_dtype, lhs, rhs, out, epilogue);
  else
    general_conv<uint64_t>(p, in, out_dtype, lhs, rhs, out, {}); // wraps like XLA's integers
}

// ---- lax wrapper -------------------------------------------------------------------------------
namespace lax {
Array conv_general_dilated(const Array &lhs, const Array &rhs,
                           const std::vector<int64_t> &window_strides,
                           const std::vector<std::pair<int64_t, int64_t>> &padding,
                           std::vector<int64_t> lhs_dilation, std::vector<int64_t> rhs_dilation,
                           std::optional<ConvDimensionNumbers> dimension_numbers,
                           int64_t feature_group_count, int64_t batch_group_count,
                           std::optional<DType> preferred_element_type) {
  size_t n = lhs.valid() && lhs.ndim() >= 2 ? static_cast<size_t>(lhs.ndim() - 2) : 0;
  if (lhs_dilation.empty())
    lhs_dilation.assign(n, 1);
  if (rhs_dilation.empty())
    rhs_dilation.assign(n, 1);
  if (!dimension_numbers) {
    std::vector<int64_t> iota(n + 2);
    std::iota(iota.begin(), iota.end(), int64_t{0});
    dimension_numbers = ConvDimensionNumbers{iota, iota, iota};
  }
  std::vector<int64_t> flat;
  for (auto [lo, hi] : padding) {
    flat.push_back(lo);
    flat.push_back(hi);
  }
  Params params{{"window_strides", window_strides},
                {"padding", flat},
                {"lhs_dilation", lhs_dilation},
                {"rhs_dilation", rhs_dilation},
                {"lhs_spec", dimension_numbers->lhs_spec},
                {"rhs_spec", dimension_numbers->rhs_spec},
                {"out_spec", dimension_numbers->out_spec},
                {"feature_group_count", feature_group_count},
                {"batch_group_count", batch_group_count}};
  if (preferred_element_type)
    params.set("preferred_element_type", *preferred_element_type);
  return bind1(conv_p, {lhs, rhs}, params);
}
} // namespace lax

} // namespace strata
