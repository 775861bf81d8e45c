// Reductions (reduce_sum/prod/max/min), argmax/argmin and cumulative scans, with their parallel
// CPU kernels and lax wrappers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "primitives/elementwise_impl.h"
#include "primitives/monoids_impl.h"
#include "primitives/rules_impl.h"
#include "strata/internal/line_kernels.h"
#include "strata/internal/thread_pool.h"
#include "strata/lax.h"

namespace strata {
namespace {

/// Floating and complex sums are blocked and pairwise (their rounding error grows with log n).
template <class C> constexpr bool kInexact = std::is_floating_point_v<C> || is_complex_v<C>;

// Floating max/min track NaNs apart from the running extremum so that the comparison loop
// vectorizes (the select `v > a ? v : a` is one SIMD max; a NaN test folded into it is not).
template <class Op, class C>
constexpr bool kNanMask =
    (std::is_same_v<Op, MaxOp> || std::is_same_v<Op, MinOp>) && std::is_floating_point_v<C>;
template <class C> using mask_t = std::conditional_t<sizeof(C) == 4, int32_t, int64_t>;
template <class Op, class C> inline C fast_apply(C a, C v) {
  if constexpr (std::is_same_v<Op, MaxOp>)
    return v > a ? v : a;
  else
    return v < a ? v : a;
}

// Elements of input per parallel chunk below which a kernel stays on one thread.
constexpr int64_t kGrain = kElementwiseGrain;
// Fixed block sizes keep results independent of the thread count.
constexpr int64_t kRunBlock = 1 << 16; // contiguous elements per parallel partial
constexpr int64_t kTile = 4096;        // columns accumulated together in row-wise kernels
constexpr int64_t kRowBlock = 256;     // rows summed into a fresh partial (blocked summation)

// ---- Contiguous runs ---------------------------------------------------------------------------
// Sixteen independent accumulators let the compiler vectorize without reassociating by itself.
template <class Op, class C, class T> C run_lanes(const T *x, int64_t n) {
  constexpr int L = 16;
  C acc[L];
  for (C &a : acc)
    a = Op::template identity<C>();
  int64_t i = 0;
  if constexpr (kNanMask<Op, C>) {
    C nan[L] = {}; // becomes NaN in a lane that saw one (a select, so it vectorizes too)
    for (; i + L <= n; i += L)
#pragma GCC unroll 1 // leaves the j loop to the loop vectorizer, which handles the selects
      for (int j = 0; j < L; ++j) {
        C v = static_cast<C>(load(x[i + j]));
        acc[j] = fast_apply<Op>(acc[j], v);
        nan[j] = v != v ? v : nan[j];
      }
    for (int j = 0; j < L; ++j)
      if (nan[j] != nan[j])
        return nan[j];
  } else {
    for (; i + L <= n; i += L)
      for (int j = 0; j < L; ++j)
        acc[j] = Op::apply(acc[j], static_cast<C>(load(x[i + j])));
  }
  for (int j = 0; i < n; ++i, ++j)
    acc[j] = Op::apply(acc[j], static_cast<C>(load(x[i])));
  for (int w = L / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j)
      acc[j] = Op::apply(acc[j], acc[j + w]);
  return acc[0];
}

/// Reduces x[0..n). Floating sums are pairwise above 256 elements (error grows with log n).
template <class Op, class C, class T> C reduce_run(const T *x, int64_t n) {
  if constexpr (std::is_same_v<Op, SumOp> && kInexact<C>) {
    if (n > 256) {
      int64_t h = (n / 2) & ~int64_t{15};
      return reduce_run<Op, C>(x, h) + reduce_run<Op, C>(x + h, n - h);
    }
  }
  return run_lanes<Op, C>(x, n);
}

/// reduce_run split into fixed blocks reduced in parallel, then combined.
template <class Op, class C, class T> C reduce_run_parallel(const T *x, int64_t n) {
  if (n < 2 * kRunBlock)
    return reduce_run<Op, C>(x, n);
  int64_t nb = (n + kRunBlock - 1) / kRunBlock;
  std::unique_ptr<C[]> part(new C[static_cast<size_t>(nb)]);
  parallel_for(nb, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      part[i] = reduce_run<Op, C>(x + i * kRunBlock, std::min(kRunBlock, n - i * kRunBlock));
  });
  return reduce_run<Op, C>(part.get(), nb);
}

// ---- Geometry ----------------------------------------------------------------------------------
/// A multi-index over `size` that tracks the matching element offset under `stride`.
struct Odometer {
  std::vector<int64_t> size, stride, idx;
  int64_t off = 0;
  Odometer(std::vector<int64_t> sz, std::vector<int64_t> st)
      : size(std::move(sz)), stride(std::move(st)), idx(size.size(), 0) {}
  int64_t count() const { return num_elements(size); }
  void seek(int64_t flat) {
    off = 0;
    for (size_t i = size.size(); i-- > 0;) {
      idx[i] = flat % size[i];
      flat /= size[i];
      off += idx[i] * stride[i];
    }
  }
  void next() {
    for (size_t i = size.size(); i-- > 0;) {
      off += stride[i];
      if (++idx[i] < size[i])
        return;
      off -= stride[i] * size[i];
      idx[i] = 0;
    }
  }
};

/// The input seen as alternating groups of kept and reduced dimensions: size-1 dimensions are
/// dropped and neighbours of the same kind merged, so common cases become [outer, R] or
/// [outer, R, inner] with unit-stride inner runs.
struct Groups {
  std::vector<int64_t> kept_size, kept_stride, red_size, red_stride;
  bool last_reduced = true; // the unit-stride group is reduced (or there are no groups)
};
Groups group_dims(const Shape &shape, const std::vector<bool> &reduced) {
  std::vector<int64_t> strides = strides_of(shape);
  std::vector<int64_t> size, stride;
  std::vector<bool> kind;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1)
      continue;
    if (!kind.empty() && kind.back() == reduced[i]) {
      size.back() *= shape[i];
      stride.back() = strides[i];
    } else {
      size.push_back(shape[i]);
      stride.push_back(strides[i]);
      kind.push_back(reduced[i]);
    }
  }
  Groups g;
  for (size_t i = 0; i < size.size(); ++i) {
    (kind[i] ? g.red_size : g.kept_size).push_back(size[i]);
    (kind[i] ? g.red_stride : g.kept_stride).push_back(stride[i]);
  }
  g.last_reduced = kind.empty() || kind.back();
  return g;
}

/// Folds rows [q0, q1) of the odometer `r` (offsets from `base`) into acc[0..tw), four rows per
/// pass so that four memory streams are in flight; `nan` gathers NaNs for masked max/min.
template <class Op, class C, class T>
void fold_rows(C *acc, mask_t<C> *nan, const T *base, Odometer &r, int64_t q0, int64_t q1,
               int64_t tw) {
  auto fold = [&](C a, C v) {
    if constexpr (kNanMask<Op, C>)
      return fast_apply<Op>(a, v);
    else
      return Op::apply(a, v);
  };
  auto isnan = [](C v) { return static_cast<mask_t<C>>(v != v); };
  int64_t q = q0;
  for (; q + 4 <= q1; q += 4) {
    const T *p[4];
    for (auto &pi : p) {
      pi = base + r.off;
      r.next();
    }
    for (int64_t j = 0; j < tw; ++j) {
      C a = static_cast<C>(load(p[0][j])), b = static_cast<C>(load(p[1][j]));
      C c = static_cast<C>(load(p[2][j])), d = static_cast<C>(load(p[3][j]));
      if constexpr (std::is_same_v<Op, SumOp> && kInexact<C>) {
        acc[j] += (a + b) + (c + d);
      } else {
        acc[j] = fold(fold(fold(fold(acc[j], a), b), c), d);
        if constexpr (kNanMask<Op, C>)
          nan[j] |= isnan(a) | isnan(b) | isnan(c) | isnan(d);
      }
    }
  }
  for (; q < q1; ++q, r.next()) {
    const T *row = base + r.off;
    for (int64_t j = 0; j < tw; ++j) {
      C v = static_cast<C>(load(row[j]));
      acc[j] = fold(acc[j], v);
      if constexpr (kNanMask<Op, C>)
        nan[j] |= isnan(v);
    }
  }
}

// ---- Reduction kernel --------------------------------------------------------------------------
template <class Op, class T>
void reduce_kernel(const T *x, T *y, const Shape &shape, const std::vector<bool> &reduced) {
  using C = compute_t<T>;
  const C id = Op::template identity<C>();
  int64_t nin = num_elements(shape), nout = 1;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!reduced[i])
      nout *= shape[i];
  if (nout == 0)
    return;
  if (nin == 0) { // empty reductions give the identity
    for (int64_t i = 0; i < nout; ++i)
      y[i] = store<T>(id);
    return;
  }
  Groups g = group_dims(shape, reduced);
  int nt = num_threads();

  if (g.last_reduced) {
    // Every output reduces unit-stride runs of length `run`, one per outer reduced index.
    int64_t run = 1;
    if (!g.red_size.empty()) {
      run = g.red_size.back();
      g.red_size.pop_back();
      g.red_stride.pop_back();
    }
    Odometer kept(g.kept_size, g.kept_stride), outer(g.red_size, g.red_stride);
    int64_t nouter = outer.count();
    if (nout >= 4 * nt || run < 2 * kRunBlock) {
      int64_t grain = std::max<int64_t>(1, kGrain / (run * nouter));
      parallel_for(nout, grain, [&](int64_t b, int64_t e) {
        Odometer k = kept, r = outer;
        k.seek(b);
        for (int64_t o = b; o < e; ++o, k.next()) {
          C acc = id;
          r.seek(0);
          for (int64_t q = 0; q < nouter; ++q, r.next())
            acc = Op::apply(acc, reduce_run<Op, C>(x + k.off + r.off, run));
          y[o] = store<T>(acc);
        }
      });
    } else { // few long runs: parallelize inside each run
      for (int64_t o = 0; o < nout; ++o, kept.next()) {
        C acc = id;
        outer.seek(0);
        for (int64_t q = 0; q < nouter; ++q, outer.next())
          acc = Op::apply(acc, reduce_run_parallel<Op, C>(x + kept.off + outer.off, run));
        y[o] = store<T>(acc);
      }
    }
    return;
  }

  // The unit-stride group is kept (width w): accumulate whole rows of w elements, tile by tile.
  int64_t w = g.kept_size.back();
  g.kept_size.pop_back();
  g.kept_stride.pop_back();
  Odometer rows(g.kept_size, g.kept_stride), red(g.red_size, g.red_stride);
  int64_t nrows = rows.count(), nred = red.count();
  int64_t ntile = (w + kTile - 1) / kTile, tasks = nrows * ntile;
  // With fewer tasks than threads, split the reduced rows too and combine the partials after.
  int64_t nsplit = 1;
  if (tasks < 2 * nt && nin >= 2 * kGrain)
    nsplit = std::clamp<int64_t>(nred / kRowBlock, 1, 16);
  // (unique_ptr rather than vector: C may be bool.)
  int64_t pw = std::min(w, kTile); // partials are stored pw apart
  std::unique_ptr<C[]> part(nsplit > 1 ? new C[static_cast<size_t>(tasks * nsplit * pw)] : nullptr);

  auto work = [&](int64_t b, int64_t e) {
    Odometer k = rows, r = red;
    C acc[kTile], tmp[kTile];
    mask_t<C> nan[kTile];
    for (int64_t item = b; item < e; ++item) {
      int64_t t = item / nsplit, s = item % nsplit;
      int64_t c0 = (t % ntile) * kTile, tw = std::min(kTile, w - c0);
      k.seek(t / ntile);
      const T *base = x + k.off + c0;
      int64_t r0 = nred * s / nsplit, r1 = nred * (s + 1) / nsplit;
      r.seek(r0);
      std::fill(acc, acc + tw, id);
      if constexpr (std::is_same_v<Op, SumOp> && kInexact<C>) {
        // Blocked summation: each block of rows sums into a fresh partial first.
        for (int64_t rb = r0; rb < r1; rb += kRowBlock) {
          std::fill(tmp, tmp + tw, id);
          fold_rows<Op>(tmp, nan, base, r, rb, std::min(r1, rb + kRowBlock), tw);
          for (int64_t j = 0; j < tw; ++j)
            acc[j] += tmp[j];
        }
      } else {
        if constexpr (kNanMask<Op, C>)
          std::fill(nan, nan + tw, 0);
        fold_rows<Op>(acc, nan, base, r, r0, r1, tw);
        if constexpr (kNanMask<Op, C>)
          for (int64_t j = 0; j < tw; ++j)
            if (nan[j])
              acc[j] = std::numeric_limits<C>::quiet_NaN();
      }
      if (nsplit == 1) {
        T *dst = y + (t / ntile) * w + c0;
        for (int64_t j = 0; j < tw; ++j)
          dst[j] = store<T>(acc[j]);
      } else {
        std::copy(acc, acc + tw, part.get() + item * pw);
      }
    }
  };
  int64_t per_item = std::max<int64_t>(1, nred / nsplit * std::min(w, kTile));
  parallel_for(tasks * nsplit, std::max<int64_t>(1, kGrain / per_item), work);
  if (nsplit > 1) {
    for (int64_t t = 0; t < tasks; ++t) {
      int64_t c0 = (t % ntile) * kTile, tw = std::min(kTile, w - c0);
      T *dst = y + (t / ntile) * w + c0;
      for (int64_t j = 0; j < tw; ++j) {
        C acc = id;
        for (int64_t s = 0; s < nsplit; ++s)
          acc = Op::apply(acc, part[(t * nsplit + s) * pw + j]);
        dst[j] = store<T>(acc);
      }
    }
  }
}

// ---- Shape rules -------------------------------------------------------------------------------
/// Which dimensions `axes` reduces; axes must be unique and in range (negative count from the end).
std::vector<bool> reduced_mask(std::string_view op, const AbstractValue &x,
                               const std::vector<int64_t> &axes) {
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> mask(x.shape.size(), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      fail(op, "axis ", a, " is out of range for ", x.str());
    int64_t n = a < 0 ? a + rank : a;
    if (mask[n])
      fail(op, "duplicate axis ", a, " in axes ", shape_str(axes));
    mask[n] = true;
  }
  return mask;
}

/// Normalizes negative axes that are in range so equal reductions get equal params; anything
/// else is left for the shape rule to report.
std::vector<int64_t> normalize_axes(const std::vector<int64_t> &axes, int64_t rank) {
  std::vector<int64_t> out = axes;
  for (int64_t &a : out)
    if (a < 0 && a >= -rank)
      a += rank;
  return out;
}
int64_t normalize_axis_param(int64_t axis, int64_t rank) {
  return axis < 0 && axis >= -rank ? axis + rank : axis;
}

/// [outer, R, inner] sizes of a shape around one axis.
struct AxisView {
  int64_t outer = 1, r = 1, inner = 1;
};
AxisView axis_view(const Shape &shape, int64_t axis) {
  AxisView v;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    (i < axis ? v.outer : i == axis ? v.r : v.inner) *= shape[i];
  return v;
}

// ---- Transform rules ---------------------------------------------------------------------------
// Written with lax:: ops only, so that they are themselves differentiable and batchable.
struct Rules {
  JvpRule jvp;
  VjpRule vjp;
  BatchRule batch;
};

/// Sorted, non-negative reduction axes of a rank-`rank` operand.
std::vector<int64_t> sorted_axes(const Params &params, int64_t rank) {
  std::vector<int64_t> axes = normalize_axes(params.get_ints("axes"), rank);
  std::sort(axes.begin(), axes.end());
  return axes;
}
/// Broadcasts a reduced value `r` back to x's shape (the kept dimensions map in order).
Array expand_back(const Array &r, const Array &x, const std::vector<int64_t> &axes) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end())
      kept.push_back(d);
  return lax::broadcast_in_dim(r, x.shape(), kept);
}

/// x shifted by k along `axis`: y[i] = x[i - k] (x[i + k] when `back`), `fill` where that
/// falls outside. One pad whose negative side crops.
Array shift(const Array &x, int64_t axis, int64_t k, double fill, bool back) {
  std::vector<int64_t> lo(x.ndim(), 0), hi(x.ndim(), 0), interior(x.ndim(), 0);
  k = std::min(k, x.shape()[axis]);
  (back ? hi : lo)[axis] = k;
  (back ? lo : hi)[axis] = -k;
  return lax::pad(x, lax::convert_element_type(Array(fill), x.dtype(), x.weak_type()), lo, hi,
                  interior);
}

/// y[i] = a[i] * y[i-1] + u[i] along `axis` (from the end when `reverse`), with y[-1] = 0: the
/// linear recurrence that the tangents of cumprod, cummax and cummin obey. Solved in log2(n)
/// doubling steps (Hillis-Steele), so it needs no division and is exact with zeros in `a`.
Array linear_recurrence(Array a, Array u, int64_t axis, bool reverse) {
  int64_t n = u.shape()[axis];
  // Invariant: after the step of k, u[i] sums the terms of the 2k latest inputs and a[i] is the
  // product of the 2k latest coefficients.
  for (int64_t k = 1; k < n; k *= 2) {
    u = lax::add(u, lax::mul(a, shift(u, axis, k, 0.0, reverse)));
    if (2 * k < n)
      a = lax::mul(a, shift(a, axis, k, 0.0, reverse));
  }
  return u;
}
/// The transpose in u of linear_recurrence: z[j] = c[j] + a[j+1] * z[j+1], the same recurrence
/// run the other way with the coefficients shifted by one.
Array linear_recurrence_transpose(const Array &a, const Array &c, int64_t axis, bool reverse) {
  return linear_recurrence(shift(a, axis, 1, 0.0, !reverse), c, axis, !reverse);
}

/// The reduction's batch rule: the batch axis stays where it is and the axes move around it.
std::vector<Array> reduce_batch(const BatchContext &ctx, std::span<const Array> vals,
                                std::span<const int64_t> dims, const Params &params,
                                std::vector<int64_t> &out_dims) {
  int64_t b = dims[0], before = 0;
  std::vector<int64_t> axes;
  for (int64_t a : normalize_axes(params.get_ints("axes"), vals[0].ndim() - 1)) {
    axes.push_back(a >= b ? a + 1 : a);
    before += axes.back() < b;
  }
  Params q = params;
  q.set("axes", axes);
  out_dims = {b - before};
  return bind(*ctx.prim, {vals[0]}, q);
}

const Rules reduce_sum_rules{
    [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
       const Params &params) -> std::vector<Array> {
      return {lax::reduce_sum(t[0], params.get_ints("axes"))};
    },
    [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
       const std::vector<bool> &, const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      return {expand_back(ct[0], x[0], sorted_axes(params, x[0].ndim()))};
    },
    reduce_batch};

/// reduce_max/min: the derivative flows to the extrema, and ties share it evenly (as JAX):
/// the weights are 1/count at the elements equal to the result, 0 elsewhere.
Array chooser_weights(const Array &x, const Array &out, const std::vector<int64_t> &axes) {
  Array ind = lax::convert_element_type(lax::eq(x, expand_back(out, x, axes)), x.dtype());
  return lax::div(ind, expand_back(lax::reduce_sum(ind, axes), x, axes));
}
const Rules chooser_rules{
    [](std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
       const Params &params) -> std::vector<Array> {
      std::vector<int64_t> axes = sorted_axes(params, x[0].ndim());
      return {lax::reduce_sum(lax::mul(t[0], chooser_weights(x[0], out[0], axes)), axes)};
    },
    [](std::span<const Array> x, std::span<const Array> out, std::span<const Array> ct,
       const std::vector<bool> &, const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      std::vector<int64_t> axes = sorted_axes(params, x[0].ndim());
      return {lax::mul(expand_back(ct[0], x[0], axes), chooser_weights(x[0], out[0], axes))};
    },
    reduce_batch};

/// d prod / d x[i] is the product of the other elements of x[i]'s group. It is computed
/// without division (so zeros are handled exactly, any number of them) as the product of an
/// exclusive cumprod from each side, along the reduced axes moved last and flattened.
Array prod_of_others(const Array &x, const std::vector<int64_t> &axes) {
  if (axes.empty())
    return rules::full_like(x, 1);
  std::vector<int64_t> perm;
  Shape flat;
  int64_t n = 1;
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) {
      perm.push_back(d);
      flat.push_back(x.shape()[d]);
    }
  for (int64_t a : axes) {
    perm.push_back(a);
    n *= x.shape()[a];
  }
  if (n == 0)
    return x; // nothing to differentiate
  int64_t ax = static_cast<int64_t>(flat.size());
  flat.push_back(n);
  Array xt = lax::transpose(x, perm);
  Array y = lax::reshape(xt, flat);
  Array before = shift(lax::cumprod(y, ax), ax, 1, 1.0, false);
  Array after = shift(lax::cumprod(y, ax, /*reverse=*/true), ax, 1, 1.0, true);
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[perm[i]] = static_cast<int64_t>(i);
  return lax::transpose(lax::reshape(lax::mul(before, after), xt.shape()), inverse);
}
const Rules reduce_prod_rules{
    [](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
       const Params &params) -> std::vector<Array> {
      std::vector<int64_t> axes = sorted_axes(params, x[0].ndim());
      return {lax::reduce_sum(lax::mul(t[0], prod_of_others(x[0], axes)), axes)};
    },
    [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
       const std::vector<bool> &, const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      std::vector<int64_t> axes = sorted_axes(params, x[0].ndim());
      return {lax::mul(expand_back(ct[0], x[0], axes), prod_of_others(x[0], axes))};
    },
    reduce_batch};

/// argmax/argmin and the scans: `axis` moves past the batch axis, which stays in place.
int64_t axis_past_batch(const Params &params, int64_t batched_rank, int64_t b) {
  int64_t a = normalize_axis_param(params.get_int("axis"), batched_rank - 1);
  return a >= b ? a + 1 : a;
}
std::vector<Array> arg_batch(const BatchContext &ctx, std::span<const Array> vals,
                             std::span<const int64_t> dims, const Params &params,
                             std::vector<int64_t> &out_dims) {
  int64_t b = dims[0], a = axis_past_batch(params, vals[0].ndim(), b);
  Params q = params;
  q.set("axis", a);
  out_dims = {a < b ? b - 1 : b};
  return bind(*ctx.prim, {vals[0]}, q);
}
std::vector<Array> cum_batch(const BatchContext &ctx, std::span<const Array> vals,
                             std::span<const int64_t> dims, const Params &params,
                             std::vector<int64_t> &out_dims) {
  Params q = params;
  q.set("axis", axis_past_batch(params, vals[0].ndim(), dims[0]));
  out_dims = {dims[0]};
  return bind(*ctx.prim, {vals[0]}, q);
}

struct ScanParams {
  int64_t axis;
  bool reverse;
};
ScanParams scan_params(const Params &params, const Array &x) {
  return {normalize_axis_param(params.get_int("axis"), x.ndim()), params.get_bool("reverse")};
}

const Rules cumsum_rules{[](std::span<const Array> x, std::span<const Array> t,
                            std::span<const Array>, const Params &params) -> std::vector<Array> {
                           ScanParams s = scan_params(params, x[0]);
                           return {lax::cumsum(t[0], s.axis, s.reverse)};
                         },
                         [](std::span<const Array> x, std::span<const Array>,
                            std::span<const Array> ct, const std::vector<bool> &,
                            const Params &params) -> std::vector<Array> {
                           if (rules::is_zero(ct[0]))
                             return {Array()};
                           ScanParams s = scan_params(params, x[0]);
                           return {lax::cumsum(ct[0], s.axis, !s.reverse)};
                         },
                         cum_batch};

// cumprod: dy[i] = x[i] * dy[i-1] + t[i] * y[i-1], a linear recurrence in t whose transpose
// gives the vjp. No division, so zeros in x are handled exactly.
const Rules cumprod_rules{
    [](std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
       const Params &params) -> std::vector<Array> {
      ScanParams s = scan_params(params, x[0]);
      Array u = lax::mul(t[0], shift(out[0], s.axis, 1, 1.0, s.reverse));
      return {linear_recurrence(x[0], u, s.axis, s.reverse)};
    },
    [](std::span<const Array> x, std::span<const Array> out, std::span<const Array> ct,
       const std::vector<bool> &, const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      ScanParams s = scan_params(params, x[0]);
      return {lax::mul(shift(out[0], s.axis, 1, 1.0, s.reverse),
                       linear_recurrence_transpose(x[0], ct[0], s.axis, s.reverse))};
    },
    cum_batch};

// cummax/cummin: the tangent of y[i] is that of the latest j <= i where x[j] == y[j] (x[j]
// reached the running extremum; on ties the latest one wins). With m = (x == y):
// dy[i] = m[i] ? t[i] : dy[i-1], the linear recurrence with a = 1 - m, u = m * t.
Array cum_extremum_mask(const Array &x, const Array &out) {
  return lax::convert_element_type(lax::eq(x, out), x.dtype());
}
const Rules cum_extremum_rules{
    [](std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
       const Params &params) -> std::vector<Array> {
      ScanParams s = scan_params(params, x[0]);
      Array m = cum_extremum_mask(x[0], out[0]);
      return {linear_recurrence(lax::sub(rules::full_like(m, 1), m), lax::mul(m, t[0]), s.axis,
                                s.reverse)};
    },
    [](std::span<const Array> x, std::span<const Array> out, std::span<const Array> ct,
       const std::vector<bool> &, const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      ScanParams s = scan_params(params, x[0]);
      Array m = cum_extremum_mask(x[0], out[0]);
      Array a = lax::sub(rules::full_like(m, 1), m);
      return {lax::mul(m, linear_recurrence_transpose(a, ct[0], s.axis, s.reverse))};
    },
    cum_batch};

template <class Op, bool AllowBool>
const Primitive &def_reduce(const char *name, uint32_t traits, const Rules &r) {
  return register_primitive({
      .name = name,
      .traits = traits | kReduction,
      .shape_rule =
          [name](std::span<const AbstractValue> in, const Params &params) {
            expect_arity(name, in, 1);
            const AbstractValue &x = in[0];
            if (!AllowBool && is_bool(x.dtype))
              fail_kind(ErrorKind::Type, name, "expects a numeric operand, got ", x.str());
            std::vector<bool> mask = reduced_mask(name, x, params.get_ints("axes"));
            Shape out;
            for (size_t i = 0; i < x.shape.size(); ++i)
              if (!mask[i])
                out.push_back(x.shape[i]);
            return std::vector<AbstractValue>{{out, x.dtype, x.weak_type}};
          },
      .impl =
          [name](std::span<const Array> in, const Params &params,
                 std::span<const AbstractValue> out) {
            Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
            std::vector<bool> mask =
                reduced_mask(name, abstract_of(in[0]), params.get_ints("axes"));
            STRATA_DISPATCH_ALL(in[0].dtype(), T, {
              if constexpr (AllowBool || !std::is_same_v<T, bool>)
                reduce_kernel<Op>(in[0].data<T>(), static_cast<T *>(y.mutable_data()),
                                  in[0].shape(), mask);
            });
            return std::vector<Array>{y};
          },
      .jvp = r.jvp,
      .vjp = r.vjp,
      .batch = r.batch,
  });
}

const Primitive &reduce_sum_p = def_reduce<SumOp, false>("reduce_sum", kLinear, reduce_sum_rules);
const Primitive &reduce_prod_p = def_reduce<ProdOp, false>("reduce_prod", kNone, reduce_prod_rules);
const Primitive &reduce_max_p = def_reduce<MaxOp, true>("reduce_max", kNone, chooser_rules);
const Primitive &reduce_min_p = def_reduce<MinOp, true>("reduce_min", kNone, chooser_rules);

// ---- argmax / argmin ---------------------------------------------------------------------------
/// Whether v is strictly beyond best in argmax's (IsMax) or argmin's order; complex numbers
/// order lexicographically, as reduce_max's.
template <bool IsMax, class C> inline bool beyond(C v, C best) {
  if constexpr (is_complex_v<C>)
    return IsMax ? lex_greater(v, best) : lex_greater(best, v);
  else
    return IsMax ? v > best : v < best;
}
/// Whether v replaces the current best: strictly better, or the first NaN (NaN is the extremum;
/// a complex number is NaN when either part is).
template <bool IsMax, class C> inline bool better(C v, C best) {
  if constexpr (kInexact<C>) {
    if (best != best)
      return false;
    if (v != v)
      return true;
  }
  return beyond<IsMax>(v, best);
}

template <class C> struct Best {
  C value;
  int64_t index;
};
/// First extremum of x[0..n) (n >= 1), reported at index `first` + i. Each block's extremum
/// comes from the vectorized reduction; only a block that improves on the best is searched.
template <bool IsMax, class T> Best<compute_t<T>> arg_run(const T *x, int64_t n, int64_t first) {
  using C = compute_t<T>;
  using Op = std::conditional_t<IsMax, MaxOp, MinOp>;
  constexpr int64_t kBlock = 2048;
  Best<C> b{static_cast<C>(load(x[0])), first};
  for (int64_t lo = 0; lo < n; lo += kBlock) {
    int64_t len = std::min(kBlock, n - lo);
    C ext = run_lanes<Op, C>(x + lo, len);
    if (lo > 0 && !better<IsMax>(ext, b.value))
      continue;
    bool nan = ext != ext;
    for (int64_t i = 0; i < len; ++i) {
      C v = static_cast<C>(load(x[lo + i]));
      if (nan ? v != v : v == ext) {
        b = {ext, first + lo + i};
        break;
      }
    }
    if (nan)
      break;
  }
  return b;
}

template <bool IsMax, class T, class I> void arg_kernel(const T *x, I *y, const AxisView &v) {
  using C = compute_t<T>;
  int64_t nout = v.outer * v.inner;
  if (nout == 0)
    return;
  int nt = num_threads();
  if (v.inner == 1) {
    if (nout >= 4 * nt || v.r < 2 * kRunBlock) {
      parallel_for(nout, std::max<int64_t>(1, kGrain / v.r), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o)
          y[o] = static_cast<I>(arg_run<IsMax>(x + o * v.r, v.r, 0).index);
      });
      return;
    }
    // Few long rows: best per fixed block in parallel, then the first best block wins.
    int64_t nb = (v.r + kRunBlock - 1) / kRunBlock;
    std::vector<Best<C>> part(static_cast<size_t>(nb));
    for (int64_t o = 0; o < v.outer; ++o) {
      const T *row = x + o * v.r;
      parallel_for(nb, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          part[i] = arg_run<IsMax>(row + i * kRunBlock, std::min(kRunBlock, v.r - i * kRunBlock),
                                   i * kRunBlock);
      });
      Best<C> best = part[0];
      for (int64_t i = 1; i < nb; ++i)
        if (better<IsMax>(part[i].value, best.value))
          best = part[i];
      y[o] = static_cast<I>(best.index);
    }
    return;
  }
  int64_t ntile = (v.inner + kTile - 1) / kTile;
  int64_t grain = std::max<int64_t>(1, kGrain / (v.r * std::min(v.inner, kTile)));
  parallel_for(v.outer * ntile, grain, [&](int64_t b, int64_t e) {
    C best[kTile];
    I idx[kTile];
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / ntile, c0 = (t % ntile) * kTile, tw = std::min(kTile, v.inner - c0);
      const T *base = x + o * v.r * v.inner + c0;
      for (int64_t j = 0; j < tw; ++j) {
        best[j] = static_cast<C>(load(base[j]));
        idx[j] = 0;
      }
      for (int64_t r = 1; r < v.r; ++r) {
        const T *row = base + r * v.inner;
        // Selects instead of a branch, so the column loop vectorizes.
        for (int64_t j = 0; j < tw; ++j) {
          C c = static_cast<C>(load(row[j])), bj = best[j];
          bool bt = beyond<IsMax>(c, bj);
          if constexpr (std::is_floating_point_v<C>) // better(), without short-circuits
            bt = (bj == bj) & ((c != c) | bt);
          else if constexpr (is_complex_v<C>)
            bt = better<IsMax>(c, bj);
          best[j] = bt ? c : bj;
          idx[j] = bt ? static_cast<I>(r) : idx[j];
        }
      }
      I *dst = y + o * v.inner + c0;
      for (int64_t j = 0; j < tw; ++j)
        dst[j] = idx[j];
    }
  });
}

template <bool IsMax> const Primitive &def_arg(const char *name) {
  return register_primitive({
      .name = name,
      .traits = kNonDifferentiable,
      .shape_rule =
          [name](std::span<const AbstractValue> in, const Params &params) {
            expect_arity(name, in, 1);
            const AbstractValue &x = in[0];
            int64_t rank = static_cast<int64_t>(x.shape.size());
            int64_t axis = params.get_int("axis");
            if (axis < -rank || axis >= rank)
              fail(name, "axis ", axis, " is out of range for ", x.str());
            if (axis < 0)
              axis += rank;
            DType index_dtype = params.get_dtype("index_dtype");
            if (index_dtype != DType::Int32 && index_dtype != DType::Int64)
              fail_kind(ErrorKind::Type, name, "index_dtype must be i32 or i64, got ",
                        short_name(index_dtype));
            if (x.shape[axis] == 0)
              fail(name, "cannot take the ", name, " of an empty axis ", axis, " of ", x.str());
            Shape out = x.shape;
            out.erase(out.begin() + axis);
            return std::vector<AbstractValue>{{out, index_dtype, false}};
          },
      .impl =
          [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
            Array y = Array::empty(out[0].shape, out[0].dtype);
            int64_t axis = normalize_axis_param(params.get_int("axis"), in[0].ndim());
            AxisView v = axis_view(in[0].shape(), axis);
            STRATA_DISPATCH_ALL(in[0].dtype(), T, {
              if (out[0].dtype == DType::Int32)
                arg_kernel<IsMax>(in[0].data<T>(), static_cast<int32_t *>(y.mutable_data()), v);
              else
                arg_kernel<IsMax>(in[0].data<T>(), static_cast<int64_t *>(y.mutable_data()), v);
            });
            return std::vector<Array>{y};
          },
      .batch = arg_batch,
  });
}

const Primitive &argmax_p = def_arg<true>("argmax");
const Primitive &argmin_p = def_arg<false>("argmin");

// ---- Cumulative scans --------------------------------------------------------------------------
// Floating sums and products accumulate in double, so long f32 scans stay accurate.
template <class Op, class T>
using scan_t =
    std::conditional_t<(std::is_same_v<Op, SumOp> || std::is_same_v<Op, ProdOp>) && is_float_v<T>,
                       double, compute_t<T>>;

/// Scans x[lo..hi) upward (or downward when reverse) starting from `acc`; writes y when given.
template <class Op, class T, class A>
A scan_segment(const T *x, T *y, int64_t lo, int64_t hi, bool reverse, A acc) {
  if (!reverse) {
    for (int64_t i = lo; i < hi; ++i) {
      acc = Op::apply(acc, static_cast<A>(load(x[i])));
      if (y)
        y[i] = store<T>(acc);
    }
  } else {
    for (int64_t i = hi; i-- > lo;) {
      acc = Op::apply(acc, static_cast<A>(load(x[i])));
      if (y)
        y[i] = store<T>(acc);
    }
  }
  return acc;
}

template <class Op, class T> void cum_kernel(const T *x, T *y, const AxisView &v, bool reverse) {
  using A = scan_t<Op, T>;
  const A id = Op::template identity<A>();
  if (v.outer * v.r * v.inner == 0)
    return;
  int nt = num_threads();
  if (v.inner == 1) {
    if (v.outer >= 4 * nt || v.r < 2 * kRunBlock) {
      parallel_for(v.outer, std::max<int64_t>(1, kGrain / v.r), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o)
          scan_segment<Op>(x + o * v.r, y + o * v.r, 0, v.r, reverse, id);
      });
      return;
    }
    // Few long rows: block totals in parallel, a short serial scan over them, then each block
    // rescanned in parallel from its carried-in prefix.
    int64_t n = v.r, nb = (n + kRunBlock - 1) / kRunBlock;
    auto block = [&](int64_t i, int64_t &lo, int64_t &hi) {
      lo = reverse ? std::max<int64_t>(0, n - (i + 1) * kRunBlock) : i * kRunBlock;
      hi = reverse ? n - i * kRunBlock : std::min(n, (i + 1) * kRunBlock);
    };
    std::unique_ptr<A[]> carry(new A[static_cast<size_t>(nb)]);
    for (int64_t o = 0; o < v.outer; ++o) {
      const T *xr = x + o * n;
      T *yr = y + o * n;
      parallel_for(nb, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          int64_t lo, hi;
          block(i, lo, hi);
          carry[i] = scan_segment<Op, T, A>(xr, nullptr, lo, hi, reverse, id);
        }
      });
      A acc = id;
      for (int64_t i = 0; i < nb; ++i) {
        A total = carry[i];
        carry[i] = acc;
        acc = Op::apply(acc, total);
      }
      parallel_for(nb, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          int64_t lo, hi;
          block(i, lo, hi);
          scan_segment<Op>(xr, yr, lo, hi, reverse, carry[i]);
        }
      });
    }
    return;
  }
  int64_t ntile = (v.inner + kTile - 1) / kTile;
  int64_t grain = std::max<int64_t>(1, kGrain / (v.r * std::min(v.inner, kTile)));
  parallel_for(v.outer * ntile, grain, [&](int64_t b, int64_t e) {
    A acc[kTile];
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / ntile, c0 = (t % ntile) * kTile, tw = std::min(kTile, v.inner - c0);
      int64_t base = o * v.r * v.inner + c0;
      std::fill(acc, acc + tw, id);
      for (int64_t q = 0; q < v.r; ++q) {
        int64_t off = base + (reverse ? v.r - 1 - q : q) * v.inner;
        const T *row = x + off;
        T *dst = y + off;
        for (int64_t j = 0; j < tw; ++j) {
          acc[j] = Op::apply(acc[j], static_cast<A>(load(row[j])));
          dst[j] = store<T>(acc[j]);
        }
      }
    }
  });
}

template <class Op, bool AllowBool>
const Primitive &def_cum(const char *name, uint32_t traits, const Rules &r) {
  return register_primitive({
      .name = name,
      .traits = traits,
      .shape_rule =
          [name](std::span<const AbstractValue> in, const Params &params) {
            expect_arity(name, in, 1);
            const AbstractValue &x = in[0];
            if (!AllowBool && is_bool(x.dtype))
              fail_kind(ErrorKind::Type, name, "expects a numeric operand, got ", x.str());
            int64_t rank = static_cast<int64_t>(x.shape.size());
            int64_t axis = params.get_int("axis");
            if (axis < -rank || axis >= rank)
              fail(name, "axis ", axis, " is out of range for ", x.str());
            params.get_bool("reverse");
            return std::vector<AbstractValue>{x};
          },
      .impl =
          [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
            Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
            AxisView v = axis_view(in[0].shape(),
                                   normalize_axis_param(params.get_int("axis"), in[0].ndim()));
            bool reverse = params.get_bool("reverse");
            STRATA_DISPATCH_ALL(in[0].dtype(), T, {
              if constexpr (AllowBool || !std::is_same_v<T, bool>)
                cum_kernel<Op>(in[0].data<T>(), static_cast<T *>(y.mutable_data()), v, reverse);
            });
            return std::vector<Array>{y};
          },
      .jvp = r.jvp,
      .vjp = r.vjp,
      .batch = r.batch,
  });
}

const Primitive &cumsum_p = def_cum<SumOp, false>("cumsum", kLinear, cumsum_rules);
const Primitive &cumprod_p = def_cum<ProdOp, false>("cumprod", kNone, cumprod_rules);
const Primitive &cummax_p = def_cum<MaxOp, true>("cummax", kNone, cum_extremum_rules);
const Primitive &cummin_p = def_cum<MinOp, true>("cummin", kNone, cum_extremum_rules);

} // namespace

void scan_lines(ScanKind kind, DType dtype, const void *x, void *y, int64_t outer, int64_t n,
                int64_t inner, bool reverse) {
  AxisView v{outer, n, inner};
  auto run = [&]<class Op, bool AllowBool>() {
    STRATA_DISPATCH_ALL(dtype, T, {
      if constexpr (AllowBool || !std::is_same_v<T, bool>)
        cum_kernel<Op>(static_cast<const T *>(x), static_cast<T *>(y), v, reverse);
    });
  };
  switch (kind) {
  case ScanKind::Sum:
    return run.template operator()<SumOp, false>();
  case ScanKind::Prod:
    return run.template operator()<ProdOp, false>();
  case ScanKind::Max:
    return run.template operator()<MaxOp, true>();
  case ScanKind::Min:
    return run.template operator()<MinOp, true>();
  }
}

// ---- lax wrappers ------------------------------------------------------------------------------
namespace lax {
namespace {
Array reduce_with(const Primitive &p, const Array &x, const std::vector<int64_t> &axes) {
  return bind1(p, {x}, {{"axes", normalize_axes(axes, x.ndim())}});
}
Array arg_with(const Primitive &p, const Array &x, int64_t axis, DType index_dtype) {
  return bind1(p, {x},
               {{"axis", normalize_axis_param(axis, x.ndim())}, {"index_dtype", index_dtype}});
}
Array cum_with(const Primitive &p, const Array &x, int64_t axis, bool reverse) {
  return bind1(p, {x}, {{"axis", normalize_axis_param(axis, x.ndim())}, {"reverse", reverse}});
}
} // namespace

Array reduce_sum(const Array &x, const std::vector<int64_t> &axes) {
  return reduce_with(reduce_sum_p, x, axes);
}
Array reduce_max(const Array &x, const std::vector<int64_t> &axes) {
  return reduce_with(reduce_max_p, x, axes);
}
Array reduce_min(const Array &x, const std::vector<int64_t> &axes) {
  return reduce_with(reduce_min_p, x, axes);
}
Array reduce_prod(const Array &x, const std::vector<int64_t> &axes) {
  return reduce_with(reduce_prod_p, x, axes);
}
Array argmax(const Array &x, int64_t axis, DType index_dtype) {
  return arg_with(argmax_p, x, axis, index_dtype);
}
Array argmin(const Array &x, int64_t axis, DType index_dtype) {
  return arg_with(argmin_p, x, axis, index_dtype);
}
Array cumsum(const Array &x, int64_t axis, bool reverse) {
  return cum_with(cumsum_p, x, axis, reverse);
}
Array cumprod(const Array &x, int64_t axis, bool reverse) {
  return cum_with(cumprod_p, x, axis, reverse);
}
Array cummax(const Array &x, int64_t axis, bool reverse) {
  return cum_with(cummax_p, x, axis, reverse);
}
Array cummin(const Array &x, int64_t axis, bool reverse) {
  return cum_with(cummin_p, x, axis, reverse);
}
} // namespace lax

} // namespace strata
