// sort: a stable sort of several operands along one dimension, ordered lexicographically by the
// first num_keys of them, NaNs last.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>

#include "primitives/elementwise_impl.h"
#include "primitives/rules_impl.h"
#include "strata/internal/thread_pool.h"
#include "strata/lax.h"

namespace strata {
namespace {

constexpr const char *kOp = "sort";

/// Three-way comparison with NaNs after every number (and equal to each other).
template <class T> inline int compare3(T a, T b) {
  auto x = load(a), y = load(b);
  if constexpr (is_float_v<T>) {
    bool nx = x != x, ny = y != y;
    if (nx || ny)
      return nx == ny ? 0 : (nx ? 1 : -1);
  }
  return x < y ? -1 : (y < x ? 1 : 0);
}
template <class T> inline bool less_nan_last(T a, T b) { return compare3(a, b) < 0; }

using CompareFn = int (*)(const void *col, int64_t a, int64_t b);
template <class T> int compare_at(const void *col, int64_t a, int64_t b) {
  const T *c = static_cast<const T *>(col);
  return compare3(c[a], c[b]);
}
CompareFn compare_fn(DType t) {
  STRATA_DISPATCH(t, T, return &compare_at<T>);
  return nullptr;
}

/// Copies element `src_index` of `src` to element `dst_index` of `dst` (both of itemsize sz).
inline void copy_elem(const uint8_t *src, int64_t src_index, uint8_t *dst, int64_t dst_index,
                      size_t sz) {
  std::memcpy(dst + dst_index * sz, src + src_index * sz, sz);
}

std::vector<AbstractValue> sort_shape_rule(std::span<const AbstractValue> in,
                                           const Params &params) {
  if (in.empty())
    fail(kOp, "expects at least one operand");
  for (size_t i = 1; i < in.size(); ++i)
    if (in[i].shape != in[0].shape)
      fail(kOp, "operand shapes differ: ", in[0].str(), " and ", in[i].str());
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  int64_t dim = params.get_int("dimension");
  if (dim < -rank || dim >= rank)
    fail(kOp, "dimension ", dim, " is out of range for ", in[0].str());
  int64_t num_keys = params.get_int("num_keys");
  if (num_keys < 1 || num_keys > static_cast<int64_t>(in.size()))
    fail(kOp, "num_keys ", num_keys, " must be between 1 and the number of operands (", in.size(),
         ")");
  return {in.begin(), in.end()};
}

std::vector<Array> sort_impl(std::span<const Array> in, const Params &params,
                             std::span<const AbstractValue> out) {
  const Shape &shape = in[0].shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t dim = params.get_int("dimension");
  if (dim < 0)
    dim += rank;
  int64_t num_keys = params.get_int("num_keys");
  int64_t outer = 1, r = shape[dim], inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim)
      (i < dim ? outer : inner) *= shape[i];
  int64_t lines = outer * inner;
  if (r <= 1 || lines == 0) // already sorted; arrays are immutable so the inputs can be shared
    return {in.begin(), in.end()};

  std::vector<Array> result;
  for (size_t i = 0; i < in.size(); ++i)
    result.push_back(Array::empty(out[i].shape, out[i].dtype, out[i].weak_type));
  int64_t grain = std::max<int64_t>(1, kElementwiseGrain / r);
  auto line_base = [&](int64_t line) { return (line / inner) * r * inner + line % inner; };

  if (in.size() == 1) { // sort the values themselves
    STRATA_DISPATCH(in[0].dtype(), T, {
      const T *x = in[0].data<T>();
      T *y = static_cast<T *>(result[0].mutable_data());
      parallel_for(lines, grain, [&](int64_t b, int64_t e) {
        std::unique_ptr<T[]> buf(new T[static_cast<size_t>(r)]); // T may be bool
        for (int64_t line = b; line < e; ++line) {
          int64_t base = line_base(line);
          for (int64_t j = 0; j < r; ++j)
            buf[j] = x[base + j * inner];
          std::stable_sort(buf.get(), buf.get() + r, less_nan_last<T>);
          for (int64_t j = 0; j < r; ++j)
            y[base + j * inner] = buf[j];
        }
      });
    });
    return result;
  }

  // Several operands: sort a permutation by the keys, then apply it to every operand.
  std::vector<size_t> sizes;
  std::vector<CompareFn> cmps;
  for (const Array &a : in)
    sizes.push_back(itemsize(a.dtype()));
  for (int64_t k = 0; k < num_keys; ++k)
    cmps.push_back(compare_fn(in[k].dtype()));
  parallel_for(lines, grain, [&](int64_t b, int64_t e) {
    std::vector<int64_t> perm(static_cast<size_t>(r));
    std::vector<std::vector<uint8_t>> cols(static_cast<size_t>(num_keys));
    for (int64_t k = 0; k < num_keys; ++k)
      cols[k].resize(static_cast<size_t>(r) * sizes[k]);
    for (int64_t line = b; line < e; ++line) {
      int64_t base = line_base(line);
      // Gather the keys of this line into contiguous columns.
      for (int64_t k = 0; k < num_keys; ++k) {
        const auto *src = static_cast<const uint8_t *>(in[k].data());
        for (int64_t j = 0; j < r; ++j)
          copy_elem(src, base + j * inner, cols[k].data(), j, sizes[k]);
      }
      std::iota(perm.begin(), perm.end(), int64_t{0});
      if (num_keys == 1) {
        CompareFn c = cmps[0];
        const void *col = cols[0].data();
        std::stable_sort(perm.begin(), perm.end(),
                         [&](int64_t i, int64_t j) { return c(col, i, j) < 0; });
      } else {
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t i, int64_t j) {
          for (int64_t k = 0; k < num_keys; ++k)
            if (int c = cmps[k](cols[k].data(), i, j))
              return c < 0;
          return false;
        });
      }
      for (size_t o = 0; o < in.size(); ++o) {
        const auto *src = static_cast<const uint8_t *>(in[o].data());
        auto *dst = static_cast<uint8_t *>(result[o].mutable_data());
        for (int64_t j = 0; j < r; ++j)
          copy_elem(src, base + perm[j] * inner, dst, base + j * inner, sizes[o]);
      }
    }
  });
  return result;
}

// ---- Transform rules ---------------------------------------------------------------------------
// Sorting permutes each line, so tangents and cotangents move by the same permutation. Both
// rules use sort itself (no gather), so they are differentiable and batchable like any op.
struct SortParams {
  int64_t dim, num_keys;
};
SortParams sort_params(const Params &params, int64_t rank) {
  int64_t dim = params.get_int("dimension");
  return {dim < 0 ? dim + rank : dim, params.get_int("num_keys")};
}

// The tangents ride along as extra operands of the same sort (same keys, so same permutation).
std::vector<Array> sort_jvp(std::span<const Array> x, std::span<const Array> t,
                            std::span<const Array>, const Params &params) {
  SortParams s = sort_params(params, x[0].ndim());
  std::vector<Array> ops(x.begin(), x.begin() + s.num_keys);
  for (const Array &ti : t)
    if (!rules::is_zero(ti))
      ops.push_back(ti);
  std::vector<Array> sorted = lax::sort(ops, s.dim, s.num_keys);
  std::vector<Array> out(x.size());
  size_t next = static_cast<size_t>(s.num_keys);
  for (size_t i = 0; i < x.size(); ++i)
    if (!rules::is_zero(t[i]))
      out[i] = sorted[next++];
  return out;
}

// The permutation comes from sorting an iota with the keys; sorting the cotangents by the
// permutation applies its inverse, which sends each cotangent back to its input position.
std::vector<Array> sort_vjp(std::span<const Array> x, std::span<const Array>,
                            std::span<const Array> ct, const std::vector<bool> &,
                            const Params &params) {
  SortParams s = sort_params(params, x[0].ndim());
  std::vector<size_t> which;
  for (size_t i = 0; i < x.size(); ++i)
    if (!rules::is_zero(ct[i]) && is_floating(x[i].dtype()))
      which.push_back(i);
  std::vector<Array> out(x.size());
  if (which.empty())
    return out;
  DType idx = x[0].shape()[s.dim] <= INT32_MAX ? DType::Int32 : DType::Int64;
  std::vector<Array> ops(x.begin(), x.begin() + s.num_keys);
  ops.push_back(lax::iota(idx, x[0].shape(), s.dim));
  Array perm = lax::sort(ops, s.dim, s.num_keys).back();
  std::vector<Array> back{perm};
  for (size_t i : which)
    back.push_back(ct[i]);
  std::vector<Array> unsorted = lax::sort(back, s.dim, 1);
  for (size_t k = 0; k < which.size(); ++k)
    out[which[k]] = unsorted[k + 1];
  return out;
}

// Every operand batched at axis 0 (unbatched ones broadcast: all share one shape), so the
// sorted dimension moves up by one.
std::vector<Array> sort_batch(const BatchContext &ctx, std::span<const Array> vals,
                              std::span<const int64_t> dims, const Params &params,
                              std::vector<int64_t> &out_dims) {
  size_t first = 0;
  while (dims[first] == kNotBatched)
    ++first;
  SortParams s = sort_params(params, vals[first].ndim() - 1);
  std::vector<Array> in;
  for (size_t i = 0; i < vals.size(); ++i)
    in.push_back(rules::batch_to_front(vals[i], dims[i], ctx.axis_size));
  out_dims.assign(vals.size(), 0);
  return lax::sort(in, s.dim + 1, s.num_keys);
}

const Primitive &sort_p = register_primitive({
    .name = kOp,
    .shape_rule = sort_shape_rule,
    .impl = sort_impl,
    .jvp = sort_jvp,
    .vjp = sort_vjp,
    .batch = sort_batch,
});

} // namespace

// ---- lax wrapper -------------------------------------------------------------------------------
namespace lax {
std::vector<Array> sort(const std::vector<Array> &operands, int64_t dimension, int64_t num_keys) {
  if (!operands.empty() && operands[0].valid()) {
    int64_t rank = operands[0].ndim();
    if (dimension < 0 && dimension >= -rank)
      dimension += rank;
  }
  return bind(sort_p, operands, {{"dimension", dimension}, {"num_keys", num_keys}});
}
} // namespace lax

} // namespace strata
