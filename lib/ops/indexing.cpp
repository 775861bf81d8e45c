// numpy indexing (integers, slices, newaxis, ellipsis, integer index arrays), take and
// take_along_axis, lowered to lax::rev, lax::slice, lax::reshape, lax::transpose and lax::gather.
#include <algorithm>
#include <limits>

#include "ops_impl.h"

namespace strata {

using namespace ops_detail;

namespace {

void check_index_array(std::string_view op, const Array &a) {
  if (is_bool(a.dtype()))
    fail_kind(ErrorKind::Index, op, "boolean mask ", a.type_str(),
              " is not supported in the C++ API yet (the result's shape would depend on the "
              "data); use where() instead");
  if (!is_integer(a.dtype()))
    fail_kind(ErrorKind::Index, op, "index arrays must be integers, got ", a.type_str());
}

/// The dtype gather indices use: i32 unless a size or an index type needs i64.
DType index_dtype(const std::vector<Array> &arrays, const std::vector<int64_t> &sizes) {
  for (const Array &a : arrays)
    if (a.dtype() == DType::Int64 || a.dtype() == DType::UInt32)
      return DType::Int64;
  for (int64_t s : sizes)
    if (s > std::numeric_limits<int32_t>::max())
      return DType::Int64;
  return DType::Int32;
}

/// Negative entries count from the end (once); gather then clamps what is still out of range.
Array wrap_negative(const Array &idx, DType it, int64_t size) {
  Array i = convert(idx, {it, false});
  if (is_unsigned_integer(idx.dtype()))
    return i;
  Array zero = constant(0.0, {it, false}, i.shape());
  return lax::select(lax::lt(i, zero),
                     lax::add(i, constant(static_cast<double>(size), {it, false}, i.shape())), i);
}

int64_t checked_int(int64_t i, int64_t axis, int64_t size) {
  if (i < -size || i >= size)
    fail_kind(ErrorKind::Index, "index", "index ", i, " is out of bounds for axis ", axis,
              " with size ", size);
  return i < 0 ? i + size : i;
}

/// A Python slice resolved against a dim of size n: the first element, the step and the count.
struct Resolved {
  int64_t first, step, count;
};
Resolved resolve(const Slice &s, int64_t n) {
  if (s.step == 0)
    fail_kind(ErrorKind::Value, "index", "slice step cannot be zero");
  int64_t step = s.step;
  auto norm = [n](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0)
      v += n;
    return std::clamp(v, lo, hi);
  };
  int64_t start, stop, count;
  if (step > 0) {
    start = s.start ? norm(*s.start, 0, n) : 0;
    stop = s.stop ? norm(*s.stop, 0, n) : n;
    count = stop > start ? (stop - start + step - 1) / step : 0;
  } else {
    start = s.start ? norm(*s.start, -1, n - 1) : n - 1;
    stop = s.stop ? norm(*s.stop, -1, n - 1) : -1;
    count = start > stop ? (start - stop - step - 1) / -step : 0;
  }
  return {start, step, count};
}

struct Entry {
  Index::Kind kind;
  int64_t dim = -1; // the input dim it consumes (-1 for NewAxis)
  int64_t i = 0;
  Resolved slice{0, 1, 0};
  Array array;
};

/// Builds int-typed gather indices of shape `shape + [k]` from k arrays of shape `shape`.
Array stack_last(const std::vector<Array> &parts, const Shape &shape) {
  Shape s1 = shape;
  s1.push_back(1);
  std::vector<Array> cols;
  for (const Array &p : parts)
    cols.push_back(lax::reshape(p, s1));
  return cols.size() == 1 ? cols[0] : lax::concatenate(cols, static_cast<int64_t>(shape.size()));
}

} // namespace

Array index(const Array &x, const std::vector<Index> &indices) {
  const int64_t ndim = x.ndim();
  int64_t consumed = 0, ellipses = 0;
  bool advanced = false;
  for (const Index &ix : indices) {
    switch (ix.kind) {
    case Index::Kind::Ellipsis:
      ++ellipses;
      break;
    case Index::Kind::NewAxis:
      break;
    case Index::Kind::Array:
      check_index_array("index", ix.array);
      advanced = true;
      ++consumed;
      break;
    default:
      ++consumed;
    }
  }
  if (ellipses > 1)
    fail_kind(ErrorKind::Index, "index", "an index can only have a single ellipsis ('...')");
  if (consumed > ndim)
    fail_kind(ErrorKind::Index, "index", "too many indices for array: ", x.type_str(), " is ", ndim,
              "-dimensional, but ", consumed, " were indexed");

  // Expand the ellipsis (or the implicit trailing one) into full slices.
  std::vector<Entry> entries;
  int64_t dim = 0;
  auto full_slices = [&] {
    for (int64_t k = 0; k < ndim - consumed; ++k, ++dim)
      entries.push_back({Index::Kind::Slice, dim, 0, {0, 1, x.shape()[dim]}, Array()});
  };
  for (const Index &ix : indices) {
    switch (ix.kind) {
    case Index::Kind::Ellipsis:
      full_slices();
      break;
    case Index::Kind::NewAxis:
      entries.push_back({Index::Kind::NewAxis, -1, 0, {0, 1, 0}, Array()});
      break;
    case Index::Kind::Int:
      entries.push_back(
          {Index::Kind::Int, dim, checked_int(ix.i, dim, x.shape()[dim]), {0, 1, 0}, Array()});
      ++dim;
      break;
    case Index::Kind::Slice:
      entries.push_back({Index::Kind::Slice, dim, 0, resolve(ix.slice, x.shape()[dim]), Array()});
      ++dim;
      break;
    case Index::Kind::Array:
      entries.push_back({Index::Kind::Array, dim, 0, {}, ix.array});
      ++dim;
      break;
    }
  }
  if (ellipses == 0)
    full_slices();

  // Basic indexing: one rev for the negative steps, one strided slice for everything. Integer
  // indices become size-1 slices unless advanced indexing turns them into index arrays.
  std::vector<int64_t> reversed, start(ndim, 0), limit = x.shape(), strides(ndim, 1);
  for (const Entry &e : entries) {
    int64_t n = e.dim >= 0 ? x.shape()[e.dim] : 0;
    if (e.kind == Index::Kind::Int && !advanced) {
      start[e.dim] = e.i;
      limit[e.dim] = e.i + 1;
    } else if (e.kind == Index::Kind::Slice) {
      Resolved r = e.slice;
      int64_t first = r.first, step = r.step;
      if (step < 0) { // index j of the reversed dim holds element n-1-j
        reversed.push_back(e.dim);
        first = n - 1 - first;
        step = -step;
      }
      first = r.count ? first : std::min(std::max<int64_t>(first, 0), n);
      start[e.dim] = first;
      limit[e.dim] = r.count ? first + (r.count - 1) * step + 1 : first;
      strides[e.dim] = step;
    }
  }
  Array y = reversed.empty() ? x : lax::rev(x, reversed);
  bool whole = true;
  for (int64_t d = 0; d < ndim; ++d)
    whole = whole && start[d] == 0 && limit[d] == x.shape()[d] && strides[d] == 1;
  if (!whole)
    y = lax::slice(y, start, limit, strides);

  if (!advanced) {
    Shape out;
    for (const Entry &e : entries)
      if (e.kind == Index::Kind::Slice)
        out.push_back(e.slice.count);
      else if (e.kind == Index::Kind::NewAxis)
        out.push_back(1);
    return out == y.shape() ? y : lax::reshape(y, out);
  }

  // Advanced indexing: gather over the advanced dims (moved to the front), keep the rest.
  std::vector<size_t> adv_pos;
  std::vector<Array> raw;
  std::vector<int64_t> adv_sizes;
  for (size_t p = 0; p < entries.size(); ++p) {
    const Entry &e = entries[p];
    if (e.kind == Index::Kind::Int || e.kind == Index::Kind::Array) {
      adv_pos.push_back(p);
      adv_sizes.push_back(y.shape()[e.dim]);
      if (e.kind == Index::Kind::Array)
        raw.push_back(e.array);
    }
  }
  DType it = index_dtype(raw, adv_sizes);
  std::vector<Array> idx;
  for (size_t p : adv_pos) {
    const Entry &e = entries[p];
    idx.push_back(e.kind == Index::Kind::Int ? constant(static_cast<double>(e.i), {it, false})
                                             : wrap_negative(e.array, it, y.shape()[e.dim]));
  }
  Shape batch = broadcast_shapes_of("index", idx);
  for (Array &i : idx)
    i = broadcast_to_shape("index", i, batch);
  bool adjacent = adv_pos.back() - adv_pos.front() + 1 == adv_pos.size();

  // The result's shape: slices and new axes in order, with the broadcast index shape either
  // where the (adjacent) advanced indices stood or in front.
  Shape rest, out;
  size_t rest_before = 0;
  std::vector<int64_t> perm_in;
  for (size_t p : adv_pos)
    perm_in.push_back(entries[p].dim);
  if (!adjacent)
    out = batch;
  for (size_t p = 0; p < entries.size(); ++p) {
    const Entry &e = entries[p];
    if (e.kind == Index::Kind::Slice) {
      rest.push_back(y.shape()[e.dim]);
      perm_in.push_back(e.dim);
      out.push_back(y.shape()[e.dim]);
      if (p < adv_pos.front())
        ++rest_before;
    } else if (e.kind == Index::Kind::NewAxis) {
      out.push_back(1);
    } else if (adjacent && p == adv_pos.front()) {
      out.insert(out.end(), batch.begin(), batch.end());
    }
  }
  if (!adjacent)
    rest_before = 0;

  for (size_t k = 0; k < adv_pos.size(); ++k)
    if (adv_sizes[k] == 0 && num_elements(batch) > 0)
      fail_kind(ErrorKind::Index, "index", "cannot index axis ", entries[adv_pos[k]].dim,
                " of size 0 of ", x.type_str(), " with a non-empty index array");
  if (num_elements(out) == 0 && std::count(adv_sizes.begin(), adv_sizes.end(), 0) > 0)
    return constant(0.0, typed(x), out); // nothing to read, and gather needs non-empty dims

  y = transpose(y, std::vector<int>(perm_in.begin(), perm_in.end()));
  int64_t k = static_cast<int64_t>(adv_pos.size()), nb = static_cast<int64_t>(batch.size());
  lax::GatherDimensionNumbers dn;
  Shape slice_sizes;
  for (int64_t j = 0; j < k; ++j) {
    dn.collapsed_slice_dims.push_back(j);
    dn.start_index_map.push_back(j);
    slice_sizes.push_back(1);
  }
  for (size_t j = 0; j < rest.size(); ++j) {
    dn.offset_dims.push_back(nb + static_cast<int64_t>(j));
    slice_sizes.push_back(rest[j]);
  }
  Array g = lax::gather(y, stack_last(idx, batch), dn, slice_sizes); // batch..., rest...
  // Move the batch dims behind the slices that precede the advanced block.
  std::vector<int64_t> perm;
  for (size_t j = 0; j < rest_before; ++j)
    perm.push_back(nb + static_cast<int64_t>(j));
  for (int64_t j = 0; j < nb; ++j)
    perm.push_back(j);
  for (size_t j = rest_before; j < rest.size(); ++j)
    perm.push_back(nb + static_cast<int64_t>(j));
  if (rest_before > 0 && nb > 0)
    g = lax::transpose(g, perm);
  return out == g.shape() ? g : lax::reshape(g, out);
}

Array take(const Array &x, const Array &indices, std::optional<int> axis) {
  check_index_array("take", indices);
  Array src = axis ? x : reshape(x, {x.size()});
  int64_t a = canonical_axis("take", axis.value_or(0), src.ndim());
  int64_t n = src.shape()[a], r = indices.ndim();
  Shape out(src.shape().begin(), src.shape().begin() + a);
  out.insert(out.end(), indices.shape().begin(), indices.shape().end());
  out.insert(out.end(), src.shape().begin() + a + 1, src.shape().end());
  if (n == 0) {
    if (indices.size() > 0)
      fail_kind(ErrorKind::Index, "take", "cannot take from axis ", a, " of size 0 of ",
                x.type_str());
    return constant(0.0, typed(x), out);
  }
  DType it = index_dtype({indices}, {n});
  Array idx = wrap_negative(indices, it, n);
  lax::GatherDimensionNumbers dn;
  Shape slice_sizes = src.shape();
  slice_sizes[a] = 1;
  for (int64_t d = 0; d < src.ndim(); ++d)
    if (d != a)
      dn.offset_dims.push_back(d < a ? d : d - 1 + r);
  dn.collapsed_slice_dims = {a};
  dn.start_index_map = {a};
  return lax::gather(src, stack_last({idx}, indices.shape()), dn, slice_sizes);
}

Array take_along_axis(const Array &x, const Array &indices, int axis) {
  check_index_array("take_along_axis", indices);
  int64_t nd = x.ndim();
  if (indices.ndim() != nd)
    fail("take_along_axis", "indices ", indices.type_str(), " must have the same rank as ",
         x.type_str());
  int64_t a = canonical_axis("take_along_axis", axis, nd);
  Shape out(nd), src_shape(nd);
  for (int64_t d = 0; d < nd; ++d) {
    int64_t xs = x.shape()[d], is = indices.shape()[d];
    if (d == a) {
      out[d] = is;
      src_shape[d] = xs;
    } else {
      if (xs != is && xs != 1 && is != 1)
        fail("take_along_axis", "shapes ", x.type_str(), " and ", indices.type_str(),
             " are incompatible outside axis ", a);
      out[d] = src_shape[d] = xs == 1 ? is : xs;
    }
  }
  int64_t n = x.shape()[a];
  if (num_elements(out) == 0)
    return constant(0.0, typed(x), out);
  if (n == 0)
    fail_kind(ErrorKind::Index, "take_along_axis", "cannot take from axis ", a, " of size 0 of ",
              x.type_str());
  Array src = broadcast_to_shape("take_along_axis", x, src_shape);
  DType it = index_dtype({indices}, out);
  std::vector<Array> parts;
  lax::GatherDimensionNumbers dn;
  for (int64_t d = 0; d < nd; ++d) {
    parts.push_back(d == a
                        ? broadcast_to_shape("take_along_axis", wrap_negative(indices, it, n), out)
                        : lax::iota(it, out, d));
    dn.collapsed_slice_dims.push_back(d);
    dn.start_index_map.push_back(d);
  }
  return lax::gather(src, stack_last(parts, out), dn, Shape(static_cast<size_t>(nd), 1));
}

} // namespace strata
