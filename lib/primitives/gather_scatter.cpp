// gather, scatter and scatter_add: XLA's general forms, with the index vector as the last
// dimension of `indices` (lax's convention), their shape rules and reference CPU kernels.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "primitives/elementwise_impl.h"
#include "primitives/kernels_impl.h"
#include "primitives/rules_impl.h"
#include "strata/internal/thread_pool.h"
#include "strata/lax.h"

namespace strata {
namespace {

// Elements one chunk of a gather/scatter kernel should move before it is worth a thread.
constexpr int64_t kGatherGrain = 1 << 15;

std::string operands_str(std::span<const AbstractValue> in) {
  static const char *names[] = {"operand", "indices", "updates"};
  std::string s;
  for (size_t i = 0; i < in.size() && i < 3; ++i)
    s += detail::cat(i ? ", " : "", names[i], " ", in[i].str());
  return s;
}

/// Checks a list of dimension numbers: each in [0, bound), no repeats, and ascending when
/// `sorted` (XLA requires that of the window and collapsed dimension lists).
void check_dims(std::string_view op, std::string_view what, const std::vector<int64_t> &dims,
                int64_t bound, bool sorted, std::span<const AbstractValue> in) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= bound)
      fail(op, what, " ", shape_str(dims), " has ", dims[i], " out of range [0, ", bound, ") for ",
           operands_str(in));
    for (size_t j = 0; j < i; ++j)
      if (dims[j] == dims[i])
        fail(op, what, " ", shape_str(dims), " repeats ", dims[i], " for ", operands_str(in));
    if (sorted && i > 0 && dims[i - 1] > dims[i])
      fail(op, what, " ", shape_str(dims), " must be sorted, for ", operands_str(in));
  }
}

void check_indices(std::string_view op, std::span<const AbstractValue> in) {
  const AbstractValue &idx = in[1];
  if (!is_integer(idx.dtype))
    fail_kind(ErrorKind::Type, op, "indices must have an integer dtype, got ", idx.str());
  if (idx.shape.empty())
    fail(op, "indices must have rank >= 1 (the last dimension is the index vector), got ",
         idx.str());
}

bool contains(const std::vector<int64_t> &v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

/// Start indices of every batch position, widened to int64 (row-major, index vector last).
std::vector<int64_t> load_indices(const Array &indices) {
  std::vector<int64_t> out(static_cast<size_t>(indices.size()));
  // A generic lambda, so that `if constexpr` discards the non-integer instantiations.
  auto widen = [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T *p = indices.data<T>();
      for (size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<int64_t>(p[i]);
    }
  };
  STRATA_DISPATCH(indices.dtype(), T, widen(T{}));
  return out;
}

/// Offset, under `strides`, of the `flat`-th row-major position of `shape`.
int64_t offset_of(int64_t flat, const Shape &shape, const std::vector<int64_t> &strides) {
  int64_t off = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    off += (flat % shape[d]) * strides[d];
    flat /= shape[d];
  }
  return off;
}

/// Calls fn(a, b) for the row-major positions [begin, end) of a window of `shape`, where a and
/// b are the position's offsets under strides `sa` and `sb`. The last dimension runs as a tight
/// inner loop; higher dimensions carry.
template <class F>
void for_each_in_window(const Shape &shape, const std::vector<int64_t> &sa,
                        const std::vector<int64_t> &sb, int64_t begin, int64_t end, F &&fn) {
  if (begin >= end)
    return;
  const size_t r = shape.size();
  if (r == 0) {
    fn(int64_t{0}, int64_t{0});
    return;
  }
  std::vector<int64_t> idx(r);
  int64_t rest = begin, oa = 0, ob = 0;
  for (size_t d = r; d-- > 0;) {
    idx[d] = rest % shape[d];
    rest /= shape[d];
    oa += idx[d] * sa[d];
    ob += idx[d] * sb[d];
  }
  const size_t last = r - 1;
  const int64_t la = sa[last], lb = sb[last];
  for (int64_t k = begin;;) {
    int64_t run = std::min(shape[last] - idx[last], end - k);
    for (int64_t i = 0; i < run; ++i)
      fn(oa + i * la, ob + i * lb);
    k += run;
    if (k >= end)
      return;
    oa -= idx[last] * la;
    ob -= idx[last] * lb;
    idx[last] = 0;
    for (size_t d = last; d-- > 0;) {
      ++idx[d];
      oa += sa[d];
      ob += sb[d];
      if (idx[d] < shape[d])
        break;
      oa -= idx[d] * sa[d];
      ob -= idx[d] * sb[d];
      idx[d] = 0;
    }
  }
}

/// Calls f with a value of the unsigned integer type of `size` bytes, so that kernels can move
/// elements of any dtype by their bits.
template <class F> void with_bits_type(size_t size, F &&f) {
  switch (size) {
  case 1:
    f(uint8_t{});
    break;
  case 2:
    f(uint16_t{});
    break;
  case 4:
    f(uint32_t{});
    break;
  case 16:
    f(Bits128{});
    break;
  default:
    f(uint64_t{});
    break;
  }
}

// ---- helpers of the transform rules -------------------------------------------------------------
//
// Rules use lax:: ops only (so they nest under every transform); the helpers below build the
// dimension numbers and the index arithmetic they share.

/// Each entry plus one (a new leading dimension), preceded by 0 when with_lead.
std::vector<int64_t> shift_dims(const std::vector<int64_t> &dims, bool with_lead = false) {
  std::vector<int64_t> out;
  if (with_lead)
    out.push_back(0);
  for (int64_t d : dims)
    out.push_back(d + 1);
  return out;
}

/// The largest value of an integer dtype (as int64, saturated).
int64_t int_max(DType t) {
  switch (t) {
  case DType::Int8:
    return std::numeric_limits<int8_t>::max();
  case DType::UInt8:
    return std::numeric_limits<uint8_t>::max();
  case DType::Int16:
    return std::numeric_limits<int16_t>::max();
  case DType::UInt16:
    return std::numeric_limits<uint16_t>::max();
  case DType::Int32:
    return std::numeric_limits<int32_t>::max();
  case DType::UInt32:
    return std::numeric_limits<uint32_t>::max();
  default:
    return std::numeric_limits<int64_t>::max();
  }
}

/// The operand-space window of a scatter: 1 in inserted dims, else the updates' window sizes.
Shape scatter_window(const Shape &operand_shape, const Shape &updates_shape, const Params &params) {
  const auto &window_dims = params.get_ints("update_window_dims");
  const auto &inserted = params.get_ints("inserted_window_dims");
  Shape w(operand_shape.size(), 1);
  for (size_t d = 0, j = 0; d < w.size(); ++d)
    if (!contains(inserted, static_cast<int64_t>(d)))
      w[d] = updates_shape[window_dims[j++]];
  return w;
}

/// The gather that reads back what a scatter with `params` wrote (its transpose, up to
/// duplicates and dropped windows).
lax::GatherDimensionNumbers gather_dims_of_scatter(const Params &params) {
  return {params.get_ints("update_window_dims"), params.get_ints("inserted_window_dims"),
          params.get_ints("scatter_dims_to_operand_dims")};
}
lax::ScatterDimensionNumbers scatter_dims_of_gather(const Params &params) {
  return {params.get_ints("offset_dims"), params.get_ints("collapsed_slice_dims"),
          params.get_ints("start_index_map")};
}
Params scatter_params(const lax::ScatterDimensionNumbers &dims) {
  return {{"update_window_dims", dims.update_window_dims},
          {"inserted_window_dims", dims.inserted_window_dims},
          {"scatter_dims_to_operand_dims", dims.scatter_dims_to_operand_dims}};
}

lax::ScatterDimensionNumbers scatter_dims(const Params &params) {
  return {params.get_ints("update_window_dims"), params.get_ints("inserted_window_dims"),
          params.get_ints("scatter_dims_to_operand_dims")};
}
/// lax::gather with the parameters of a gather application.
Array gather_like(const Array &operand, const Array &indices, const Params &params) {
  return lax::gather(operand, indices,
                     {params.get_ints("offset_dims"), params.get_ints("collapsed_slice_dims"),
                      params.get_ints("start_index_map")},
                     params.get_ints("slice_sizes"));
}

/// The largest in-bounds start of each index vector element (operand_dim - window_dim of the
/// dimension it indexes), saturated to the indices' dtype, broadcast to the indices' shape.
Array max_starts(const Array &indices, const Shape &operand_shape, const Shape &window,
                 const std::vector<int64_t> &index_map) {
  std::vector<int64_t> hi;
  for (int64_t d : index_map)
    hi.push_back(std::min(operand_shape[d] - window[d], int_max(indices.dtype())));
  Array v = lax::convert_element_type(Array::from_vector(hi), indices.dtype());
  return lax::broadcast_in_dim(v, indices.shape(), {indices.ndim() - 1});
}

Array int_scalar(int64_t value, DType dtype) {
  return lax::convert_element_type(Array(value), dtype);
}

/// Whether each index vector's window lies wholly in bounds (what scatter keeps), of the
/// indices' batch shape; an empty Array when every window does (no index vector elements).
Array windows_in_bounds(const Array &indices, const Shape &operand_shape, const Shape &window,
                        const std::vector<int64_t> &index_map) {
  if (index_map.empty())
    return Array();
  Array lo = lax::broadcast_in_dim(int_scalar(0, indices.dtype()), indices.shape(), {});
  Array ok =
      lax::bitwise_and(lax::ge(indices, lo),
                       lax::le(indices, max_starts(indices, operand_shape, window, index_map)));
  return lax::reduce_min(ok, {indices.ndim() - 1}); // all, on bool
}

/// x where the per-window `mask` (over the batch dims of a scatter's updates) holds, else 0.
Array mask_windows(const Array &x, const Array &mask, const Params &params) {
  if (!mask.valid())
    return x;
  const auto &window_dims = params.get_ints("update_window_dims");
  std::vector<int64_t> batch_dims;
  for (int64_t i = 0; i < x.ndim(); ++i)
    if (!contains(window_dims, i))
      batch_dims.push_back(i);
  Array m = lax::broadcast_in_dim(mask, x.shape(), batch_dims);
  return lax::select(m, x, rules::zeros_of(x));
}

/// Indices batched at axis 0 with the batch position prepended to every index vector, so that
/// example b indexes the operand's batch dimension at b (JAX's gather/scatter batching). The
/// indices widen to i64 when their dtype cannot count to the batch size.
Array with_batch_counter(const Array &indices, int64_t size) {
  Array idx = size - 1 > int_max(indices.dtype()) ? lax::convert_element_type(indices, DType::Int64)
                                                  : indices;
  Shape count_shape = idx.shape();
  count_shape.back() = 1;
  Array counts = lax::iota(idx.dtype(), count_shape, 0);
  return lax::concatenate({counts, idx}, idx.ndim() - 1);
}

// ---- gather -------------------------------------------------------------------------------------
//
// For each batch position G of `indices` (all dimensions but the last), the slice of operand
// of size slice_sizes starting at S is copied, where S[start_index_map[k]] = indices[G, k]
// (clamped into [0, operand_dim - slice_size], as XLA does) and S is 0 elsewhere. Output
// dimensions listed in offset_dims walk the slice's non-collapsed dimensions in order; the
// other output dimensions walk the batch dimensions in order.

std::vector<AbstractValue> gather_shape_rule(std::span<const AbstractValue> in,
                                             const Params &params) {
  const char *op = "gather";
  expect_arity(op, in, 2);
  check_indices(op, in);
  const AbstractValue &operand = in[0], &indices = in[1];
  const auto &offset_dims = params.get_ints("offset_dims");
  const auto &collapsed = params.get_ints("collapsed_slice_dims");
  const auto &start_index_map = params.get_ints("start_index_map");
  const auto &slice_sizes = params.get_ints("slice_sizes");
  const int64_t rank = static_cast<int64_t>(operand.shape.size());
  const int64_t batch_rank = static_cast<int64_t>(indices.shape.size()) - 1;
  const int64_t out_rank = batch_rank + static_cast<int64_t>(offset_dims.size());

  if (static_cast<int64_t>(slice_sizes.size()) != rank)
    fail(op, "slice_sizes ", shape_str(slice_sizes), " must have one entry per operand dimension, ",
         "for ", operands_str(in));
  if (static_cast<int64_t>(start_index_map.size()) != indices.shape.back())
    fail(op, "start_index_map ", shape_str(start_index_map), " must have one entry per index ",
         "vector element (the last dimension of indices), for ", operands_str(in));
  check_dims(op, "offset_dims", offset_dims, out_rank, true, in);
  check_dims(op, "collapsed_slice_dims", collapsed, rank, true, in);
  check_dims(op, "start_index_map", start_index_map, rank, false, in);
  if (static_cast<int64_t>(offset_dims.size() + collapsed.size()) != rank)
    fail(op, "offset_dims ", shape_str(offset_dims), " and collapsed_slice_dims ",
         shape_str(collapsed), " must together cover the operand's ", rank, " dimensions, for ",
         operands_str(in));
  for (int64_t d = 0; d < rank; ++d)
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand.shape[d])
      fail(op, "slice_sizes ", shape_str(slice_sizes), " exceed the operand's bounds in dimension ",
           d, ", for ", operands_str(in));
  for (int64_t d : collapsed)
    if (slice_sizes[d] != 1)
      fail(op, "collapsed dimension ", d, " must have slice size 1, got slice_sizes ",
           shape_str(slice_sizes), ", for ", operands_str(in));

  Shape out(static_cast<size_t>(out_rank));
  int64_t next_batch = 0, next_window = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (contains(offset_dims, i)) {
      while (contains(collapsed, next_window))
        ++next_window;
      out[i] = slice_sizes[next_window++];
    } else {
      out[i] = indices.shape[next_batch++];
    }
  }
  return {{out, operand.dtype, operand.weak_type}};
}

std::vector<Array> gather_impl(std::span<const Array> in, const Params &params,
                               std::span<const AbstractValue> outs) {
  const Array &operand = in[0], &indices = in[1];
  const auto &offset_dims = params.get_ints("offset_dims");
  const auto &collapsed = params.get_ints("collapsed_slice_dims");
  const auto &start_index_map = params.get_ints("start_index_map");
  const Shape slice_sizes = params.get_ints("slice_sizes");
  const Shape &out_shape = outs[0].shape;
  Array out = Array::empty(out_shape, outs[0].dtype, outs[0].weak_type);
  if (out.size() == 0)
    return {out};

  const Shape &oshape = operand.shape();
  const size_t rank = oshape.size();
  const Shape batch_shape(indices.shape().begin(), indices.shape().end() - 1);
  const int64_t nvec = indices.shape().back();
  const int64_t batch = num_elements(batch_shape);
  const int64_t window = num_elements(slice_sizes);

  // Output strides split into the part a batch position moves and the part a window moves.
  const std::vector<int64_t> out_strides = strides_of(out_shape);
  std::vector<int64_t> batch_strides, window_strides(rank, 0);
  for (size_t i = 0, w = 0; i < out_shape.size(); ++i) {
    if (contains(offset_dims, static_cast<int64_t>(i))) {
      while (contains(collapsed, static_cast<int64_t>(w)))
        ++w;
      window_strides[w++] = out_strides[i];
    } else {
      batch_strides.push_back(out_strides[i]);
    }
  }
  const std::vector<int64_t> op_strides = strides_of(oshape);
  const std::vector<int64_t> idx = load_indices(indices);

  with_bits_type(itemsize(operand.dtype()), [&](auto tag) {
    using B = decltype(tag);
    const B *src = static_cast<const B *>(operand.data());
    B *dst = static_cast<B *>(out.mutable_data());
    int64_t grain = std::max<int64_t>(1, kGatherGrain / std::max<int64_t>(1, window));
    parallel_for(batch, grain, [&](int64_t b0, int64_t b1) {
      for (int64_t g = b0; g < b1; ++g) {
        int64_t src_base = 0;
        for (int64_t k = 0; k < nvec; ++k) {
          int64_t d = start_index_map[k];
          int64_t s = std::clamp<int64_t>(idx[g * nvec + k], 0, oshape[d] - slice_sizes[d]);
          src_base += s * op_strides[d];
        }
        const int64_t dst_base = offset_of(g, batch_shape, batch_strides);
        for_each_in_window(slice_sizes, op_strides, window_strides, 0, window,
                           [&](int64_t a, int64_t b) { dst[dst_base + b] = src[src_base + a]; });
      }
    });
  });
  return {out};
}

const Primitive &gather_p = register_primitive({
    .name = "gather",
    .traits = kShapeOp | kLinear,
    .shape_rule = gather_shape_rule,
    .impl = gather_impl,
    // Linear in the operand: the tangent is gathered alike.
    .jvp = [](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
              const Params &params) -> std::vector<Array> {
      if (rules::is_zero(t[0]))
        return {Array()};
      return {gather_like(t[0], x[1], params)};
    },
    // The transpose adds the cotangent back at the slices it came from. Gather clamps its starts
    // while scatter drops out-of-bounds windows, so the starts are clamped first.
    .vjp = [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
              const std::vector<bool> &, const Params &params) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array(), Array()};
      const Array &operand = x[0], &indices = x[1];
      Array hi = max_starts(indices, operand.shape(), params.get_ints("slice_sizes"),
                            params.get_ints("start_index_map"));
      Array starts = lax::clamp(int_scalar(0, indices.dtype()), indices, hi);
      return {
          lax::scatter_add(rules::zeros_of(operand), starts, ct[0], scatter_dims_of_gather(params)),
          Array()};
    },
    // JAX's _gather_batching_rule. Operand batched: its batch axis becomes a whole-size window
    // (an offset dim). Indices batched: one more batch dim of indices. Both: a counter joins the
    // index vector and picks each example's slice of the operand's (collapsed) batch axis.
    .batch = [](const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
                const Params &params, std::vector<int64_t> &out_dims) -> std::vector<Array> {
      std::vector<int64_t> offset = params.get_ints("offset_dims");
      std::vector<int64_t> collapsed = params.get_ints("collapsed_slice_dims");
      std::vector<int64_t> index_map = params.get_ints("start_index_map");
      std::vector<int64_t> sizes = params.get_ints("slice_sizes");
      Array operand = vals[0], indices = vals[1];
      if (dims[1] == kNotBatched) {
        operand = rules::move_axis(operand, dims[0], 0);
        sizes.insert(sizes.begin(), ctx.axis_size);
        offset = shift_dims(offset, true);
        collapsed = shift_dims(collapsed);
        index_map = shift_dims(index_map);
      } else if (dims[0] == kNotBatched) {
        indices = rules::move_axis(indices, dims[1], 0);
        offset = shift_dims(offset);
      } else {
        operand = rules::move_axis(operand, dims[0], 0);
        indices = with_batch_counter(rules::move_axis(indices, dims[1], 0), ctx.axis_size);
        sizes.insert(sizes.begin(), 1);
        offset = shift_dims(offset);
        collapsed = shift_dims(collapsed, true);
        index_map = shift_dims(index_map, true);
      }
      out_dims = {0};
      return {lax::gather(operand, indices, {offset, collapsed, index_map}, sizes)};
    },
});

// ---- scatter and scatter_add --------------------------------------------------------------------
//
// The dual of gather: for each batch position G of `indices`, the update window
// updates[G, ...] (its window dimensions are update_window_dims, matching the operand's
// non-inserted dimensions in order; inserted_window_dims have size 1) is written into (scatter)
// or added onto (scatter_add) operand at start S, S[scatter_dims_to_operand_dims[k]] =
// indices[G, k]. A window that would not lie wholly in bounds is dropped (JAX's default
// FILL_OR_DROP mode).

std::vector<AbstractValue> scatter_shape_rule(const char *op, bool add,
                                              std::span<const AbstractValue> in,
                                              const Params &params) {
  expect_arity(op, in, 3);
  check_indices(op, in);
  const AbstractValue &operand = in[0], &indices = in[1], &updates = in[2];
  if (operand.dtype != updates.dtype)
    fail_kind(ErrorKind::Type, op, "operand and updates dtypes differ, for ", operands_str(in));
  if (add && !(is_integer(operand.dtype) || is_inexact(operand.dtype)))
    fail_kind(ErrorKind::Type, op, "expects a numeric operand, for ", operands_str(in));
  const auto &window_dims = params.get_ints("update_window_dims");
  const auto &inserted = params.get_ints("inserted_window_dims");
  const auto &to_operand = params.get_ints("scatter_dims_to_operand_dims");
  const int64_t rank = static_cast<int64_t>(operand.shape.size());
  const int64_t batch_rank = static_cast<int64_t>(indices.shape.size()) - 1;
  const int64_t urank = static_cast<int64_t>(updates.shape.size());

  if (static_cast<int64_t>(to_operand.size()) != indices.shape.back())
    fail(op, "scatter_dims_to_operand_dims ", shape_str(to_operand), " must have one entry per ",
         "index vector element (the last dimension of indices), for ", operands_str(in));
  check_dims(op, "update_window_dims", window_dims, urank, true, in);
  check_dims(op, "inserted_window_dims", inserted, rank, true, in);
  check_dims(op, "scatter_dims_to_operand_dims", to_operand, rank, false, in);
  if (static_cast<int64_t>(window_dims.size() + inserted.size()) != rank)
    fail(op, "update_window_dims ", shape_str(window_dims), " and inserted_window_dims ",
         shape_str(inserted), " must together cover the operand's ", rank, " dimensions, for ",
         operands_str(in));
  if (urank != batch_rank + static_cast<int64_t>(window_dims.size()))
    fail(op, "updates must have rank ", batch_rank + static_cast<int64_t>(window_dims.size()), " (",
         batch_rank, " scatter dimensions and ", window_dims.size(), " window dimensions), for ",
         operands_str(in));
  for (int64_t i = 0, next_batch = 0, next_window = 0; i < urank; ++i) {
    if (contains(window_dims, i)) {
      while (contains(inserted, next_window))
        ++next_window;
      if (updates.shape[i] > operand.shape[next_window])
        fail(op, "update window dimension ", i, " (size ", updates.shape[i],
             ") exceeds operand dimension ", next_window, ", for ", operands_str(in));
      ++next_window;
    } else {
      if (updates.shape[i] != indices.shape[next_batch])
        fail(op, "updates dimension ", i, " (size ", updates.shape[i],
             ") must match indices dimension ", next_batch, ", for ", operands_str(in));
      ++next_batch;
    }
  }
  return {operand};
}

/// Adds with two's-complement wrap for integers and one rounding per element for 16-bit
/// floats (each accumulation step computes in float and rounds on store).
template <class T> T add_elem(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return store<T>(load(a) + load(b));
  }
}

std::vector<Array> scatter_impl(bool add, std::span<const Array> in, const Params &params,
                                std::span<const AbstractValue> outs) {
  const Array &operand = in[0], &indices = in[1], &updates = in[2];
  Array out = Array::empty(outs[0].shape, outs[0].dtype, outs[0].weak_type);
  if (out.size() == 0)
    return {out};
  std::memcpy(out.mutable_data(), operand.data(), static_cast<size_t>(operand.nbytes()));

  const auto &window_dims = params.get_ints("update_window_dims");
  const auto &inserted = params.get_ints("inserted_window_dims");
  const auto &to_operand = params.get_ints("scatter_dims_to_operand_dims");
  const Shape &oshape = operand.shape(), &ushape = updates.shape();
  const size_t rank = oshape.size();
  const Shape batch_shape(indices.shape().begin(), indices.shape().end() - 1);
  const int64_t nvec = indices.shape().back();
  const int64_t batch = num_elements(batch_shape);

  // The window in operand coordinates, and the updates strides of its and the batch's steps.
  const std::vector<int64_t> ustrides = strides_of(ushape);
  Shape window_shape(rank, 1);
  std::vector<int64_t> window_ustrides(rank, 0), batch_ustrides;
  for (size_t i = 0, w = 0; i < ushape.size(); ++i) {
    if (contains(window_dims, static_cast<int64_t>(i))) {
      while (contains(inserted, static_cast<int64_t>(w)))
        ++w;
      window_shape[w] = ushape[i];
      window_ustrides[w++] = ustrides[i];
    } else {
      batch_ustrides.push_back(ustrides[i]);
    }
  }
  const int64_t window = num_elements(window_shape);
  if (window == 0 || batch == 0)
    return {out};
  const std::vector<int64_t> op_strides = strides_of(oshape);
  const std::vector<int64_t> idx = load_indices(indices);

  // Batch positions run in row-major order, one after another, so that with duplicate indices
  // the last update in that order wins (scatter) and sums accumulate in that order
  // (scatter_add); only the elements of one window, which are distinct, run in parallel.
  auto run = [&](auto apply) {
    for (int64_t g = 0; g < batch; ++g) {
      int64_t dst_base = 0;
      bool in_bounds = true;
      for (int64_t k = 0; k < nvec && in_bounds; ++k) {
        int64_t d = to_operand[k];
        int64_t s = idx[g * nvec + k];
        in_bounds = s >= 0 && s <= oshape[d] - window_shape[d];
        dst_base += s * op_strides[d];
      }
      if (!in_bounds)
        continue;
      const int64_t src_base = offset_of(g, batch_shape, batch_ustrides);
      parallel_for(window, kGatherGrain, [&](int64_t w0, int64_t w1) {
        for_each_in_window(window_shape, op_strides, window_ustrides, w0, w1,
                           [&](int64_t a, int64_t b) { apply(dst_base + a, src_base + b); });
      });
    }
  };
  if (add) {
    auto accumulate = [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        T *dst = static_cast<T *>(out.mutable_data());
        const T *src = updates.data<T>();
        run([&](int64_t a, int64_t b) { dst[a] = add_elem(dst[a], src[b]); });
      }
    };
    STRATA_DISPATCH_ALL(operand.dtype(), T, accumulate(T{}));
  } else {
    with_bits_type(itemsize(operand.dtype()), [&](auto tag) {
      using B = decltype(tag);
      B *dst = static_cast<B *>(out.mutable_data());
      const B *src = static_cast<const B *>(updates.data());
      run([&](int64_t a, int64_t b) { dst[a] = src[b]; });
    });
  }
  return {out};
}

// ---- rules of scatter and scatter_add -----------------------------------------------------------

/// The gather that reads each update's window back from an operand-shaped `x`.
Array gather_windows(const Array &x, const Array &indices, const Array &updates,
                     const Params &params) {
  return lax::gather(x, indices, gather_dims_of_scatter(params),
                     scatter_window(x.shape(), updates.shape(), params));
}

// scatter_add is linear in operand and updates.
std::vector<Array> scatter_add_jvp(std::span<const Array> x, std::span<const Array> t,
                                   std::span<const Array>, const Params &params) {
  if (rules::is_zero(t[2]))
    return {t[0]};
  Array base = rules::is_zero(t[0]) ? rules::zeros_of(x[0]) : t[0];
  return {lax::scatter_add(base, x[1], t[2], scatter_dims(params))};
}

// The operand's cotangent passes through; each update's is the cotangent at its window, or
// zero where the window was dropped (out of bounds; the gather alone would clamp it).
std::vector<Array> scatter_add_vjp(std::span<const Array> x, std::span<const Array>,
                                   std::span<const Array> ct, const std::vector<bool> &,
                                   const Params &params) {
  if (rules::is_zero(ct[0]))
    return {Array(), Array(), Array()};
  const Array &indices = x[1], &updates = x[2];
  Array kept = windows_in_bounds(indices, x[0].shape(),
                                 scatter_window(x[0].shape(), updates.shape(), params),
                                 params.get_ints("scatter_dims_to_operand_dims"));
  return {ct[0], Array(),
          mask_windows(gather_windows(ct[0], indices, updates, params), kept, params)};
}

// With duplicate indices scatter keeps the last update in row-major order (the reference
// kernel's order): the tangent scatter follows the same order, so the derivative is that of
// the winning update (as JAX's unique_indices=False path), and exact for unique indices.
std::vector<Array> scatter_jvp(std::span<const Array> x, std::span<const Array> t,
                               std::span<const Array>, const Params &params) {
  Array base = rules::is_zero(t[0]) ? rules::zeros_of(x[0]) : t[0];
  Array upd = rules::is_zero(t[2]) ? rules::zeros_of(x[2]) : t[2];
  return {lax::scatter(base, x[1], upd, scatter_dims(params))};
}

// Overwritten operand elements get no cotangent. An update element gets the cotangent at its
// position only if it is the one that landed there: each window scatters a distinct id (JAX's
// scheme), and an update wins where the id read back is its own. This excludes both dropped
// windows and duplicates that lost.
std::vector<Array> scatter_vjp(std::span<const Array> x, std::span<const Array>,
                               std::span<const Array> ct, const std::vector<bool> &,
                               const Params &params) {
  if (rules::is_zero(ct[0]))
    return {Array(), Array(), Array()};
  const Array &operand = x[0], &indices = x[1], &updates = x[2];
  const lax::ScatterDimensionNumbers dims = scatter_dims(params);
  Array operand_ct = lax::scatter(ct[0], indices, rules::zeros_of(updates), dims);

  Shape ids_shape = updates.shape(); // one id per window: window dims of size 1
  for (int64_t d : dims.update_window_dims)
    ids_shape[d] = 1;
  const int64_t num_ids = num_elements(ids_shape);
  const DType id_type = num_ids < int_max(DType::Int32) ? DType::Int32 : DType::Int64;
  Array ids = lax::add(lax::iota(id_type, {num_ids}),
                       lax::broadcast_in_dim(int_scalar(1, id_type), {num_ids}, {}));
  std::vector<int64_t> all(static_cast<size_t>(updates.ndim()));
  std::iota(all.begin(), all.end(), 0);
  ids = lax::broadcast_in_dim(lax::reshape(ids, ids_shape), updates.shape(), all);
  Array landed = lax::scatter(lax::broadcast_in_dim(int_scalar(0, id_type), operand.shape(), {}),
                              indices, ids, dims);
  Array won = lax::eq(gather_windows(landed, indices, updates, params), ids);
  Array updates_ct =
      lax::select(won, gather_windows(ct[0], indices, updates, params), rules::zeros_of(updates));
  return {operand_ct, Array(), updates_ct};
}

// JAX's _scatter_batching_rule: operand and updates get the batch axis in front (broadcast
// when unbatched). Unbatched indices: the batch axis is one more window dimension of full size.
// Batched indices: a counter joins each index vector and picks the example's operand slice.
std::vector<Array> scatter_batch(const BatchContext &ctx, std::span<const Array> vals,
                                 std::span<const int64_t> dims, const Params &params,
                                 std::vector<int64_t> &out_dims) {
  Array operand = rules::batch_to_front(vals[0], dims[0], ctx.axis_size);
  Array updates = rules::batch_to_front(vals[2], dims[2], ctx.axis_size);
  Array indices = vals[1];
  std::vector<int64_t> window = params.get_ints("update_window_dims");
  std::vector<int64_t> inserted = params.get_ints("inserted_window_dims");
  std::vector<int64_t> to_operand = params.get_ints("scatter_dims_to_operand_dims");
  if (dims[1] == kNotBatched) {
    window = shift_dims(window, true);
    inserted = shift_dims(inserted);
    to_operand = shift_dims(to_operand);
  } else {
    indices = with_batch_counter(rules::move_axis(indices, dims[1], 0), ctx.axis_size);
    window = shift_dims(window);
    inserted = shift_dims(inserted, true);
    to_operand = shift_dims(to_operand, true);
  }
  out_dims = {0};
  return bind(*ctx.prim, {operand, indices, updates},
              scatter_params({window, inserted, to_operand}));
}

const Primitive &scatter_p = register_primitive({
    .name = "scatter",
    .traits = kShapeOp,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          return scatter_shape_rule("scatter", false, in, params);
        },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) { return scatter_impl(false, in, params, out); },
    .jvp = scatter_jvp,
    .vjp = scatter_vjp,
    .batch = scatter_batch,
});

const Primitive &scatter_add_p = register_primitive({
    .name = "scatter_add",
    .traits = kShapeOp | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          return scatter_shape_rule("scatter_add", true, in, params);
        },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) { return scatter_impl(true, in, params, out); },
    .jvp = scatter_add_jvp,
    .vjp = scatter_add_vjp,
    .batch = scatter_batch,
});

} // namespace

// ---- lax wrappers -------------------------------------------------------------------------------
namespace lax {
Array gather(const Array &operand, const Array &indices, const GatherDimensionNumbers &dims,
             const Shape &slice_sizes) {
  return bind1(gather_p, {operand, indices},
               {{"offset_dims", dims.offset_dims},
                {"collapsed_slice_dims", dims.collapsed_slice_dims},
                {"start_index_map", dims.start_index_map},
                {"slice_sizes", std::vector<int64_t>(slice_sizes)}});
}
Array scatter(const Array &operand, const Array &indices, const Array &updates,
              const ScatterDimensionNumbers &dims) {
  return bind1(scatter_p, {operand, indices, updates}, scatter_params(dims));
}
Array scatter_add(const Array &operand, const Array &indices, const Array &updates,
                  const ScatterDimensionNumbers &dims) {
  return bind1(scatter_add_p, {operand, indices, updates}, scatter_params(dims));
}
} // namespace lax

} // namespace strata
