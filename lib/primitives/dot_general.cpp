// dot_general: batched tensor contraction. Floats go through BLIS gemm, reading operands in
// place whenever their layout is a (possibly transposed) strided matrix; integers use a loop.
#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>

#include "primitives/blis_gemm.h"
#include "primitives/elementwise_impl.h"
#include "primitives/rules_impl.h"
#include "strata/internal/blas.h"
#include "strata/internal/thread_pool.h"
#include "strata/lax.h"

namespace strata {
namespace {

constexpr const char *kOp = "dot_general";

// ---- Shape rule --------------------------------------------------------------------------------
void check_dims(const AbstractValue &x, const char *side, const std::vector<int64_t> &batch,
                const std::vector<int64_t> &contracting) {
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> used(x.shape.size(), false);
  for (const auto *dims : {&batch, &contracting}) {
    const char *kind = dims == &batch ? "batch" : "contracting";
    for (int64_t d : *dims) {
      if (d < 0 || d >= rank)
        fail(kOp, side, " ", kind, " dimension ", d, " is out of range for ", x.str());
      if (used[d])
        fail(kOp, side, " dimension ", d, " appears more than once in batch ", shape_str(batch),
             " and contracting ", shape_str(contracting), " dimensions of ", x.str());
      used[d] = true;
    }
  }
}

std::vector<int64_t> free_dims(size_t rank, const std::vector<int64_t> &batch,
                               const std::vector<int64_t> &contracting) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end())
      out.push_back(d);
  return out;
}

std::vector<AbstractValue> dot_shape_rule(std::span<const AbstractValue> in, const Params &params) {
  expect_arity(kOp, in, 2);
  const AbstractValue &lhs = in[0], &rhs = in[1];
  if (lhs.dtype != rhs.dtype)
    fail_kind(ErrorKind::Type, kOp, "operand dtypes differ: ", lhs.str(), " and ", rhs.str());
  if (is_bool(lhs.dtype))
    fail_kind(ErrorKind::Type, kOp, "expects numeric operands, got ", lhs.str(), " and ",
              rhs.str());
  const auto &lc = params.get_ints("lhs_contracting"), &rc = params.get_ints("rhs_contracting");
  const auto &lb = params.get_ints("lhs_batch"), &rb = params.get_ints("rhs_batch");
  if (lc.size() != rc.size())
    fail_kind(ErrorKind::Type, kOp, "lhs and rhs need as many contracting dimensions, got ",
              shape_str(lc), " and ", shape_str(rc));
  if (lb.size() != rb.size())
    fail_kind(ErrorKind::Type, kOp, "lhs and rhs need as many batch dimensions, got ",
              shape_str(lb), " and ", shape_str(rb));
  check_dims(lhs, "lhs", lb, lc);
  check_dims(rhs, "rhs", rb, rc);
  for (size_t i = 0; i < lb.size(); ++i)
    if (lhs.shape[lb[i]] != rhs.shape[rb[i]])
      fail_kind(ErrorKind::Type, kOp, "batch dimensions differ: ", lhs.str(), " and ", rhs.str(),
                " (lhs dimension ", lb[i], ", rhs dimension ", rb[i], ")");
  for (size_t i = 0; i < lc.size(); ++i)
    if (lhs.shape[lc[i]] != rhs.shape[rc[i]])
      fail_kind(ErrorKind::Type, kOp, "contracting dimensions differ: ", lhs.str(), " and ",
                rhs.str(), " (lhs dimension ", lc[i], ", rhs dimension ", rc[i], ")");

  DType out_dtype = lhs.dtype;
  bool has_pref = params.has("preferred_element_type");
  if (has_pref) {
    DType p = params.get_dtype("preferred_element_type");
    // As JAX: (int, int), (int, float) and (float, float), never narrower than the inputs.
    bool ok = is_complex(lhs.dtype)    ? is_complex(p)
              : is_floating(lhs.dtype) ? is_floating(p)
                                       : (is_integer(p) || is_floating(p));
    if (!ok)
      fail_kind(ErrorKind::Type, kOp, "preferred_element_type ", short_name(p),
                " is incompatible with operands ", lhs.str(), " and ", rhs.str());
    if (itemsize(p) < itemsize(lhs.dtype))
      fail_kind(ErrorKind::Type, kOp, "preferred_element_type ", short_name(p),
                " is narrower than the operands ", lhs.str(), " and ", rhs.str());
    out_dtype = p;
  }
  Shape out;
  for (int64_t d : lb)
    out.push_back(lhs.shape[d]);
  for (int64_t d : free_dims(lhs.shape.size(), lb, lc))
    out.push_back(lhs.shape[d]);
  for (int64_t d : free_dims(rhs.shape.size(), rb, rc))
    out.push_back(rhs.shape[d]);
  return {{out, out_dtype, lhs.weak_type && rhs.weak_type && !has_pref}};
}

// ---- Operand layouts ---------------------------------------------------------------------------
/// One operand seen as `nb` matrices [p, q]: batch dims, then the dims of p and of q (in the
/// order that pairs them with the other operand and the output).
struct Operand {
  const Array *array;
  std::vector<int64_t> batch, p, q;
  Shape shape;
  std::vector<int64_t> strides;
  int64_t nb = 1, np = 1, nq = 1;
};

Operand make_operand(const Array &a, std::vector<int64_t> batch, std::vector<int64_t> p,
                     std::vector<int64_t> q) {
  Operand o{&a, std::move(batch), std::move(p), std::move(q), a.shape(), strides_of(a.shape())};
  for (int64_t d : o.batch)
    o.nb *= o.shape[d];
  for (int64_t d : o.p)
    o.np *= o.shape[d];
  for (int64_t d : o.q)
    o.nq *= o.shape[d];
  return o;
}

/// The single stride of `dims` viewed as one flattened index: 0 when they hold at most one
/// element (any stride works), -1 when they do not merge into one strided dimension.
int64_t merged_stride(const Operand &o, const std::vector<int64_t> &dims) {
  int64_t n = 1, prev = -1, stride = 0;
  for (int64_t d : dims) {
    n *= o.shape[d];
    if (o.shape[d] == 1)
      continue;
    if (prev >= 0 && o.strides[prev] != o.strides[d] * o.shape[d])
      return -1;
    prev = d;
    stride = o.strides[d];
  }
  return n <= 1 ? 0 : stride;
}

/// How gemm reads each per-batch matrix of an operand: stored as [p, q] (row stride ld) or,
/// when `trans`, as [q, p].
struct GemmView {
  bool ok = false, trans = false;
  int64_t ld = 0;
};
GemmView gemm_view(const Operand &o) {
  int64_t sp = merged_stride(o, o.p), sq = merged_stride(o, o.q);
  GemmView v;
  if (sp < 0 || sq < 0)
    return v;
  int64_t lim = std::numeric_limits<int32_t>::max();
  if (sq <= 1) {
    v.ld = sp == 0 ? std::max<int64_t>(1, o.nq) : sp;
    v.ok = v.ld >= std::max<int64_t>(1, o.nq) && v.ld <= lim;
    if (v.ok)
      return v;
  }
  if (sp <= 1) {
    v.trans = true;
    v.ld = sq == 0 ? std::max<int64_t>(1, o.np) : sq;
    v.ok = v.ld >= std::max<int64_t>(1, o.np) && v.ld <= lim;
  }
  return v;
}

/// Element offset of each batch's matrix.
std::vector<int64_t> batch_offsets(const Operand &o) {
  std::vector<int64_t> off(static_cast<size_t>(o.nb), 0);
  std::vector<int64_t> idx(o.batch.size(), 0);
  for (int64_t b = 0; b < o.nb; ++b) {
    int64_t s = 0;
    for (size_t i = 0; i < idx.size(); ++i)
      s += idx[i] * o.strides[o.batch[i]];
    off[b] = s;
    for (size_t i = idx.size(); i-- > 0;) {
      if (++idx[i] < o.shape[o.batch[i]])
        break;
      idx[i] = 0;
    }
  }
  return off;
}

/// Copies (and converts) an operand into a contiguous [nb, np, nq] buffer of D.
template <class S, class D> void pack(const Operand &o, D *dst) {
  std::vector<int64_t> dims = o.batch;
  dims.insert(dims.end(), o.p.begin(), o.p.end());
  dims.insert(dims.end(), o.q.begin(), o.q.end());
  Shape sizes;
  std::vector<int64_t> strides;
  for (int64_t d : dims)
    if (o.shape[d] != 1) {
      sizes.push_back(o.shape[d]);
      strides.push_back(o.strides[d]);
    }
  int64_t total = o.nb * o.np * o.nq;
  if (total == 0)
    return;
  const S *src = o.array->data<S>();
  int64_t inner = sizes.empty() ? 1 : sizes.back(), in_stride = sizes.empty() ? 0 : strides.back();
  int64_t rows = total / inner;
  size_t outer_rank = sizes.empty() ? 0 : sizes.size() - 1;
  parallel_for(rows, std::max<int64_t>(1, kElementwiseGrain / inner), [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(outer_rank);
    int64_t off = 0, flat = b;
    for (size_t i = outer_rank; i-- > 0;) {
      idx[i] = flat % sizes[i];
      flat /= sizes[i];
      off += idx[i] * strides[i];
    }
    for (int64_t r = b; r < e; ++r) {
      D *out = dst + r * inner;
      for (int64_t j = 0; j < inner; ++j)
        out[j] = static_cast<D>(load(src[off + j * in_stride]));
      for (size_t i = outer_rank; i-- > 0;) {
        off += strides[i];
        if (++idx[i] < sizes[i])
          break;
        off -= strides[i] * sizes[i];
        idx[i] = 0;
      }
    }
  });
}

// ---- Kernels -----------------------------------------------------------------------------------

/// c[b] = a[b] @ w[b] on contiguous [nb,m,k] and [nb,k,n] buffers: integer dots, and floats
/// whose sizes exceed BLAS's 32-bit integers.
template <class C>
void loop_matmul(const C *a, const C *w, C *c, int64_t nb, int64_t m, int64_t k, int64_t n) {
  parallel_for(nb * m, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, k * n)),
               [&](int64_t b, int64_t e) {
                 for (int64_t row = b; row < e; ++row) {
                   int64_t bi = row / m;
                   const C *ar = a + row * k, *wb = w + bi * k * n;
                   C *cr = c + row * n;
                   std::fill(cr, cr + n, C(0));
                   for (int64_t kk = 0; kk < k; ++kk) {
                     C av = ar[kk];
                     const C *wr = wb + kk * n;
                     for (int64_t j = 0; j < n; ++j)
                       cr[j] = wrap_add(cr[j], wrap_mul(av, wr[j]));
                   }
                 }
               });
}

/// c (m x n, leading dimension ldc) = op(a) * op(b), with op a transposition when `ta`/`tb`.
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T *a, int64_t lda, const T *b,
          int64_t ldb, T *c, int64_t ldc) {
  blis_gemm<T>(m, n, k, T(1), {a, ta ? 1 : lda, ta ? lda : 1}, {b, tb ? 1 : ldb, tb ? ldb : 1},
               T(0), {c, ldc, 1});
}

/// Batch element i of strided_gemm: c[i] = a[i] * b[i] (+ c[i] when accumulating).
template <class T>
void gemm_general(int64_t m, int64_t n, int64_t k, const GemmArg &a, const GemmArg &b,
                  const GemmArg &c, int64_t i, bool accumulate) {
  const T *pa = static_cast<const T *>(a.data) + i * a.batch_stride;
  const T *pb = static_cast<const T *>(b.data) + i * b.batch_stride;
  T *pc = static_cast<T *>(c.data) + i * c.batch_stride;
  blis_gemm<T>(m, n, k, T(1), {pa, a.row_stride, a.col_stride}, {pb, b.row_stride, b.col_stride},
               T(accumulate ? 1 : 0), {pc, c.row_stride, c.col_stride});
}

/// A float operand as gemm sees it: in place when its layout allows, otherwise packed.
template <class CT> struct GemmOperand {
  const CT *data = nullptr;
  std::unique_ptr<CT[]> owned;
  std::vector<int64_t> offsets; // per batch
  bool trans = false;
  int64_t ld = 0;
};
template <class CT> GemmOperand<CT> prepare(const Operand &o, bool force_pack) {
  GemmOperand<CT> g;
  GemmView v = gemm_view(o);
  if (!force_pack && o.array->dtype() == dtype_of<CT>::value && v.ok) {
    g.data = o.array->data<CT>();
    g.offsets = batch_offsets(o);
    g.trans = v.trans;
    g.ld = v.ld;
    return g;
  }
  g.owned.reset(new CT[static_cast<size_t>(std::max<int64_t>(1, o.nb * o.np * o.nq))]);
  STRATA_DISPATCH_ALL(o.array->dtype(), S, {
    if constexpr (!std::is_same_v<S, bool> && is_complex_v<S> == is_complex_v<CT>)
      pack<S>(o, g.owned.get());
  });
  g.data = g.owned.get();
  g.offsets.resize(static_cast<size_t>(o.nb));
  for (int64_t b = 0; b < o.nb; ++b)
    g.offsets[b] = b * o.np * o.nq;
  g.ld = std::max<int64_t>(1, o.nq);
  return g;
}

template <class CT>
void float_dot(const Operand &lhs, const Operand &rhs, Array &y, int64_t m, int64_t k, int64_t n) {
  int64_t nb = lhs.nb, total = nb * m * n;
  if (total == 0)
    return;
  DType out = y.dtype();
  std::unique_ptr<CT[]> tmp;
  CT *c = out == dtype_of<CT>::value ? static_cast<CT *>(y.mutable_data())
                                     : (tmp.reset(new CT[static_cast<size_t>(total)]), tmp.get());
  if (k == 0) {
    std::fill(c, c + total, CT(0));
  } else {
    int64_t lim = std::numeric_limits<int32_t>::max();
    bool fits = m <= lim && n <= lim && k <= lim;
    auto a = prepare<CT>(lhs, !fits), w = prepare<CT>(rhs, !fits);
    if (!fits) {
      loop_matmul(a.data, w.data, c, nb, m, k, n);
    } else {
      auto one = [&](int64_t b) {
        gemm<CT>(a.trans, w.trans, m, n, k, a.data + a.offsets[b], a.ld, w.data + w.offsets[b],
                 w.ld, c + b * m * n, n);
      };
      for_each_product(nb, m, n, k, one);
    }
  }
  if (tmp) {
    STRATA_DISPATCH_ALL(out, O, {
      if constexpr (is_float_v<O> || (is_complex_v<O> && is_complex_v<CT>)) {
        O *dst = static_cast<O *>(y.mutable_data());
        parallel_for(total, kElementwiseGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i)
            dst[i] = store<O>(c[i]);
        });
      }
    });
  }
}

std::vector<Array> dot_impl(std::span<const Array> in, const Params &params,
                            std::span<const AbstractValue> out) {
  const auto &lc = params.get_ints("lhs_contracting"), &rc = params.get_ints("rhs_contracting");
  const auto &lb = params.get_ints("lhs_batch"), &rb = params.get_ints("rhs_batch");
  Operand lhs = make_operand(in[0], lb, free_dims(in[0].shape().size(), lb, lc), lc);
  Operand rhs = make_operand(in[1], rb, rc, free_dims(in[1].shape().size(), rb, rc));
  int64_t m = lhs.np, k = lhs.nq, n = rhs.nq;
  Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
  DType od = out[0].dtype;
  if (od == DType::Float64) {
    float_dot<double>(lhs, rhs, y, m, k, n);
  } else if (is_floating(od)) {
    float_dot<float>(lhs, rhs, y, m, k, n);
  } else if (od == DType::Complex128) {
    float_dot<std::complex<double>>(lhs, rhs, y, m, k, n);
  } else if (od == DType::Complex64) {
    float_dot<std::complex<float>>(lhs, rhs, y, m, k, n);
  } else {
    // Integers: widen both operands to the output type, then wrap like XLA.
    int64_t nb = lhs.nb;
    STRATA_DISPATCH(od, O, {
      if constexpr (std::is_integral_v<O> && !std::is_same_v<O, bool>) {
        std::unique_ptr<O[]> a(new O[static_cast<size_t>(std::max<int64_t>(1, nb * m * k))]);
        std::unique_ptr<O[]> w(new O[static_cast<size_t>(std::max<int64_t>(1, nb * k * n))]);
        STRATA_DISPATCH(in[0].dtype(), S, {
          if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
            pack<S>(lhs, a.get());
            pack<S>(rhs, w.get());
          }
        });
        loop_matmul(a.get(), w.get(), static_cast<O *>(y.mutable_data()), nb, m, k, n);
      }
    });
  }
  return {y};
}

// ---- Transform rules ---------------------------------------------------------------------------
// Written with lax:: ops only, so that they are themselves differentiable and batchable.
lax::DotDimensionNumbers dot_dims(const Params &params) {
  return {params.get_ints("lhs_contracting"), params.get_ints("rhs_contracting"),
          params.get_ints("lhs_batch"), params.get_ints("rhs_batch")};
}
std::optional<DType> preferred_type(const Params &params) {
  if (params.has("preferred_element_type"))
    return params.get_dtype("preferred_element_type");
  return std::nullopt;
}

/// The cotangent of x, one operand of a dot_general, from the output cotangent g and the other
/// operand y (JAX's transpose rule). xc/yc and xb/yb are the contracting and batch dims of x and
/// y; swap_ans says that y was the lhs (so g holds y's free dims before x's). g contracts with y
/// over y's free dims; the result holds x's batch, free and contracting dims (the latter in
/// the order of y's), and a transpose puts them back in place.
Array transpose_operand(const Array &g, const Array &x, const Array &y,
                        const std::vector<int64_t> &xc, const std::vector<int64_t> &yc,
                        const std::vector<int64_t> &xb, const std::vector<int64_t> &yb,
                        bool swap_ans) {
  std::vector<int64_t> x_kept = free_dims(x.ndim(), xb, xc);
  std::vector<int64_t> y_kept = free_dims(y.ndim(), yb, yc);
  int64_t nb = static_cast<int64_t>(xb.size());
  int64_t first_y = nb + (swap_ans ? 0 : static_cast<int64_t>(x_kept.size()));
  lax::DotDimensionNumbers dims{{}, y_kept, {}, yb};
  for (size_t i = 0; i < y_kept.size(); ++i)
    dims.lhs_contracting.push_back(first_y + static_cast<int64_t>(i));
  for (int64_t i = 0; i < nb; ++i)
    dims.lhs_batch.push_back(i);
  // g has the output type (preferred_element_type may be wider than the operands): compute
  // in the wider of the two types, then cast back to x's.
  Array gg = g, yy = y;
  if (g.dtype() != y.dtype()) {
    if (itemsize(g.dtype()) > itemsize(y.dtype()))
      yy = lax::convert_element_type(y, g.dtype());
    else
      gg = lax::convert_element_type(g, y.dtype());
  }
  // With g first, r holds x's batch dims, x's free dims, then x's contracting dims sorted by
  // their partner in y (y's free-after-contraction dims come out in increasing order). With y
  // first, the last two groups swap. Take the order that needs no transpose when one does
  // (for matmul's weight gradient, y first gives [K, N] directly), else g first.
  std::vector<size_t> by_y(xc.size());
  std::iota(by_y.begin(), by_y.end(), size_t{0});
  std::sort(by_y.begin(), by_y.end(), [&](size_t a, size_t b) { return yc[a] < yc[b]; });
  std::vector<int64_t> contracted;
  for (size_t i : by_y)
    contracted.push_back(xc[i]);
  auto perm_for = [&](bool y_first) {
    std::vector<int64_t> order = xb;
    const std::vector<int64_t> &a = y_first ? contracted : x_kept,
                               &b = y_first ? x_kept : contracted;
    order.insert(order.end(), a.begin(), a.end());
    order.insert(order.end(), b.begin(), b.end());
    std::vector<int64_t> perm(order.size());
    for (size_t i = 0; i < order.size(); ++i)
      perm[order[i]] = static_cast<int64_t>(i);
    return perm;
  };
  auto is_identity = [](const std::vector<int64_t> &p) {
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] != static_cast<int64_t>(i))
        return false;
    return true;
  };
  std::vector<int64_t> perm = perm_for(false);
  Array r;
  if (!is_identity(perm) && is_identity(perm_for(true))) {
    lax::DotDimensionNumbers swapped{dims.rhs_contracting, dims.lhs_contracting, dims.rhs_batch,
                                     dims.lhs_batch};
    r = lax::dot_general(yy, gg, swapped);
  } else {
    r = lax::dot_general(gg, yy, dims);
    if (!is_identity(perm))
      r = lax::transpose(r, perm);
  }
  return r.dtype() == x.dtype() ? r : lax::convert_element_type(r, x.dtype(), x.weak_type());
}

// Bilinear: jvp = dot(t_lhs, rhs) + dot(lhs, t_rhs).
std::vector<Array> dot_jvp(std::span<const Array> x, std::span<const Array> t,
                           std::span<const Array>, const Params &params) {
  lax::DotDimensionNumbers dn = dot_dims(params);
  std::optional<DType> pref = preferred_type(params);
  Array out;
  if (!rules::is_zero(t[0]))
    out = lax::dot_general(t[0], x[1], dn, pref);
  if (!rules::is_zero(t[1]))
    out = rules::add_tangents(out, lax::dot_general(x[0], t[1], dn, pref));
  return {out};
}

std::vector<Array> dot_vjp(std::span<const Array> x, std::span<const Array>,
                           std::span<const Array> ct, const std::vector<bool> &wanted,
                           const Params &params) {
  if (rules::is_zero(ct[0]) || !is_inexact(x[0].dtype()))
    return {Array(), Array()};
  lax::DotDimensionNumbers d = dot_dims(params);
  std::vector<Array> g(2);
  if (wanted[0])
    g[0] = transpose_operand(ct[0], x[0], x[1], d.lhs_contracting, d.rhs_contracting, d.lhs_batch,
                             d.rhs_batch, false);
  if (wanted[1])
    g[1] = transpose_operand(ct[0], x[1], x[0], d.rhs_contracting, d.lhs_contracting, d.rhs_batch,
                             d.lhs_batch, true);
  return g;
}

/// The batch axes stay in place and join the dimension numbers: batched on both sides, a new
/// leading batch dimension (output axis 0); on one side, a free dimension of that operand,
/// whose output axis follows from the output layout (batch, lhs free, rhs free).
std::vector<Array> dot_batch(const BatchContext &, std::span<const Array> vals,
                             std::span<const int64_t> dims, const Params &params,
                             std::vector<int64_t> &out_dims) {
  lax::DotDimensionNumbers d = dot_dims(params);
  auto past = [](std::vector<int64_t> v, int64_t b) {
    for (int64_t &a : v)
      a += a >= b;
    return v;
  };
  int64_t bl = dims[0], br = dims[1];
  if (bl != kNotBatched) {
    d.lhs_contracting = past(d.lhs_contracting, bl);
    d.lhs_batch = past(d.lhs_batch, bl);
  }
  if (br != kNotBatched) {
    d.rhs_contracting = past(d.rhs_contracting, br);
    d.rhs_batch = past(d.rhs_batch, br);
  }
  int64_t nb = static_cast<int64_t>(d.lhs_batch.size());
  std::vector<int64_t> lf = free_dims(vals[0].ndim(), d.lhs_batch, d.lhs_contracting);
  std::vector<int64_t> rf = free_dims(vals[1].ndim(), d.rhs_batch, d.rhs_contracting);
  auto pos = [](const std::vector<int64_t> &v, int64_t a) {
    return static_cast<int64_t>(std::find(v.begin(), v.end(), a) - v.begin());
  };
  if (bl != kNotBatched && br != kNotBatched) {
    d.lhs_batch.insert(d.lhs_batch.begin(), bl);
    d.rhs_batch.insert(d.rhs_batch.begin(), br);
    out_dims = {0};
  } else if (bl != kNotBatched) {
    out_dims = {nb + pos(lf, bl)};
  } else {
    out_dims = {nb + static_cast<int64_t>(lf.size()) + pos(rf, br)};
  }
  return {lax::dot_general(vals[0], vals[1], d, preferred_type(params))};
}

const Primitive &dot_general_p = register_primitive({
    .name = kOp,
    .shape_rule = dot_shape_rule,
    .impl = dot_impl,
    .jvp = dot_jvp,
    .vjp = dot_vjp,
    .batch = dot_batch,
});

} // namespace

// ---- lax wrapper -------------------------------------------------------------------------------
namespace lax {
Array dot_general(const Array &lhs, const Array &rhs, const DotDimensionNumbers &dims,
                  std::optional<DType> preferred_element_type) {
  Params params{{"lhs_contracting", dims.lhs_contracting},
                {"rhs_contracting", dims.rhs_contracting},
                {"lhs_batch", dims.lhs_batch},
                {"rhs_batch", dims.rhs_batch}};
  if (preferred_element_type)
    params.set("preferred_element_type", *preferred_element_type);
  return bind1(dot_general_p, {lhs, rhs}, params);
}
} // namespace lax

} // namespace strata

namespace strata {
void strided_gemm(DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, const GemmArg &a,
                  const GemmArg &b, const GemmArg &c, bool accumulate) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  if (dtype != DType::Float32 && dtype != DType::Float64 && !is_complex(dtype))
    fail("dot_general", "strided_gemm takes f32, f64, c64 or c128, got ", dtype_name(dtype));
  auto one = [&](int64_t i) {
    switch (dtype) {
    case DType::Float32:
      return gemm_general<float>(m, n, k, a, b, c, i, accumulate);
    case DType::Float64:
      return gemm_general<double>(m, n, k, a, b, c, i, accumulate);
    case DType::Complex64:
      return gemm_general<std::complex<float>>(m, n, k, a, b, c, i, accumulate);
    case DType::Complex128:
      return gemm_general<std::complex<double>>(m, n, k, a, b, c, i, accumulate);
    default:
      return;
    }
  };
  for_each_product(batch, m, n, k, one);
}
} // namespace strata
