// sort: a stable sort of several operands along one dimension, ordered lexicographically by the
// first num_keys of them, NaNs last.
#include <cstdint>

#include "primitives/rules_impl.h"
#include "strata/internal/line_kernels.h"
#include "strata/lax.h"

namespace strata {
namespace {

constexpr const char *kOp = "sort";

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

/// The real and imaginary parts of a complex array, as two arrays of its parts' dtype.
template <class R> std::pair<Array, Array> parts_as(const Array &x) {
  Array re = Array::empty(x.shape(), dtype_of<R>::value);
  Array im = Array::empty(x.shape(), dtype_of<R>::value);
  const auto *z = x.data<std::complex<R>>();
  R *pr = static_cast<R *>(re.mutable_data()), *pi = static_cast<R *>(im.mutable_data());
  for (int64_t i = 0, n = x.size(); i < n; ++i) {
    pr[i] = z[i].real();
    pi[i] = z[i].imag();
  }
  return {re, im};
}
std::pair<Array, Array> complex_parts(const Array &x) {
  return x.dtype() == DType::Complex64 ? parts_as<float>(x) : parts_as<double>(x);
}

std::vector<Array> sort_impl(std::span<const Array> in, const Params &params,
                             std::span<const AbstractValue> out);

/// A sort whose keys include complex operands: each complex key becomes two real keys (its
/// real, then its imaginary part: numpy's and XLA's lexicographic order) and every operand rides
/// along as a payload, whose sorted copies are the results.
std::vector<Array> sort_complex_keys(std::span<const Array> in, const Params &params,
                                     std::span<const AbstractValue> out) {
  int64_t num_keys = params.get_int("num_keys");
  std::vector<Array> ops;
  std::vector<AbstractValue> avals;
  for (int64_t i = 0; i < num_keys; ++i) {
    if (is_complex(in[i].dtype())) {
      auto [re, im] = complex_parts(in[i]);
      ops.push_back(re);
      ops.push_back(im);
    } else {
      ops.push_back(in[i]);
    }
  }
  int64_t keys = static_cast<int64_t>(ops.size());
  ops.insert(ops.end(), in.begin(), in.end());
  for (const Array &a : ops)
    avals.push_back(abstract_of(a));
  Params p = params;
  p.set("num_keys", keys);
  std::vector<Array> sorted = sort_impl(ops, p, avals);
  return {sorted.begin() + keys, sorted.end()};
}

std::vector<Array> sort_impl(std::span<const Array> in, const Params &params,
                             std::span<const AbstractValue> out) {
  for (int64_t i = 0, k = params.get_int("num_keys"); i < k; ++i)
    if (is_complex(in[i].dtype()))
      return sort_complex_keys(in, params, out);
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
  std::vector<SortOperand> operands;
  for (size_t i = 0; i < in.size(); ++i) {
    result.push_back(Array::empty(out[i].shape, out[i].dtype, out[i].weak_type));
    operands.push_back({in[i].dtype(), in[i].data(), result[i].mutable_data()});
  }
  sort_lines(operands, num_keys, outer, r, inner);
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
    if (!rules::is_zero(ct[i]) && is_inexact(x[i].dtype()))
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
