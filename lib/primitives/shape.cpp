// Shape primitives (iota, broadcast_in_dim, reshape, transpose, rev, slice, dynamic_slice,
// dynamic_update_slice, pad, concatenate): rules, the strided-copy kernel they share, wrappers.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "primitives/elementwise_impl.h"
#include "primitives/rules_impl.h"
#include "strata/lax.h"
#include "strata/sizes.h"

namespace strata {
namespace {

// ---- Strided copy ----------------------------------------------------------------------------
// Every data-moving primitive here is one or more strided copies: for each index i over
// `shape`, dst[i . dst_strides] = src[i . src_strides], strides in elements (0 broadcasts,
// negative reverses). One engine keeps the fast paths (memcpy runs, fills, tiled transposes)
// in one place.
struct CopyPlan {
  Shape shape;
  std::vector<int64_t> dst_strides, src_strides;
};

constexpr int64_t kTile = 16; // transpose tile edge (measured: 16 beats 32 and 64)

// Drops size-1 dims and merges neighbours that both sides walk contiguously, so that the
// innermost loop is as long as possible (a plain reshape becomes one memcpy).
CopyPlan simplify(const CopyPlan &p) {
  CopyPlan q;
  for (size_t i = 0; i < p.shape.size(); ++i) {
    if (p.shape[i] == 1)
      continue;
    if (!q.shape.empty()) {
      size_t k = q.shape.size() - 1;
      if (q.dst_strides[k] == p.dst_strides[i] * p.shape[i] &&
          q.src_strides[k] == p.src_strides[i] * p.shape[i]) {
        q.shape[k] *= p.shape[i];
        q.dst_strides[k] = p.dst_strides[i];
        q.src_strides[k] = p.src_strides[i];
        continue;
      }
    }
    q.shape.push_back(p.shape[i]);
    q.dst_strides.push_back(p.dst_strides[i]);
    q.src_strides.push_back(p.src_strides[i]);
  }
  return q;
}

template <class E> void copy_run(E *d, int64_t ds, const E *s, int64_t ss, int64_t n) {
  if (ds == 1 && ss == 1)
    std::memcpy(d, s, static_cast<size_t>(n) * sizeof(E));
  else if (ds == 1 && ss == 0)
    std::fill_n(d, n, *s);
  else
    for (int64_t i = 0; i < n; ++i)
      d[i * ds] = s[i * ss];
}

// Offsets of the `flat`-th point of the sub-grid formed by `dims` (row-major over them).
void decode(int64_t flat, const std::vector<int> &dims, const CopyPlan &p, int64_t &doff,
            int64_t &soff) {
  doff = soff = 0;
  for (size_t k = dims.size(); k-- > 0;) {
    int d = dims[k];
    int64_t i = flat % p.shape[d];
    flat /= p.shape[d];
    doff += i * p.dst_strides[d];
    soff += i * p.src_strides[d];
  }
}

template <class E> void run_copy(E *dst, const E *src, const CopyPlan &p) {
  int r = static_cast<int>(p.shape.size());
  if (r == 0) {
    *dst = *src;
    return;
  }
  const int64_t n = p.shape[r - 1], ds = p.dst_strides[r - 1], ss = p.src_strides[r - 1];
  if (r == 1) {
    parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
      copy_run(dst + b * ds, ds, src + b * ss, ss, e - b);
    });
    return;
  }

  // Transpose-like: the output runs contiguously where the input jumps, and some other dim
  // walks the input contiguously. Copy square tiles so both sides stay in cache.
  int j = -1;
  if (ds == 1 && ss != 1 && ss != -1 && n >= kTile / 2)
    for (int k = 0; k < r - 1; ++k)
      if ((p.src_strides[k] == 1 || p.src_strides[k] == -1) && p.shape[k] >= kTile / 2)
        j = k;
  if (j >= 0) {
    std::vector<int> outer;
    int64_t count = 1;
    for (int k = 0; k < r - 1; ++k)
      if (k != j) {
        outer.push_back(k);
        count *= p.shape[k];
      }
    const int64_t nj = p.shape[j], dj = p.dst_strides[j], sj = p.src_strides[j];
    const int64_t blocks = (nj + kTile - 1) / kTile;
    parallel_for(count * blocks, std::max<int64_t>(1, kElementwiseGrain / (kTile * n)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t u = b; u < e; ++u) {
                     int64_t doff, soff;
                     decode(u / blocks, outer, p, doff, soff);
                     int64_t j0 = (u % blocks) * kTile, j1 = std::min(nj, j0 + kTile);
                     for (int64_t i0 = 0; i0 < n; i0 += kTile) {
                       int64_t i1 = std::min(n, i0 + kTile);
                       for (int64_t jj = j0; jj < j1; ++jj) {
                         E *d = dst + doff + jj * dj;
                         const E *s = src + soff + jj * sj;
                         for (int64_t i = i0; i < i1; ++i)
                           d[i] = s[i * ss];
                       }
                     }
                   }
                 });
    return;
  }

  // General case: walk the outer dims with an odometer, one inner run per step.
  std::vector<int> outer(r - 1);
  int64_t rows = 1;
  for (int k = 0; k < r - 1; ++k) {
    outer[k] = k;
    rows *= p.shape[k];
  }
  parallel_for(rows, std::max<int64_t>(1, kElementwiseGrain / n), [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(r - 1);
    int64_t rest = b;
    for (int k = r - 2; k >= 0; --k) {
      idx[k] = rest % p.shape[k];
      rest /= p.shape[k];
    }
    int64_t doff, soff;
    decode(b, outer, p, doff, soff);
    for (int64_t row = b; row < e; ++row) {
      copy_run(dst + doff, ds, src + soff, ss, n);
      for (int k = r - 2; k >= 0; --k) {
        doff += p.dst_strides[k];
        soff += p.src_strides[k];
        if (++idx[k] < p.shape[k])
          break;
        doff -= p.shape[k] * p.dst_strides[k];
        soff -= p.shape[k] * p.src_strides[k];
        idx[k] = 0;
      }
    }
  });
}

/// Runs a copy plan between `dst` (from element `dst_off`) and `src` (from `src_off`).
void copy_strided(const Array &dst, int64_t dst_off, const Array &src, int64_t src_off,
                  const CopyPlan &plan) {
  if (num_elements(plan.shape) == 0)
    return;
  CopyPlan p = simplify(plan);
  size_t sz = itemsize(src.dtype());
  auto *d = static_cast<uint8_t *>(dst.mutable_data()) + dst_off * static_cast<int64_t>(sz);
  auto *s = static_cast<const uint8_t *>(src.data()) + src_off * static_cast<int64_t>(sz);
  switch (sz) {
  case 1:
    run_copy(d, s, p);
    break;
  case 2:
    run_copy(reinterpret_cast<uint16_t *>(d), reinterpret_cast<const uint16_t *>(s), p);
    break;
  case 4:
    run_copy(reinterpret_cast<uint32_t *>(d), reinterpret_cast<const uint32_t *>(s), p);
    break;
  case 16:
    run_copy(reinterpret_cast<Bits128 *>(d), reinterpret_cast<const Bits128 *>(s), p);
    break;
  default:
    run_copy(reinterpret_cast<uint64_t *>(d), reinterpret_cast<const uint64_t *>(s), p);
    break;
  }
}

/// Fills all of `dst` with the one element of `scalar` (same dtype).
void fill(const Array &dst, const Array &scalar) {
  CopyPlan p{{dst.size()}, {1}, {0}};
  copy_strided(dst, 0, scalar, 0, p);
}

/// `x`'s data under the output aval's shape and weak flag (for no-op cases).
Array alias(const Array &x, const AbstractValue &out) {
  Array a = x.with_shape(out.shape);
  return a.weak_type() == out.weak_type ? a : a.with_weak_type(out.weak_type);
}

std::vector<Array> one(Array a) { return std::vector<Array>{std::move(a)}; }

// ---- Shared validation ------------------------------------------------------------------------
void check_shape(std::string_view op, std::string_view what, const Shape &shape) {
  for (int64_t d : shape)
    if (d < 0)
      fail(op, "negative dimension in ", what, " ", shape_str(shape));
}

void check_per_dim(std::string_view op, std::string_view what, const std::vector<int64_t> &v,
                   const AbstractValue &x) {
  if (v.size() != x.shape.size())
    fail(op, what, " ", shape_str(v), " must have one entry per dimension of ", x.str());
}

// Start indices of dynamic_slice/dynamic_update_slice: one integer scalar per operand dim.
void check_start_indices(std::string_view op, std::span<const AbstractValue> idx,
                         const AbstractValue &x) {
  if (idx.size() != x.shape.size())
    fail(op, "expects ", x.shape.size(), " start indices for ", x.str(), ", got ", idx.size());
  for (size_t i = 0; i < idx.size(); ++i)
    if (!is_integer(idx[i].dtype) || !idx[i].shape.empty())
      fail_kind(ErrorKind::Type, op, "start index ", i, " must be an integer scalar, got ",
                idx[i].str());
}

// XLA clamps each start so that the whole window [start, start + size) lies in bounds.
std::vector<int64_t> clamped_starts(std::span<const Array> idx, const Shape &dims,
                                    const Shape &sizes) {
  std::vector<int64_t> s(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    s[i] = std::clamp<int64_t>(item_as_int(idx[i]), 0, dims[i] - sizes[i]);
  return s;
}

int64_t dot(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  int64_t acc = 0;
  for (size_t i = 0; i < a.size(); ++i)
    acc += a[i] * b[i];
  return acc;
}

// ---- Shared pieces of the transform rules -------------------------------------------------------
// The jvp, vjp and batch rules use lax:: ops only, so that they are themselves differentiable and
// batchable. Every primitive here but iota is linear in its floating inputs: its jvp applies the
// primitive to the tangents, and its vjp is the transpose.
using Arrays = std::span<const Array>;
using Dims = std::span<const int64_t>;

/// Axis `d` of the unbatched value, as an axis of the value batched at `bdim`.
int64_t batched_axis(int64_t d, int64_t bdim) { return d < bdim ? d : d + 1; }

/// `v` with `x` inserted at position `at`.
template <class T> std::vector<T> inserted(std::vector<T> v, size_t at, T x) {
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), std::move(x));
  return v;
}

/// t, or materialized zeros of `like`'s type when t is a symbolic zero.
Array or_zeros(const Array &t, const Array &like) {
  return rules::is_zero(t) ? rules::zeros_of(like) : t;
}

/// A rank-0 zero of `dtype` (the padding value of the linear pads in the rules).
Array zero_scalar(DType dtype) { return lax::convert_element_type(Array(0.0), dtype); }

/// The start indices (inputs `first` on) of dynamic_slice or dynamic_update_slice, as a list.
std::vector<Array> starts_of(Arrays in, size_t first) { return {in.begin() + first, in.end()}; }

/// Sum of all elements (a rank-0 x is its own sum).
Array total(const Array &x) {
  std::vector<int64_t> all(x.ndim());
  std::iota(all.begin(), all.end(), 0);
  return all.empty() ? x : lax::reduce_sum(x, all);
}

/// Per-example start indices as the [B, n] int64 index matrix of a gather or scatter, led by the
/// example number when the operand is batched (at axis 0). dus_sizes, when given, clamps the
/// starts as dynamic_update_slice does (scatter drops out-of-bounds windows instead).
Array batched_starts(int64_t size, Arrays starts, Dims dims, bool operand_batched,
                     const Shape &operand_shape, const Shape *dus_sizes = nullptr) {
  std::vector<Array> cols;
  if (operand_batched)
    cols.push_back(lax::iota(DType::Int64, {size, 1}, 0));
  for (size_t k = 0; k < starts.size(); ++k) {
    Array s = lax::convert_element_type(starts[k], DType::Int64);
    s = rules::batch_to_front(s, dims[k], size);
    if (dus_sizes)
      s = lax::clamp(Array(int64_t{0}), s, Array(operand_shape[k] - (*dus_sizes)[k]));
    cols.push_back(lax::reshape(s, {size, 1}));
  }
  return cols.size() == 1 ? cols[0] : lax::concatenate(cols, 1);
}

// ---- iota -------------------------------------------------------------------------------------
const Primitive &iota_p = register_primitive({
    .name = "iota",
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("iota", in, 0);
          DType dtype = params.get_dtype("dtype");
          const Shape &shape = params.get_ints("shape");
          int64_t dim = params.get_int("dimension");
          if (is_bool(dtype))
            fail_kind(ErrorKind::Type, "iota", "expects a numeric dtype, got ", short_name(dtype));
          check_shape("iota", "shape", shape);
          if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
            fail("iota", "dimension ", dim, " is out of range for shape ", shape_str(shape));
          return std::vector<AbstractValue>{{shape, dtype, false}};
        },
    .impl =
        [](std::span<const Array>, const Params &params, std::span<const AbstractValue> out) {
          Array y = Array::empty(out[0].shape, out[0].dtype);
          if (y.size() == 0)
            return one(y);
          const Shape &shape = out[0].shape;
          size_t dim = static_cast<size_t>(params.get_int("dimension"));
          int64_t inner = 1;
          for (size_t k = dim + 1; k < shape.size(); ++k)
            inner *= shape[k];
          // One period (shape[dim] runs of `inner` equal values) is filled, then repeated by copy.
          int64_t n = shape[dim], period = n * inner;
          STRATA_DISPATCH(out[0].dtype, T, {
            if constexpr (!std::is_same_v<T, bool>) {
              T *o = static_cast<T *>(y.mutable_data());
              parallel_for(n, std::max<int64_t>(1, kElementwiseGrain / inner),
                           [&](int64_t b, int64_t e) {
                             for (int64_t k = b; k < e; ++k)
                               std::fill_n(o + k * inner, inner, store<T>(k));
                           });
            }
          });
          if (y.size() > period)
            copy_strided(y, period, y, 0, {{y.size() / period - 1, period}, {period, 1}, {0, 1}});
          return one(y);
        },
    // No operands: no level ever holds a tracer of it, so jvp, grad and vmap never call these;
    // they keep the rule table complete.
    .jvp = [](Arrays, Arrays, Arrays, const Params &) -> std::vector<Array> { return {Array()}; },
    .vjp = [](Arrays, Arrays, Arrays, const std::vector<bool> &,
              const Params &) -> std::vector<Array> { return {}; },
    .batch =
        [](const BatchContext &ctx, Arrays, Dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          out_dims = {kNotBatched};
          return bind(*ctx.prim, {}, params);
        },
});

// ---- broadcast_in_dim ---------------------------------------------------------------------------
const Primitive &broadcast_in_dim_p = register_primitive({
    .name = "broadcast_in_dim",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("broadcast_in_dim", in, 1);
          const AbstractValue &x = in[0];
          const Shape &shape = params.get_ints("shape");
          const auto &bd = params.get_ints("broadcast_dimensions");
          check_shape("broadcast_in_dim", "shape", shape);
          if (bd.size() != x.shape.size())
            fail("broadcast_in_dim", "broadcast_dimensions ", shape_str(bd),
                 " must have one entry per operand dimension of ", x.str());
          for (size_t i = 0; i < bd.size(); ++i) {
            if (bd[i] < 0 || bd[i] >= static_cast<int64_t>(shape.size()))
              fail("broadcast_in_dim", "broadcast_dimensions ", shape_str(bd),
                   " out of range for output shape ", shape_str(shape));
            if (i > 0 && bd[i] <= bd[i - 1])
              fail("broadcast_in_dim", "broadcast_dimensions ", shape_str(bd),
                   " must be strictly increasing");
          }
          for (size_t i = 0; i < bd.size(); ++i) {
            if (x.shape[i] != 1 && x.shape[i] != shape[bd[i]])
              fail("broadcast_in_dim", "cannot broadcast ", x.str(), " to ", shape_str(shape),
                   " with broadcast_dimensions ", shape_str(bd), ": operand dimension ", i,
                   " has size ", x.shape[i], ", output dimension ", bd[i], " has size ",
                   shape[bd[i]]);
          }
          return std::vector<AbstractValue>{{shape, x.dtype, x.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
          const Array &x = in[0];
          // Equal element counts mean only size-1 dims were added: the data order is unchanged.
          if (num_elements(out[0].shape) == x.size())
            return one(alias(x, out[0]));
          const auto &bd = params.get_ints("broadcast_dimensions");
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          std::vector<int64_t> xs = strides_of(x.shape());
          CopyPlan plan{out[0].shape, strides_of(out[0].shape),
                        std::vector<int64_t>(out[0].shape.size(), 0)};
          for (size_t i = 0; i < bd.size(); ++i)
            if (x.shape()[i] != 1)
              plan.src_strides[bd[i]] = xs[i];
          copy_strided(y, 0, x, 0, plan);
          return one(y);
        },
    .jvp = [](Arrays, Arrays t, Arrays, const Params &params) -> std::vector<Array> {
      return {lax::broadcast_in_dim(t[0], params.get_ints("shape"),
                                    params.get_ints("broadcast_dimensions"))};
    },
    .vjp = [](Arrays x, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      return {rules::unbroadcast(ct[0], x[0].shape(), params.get_ints("broadcast_dimensions"))};
    },
    // The batch axis goes right after the output dim of the operand dim before it, so the
    // broadcast dimensions stay increasing and no transpose is needed.
    .batch =
        [](const BatchContext &ctx, Arrays x, Dims dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          size_t b = static_cast<size_t>(dims[0]);
          const auto &bd = params.get_ints("broadcast_dimensions");
          int64_t out_b = b == 0 ? 0 : bd[b - 1] + 1;
          std::vector<int64_t> nbd;
          for (int64_t d : bd)
            nbd.push_back(batched_axis(d, out_b));
          nbd.insert(nbd.begin() + static_cast<std::ptrdiff_t>(b), out_b);
          out_dims = {out_b};
          return one(lax::broadcast_in_dim(
              x[0], inserted(params.get_ints("shape"), out_b, ctx.axis_size), nbd));
        },
});

// ---- reshape ----------------------------------------------------------------------------------
const Primitive &reshape_p = register_primitive({
    .name = "reshape",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("reshape", in, 1);
          const AbstractValue &x = in[0];
          const Shape &sizes = params.get_ints("new_sizes");
          check_shape("reshape", "new_sizes", sizes);
          if (num_elements(sizes) != num_elements(x.shape))
            fail_kind(ErrorKind::Type, "reshape", "cannot reshape ", x.str(), " (",
                      num_elements(x.shape), " elements) to ", shape_str(sizes));
          return std::vector<AbstractValue>{{sizes, x.dtype, x.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          return one(alias(in[0], out[0])); // arrays are dense row-major: no data moves
        },
    .jvp = [](Arrays, Arrays t, Arrays, const Params &params) -> std::vector<Array> {
      return {lax::reshape(t[0], params.get_ints("new_sizes"))};
    },
    .vjp = [](Arrays x, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      return {lax::reshape(ct[0], x[0].shape())};
    },
    // Row-major reshapes keep a leading batch axis apart from the rest.
    .batch =
        [](const BatchContext &ctx, Arrays x, Dims dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          out_dims = {0};
          return one(lax::reshape(rules::move_axis(x[0], dims[0], 0),
                                  inserted(params.get_ints("new_sizes"), 0, ctx.axis_size)));
        },
});

// ---- transpose --------------------------------------------------------------------------------
const Primitive &transpose_p = register_primitive({
    .name = "transpose",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("transpose", in, 1);
          const AbstractValue &x = in[0];
          const auto &perm = params.get_ints("permutation");
          size_t r = x.shape.size();
          std::vector<bool> seen(r, false);
          bool ok = perm.size() == r;
          for (size_t i = 0; ok && i < r; ++i) {
            ok = perm[i] >= 0 && perm[i] < static_cast<int64_t>(r) && !seen[perm[i]];
            if (ok)
              seen[perm[i]] = true;
          }
          if (!ok)
            fail("transpose", "permutation ", shape_str(perm),
                 " is not a permutation of the dimensions of ", x.str());
          Shape shape(r);
          for (size_t i = 0; i < r; ++i)
            shape[i] = x.shape[perm[i]];
          return std::vector<AbstractValue>{{shape, x.dtype, x.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
          const Array &x = in[0];
          const auto &perm = params.get_ints("permutation");
          std::vector<int64_t> xs = strides_of(x.shape());
          CopyPlan plan{out[0].shape, strides_of(out[0].shape), std::vector<int64_t>(perm.size())};
          for (size_t i = 0; i < perm.size(); ++i)
            plan.src_strides[i] = xs[perm[i]];
          if (simplify(plan).shape.size() <= 1) // identity up to size-1 dims
            return one(alias(x, out[0]));
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          copy_strided(y, 0, x, 0, plan);
          return one(y);
        },
    .jvp = [](Arrays, Arrays t, Arrays, const Params &params) -> std::vector<Array> {
      return {lax::transpose(t[0], params.get_ints("permutation"))};
    },
    .vjp = [](Arrays, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      const auto &perm = params.get_ints("permutation");
      std::vector<int64_t> inv(perm.size());
      for (size_t i = 0; i < perm.size(); ++i)
        inv[perm[i]] = static_cast<int64_t>(i);
      return {lax::transpose(ct[0], inv)};
    },
    // One transpose that also brings the batch axis to the front.
    .batch =
        [](const BatchContext &, Arrays x, Dims dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          std::vector<int64_t> perm{dims[0]};
          for (int64_t d : params.get_ints("permutation"))
            perm.push_back(batched_axis(d, dims[0]));
          out_dims = {0};
          return one(lax::transpose(x[0], perm));
        },
});

// ---- rev --------------------------------------------------------------------------------------
const Primitive &rev_p = register_primitive({
    .name = "rev",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("rev", in, 1);
          const AbstractValue &x = in[0];
          const auto &dims = params.get_ints("dimensions");
          std::vector<bool> seen(x.shape.size(), false);
          for (int64_t d : dims) {
            if (d < 0 || d >= static_cast<int64_t>(x.shape.size()))
              fail("rev", "dimension ", d, " is out of range for ", x.str());
            if (seen[d])
              fail("rev", "dimensions ", shape_str(dims), " repeat dimension ", d);
            seen[d] = true;
          }
          return std::vector<AbstractValue>{x};
        },
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
          const Array &x = in[0];
          CopyPlan plan{x.shape(), strides_of(x.shape()), strides_of(x.shape())};
          int64_t src_off = 0;
          for (int64_t d : params.get_ints("dimensions")) {
            src_off += (x.shape()[d] - 1) * plan.src_strides[d];
            plan.src_strides[d] = -plan.src_strides[d];
          }
          if (x.size() == 0 || src_off == 0) // only size-1 (or no) dims reversed
            return one(alias(x, out[0]));
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          copy_strided(y, 0, x, src_off, plan);
          return one(y);
        },
    .jvp = [](Arrays, Arrays t, Arrays, const Params &params) -> std::vector<Array> {
      return {lax::rev(t[0], params.get_ints("dimensions"))};
    },
    .vjp = [](Arrays, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      return {lax::rev(ct[0], params.get_ints("dimensions"))};
    },
    .batch =
        [](const BatchContext &, Arrays x, Dims dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          std::vector<int64_t> rd;
          for (int64_t d : params.get_ints("dimensions"))
            rd.push_back(batched_axis(d, dims[0]));
          out_dims = {dims[0]};
          return one(lax::rev(x[0], rd));
        },
});

// ---- slice ------------------------------------------------------------------------------------
// Missing or empty strides mean all ones.
std::vector<int64_t> slice_strides(const Params &params, size_t rank) {
  if (params.has("strides") && !params.get_ints("strides").empty())
    return params.get_ints("strides");
  return std::vector<int64_t>(rank, 1);
}

const Primitive &slice_p = register_primitive({
    .name = "slice",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("slice", in, 1);
          const AbstractValue &x = in[0];
          const auto &start = params.get_ints("start");
          const auto &limit = params.get_ints("limit");
          std::vector<int64_t> strides = slice_strides(params, x.shape.size());
          check_per_dim("slice", "start", start, x);
          check_per_dim("slice", "limit", limit, x);
          check_per_dim("slice", "strides", strides, x);
          Shape shape(x.shape.size());
          for (size_t i = 0; i < shape.size(); ++i) {
            if (start[i] < 0 || start[i] > limit[i] || limit[i] > x.shape[i])
              fail("slice", "start ", start[i], " and limit ", limit[i],
                   " are invalid for dimension ", i, " of ", x.str(),
                   " (need 0 <= start <= limit <= ", x.shape[i], ")");
            if (strides[i] < 1)
              fail("slice", "strides ", shape_str(strides), " must be >= 1");
            shape[i] = (limit[i] - start[i] + strides[i] - 1) / strides[i];
          }
          return std::vector<AbstractValue>{{shape, x.dtype, x.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
          const Array &x = in[0];
          if (out[0].shape == x.shape())
            return one(alias(x, out[0])); // the whole array
          std::vector<int64_t> strides = slice_strides(params, x.shape().size());
          std::vector<int64_t> xs = strides_of(x.shape());
          CopyPlan plan{out[0].shape, strides_of(out[0].shape), xs};
          for (size_t i = 0; i < xs.size(); ++i)
            plan.src_strides[i] *= strides[i];
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          copy_strided(y, 0, x, dot(params.get_ints("start"), xs), plan);
          return one(y);
        },
    .jvp = [](Arrays x, Arrays t, Arrays, const Params &params) -> std::vector<Array> {
      return {lax::slice(t[0], params.get_ints("start"), params.get_ints("limit"),
                         slice_strides(params, x[0].shape().size()))};
    },
    // The transpose spreads the cotangent back with zeros: low = start, interior = stride - 1,
    // and high whatever is left after the last element taken.
    .vjp = [](Arrays x, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      const Shape &in = x[0].shape(), &out = ct[0].shape();
      const auto &start = params.get_ints("start");
      std::vector<int64_t> strides = slice_strides(params, in.size());
      std::vector<int64_t> high(in.size()), interior(in.size());
      for (size_t i = 0; i < in.size(); ++i) {
        int64_t last = out[i] == 0 ? start[i] : start[i] + (out[i] - 1) * strides[i] + 1;
        high[i] = in[i] - last;
        interior[i] = strides[i] - 1;
      }
      return {lax::pad(ct[0], zero_scalar(ct[0].dtype()), start, high, interior)};
    },
    .batch =
        [](const BatchContext &ctx, Arrays x, Dims dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          size_t b = static_cast<size_t>(dims[0]);
          out_dims = {dims[0]};
          return one(
              lax::slice(x[0], inserted(params.get_ints("start"), b, int64_t{0}),
                         inserted(params.get_ints("limit"), b, ctx.axis_size),
                         inserted(slice_strides(params, x[0].shape().size() - 1), b, int64_t{1})));
        },
});

// ---- dynamic_slice ----------------------------------------------------------------------------
const Primitive &dynamic_slice_p = register_primitive({
    .name = "dynamic_slice",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          if (in.empty())
            fail("dynamic_slice", "expects an operand");
          const AbstractValue &x = in[0];
          check_start_indices("dynamic_slice", in.subspan(1), x);
          const Shape &sizes = params.get_ints("slice_sizes");
          check_per_dim("dynamic_slice", "slice_sizes", sizes, x);
          for (size_t i = 0; i < sizes.size(); ++i)
            if (sizes[i] < 0 || sizes[i] > x.shape[i])
              fail("dynamic_slice", "slice_sizes ", shape_str(sizes), " do not fit in ", x.str(),
                   " at dimension ", i);
          return std::vector<AbstractValue>{{sizes, x.dtype, x.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          const Array &x = in[0];
          if (out[0].shape == x.shape())
            return one(alias(x, out[0])); // every start clamps to 0
          std::vector<int64_t> start = clamped_starts(in.subspan(1), x.shape(), out[0].shape);
          std::vector<int64_t> xs = strides_of(x.shape());
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          copy_strided(y, 0, x, dot(start, xs), {out[0].shape, strides_of(out[0].shape), xs});
          return one(y);
        },
    .jvp = [](Arrays x, Arrays t, Arrays, const Params &params) -> std::vector<Array> {
      if (rules::is_zero(t[0]))
        return {Array()};
      return {lax::dynamic_slice(t[0], starts_of(x, 1), params.get_ints("slice_sizes"))};
    },
    // Start indices are integers: no cotangent.
    .vjp = [](Arrays x, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &) -> std::vector<Array> {
      std::vector<Array> g(x.size());
      if (!rules::is_zero(ct[0]))
        g[0] = lax::dynamic_update_slice(rules::zeros_of(x[0]), ct[0], starts_of(x, 1));
      return g;
    },
    .batch =
        [](const BatchContext &ctx, Arrays x, Dims dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          const Shape &sizes = params.get_ints("slice_sizes");
          if (std::all_of(dims.begin() + 1, dims.end(),
                          [](int64_t d) { return d == kNotBatched; })) {
            // Shared starts: the batch axis is sliced whole, in place.
            size_t b = static_cast<size_t>(dims[0]);
            out_dims = {dims[0]};
            return one(lax::dynamic_slice(x[0], inserted(starts_of(x, 1), b, Array(int32_t{0})),
                                          inserted(sizes, b, ctx.axis_size)));
          }
          // Per-example starts: one gather whose index vectors are the starts (and the example
          // number when the operand is batched too); gather clamps the starts as dynamic_slice
          // does.
          bool batched = dims[0] != kNotBatched;
          Array operand = batched ? rules::move_axis(x[0], dims[0], 0) : x[0];
          Shape shape = x[0].shape();
          if (batched)
            shape.erase(shape.begin() + dims[0]);
          Array idx = batched_starts(ctx.axis_size, x.subspan(1), dims.subspan(1), batched, shape);
          lax::GatherDimensionNumbers dn;
          dn.offset_dims.resize(sizes.size());
          std::iota(dn.offset_dims.begin(), dn.offset_dims.end(), 1);
          dn.start_index_map.resize(sizes.size() + (batched ? 1 : 0));
          std::iota(dn.start_index_map.begin(), dn.start_index_map.end(), 0);
          if (batched)
            dn.collapsed_slice_dims = {0};
          out_dims = {0};
          return one(
              lax::gather(operand, idx, dn, batched ? inserted(sizes, 0, int64_t{1}) : sizes));
        },
});

// ---- dynamic_update_slice ---------------------------------------------------------------------
const Primitive &dynamic_update_slice_p = register_primitive({
    .name = "dynamic_update_slice",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &) {
          if (in.size() < 2)
            fail("dynamic_update_slice", "expects an operand and an update, got ", in.size(),
                 " operands");
          const AbstractValue &x = in[0], &u = in[1];
          if (u.dtype != x.dtype)
            fail_kind(ErrorKind::Type, "dynamic_update_slice", "update ", u.str(), " and operand ",
                      x.str(), " dtypes differ");
          if (u.shape.size() != x.shape.size())
            fail("dynamic_update_slice", "update ", u.str(), " must have the rank of operand ",
                 x.str());
          for (size_t i = 0; i < u.shape.size(); ++i)
            if (u.shape[i] > x.shape[i])
              fail("dynamic_update_slice", "update ", u.str(), " does not fit in operand ", x.str(),
                   " at dimension ", i);
          check_start_indices("dynamic_update_slice", in.subspan(2), x);
          return std::vector<AbstractValue>{{x.shape, x.dtype, x.weak_type && u.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          const Array &x = in[0], &u = in[1];
          if (u.size() == 0)
            return one(alias(x, out[0]));
          if (u.shape() == x.shape())
            return one(alias(u, out[0])); // the update covers everything
          std::vector<int64_t> start = clamped_starts(in.subspan(2), x.shape(), u.shape());
          std::vector<int64_t> xs = strides_of(x.shape());
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          copy_strided(y, 0, x, 0, {{x.size()}, {1}, {1}});
          copy_strided(y, dot(start, xs), u, 0, {u.shape(), xs, strides_of(u.shape())});
          return one(y);
        },
    .jvp = [](Arrays x, Arrays t, Arrays, const Params &) -> std::vector<Array> {
      if (rules::is_zero(t[0]) && rules::is_zero(t[1]))
        return {Array()};
      return {
          lax::dynamic_update_slice(or_zeros(t[0], x[0]), or_zeros(t[1], x[1]), starts_of(x, 2))};
    },
    // The operand's cotangent is ct with the updated window zeroed; the update's is that window.
    .vjp = [](Arrays x, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &) -> std::vector<Array> {
      std::vector<Array> g(x.size());
      if (rules::is_zero(ct[0]))
        return g;
      std::vector<Array> starts = starts_of(x, 2);
      g[0] = lax::dynamic_update_slice(ct[0], rules::zeros_of(x[1]), starts);
      g[1] = lax::dynamic_slice(ct[0], starts, x[1].shape());
      return g;
    },
    .batch =
        [](const BatchContext &ctx, Arrays x, Dims dims, const Params &,
           std::vector<int64_t> &out_dims) {
          Array operand = rules::batch_to_front(x[0], dims[0], ctx.axis_size);
          Array update = rules::batch_to_front(x[1], dims[1], ctx.axis_size);
          out_dims = {0};
          if (std::all_of(dims.begin() + 2, dims.end(), [](int64_t d) { return d == kNotBatched; }))
            return one(lax::dynamic_update_slice(operand, update,
                                                 inserted(starts_of(x, 2), 0, Array(int32_t{0}))));
          // Per-example starts: one scatter, each example writing its own row of the batch axis.
          // Scatter drops windows that do not fit, so the starts are clamped first.
          Shape operand_shape(operand.shape().begin() + 1, operand.shape().end());
          Shape update_shape(update.shape().begin() + 1, update.shape().end());
          Array idx = batched_starts(ctx.axis_size, x.subspan(2), dims.subspan(2), true,
                                     operand_shape, &update_shape);
          lax::ScatterDimensionNumbers dn;
          dn.update_window_dims.resize(operand.ndim() - 1);
          std::iota(dn.update_window_dims.begin(), dn.update_window_dims.end(), 1);
          dn.inserted_window_dims = {0};
          dn.scatter_dims_to_operand_dims.resize(operand.ndim());
          std::iota(dn.scatter_dims_to_operand_dims.begin(), dn.scatter_dims_to_operand_dims.end(),
                    0);
          return one(lax::scatter(operand, idx, update, dn));
        },
});

// ---- pad --------------------------------------------------------------------------------------
// Which operand elements a padded dimension keeps: element i lands at low + i * (interior + 1),
// and negative low/high crop those that land outside [0, out).
struct PadKeep {
  int64_t first, count, out_pos;
};
PadKeep pad_keep(int64_t d, int64_t low, int64_t interior, int64_t out) {
  int64_t step = interior + 1;
  int64_t first = low >= 0 ? 0 : (-low + step - 1) / step;
  int64_t end = out - low <= 0 ? 0 : std::min(d, (out - low + step - 1) / step);
  int64_t count = std::max<int64_t>(0, end - first);
  return {first, count, low + first * step};
}

const Primitive &pad_p = register_primitive({
    .name = "pad",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("pad", in, 2);
          const AbstractValue &x = in[0], &v = in[1];
          if (!v.shape.empty())
            fail("pad", "padding_value must be a scalar, got ", v.str());
          if (v.dtype != x.dtype)
            fail_kind(ErrorKind::Type, "pad", "padding_value ", v.str(), " and operand ", x.str(),
                      " dtypes differ");
          const auto &low = params.get_ints("low");
          const auto &high = params.get_ints("high");
          const auto &interior = params.get_ints("interior");
          check_per_dim("pad", "low", low, x);
          check_per_dim("pad", "high", high, x);
          check_per_dim("pad", "interior", interior, x);
          Shape shape(x.shape.size());
          for (size_t i = 0; i < shape.size(); ++i) {
            if (interior[i] < 0)
              fail("pad", "interior ", shape_str(interior), " must be non-negative");
            int64_t d = x.shape[i];
            int64_t spread = checked_dim_mul(std::max<int64_t>(d - 1, 0), interior[i], "pad");
            shape[i] = checked_dim_add(
                checked_dim_add(checked_dim_add(d, spread, "pad"), low[i], "pad"), high[i], "pad");
            if (shape[i] < 0)
              fail("pad", "low ", low[i], ", high ", high[i], " and interior ", interior[i],
                   " give negative size ", shape[i], " for dimension ", i, " of ", x.str());
          }
          return std::vector<AbstractValue>{{shape, x.dtype, x.weak_type && v.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
          const Array &x = in[0];
          const auto &low = params.get_ints("low");
          const auto &interior = params.get_ints("interior");
          if (out[0].shape == x.shape() &&
              std::all_of(low.begin(), low.end(), [](int64_t l) { return l == 0; }) &&
              std::all_of(interior.begin(), interior.end(), [](int64_t i) { return i == 0; }))
            return one(alias(x, out[0]));
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          fill(y, in[1]);
          std::vector<int64_t> xs = strides_of(x.shape()), ys = strides_of(out[0].shape);
          CopyPlan plan{Shape(xs.size()), ys, xs};
          int64_t src_off = 0, dst_off = 0;
          for (size_t i = 0; i < xs.size(); ++i) {
            PadKeep k = pad_keep(x.shape()[i], low[i], interior[i], out[0].shape[i]);
            plan.shape[i] = k.count;
            src_off += k.first * xs[i];
            dst_off += k.out_pos * ys[i];
            plan.dst_strides[i] *= interior[i] + 1;
          }
          copy_strided(y, dst_off, x, src_off, plan);
          return one(y);
        },
    .jvp = [](Arrays x, Arrays t, Arrays, const Params &params) -> std::vector<Array> {
      return {lax::pad(or_zeros(t[0], x[0]), or_zeros(t[1], x[1]), params.get_ints("low"),
                       params.get_ints("high"), params.get_ints("interior"))};
    },
    // The operand's cotangent: undo low/high with the opposite padding (zeros where they
    // cropped), then take every (interior + 1)-th element. The padding value's: the sum of ct
    // where the output holds padding, found with a mask (exact, unlike sum(ct) - sum(ct_x)).
    .vjp = [](Arrays x, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array(), Array()};
      if (x[0].ndim() == 0) // the pad of a scalar is the scalar itself
        return {ct[0], rules::zeros_of(x[1])};
      const auto &low = params.get_ints("low"), &high = params.get_ints("high"),
                 &interior = params.get_ints("interior");
      size_t r = low.size();
      std::vector<int64_t> nlow(r), nhigh(r), zeros(r, 0), step(r);
      for (size_t i = 0; i < r; ++i) {
        nlow[i] = -low[i];
        nhigh[i] = -high[i];
        step[i] = interior[i] + 1;
      }
      Array unpadded = lax::pad(ct[0], zero_scalar(ct[0].dtype()), nlow, nhigh, zeros);
      Array gx = lax::slice(unpadded, zeros, unpadded.shape(), step);
      Array mask = lax::pad(lax::broadcast_in_dim(Array(true), x[0].shape(), {}), Array(false), low,
                            high, interior);
      Array gv = total(lax::select(mask, rules::zeros_of(ct[0]), ct[0]));
      return {gx, gv};
    },
    .batch =
        [](const BatchContext &ctx, Arrays x, Dims dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          const auto &low = params.get_ints("low"), &high = params.get_ints("high"),
                     &interior = params.get_ints("interior");
          if (dims[1] == kNotBatched) { // pad the batch axis by nothing, in place
            size_t b = static_cast<size_t>(dims[0]);
            out_dims = {dims[0]};
            return one(lax::pad(x[0], x[1], inserted(low, b, int64_t{0}),
                                inserted(high, b, int64_t{0}), inserted(interior, b, int64_t{0})));
          }
          // Per-example padding values: pad with zeros, then select each example's value where the
          // output holds padding (the mask is the unbatched pad of `true` with `false`).
          Array operand = rules::batch_to_front(x[0], dims[0], ctx.axis_size);
          Array y = lax::pad(operand, zero_scalar(x[1].dtype()), inserted(low, 0, int64_t{0}),
                             inserted(high, 0, int64_t{0}), inserted(interior, 0, int64_t{0}));
          Shape shape(operand.shape().begin() + 1, operand.shape().end());
          Array inside = lax::broadcast_in_dim(Array(true), shape, {});
          Array mask = lax::pad(inside, Array(false), low, high, interior);
          std::vector<int64_t> rest(mask.ndim());
          std::iota(rest.begin(), rest.end(), 1);
          mask = lax::broadcast_in_dim(mask, y.shape(), rest);
          Array value = lax::broadcast_in_dim(x[1], y.shape(), {0});
          out_dims = {0};
          return one(lax::select(mask, y, value));
        },
});

// ---- concatenate ------------------------------------------------------------------------------
const Primitive &concatenate_p = register_primitive({
    .name = "concatenate",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          if (in.empty())
            fail("concatenate", "expects at least one operand");
          const AbstractValue &x = in[0];
          int64_t dim = params.get_int("dimension");
          if (x.shape.empty())
            fail("concatenate", "cannot concatenate scalars such as ", x.str());
          if (dim < 0 || dim >= static_cast<int64_t>(x.shape.size()))
            fail("concatenate", "dimension ", dim, " is out of range for ", x.str());
          AbstractValue res = x;
          for (size_t k = 1; k < in.size(); ++k) {
            const AbstractValue &y = in[k];
            if (y.dtype != x.dtype)
              fail_kind(ErrorKind::Type, "concatenate", "operand dtypes differ: ", x.str(), " and ",
                        y.str());
            if (y.shape.size() != x.shape.size())
              fail_kind(ErrorKind::Type, "concatenate", "operand ranks differ: ", x.str(), " and ",
                        y.str());
            for (size_t i = 0; i < x.shape.size(); ++i)
              if (static_cast<int64_t>(i) != dim && y.shape[i] != x.shape[i])
                fail_kind(ErrorKind::Type, "concatenate", "operand shapes ", x.str(), " and ",
                          y.str(), " differ outside dimension ", dim);
            res.shape[dim] = checked_dim_add(res.shape[dim], y.shape[dim], "concatenate");
            res.weak_type = res.weak_type && y.weak_type;
          }
          return std::vector<AbstractValue>{res};
        },
    .impl =
        [](std::span<const Array> in, const Params &params, std::span<const AbstractValue> out) {
          if (in.size() == 1)
            return one(alias(in[0], out[0]));
          size_t dim = static_cast<size_t>(params.get_int("dimension"));
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          std::vector<int64_t> ys = strides_of(out[0].shape);
          int64_t pos = 0;
          for (const Array &x : in) {
            copy_strided(y, pos * ys[dim], x, 0, {x.shape(), ys, strides_of(x.shape())});
            pos += x.shape()[dim];
          }
          return one(y);
        },
    .jvp = [](Arrays x, Arrays t, Arrays, const Params &params) -> std::vector<Array> {
      std::vector<Array> ts;
      for (size_t i = 0; i < x.size(); ++i)
        ts.push_back(or_zeros(t[i], x[i]));
      return {lax::concatenate(ts, params.get_int("dimension"))};
    },
    // Each operand's cotangent is its own stretch of ct along the dimension.
    .vjp = [](Arrays x, Arrays, Arrays ct, const std::vector<bool> &,
              const Params &params) -> std::vector<Array> {
      std::vector<Array> g(x.size());
      if (rules::is_zero(ct[0]))
        return g;
      size_t dim = static_cast<size_t>(params.get_int("dimension"));
      std::vector<int64_t> start(ct[0].ndim(), 0), limit = ct[0].shape();
      for (size_t i = 0; i < x.size(); ++i) {
        limit[dim] = start[dim] + x[i].shape()[dim];
        g[i] = lax::slice(ct[0], start, limit);
        start[dim] = limit[dim];
      }
      return g;
    },
    .batch =
        [](const BatchContext &ctx, Arrays x, Dims dims, const Params &params,
           std::vector<int64_t> &out_dims) {
          std::vector<Array> xs;
          for (size_t i = 0; i < x.size(); ++i)
            xs.push_back(rules::batch_to_front(x[i], dims[i], ctx.axis_size));
          out_dims = {0};
          return one(lax::concatenate(xs, params.get_int("dimension") + 1));
        },
});

} // namespace

// ---- lax wrappers -------------------------------------------------------------------------------
namespace lax {
Array iota(DType dtype, const Shape &shape, int64_t dimension) {
  return bind1(iota_p, {}, {{"dtype", dtype}, {"shape", shape}, {"dimension", dimension}});
}
Array broadcast_in_dim(const Array &x, const Shape &shape,
                       const std::vector<int64_t> &broadcast_dimensions) {
  return bind1(broadcast_in_dim_p, {x},
               {{"shape", shape}, {"broadcast_dimensions", broadcast_dimensions}});
}
Array reshape(const Array &x, const Shape &new_sizes) {
  return bind1(reshape_p, {x}, {{"new_sizes", new_sizes}});
}
Array transpose(const Array &x, const std::vector<int64_t> &permutation) {
  return bind1(transpose_p, {x}, {{"permutation", permutation}});
}
Array rev(const Array &x, const std::vector<int64_t> &dimensions) {
  return bind1(rev_p, {x}, {{"dimensions", dimensions}});
}
Array slice(const Array &x, const std::vector<int64_t> &start, const std::vector<int64_t> &limit,
            const std::vector<int64_t> &strides) {
  // Spelling the default out keeps equal slices' params (and jit cache keys) equal.
  std::vector<int64_t> s = strides.empty() ? std::vector<int64_t>(x.shape().size(), 1) : strides;
  return bind1(slice_p, {x}, {{"start", start}, {"limit", limit}, {"strides", s}});
}
Array dynamic_slice(const Array &x, const std::vector<Array> &start_indices,
                    const Shape &slice_sizes) {
  std::vector<Array> in{x};
  in.insert(in.end(), start_indices.begin(), start_indices.end());
  return bind1(dynamic_slice_p, std::move(in), {{"slice_sizes", slice_sizes}});
}
Array dynamic_update_slice(const Array &x, const Array &update,
                           const std::vector<Array> &start_indices) {
  std::vector<Array> in{x, update};
  in.insert(in.end(), start_indices.begin(), start_indices.end());
  return bind1(dynamic_update_slice_p, std::move(in));
}
Array pad(const Array &x, const Array &padding_value, const std::vector<int64_t> &low,
          const std::vector<int64_t> &high, const std::vector<int64_t> &interior) {
  return bind1(pad_p, {x, padding_value}, {{"low", low}, {"high", high}, {"interior", interior}});
}
Array concatenate(const std::vector<Array> &xs, int64_t dimension) {
  return bind1(concatenate_p, xs, {{"dimension", dimension}});
}
} // namespace lax

} // namespace strata
