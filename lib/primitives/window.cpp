// Windowed reductions: reduce_window_sum/max/min, the general reduce_window, and
// select_and_gather_add / select_and_scatter_add (max and min pooling's derivatives), with their
// parallel CPU kernels, every rule, and lax wrappers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "primitives/elementwise_impl.h"
#include "primitives/kernels_impl.h"
#include "primitives/monoids_impl.h"
#include "primitives/rules_impl.h"
#include "strata/internal/thread_pool.h"
#include "strata/internal/window_kernel.h"
#include "strata/lax.h"
#include "strata/ops.h"
#include "strata/transforms.h"
#include "trace/closure.h"

namespace strata {
namespace {

// ---- Geometry ----------------------------------------------------------------------------------
/// A window's parameters, one entry per operand dimension (the lax wrappers fill the defaults).
struct Geometry {
  std::vector<int64_t> win, stride, lo, hi, base, wdil;

  static Geometry of(const Params &p) {
    return {p.get_ints("window_dimensions"), p.get_ints("window_strides"),
            p.get_ints("padding_low"),       p.get_ints("padding_high"),
            p.get_ints("base_dilation"),     p.get_ints("window_dilation")};
  }
  size_t rank() const { return win.size(); }
  /// The output size of dimension d for an operand dimension of size n.
  int64_t out_size(size_t d, int64_t n) const {
    int64_t padded = (n == 0 ? 0 : (n - 1) * base[d] + 1) + lo[d] + hi[d];
    int64_t span = (win[d] - 1) * wdil[d] + 1;
    return padded < span ? 0 : (padded - span) / stride[d] + 1;
  }
  Shape out_shape(const Shape &in) const {
    Shape out(in.size());
    for (size_t d = 0; d < in.size(); ++d)
      out[d] = out_size(d, in[d]);
    return out;
  }
  /// The operand index that window element k of output o reads along d, or -1 where it reads
  /// padding or a hole of the base dilation.
  int64_t source(size_t d, int64_t o, int64_t k, int64_t n) const {
    int64_t p = o * stride[d] + k * wdil[d] - lo[d];
    if (p < 0 || p % base[d] != 0)
      return -1;
    int64_t q = p / base[d];
    return q < n ? q : -1;
  }
  Params params() const {
    return {{"window_dimensions", win}, {"window_strides", stride}, {"padding_low", lo},
            {"padding_high", hi},       {"base_dilation", base},    {"window_dilation", wdil}};
  }
  /// The window over a batch axis put in front: one element, no padding, no dilation.
  Geometry with_batch_axis() const {
    Geometry g = *this;
    auto front = [](std::vector<int64_t> &v, int64_t x) { v.insert(v.begin(), x); };
    front(g.win, 1), front(g.stride, 1), front(g.lo, 0), front(g.hi, 0), front(g.base, 1),
        front(g.wdil, 1);
    return g;
  }
  lax::WindowDims dims() const {
    lax::WindowDims w;
    w.dimensions = win;
    w.strides = stride;
    for (size_t d = 0; d < rank(); ++d)
      w.padding.push_back({lo[d], hi[d]});
    w.base_dilation = base;
    w.window_dilation = wdil;
    return w;
  }
};

/// Checks the window parameters against an operand aval; throws `[op] ...` naming both.
void check_geometry(std::string_view op, const AbstractValue &x, const Geometry &g) {
  size_t r = x.shape.size();
  auto check_len = [&](const std::vector<int64_t> &v, const char *what) {
    if (v.size() != r)
      fail(op, what, " has ", v.size(), " entries for the ", r, " dimensions of ", x.str());
  };
  check_len(g.win, "window_dimensions");
  check_len(g.stride, "window_strides");
  check_len(g.lo, "padding");
  check_len(g.hi, "padding");
  check_len(g.base, "base_dilation");
  check_len(g.wdil, "window_dilation");
  for (size_t d = 0; d < r; ++d) {
    if (g.win[d] < 1)
      fail(op, "window_dimensions must be positive, got ", g.win[d], " in dimension ", d, " of ",
           x.str());
    if (g.stride[d] < 1)
      fail(op, "window_strides must be positive, got ", g.stride[d], " in dimension ", d);
    if (g.base[d] < 1 || g.wdil[d] < 1)
      fail(op, "dilations must be positive, got base ", g.base[d], " and window ", g.wdil[d],
           " in dimension ", d);
  }
}

/// The source offsets of every window element of every output along each dimension (-1:
/// padding), tab[d][o * win[d] + k]; the first `dims` dimensions only (the rest stay empty).
std::vector<std::vector<int64_t>> source_tables(const Geometry &g, const Shape &in,
                                                const Shape &out, size_t dims) {
  std::vector<std::vector<int64_t>> tab(in.size());
  std::vector<int64_t> st = strides_of(in);
  for (size_t d = 0; d < dims; ++d) {
    tab[d].resize(static_cast<size_t>(out[d] * g.win[d]));
    for (int64_t o = 0; o < out[d]; ++o)
      for (int64_t k = 0; k < g.win[d]; ++k) {
        int64_t q = g.source(d, o, k, in[d]);
        tab[d][o * g.win[d] + k] = q < 0 ? -1 : q * st[d];
      }
  }
  return tab;
}

/// Calls f(offset) for every in-bounds operand element of the window of output `o` (a
/// multi-index), in row-major order of the window.
template <class F>
void for_window(const std::vector<std::vector<int64_t>> &tab, const Geometry &g,
                const std::vector<int64_t> &o, F &&f) {
  size_t r = g.rank();
  if (r == 0) {
    f(int64_t{0});
    return;
  }
  std::vector<int64_t> k(r, 0), off(r + 1, 0);
  size_t d = 0;
  // Depth-first over the window dimensions; off[d] is the offset of dimensions before d.
  while (true) {
    int64_t s = tab[d][o[d] * g.win[d] + k[d]];
    if (s >= 0) {
      off[d + 1] = off[d] + s;
      if (d + 1 == r)
        f(off[r]);
      else {
        ++d;
        k[d] = 0;
        continue;
      }
    }
    while (++k[d] == g.win[d]) {
      if (d == 0)
        return;
      --d;
    }
  }
}

/// Output element `flat`'s multi-index.
void unflatten(int64_t flat, const Shape &shape, std::vector<int64_t> &idx) {
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = shape[i] == 0 ? 0 : flat % shape[i];
    flat = shape[i] == 0 ? 0 : flat / shape[i];
  }
}

// ---- Monoid kernels ----------------------------------------------------------------------------

/// The windows of one output row (all outputs along the last dimension) at a time: the leading
/// window dimensions walked by the tables, and along the last one, where the base is undilated,
/// the outputs whose window element is in bounds as one strided run (a loop that vectorizes); a
/// dilated base goes element by element through the last table. Window elements come in the
/// row-major order of the window, for every output alike.
struct RowWalker {
  const Geometry &g;
  const Shape &in, &out;
  std::vector<std::vector<int64_t>> tab, lead_tab;
  Geometry lead; // the window with the last dimension reduced to one element
  RowWalker(const Geometry &geometry, const Shape &in_shape, const Shape &out_shape)
      : g(geometry), in(in_shape), out(out_shape),
        // The last dimension's table serves a dilated base only (else its runs are computed).
        tab(source_tables(g, in, out, g.base.back() == 1 ? g.rank() - 1 : g.rank())), lead_tab(tab),
        lead(g) {
    lead.win.back() = 1;
    lead_tab.back().assign(1, 0);
  }
  /// Calls strided(a, b, off, step) for outputs i in [a, b) of the row at multi-index `o`
  /// reading operand offset off + i * step, or each(i, off) for one output.
  template <class Strided, class Each>
  void row(std::vector<int64_t> &o, Strided &&strided, Each &&each) const {
    size_t last = g.rank() - 1;
    int64_t n_out = out[last], n_in = in[last], w = g.win[last], s = g.stride[last];
    lines(o, [&](int64_t base) {
      for (int64_t k = 0; k < w; ++k) {
        if (g.base[last] == 1) {
          int64_t c = k * g.wdil[last] - g.lo[last]; // the source is i * s + c
          int64_t a = c >= 0 ? 0 : (-c + s - 1) / s;
          int64_t b = n_in - 1 - c < 0 ? 0 : std::min(n_out, (n_in - 1 - c) / s + 1);
          if (a < b)
            strided(a, b, base + c, s);
        } else {
          for (int64_t i = 0; i < n_out; ++i) {
            int64_t q = tab[last][i * w + k];
            if (q >= 0)
              each(i, base + q);
          }
        }
      }
    });
  }
  /// Calls f(base) with the operand offset of every line (along the last dimension) that the
  /// leading window dimensions of output row `o` read, in the window's row-major order.
  template <class F> void lines(std::vector<int64_t> &o, F &&f) const {
    o.back() = 0;
    for_window(lead_tab, lead, o, f);
  }
  /// Runs body(row, o) over the output rows in parallel, o being the row's multi-index.
  template <class Body> void parallel_rows(Body &&body) const {
    int64_t n_out = out.back(), rows = num_elements(out) / n_out;
    int64_t work = std::max<int64_t>(1, n_out * num_elements(g.win));
    parallel_for(rows, std::max<int64_t>(1, kElementwiseGrain / work), [&](int64_t b, int64_t e) {
      std::vector<int64_t> o(g.rank(), 0);
      for (int64_t row = b; row < e; ++row) {
        unflatten(row * n_out, out, o);
        body(row, o);
      }
    });
  }
};

/// The window length along the last dimension from which float sums slide (see monoid_kernel).
constexpr int64_t kSlidingWindow = 16;

template <class Op, class T>
void monoid_kernel(const T *x, T *y, const Shape &in, const Shape &out, const Geometry &g) {
  using C = compute_t<T>;
  if (num_elements(out) == 0)
    return;
  if (g.rank() == 0) {
    y[0] = store<T>(Op::apply(Op::template identity<C>(), static_cast<C>(load(x[0]))));
    return;
  }
  RowWalker walk(g, in, out);
  int64_t n_out = out.back(), n_in = in.back(), w = g.win.back(), s = g.stride.back();
  // Long float sums along the last dimension take differences of running sums in double: O(1)
  // per output instead of O(window), and as accurate as the float result.
  bool sliding = std::is_same_v<Op, SumOp> && std::is_same_v<C, float> && g.base.back() == 1 &&
                 g.wdil.back() == 1 && w >= kSlidingWindow && w >= 4 * s;
  walk.parallel_rows([&](int64_t row, std::vector<int64_t> &o) {
    std::unique_ptr<C[]> holder(new C[static_cast<size_t>(n_out)]);
    C *acc = holder.get();
    for (int64_t i = 0; i < n_out; ++i)
      acc[i] = Op::template identity<C>();
    if constexpr (std::is_same_v<Op, SumOp> && std::is_same_v<C, float>) {
      if (sliding) {
        std::unique_ptr<double[]> prefix(new double[static_cast<size_t>(n_in + 1)]);
        walk.lines(o, [&](int64_t base) {
          prefix[0] = 0;
          for (int64_t j = 0; j < n_in; ++j)
            prefix[j + 1] = prefix[j] + static_cast<double>(load(x[base + j]));
          for (int64_t i = 0; i < n_out; ++i) {
            int64_t a = std::clamp<int64_t>(i * s - g.lo.back(), 0, n_in);
            int64_t b = std::clamp<int64_t>(i * s - g.lo.back() + w, 0, n_in);
            acc[i] += static_cast<float>(prefix[b] - prefix[a]);
          }
        });
        T *dst = y + row * n_out;
        for (int64_t i = 0; i < n_out; ++i)
          dst[i] = store<T>(acc[i]);
        return;
      }
    }
    walk.row(
        o,
        [&](int64_t a, int64_t b, int64_t off, int64_t step) {
          const T *src = x + off;
          for (int64_t i = a; i < b; ++i)
            acc[i] = Op::apply(acc[i], static_cast<C>(load(src[i * step])));
        },
        [&](int64_t i, int64_t off) { acc[i] = Op::apply(acc[i], static_cast<C>(load(x[off]))); });
    T *dst = y + row * n_out;
    for (int64_t i = 0; i < n_out; ++i)
      dst[i] = store<T>(acc[i]);
  });
}

// ---- Selection kernels -------------------------------------------------------------------------
/// For each output window, the operand offset that `select` picks (-1 where the window holds
/// only padding): the first element that no later one displaces, where a later element e
/// displaces the current pick c unless select(c, e) (ge for max pooling, le for min) holds, as
/// XLA's select_and_scatter scans a window.
template <class T>
std::vector<int64_t> selections(const T *x, const Shape &in, const Shape &out, const Geometry &g,
                                bool ge) {
  using C = compute_t<T>;
  int64_t total = num_elements(out);
  std::vector<int64_t> sel(static_cast<size_t>(total), -1);
  if (total == 0)
    return sel;
  if (g.rank() == 0) {
    sel[0] = 0;
    return sel;
  }
  RowWalker walk(g, in, out);
  int64_t n_out = out.back();
  walk.parallel_rows([&](int64_t row, std::vector<int64_t> &o) {
    std::unique_ptr<C[]> holder(new C[static_cast<size_t>(n_out)]());
    C *best = holder.get();
    int64_t *pick = sel.data() + row * n_out;
    auto take = [&](int64_t i, C v, int64_t off) {
      bool t = pick[i] < 0 || !(ge ? best[i] >= v : best[i] <= v);
      best[i] = t ? v : best[i];
      pick[i] = t ? off : pick[i];
    };
    walk.row(
        o,
        [&](int64_t a, int64_t b, int64_t off, int64_t step) {
          for (int64_t i = a; i < b; ++i)
            take(i, static_cast<C>(load(x[off + i * step])), off + i * step);
        },
        [&](int64_t i, int64_t off) { take(i, static_cast<C>(load(x[off])), off); });
  });
  return sel;
}

bool select_is_ge(const Params &p) {
  const std::string &s = p.get_string("select_prim");
  if (s != "ge" && s != "le")
    fail("select_and_scatter_add", "select_prim must be \"ge\" or \"le\", got \"", s, "\"");
  return s == "ge";
}

// ---- Shape rules -------------------------------------------------------------------------------
AbstractValue monoid_shape(std::string_view op, const AbstractValue &x, const Params &params,
                           bool allow_bool) {
  Geometry g = Geometry::of(params);
  check_geometry(op, x, g);
  if (!allow_bool && is_bool(x.dtype))
    fail_kind(ErrorKind::Type, op, "expects a numeric operand, got ", x.str());
  return {g.out_shape(x.shape), x.dtype, x.weak_type};
}

/// select_and_gather_add (tangents, operand) and select_and_scatter_add (source, operand):
/// the operand defines the windows; the other operand has the operand's shape (gather) or the
/// windows' shape (scatter), and the operand's dtype.
AbstractValue select_shape(std::string_view op, std::span<const AbstractValue> in,
                           const Params &params, bool scatter) {
  expect_arity(op, in, 2);
  const AbstractValue &v = in[0], &x = in[1];
  Geometry g = Geometry::of(params);
  check_geometry(op, x, g);
  select_is_ge(params);
  if (is_bool(x.dtype))
    fail_kind(ErrorKind::Type, op, "expects a numeric operand, got ", x.str());
  if (v.dtype != x.dtype)
    fail_kind(ErrorKind::Type, op, (scatter ? "source " : "tangents "), v.str(), " and operand ",
              x.str(), " must have one dtype");
  Shape windows = g.out_shape(x.shape);
  const Shape &want = scatter ? windows : x.shape;
  if (v.shape != want)
    fail(op, (scatter ? "source " : "tangents "), v.str(), " must have shape ",
         type_str(v.dtype, want), " for operand ", x.str(), " and its windows");
  return {scatter ? x.shape : windows, v.dtype, v.weak_type};
}

// ---- Batch rules -------------------------------------------------------------------------------
/// Every operand with its batch axis in front (unbatched ones broadcast), under the window with
/// a unit window dimension for that axis.
std::vector<Array> front_batched(const BatchContext &ctx, std::span<const Array> vals,
                                 std::span<const int64_t> dims) {
  std::vector<Array> in;
  for (size_t i = 0; i < vals.size(); ++i)
    in.push_back(rules::batch_to_front(vals[i], dims[i], ctx.axis_size));
  return in;
}

// ---- reduce_window_sum/max/min -----------------------------------------------------------------
template <class Op> Array monoid_bind(const Array &x, const Geometry &g);

/// The transpose of reduce_window_sum (JAX's rule): the cotangent dilated by the strides and
/// padded as a convolution's input gradient is, then summed over the same window with the base
/// dilation as its stride.
Array window_sum_transpose(const Array &ct, const Shape &in_shape, const Geometry &g) {
  size_t r = g.rank();
  std::vector<int64_t> lo(r), hi(r), interior(r);
  Geometry back = g;
  for (size_t d = 0; d < r; ++d) {
    int64_t in_dil = in_shape[d] == 0 ? 0 : (in_shape[d] - 1) * g.base[d] + 1;
    int64_t win_dil = (g.win[d] - 1) * g.wdil[d] + 1;
    int64_t out_dil = ct.shape()[d] == 0 ? 0 : (ct.shape()[d] - 1) * g.stride[d] + 1;
    lo[d] = win_dil - g.lo[d] - 1;
    hi[d] = in_dil + win_dil - 1 - out_dil - lo[d];
    interior[d] = g.stride[d] - 1;
    back.stride[d] = g.base[d];
    back.lo[d] = back.hi[d] = 0;
    back.base[d] = 1;
  }
  Array padded = lax::pad(ct, lax::convert_element_type(Array(0.0), ct.dtype()), lo, hi, interior);
  return monoid_bind<SumOp>(padded, back);
}

Array select_bind(const char *name, const Array &v, const Array &x, const Geometry &g, bool ge);

std::vector<Array> monoid_impl(const char *name, std::span<const Array> in, const Params &params,
                               std::span<const AbstractValue> out) {
  Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
  Geometry g = Geometry::of(params);
  std::string n = name;
  STRATA_DISPATCH(in[0].dtype(), T, {
    T *dst = static_cast<T *>(y.mutable_data());
    if (n == "reduce_window_sum") {
      if constexpr (!std::is_same_v<T, bool>)
        monoid_kernel<SumOp>(in[0].data<T>(), dst, in[0].shape(), out[0].shape, g);
    } else if (n == "reduce_window_max") {
      monoid_kernel<MaxOp>(in[0].data<T>(), dst, in[0].shape(), out[0].shape, g);
    } else {
      monoid_kernel<MinOp>(in[0].data<T>(), dst, in[0].shape(), out[0].shape, g);
    }
  });
  return {y};
}

std::vector<Array> monoid_batch(const char *name, const BatchContext &ctx,
                                std::span<const Array> vals, std::span<const int64_t> dims,
                                const Params &params, std::vector<int64_t> &out_dims) {
  Geometry g = Geometry::of(params).with_batch_axis();
  out_dims = {0};
  Array x = front_batched(ctx, vals, dims)[0];
  std::string n = name;
  if (n == "reduce_window_sum")
    return {monoid_bind<SumOp>(x, g)};
  if (n == "reduce_window_max")
    return {monoid_bind<MaxOp>(x, g)};
  return {monoid_bind<MinOp>(x, g)};
}

const Primitive &reduce_window_sum_p = register_primitive({
    .name = "reduce_window_sum",
    .traits = kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("reduce_window_sum", in, 1);
          return std::vector<AbstractValue>{
              monoid_shape("reduce_window_sum", in[0], params, /*allow_bool=*/false)};
        },
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
          return monoid_impl("reduce_window_sum", in, params, out);
        },
    // Linear: the jvp is the sum of the tangents' windows.
    .jvp = [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
              const Params &params) -> std::vector<Array> {
      if (rules::is_zero(t[0]))
        return {Array()};
      return {monoid_bind<SumOp>(t[0], Geometry::of(params))};
    },
    .vjp = [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
              const std::vector<bool> &, const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      return {window_sum_transpose(ct[0], x[0].shape(), Geometry::of(params))};
    },
    .batch =
        [](const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
           const Params &params, std::vector<int64_t> &out_dims) {
          return monoid_batch("reduce_window_sum", ctx, vals, dims, params, out_dims);
        },
});

/// reduce_window_max/min (JAX's chooser rules): the tangent of each window is the tangent at
/// the element that select picks (select_and_gather_add, ge for max, le for min), and the
/// cotangent flows back to that element (select_and_scatter_add). Ties go to the first.
const Primitive &def_chooser(const char *name, bool ge) {
  return register_primitive({
      .name = name,
      .shape_rule =
          [name](std::span<const AbstractValue> in, const Params &params) {
            expect_arity(name, in, 1);
            return std::vector<AbstractValue>{monoid_shape(name, in[0], params, true)};
          },
      .impl =
          [name](std::span<const Array> in, const Params &params,
                 std::span<const AbstractValue> out) { return monoid_impl(name, in, params, out); },
      .jvp = [ge](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
                  const Params &params) -> std::vector<Array> {
        if (rules::is_zero(t[0]))
          return {Array()};
        return {select_bind("select_and_gather_add", t[0], x[0], Geometry::of(params), ge)};
      },
      .vjp = [ge](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
                  const std::vector<bool> &, const Params &params) -> std::vector<Array> {
        if (rules::is_zero(ct[0]) || !is_floating(x[0].dtype()))
          return {Array()};
        return {select_bind("select_and_scatter_add", ct[0], x[0], Geometry::of(params), ge)};
      },
      .batch =
          [name](const BatchContext &ctx, std::span<const Array> vals,
                 std::span<const int64_t> dims, const Params &params,
                 std::vector<int64_t> &out_dims) {
            return monoid_batch(name, ctx, vals, dims, params, out_dims);
          },
  });
}
const Primitive &reduce_window_max_p = def_chooser("reduce_window_max", true);
const Primitive &reduce_window_min_p = def_chooser("reduce_window_min", false);

template <class Op> Array monoid_bind(const Array &x, const Geometry &g) {
  const Primitive *p = std::is_same_v<Op, SumOp>   ? &reduce_window_sum_p
                       : std::is_same_v<Op, MaxOp> ? &reduce_window_max_p
                                                   : &reduce_window_min_p;
  return bind1(*p, {x}, g.params());
}

// ---- select_and_gather_add / select_and_scatter_add --------------------------------------------
// Both are linear in their first operand and piecewise constant in the operand (which only
// chooses), and each is the other's transpose.
std::vector<Array> select_impl(bool scatter, std::span<const Array> in, const Params &params,
                               std::span<const AbstractValue> out) {
  const Array &v = in[0], &x = in[1];
  Geometry g = Geometry::of(params);
  bool ge = select_is_ge(params);
  Shape windows = g.out_shape(x.shape());
  Array y = scatter ? zeros(out[0].shape, out[0].dtype) : Array::empty(out[0].shape, out[0].dtype);
  if (y.weak_type() != out[0].weak_type)
    y = y.with_weak_type(out[0].weak_type);
  STRATA_DISPATCH(x.dtype(), T, {
    if constexpr (!std::is_same_v<T, bool>) {
      std::vector<int64_t> sel = selections(x.data<T>(), x.shape(), windows, g, ge);
      const T *src = v.data<T>();
      T *dst = static_cast<T *>(y.mutable_data());
      using C = compute_t<T>;
      if (scatter) { // windows may share a pick: summed in window order
        for (size_t i = 0; i < sel.size(); ++i)
          if (sel[i] >= 0)
            dst[sel[i]] =
                store<T>(wrap_add(static_cast<C>(load(dst[sel[i]])), static_cast<C>(load(src[i]))));
      } else {
        for (size_t i = 0; i < sel.size(); ++i)
          dst[i] = sel[i] >= 0 ? src[sel[i]] : store<T>(C(0));
      }
    }
  });
  return {y};
}

const Primitive &def_select(const char *name, bool scatter) {
  return register_primitive({
      .name = name,
      .traits = kLinear,
      .shape_rule =
          [name, scatter](std::span<const AbstractValue> in, const Params &params) {
            return std::vector<AbstractValue>{select_shape(name, in, params, scatter)};
          },
      .impl =
          [scatter](std::span<const Array> in, const Params &params,
                    std::span<const AbstractValue> out) {
            return select_impl(scatter, in, params, out);
          },
      .jvp = [name](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
                    const Params &params) -> std::vector<Array> {
        if (rules::is_zero(t[0]))
          return {Array()};
        return {select_bind(name, t[0], x[1], Geometry::of(params), select_is_ge(params))};
      },
      .vjp = [scatter](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
                       const std::vector<bool> &, const Params &params) -> std::vector<Array> {
        if (rules::is_zero(ct[0]))
          return {Array(), Array()};
        const char *other = scatter ? "select_and_gather_add" : "select_and_scatter_add";
        return {select_bind(other, ct[0], x[1], Geometry::of(params), select_is_ge(params)),
                Array()};
      },
      .batch =
          [name](const BatchContext &ctx, std::span<const Array> vals,
                 std::span<const int64_t> dims, const Params &params,
                 std::vector<int64_t> &out_dims) {
            std::vector<Array> in = front_batched(ctx, vals, dims);
            out_dims = {0};
            return std::vector<Array>{select_bind(
                name, in[0], in[1], Geometry::of(params).with_batch_axis(), select_is_ge(params))};
          },
  });
}
const Primitive &select_and_gather_add_p = def_select("select_and_gather_add", false);
const Primitive &select_and_scatter_add_p = def_select("select_and_scatter_add", true);

Array select_bind(const char *name, const Array &v, const Array &x, const Geometry &g, bool ge) {
  const Primitive &p = std::string_view(name) == "select_and_gather_add" ? select_and_gather_add_p
                                                                         : select_and_scatter_add_p;
  Params params = g.params();
  params.set("select_prim", std::string(ge ? "ge" : "le"));
  return bind1(p, {v, x}, params);
}

// ---- The general reduce_window -----------------------------------------------------------------
// Inputs: the n operands, then the n scalar initial values. Parameters: the window, "computation"
// (2n scalars -> n scalars: the accumulators, then the elements; it closes over no tracer, as in
// JAX), and "fn", the same reduction written with pad, slice and the vmapped computation, through
// which levels without a rule of their own trace (jit stages it: a kCall primitive).
constexpr const char *kGeneral = "reduce_window";

/// The operands (first half of the inputs) and initial values (second half).
std::pair<std::vector<Array>, std::vector<Array>> general_parts(std::span<const Array> in) {
  size_t n = in.size() / 2;
  return {{in.begin(), in.begin() + static_cast<long>(n)},
          {in.begin() + static_cast<long>(n), in.end()}};
}

/// The general reduction by composition: the operands padded with their initial values (which
/// fill the base dilation's holes too), one strided slice per window element, folded into the
/// accumulators by the computation vmapped over the outputs.
std::vector<Array> general_by_slices(const SubFn &computation, const Geometry &g,
                                     const std::vector<Array> &in) {
  auto [operands, inits] = general_parts(in);
  size_t n = operands.size(), r = g.rank();
  Shape out = g.out_shape(operands[0].shape());
  int64_t total = num_elements(out);
  std::vector<Array> acc;
  for (const Array &init : inits)
    acc.push_back(lax::broadcast_in_dim(init, {total}, {}));
  if (total > 0) {
    std::vector<Array> padded;
    std::vector<int64_t> interior(r);
    for (size_t d = 0; d < r; ++d)
      interior[d] = g.base[d] - 1;
    for (size_t j = 0; j < n; ++j)
      padded.push_back(lax::pad(operands[j], inits[j], g.lo, g.hi, interior));
    std::vector<int64_t> k(r, 0);
    do {
      std::vector<int64_t> start(r), limit(r);
      for (size_t d = 0; d < r; ++d) {
        start[d] = k[d] * g.wdil[d];
        limit[d] = start[d] + (out[d] - 1) * g.stride[d] + 1;
      }
      std::vector<Array> args = acc;
      for (size_t j = 0; j < n; ++j)
        args.push_back(lax::reshape(lax::slice(padded[j], start, limit, g.stride), {total}));
      acc = vmap_flat(computation.fn, args, std::vector<int64_t>(2 * n, 0));
    } while (next_index(k, g.win));
  }
  for (Array &a : acc)
    a = lax::reshape(a, out);
  return acc;
}

std::vector<AbstractValue> general_shape(std::span<const AbstractValue> in, const Params &params) {
  const SubFn &c = params.get_fn("computation");
  if (in.size() < 2 || in.size() % 2 != 0)
    fail(kGeneral, "expects operands and as many initial values, got ", in.size(), " values");
  size_t n = in.size() / 2;
  Geometry g = Geometry::of(params);
  std::vector<AbstractValue> out;
  for (size_t j = 0; j < n; ++j) {
    const AbstractValue &x = in[j], &init = in[n + j];
    check_geometry(kGeneral, x, g);
    if (x.shape != in[0].shape)
      fail(kGeneral, "operands must have one shape, got ", in[0].str(), " and ", x.str());
    if (!init.shape.empty() || init.dtype != x.dtype)
      fail_kind(ErrorKind::Type, kGeneral, "initial value ", j, " must be a scalar of operand ",
                x.str(), "'s dtype, got ", init.str());
    out.push_back({g.out_shape(x.shape), x.dtype, x.weak_type && init.weak_type});
  }
  if (c.out.size() != n)
    fail(kGeneral, "computation returns ", c.out.size(), " values for ", n, " operands");
  for (size_t j = 0; j < n; ++j)
    if (!c.out[j].shape.empty() || c.out[j].dtype != out[j].dtype)
      fail_kind(ErrorKind::Type, kGeneral,
                "computation must return scalars of the operands' dtypes, got ", c.out[j].str(),
                " for operand ", out[j].str());
  return out;
}

const Primitive &reduce_window_p = register_primitive({
    .name = kGeneral,
    .traits = kCall,
    .shape_rule = general_shape,
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue>) {
          return general_by_slices(params.get_fn("computation"), Geometry::of(params),
                                   {in.begin(), in.end()});
        },
    // JAX's rule: the same reduction over (operands, tangents) from (initial values, their
    // tangents), whose computation is the jvp of the computation.
    .jvp = [](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
              const Params &params) -> std::vector<Array> {
      auto [operands, inits] = general_parts(x);
      size_t n = operands.size();
      SubFnRef c = std::make_shared<SubFn>(params.get_fn("computation"));
      FlatFn jvp_c = [c, n](const std::vector<Array> &a) {
        // a = (accumulator primals, their tangents, element primals, their tangents)
        std::vector<Array> prim, tan;
        for (size_t j = 0; j < n; ++j)
          prim.push_back(a[j]), tan.push_back(a[n + j]);
        for (size_t j = 0; j < n; ++j)
          prim.push_back(a[2 * n + j]), tan.push_back(a[3 * n + j]);
        auto [po, to] = jvp_flat(c->fn, prim, tan);
        po.insert(po.end(), to.begin(), to.end());
        return po;
      };
      std::vector<Array> ops = operands, init = inits;
      for (size_t j = 0; j < n; ++j) {
        ops.push_back(rules::is_zero(t[j]) ? rules::zeros_of(operands[j]) : t[j]);
        init.push_back(rules::is_zero(t[n + j]) ? rules::zeros_of(inits[j]) : t[n + j]);
      }
      std::vector<Array> both = lax::reduce_window(ops, init, jvp_c, Geometry::of(params).dims());
      return {both.begin() + static_cast<long>(n), both.end()};
    },
    // Reverse mode through the composition (JAX has none for a general computation).
    .vjp = [](std::span<const Array> x, std::span<const Array> outs, std::span<const Array> ct,
              const std::vector<bool> &, const Params &params) -> std::vector<Array> {
      VjpResult r = vjp_flat(params.get_fn("fn").fn, {x.begin(), x.end()});
      std::vector<Array> cts;
      for (size_t i = 0; i < outs.size(); ++i)
        cts.push_back(rules::is_zero(ct[i]) ? rules::zeros_of(outs[i]) : ct[i]);
      std::vector<Array> in_ct = r.pullback(cts);
      for (size_t i = 0; i < x.size(); ++i)
        if (!is_floating(x[i].dtype()))
          in_ct[i] = Array();
      return in_ct;
    },
    // The operands batched in front under a unit window dimension; the initial values must not
    // be batched (as in JAX).
    .batch = [](const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
                const Params &params, std::vector<int64_t> &out_dims) -> std::vector<Array> {
      auto [operands, inits] = general_parts(vals);
      size_t n = operands.size();
      for (size_t j = 0; j < n; ++j)
        if (dims[n + j] != kNotBatched)
          fail(kGeneral, "batching over the initial values is not supported (as in JAX)");
      std::vector<Array> ops;
      for (size_t j = 0; j < n; ++j)
        ops.push_back(rules::batch_to_front(operands[j], dims[j], ctx.axis_size));
      out_dims.assign(n, 0);
      return lax::reduce_window(ops, inits, params.get_fn("computation").fn,
                                Geometry::of(params).with_batch_axis().dims());
    },
});

/// The window parameters with JAX's defaults filled in for an operand of rank r.
Geometry geometry_for(const char *op, const Array &x, const lax::WindowDims &w) {
  size_t r = static_cast<size_t>(x.ndim());
  auto or_ones = [&](const std::vector<int64_t> &v) {
    return v.empty() ? std::vector<int64_t>(r, 1) : v;
  };
  Geometry g;
  g.win = w.dimensions;
  g.stride = or_ones(w.strides);
  if (w.padding.empty()) {
    g.lo.assign(r, 0);
    g.hi.assign(r, 0);
  } else {
    for (auto [l, h] : w.padding)
      g.lo.push_back(l), g.hi.push_back(h);
  }
  g.base = or_ones(w.base_dilation);
  g.wdil = or_ones(w.window_dilation);
  check_geometry(op, abstract_of(x), g);
  return g;
}

} // namespace

void window_sum_kernel(const WindowProblem &p, DType dtype, const void *x, void *y) {
  Geometry g{p.win, p.stride, p.lo, p.hi, p.base, p.wdil};
  Shape in(p.in), out(p.out);
  STRATA_DISPATCH(dtype, T, {
    if constexpr (!std::is_same_v<T, bool>)
      monoid_kernel<SumOp>(static_cast<const T *>(x), static_cast<T *>(y), in, out, g);
  });
}

// ---- lax wrappers ------------------------------------------------------------------------------
namespace lax {
Array reduce_window_sum(const Array &x, const WindowDims &w) {
  return bind1(reduce_window_sum_p, {x}, geometry_for("reduce_window_sum", x, w).params());
}
Array reduce_window_max(const Array &x, const WindowDims &w) {
  return bind1(reduce_window_max_p, {x}, geometry_for("reduce_window_max", x, w).params());
}
Array reduce_window_min(const Array &x, const WindowDims &w) {
  return bind1(reduce_window_min_p, {x}, geometry_for("reduce_window_min", x, w).params());
}
Array select_and_gather_add(const Array &tangents, const Array &operand, bool select_ge,
                            const WindowDims &w) {
  return select_bind("select_and_gather_add", tangents, operand,
                     geometry_for("select_and_gather_add", operand, w), select_ge);
}
Array select_and_scatter_add(const Array &source, const Array &operand, bool select_ge,
                             const WindowDims &w) {
  return select_bind("select_and_scatter_add", source, operand,
                     geometry_for("select_and_scatter_add", operand, w), select_ge);
}

std::vector<Array> reduce_window(const std::vector<Array> &operands,
                                 const std::vector<Array> &init_values, const FlatFn &computation,
                                 const WindowDims &w) {
  if (operands.empty() || operands.size() != init_values.size())
    fail(kGeneral, "expects one initial value per operand, got ", operands.size(), " operands and ",
         init_values.size(), " initial values");
  Geometry g = geometry_for(kGeneral, operands[0], w);
  std::vector<AbstractValue> scalars;
  for (const Array &x : operands)
    scalars.push_back({{}, x.dtype(), false});
  for (const Array &x : operands)
    scalars.push_back({{}, x.dtype(), false});
  Closure closure(kGeneral);
  std::vector<AbstractValue> out = closure.trace("computation", computation, scalars);
  if (out.size() != operands.size())
    fail(kGeneral, "computation returns ", out.size(), " values for ", operands.size(),
         " operands");
  ClosedFns closed = closure.close();
  if (!closed.consts.empty())
    fail(kGeneral, "the computation closes over a traced value; as in JAX, a reduction's "
                   "computation cannot close over tracers (pass the value as an operand)");
  SubFnRef comp = closed.fns[0];
  std::vector<Array> inputs = operands;
  inputs.insert(inputs.end(), init_values.begin(), init_values.end());
  std::vector<AbstractValue> in_avals;
  for (const Array &x : inputs)
    in_avals.push_back(abstract_of(x));
  Params params = g.params();
  params.set("computation", comp);
  general_shape(in_avals, params); // bad input fails here, not while tracing the composition
  params.set(
      "fn", closed_fn(
                kGeneral, "fn",
                [comp, g](const std::vector<Array> &in) { return general_by_slices(*comp, g, in); },
                in_avals, 0));
  return strata::bind(reduce_window_p, inputs, params);
}
} // namespace lax

} // namespace strata
