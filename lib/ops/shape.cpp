// numpy-style shape ops: reshape, transposes, squeeze/expand_dims, broadcasting, concatenation,
// splitting and flipping, each a thin check in front of the lax shape primitives.
#include <algorithm>
#include <numeric>

#include "ops_impl.h"

namespace strata {

namespace ops_detail {

int64_t canonical_axis(std::string_view op, int64_t axis, int64_t ndim) {
  if (axis < -ndim || axis >= ndim)
    fail_kind(ErrorKind::Index, op, "axis ", axis, " is out of bounds for array of dimension ",
              ndim);
  return axis < 0 ? axis + ndim : axis;
}

std::vector<int64_t> canonical_axes(std::string_view op, const Axes &axes, int64_t ndim) {
  std::vector<int64_t> out;
  if (axes.all()) {
    out.resize(static_cast<size_t>(ndim));
    std::iota(out.begin(), out.end(), int64_t{0});
    return out;
  }
  for (int a : *axes.axes)
    out.push_back(canonical_axis(op, a, ndim));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    fail(op, "repeated axis in ",
         shape_str(std::vector<int64_t>(axes.axes->begin(), axes.axes->end())));
  return out;
}

} // namespace ops_detail

using namespace ops_detail;

// ---- Reshaping -------------------------------------------------------------------------------
Array reshape(const Array &x, const Shape &shape) {
  Shape out = shape;
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (inferred >= 0)
        fail("reshape", "can only specify one unknown dimension (-1), got ", shape_str(shape));
      inferred = static_cast<int>(i);
    } else if (out[i] < 0) {
      fail("reshape", "invalid dimension ", out[i], " in ", shape_str(shape));
    } else {
      known *= out[i];
    }
  }
  if (inferred >= 0) {
    if (known == 0 || x.size() % known != 0)
      fail_kind(ErrorKind::Type, "reshape", "cannot reshape ", x.type_str(), " (", x.size(),
                " elements) to ", shape_str(shape));
    out[static_cast<size_t>(inferred)] = x.size() / known;
  }
  if (num_elements(out) != x.size())
    fail_kind(ErrorKind::Type, "reshape", "cannot reshape ", x.type_str(), " (", x.size(),
              " elements) to ", shape_str(shape));
  if (out == x.shape())
    return x;
  return lax::reshape(x, out);
}

Array ravel(const Array &x) { return reshape(x, {x.size()}); }

// ---- Transposes ------------------------------------------------------------------------------
Array transpose(const Array &x, std::optional<std::vector<int>> axes) {
  int64_t n = x.ndim();
  std::vector<int64_t> perm;
  if (!axes) {
    for (int64_t i = n - 1; i >= 0; --i)
      perm.push_back(i);
  } else {
    if (static_cast<int64_t>(axes->size()) != n)
      fail("transpose", "axes ", shape_str(Shape(axes->begin(), axes->end())), " do not match ",
           x.type_str());
    std::vector<bool> seen(static_cast<size_t>(n));
    for (int a : *axes) {
      int64_t c = canonical_axis("transpose", a, n);
      if (seen[static_cast<size_t>(c)])
        fail("transpose", "repeated axis in ", shape_str(Shape(axes->begin(), axes->end())));
      seen[static_cast<size_t>(c)] = true;
      perm.push_back(c);
    }
  }
  bool identity = true;
  for (int64_t i = 0; i < n; ++i)
    identity = identity && perm[i] == i;
  return identity ? x : lax::transpose(x, perm);
}

Array swapaxes(const Array &x, int a, int b) {
  int64_t n = x.ndim();
  int64_t ca = canonical_axis("swapaxes", a, n), cb = canonical_axis("swapaxes", b, n);
  std::vector<int> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[ca], perm[cb]);
  return transpose(x, perm);
}

Array moveaxis(const Array &x, int source, int destination) {
  int64_t n = x.ndim();
  int64_t s = canonical_axis("moveaxis", source, n), d = canonical_axis("moveaxis", destination, n);
  std::vector<int> perm;
  for (int64_t i = 0; i < n; ++i)
    if (i != s)
      perm.push_back(static_cast<int>(i));
  perm.insert(perm.begin() + d, static_cast<int>(s));
  return transpose(x, perm);
}

// ---- Adding and removing unit dims -------------------------------------------------------------
Array squeeze(const Array &x, Axes axes) {
  std::vector<int64_t> drop;
  if (axes.all()) {
    for (int64_t i = 0; i < x.ndim(); ++i)
      if (x.shape()[i] == 1)
        drop.push_back(i);
  } else {
    drop = canonical_axes("squeeze", axes, x.ndim());
    for (int64_t a : drop)
      if (x.shape()[a] != 1)
        fail("squeeze", "cannot select axis ", a, " of ", x.type_str(),
             " to squeeze: its size is not 1");
  }
  Shape out;
  for (int64_t i = 0; i < x.ndim(); ++i)
    if (!std::binary_search(drop.begin(), drop.end(), i))
      out.push_back(x.shape()[i]);
  return reshape(x, out);
}

Array expand_dims(const Array &x, Axes axes) {
  if (axes.all())
    fail("expand_dims", "needs the axes to insert");
  int64_t n = x.ndim() + static_cast<int64_t>(axes.axes->size());
  std::vector<int64_t> added = canonical_axes("expand_dims", axes, n);
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::binary_search(added.begin(), added.end(), i))
      out.push_back(1);
    else
      out.push_back(x.shape()[next++]);
  }
  return reshape(x, out);
}

// ---- Broadcasting
// --------------------------------------------------------------------------------
Array broadcast_to(const Array &x, const Shape &shape) {
  for (int64_t d : shape)
    if (d < 0)
      fail("broadcast_to", "negative dimension in shape ", shape_str(shape));
  return broadcast_to_shape("broadcast_to", x, shape);
}

std::vector<Array> broadcast_arrays(const std::vector<Array> &xs) {
  Shape shape = broadcast_shapes_of("broadcast_arrays", xs);
  std::vector<Array> out;
  for (const Array &x : xs)
    out.push_back(broadcast_to_shape("broadcast_arrays", x, shape));
  return out;
}

Shape broadcast_shapes(const Shape &a, const Shape &b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      fail("broadcast_shapes", "shapes ", shape_str(a), " and ", shape_str(b), " are incompatible");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// ---- Joining and splitting
// -------------------------------------------------------------------------
Array concatenate(const std::vector<Array> &xs, int axis) {
  if (xs.empty())
    fail("concatenate", "needs at least one array");
  int64_t n = xs[0].ndim();
  if (n == 0)
    fail("concatenate", "zero-dimensional arrays cannot be concatenated");
  int64_t a = canonical_axis("concatenate", axis, n);
  for (size_t i = 1; i < xs.size(); ++i) {
    bool ok = xs[i].ndim() == n;
    for (int64_t d = 0; ok && d < n; ++d)
      ok = d == a || xs[i].shape()[d] == xs[0].shape()[d];
    if (!ok)
      fail("concatenate", "array ", i, " (", xs[i].type_str(), ") does not match array 0 (",
           xs[0].type_str(), ") outside axis ", a);
  }
  std::vector<Array> ps = promote("concatenate", xs);
  if (ps.size() == 1)
    return ps[0];
  return lax::concatenate(ps, a);
}

Array stack(const std::vector<Array> &xs, int axis) {
  if (xs.empty())
    fail("stack", "needs at least one array");
  for (size_t i = 1; i < xs.size(); ++i)
    if (xs[i].shape() != xs[0].shape())
      fail("stack", "all arrays must have the same shape: array 0 is ", xs[0].type_str(),
           ", array ", i, " is ", xs[i].type_str());
  int64_t a = canonical_axis("stack", axis, xs[0].ndim() + 1);
  std::vector<Array> expanded;
  for (const Array &x : xs)
    expanded.push_back(expand_dims(x, static_cast<int>(a)));
  std::vector<Array> ps = promote("stack", expanded);
  return ps.size() == 1 ? ps[0] : lax::concatenate(ps, a);
}

namespace {
std::vector<Array> split_at(const Array &x, const std::vector<int64_t> &cuts, int64_t a) {
  int64_t size = x.shape()[a];
  // Each piece is x[cuts[i-1]:cuts[i]] with Python's slice clamping (empty when reversed).
  auto clamp = [size](int64_t p) {
    return p < 0 ? std::max<int64_t>(p + size, 0) : std::min(p, size);
  };
  std::vector<int64_t> points{0};
  for (int64_t c : cuts)
    points.push_back(clamp(c));
  points.push_back(size);
  std::vector<Array> out;
  std::vector<int64_t> start(x.ndim(), 0), limit = x.shape();
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    start[a] = points[i];
    limit[a] = std::max(points[i + 1], points[i]);
    out.push_back(start[a] == 0 && limit[a] == size ? x : lax::slice(x, start, limit));
  }
  return out;
}
} // namespace

std::vector<Array> split(const Array &x, int64_t sections, int axis) {
  if (x.ndim() == 0)
    fail("split", "cannot split a zero-dimensional array");
  int64_t a = canonical_axis("split", axis, x.ndim());
  if (sections <= 0)
    fail("split", "number of sections must be positive, got ", sections);
  int64_t size = x.shape()[a];
  if (size % sections != 0)
    fail("split", "array split does not result in an equal division: axis ", a, " of ",
         x.type_str(), " has size ", size, ", not divisible into ", sections, " sections");
  std::vector<int64_t> cuts;
  for (int64_t i = 1; i < sections; ++i)
    cuts.push_back(i * (size / sections));
  return split_at(x, cuts, a);
}

std::vector<Array> split(const Array &x, const std::vector<int64_t> &indices, int axis) {
  if (x.ndim() == 0)
    fail("split", "cannot split a zero-dimensional array");
  return split_at(x, indices, canonical_axis("split", axis, x.ndim()));
}

Array flip(const Array &x, Axes axes) {
  std::vector<int64_t> dims = canonical_axes("flip", axes, x.ndim());
  return dims.empty() ? x : lax::rev(x, dims);
}

} // namespace strata
