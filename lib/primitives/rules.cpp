// Shared helpers for the jvp, vjp and batch rules written beside each primitive.
#include <algorithm>
#include <numeric>

#include "primitives/rules_impl.h"
#include "strata/ops.h"

namespace strata::rules {

Array add_tangents(const Array &a, const Array &b) {
  if (is_zero(a))
    return b;
  if (is_zero(b))
    return a;
  return lax::add(a, b);
}

Array scale(const Array &t, const Array &d) { return is_zero(t) ? Array() : lax::mul(t, d); }

Array full_like(const Array &x, double value) {
  Array s = lax::convert_element_type(Array(value), x.dtype(), x.weak_type());
  return x.ndim() == 0 ? s : lax::broadcast_in_dim(s, x.shape(), {});
}

Array zeros_of(const Array &x) { return rules::full_like(x, 0.0); }

Array move_axis(const Array &x, int64_t from, int64_t to) {
  if (from == to)
    return x;
  std::vector<int64_t> perm(x.ndim());
  std::iota(perm.begin(), perm.end(), 0);
  perm.erase(perm.begin() + from);
  perm.insert(perm.begin() + to, from);
  return lax::transpose(x, perm);
}

Array batch_to_front(const Array &x, int64_t bdim, int64_t size) {
  if (bdim != kNotBatched)
    return move_axis(x, bdim, 0);
  Shape s = x.shape();
  s.insert(s.begin(), size);
  std::vector<int64_t> dims(x.ndim());
  std::iota(dims.begin(), dims.end(), 1);
  return lax::broadcast_in_dim(x, s, dims);
}

std::vector<Array> batch_elementwise(const BatchContext &ctx, std::span<const Array> vals,
                                     std::span<const int64_t> dims, const Params &params,
                                     std::vector<int64_t> &out_dims,
                                     std::vector<int> scalar_operands) {
  if (vals.size() == 1) { // unary: the batch axis stays where it is
    std::vector<Array> outs = bind(*ctx.prim, {vals[0]}, params);
    out_dims.assign(outs.size(), dims[0]);
    return outs;
  }
  std::vector<Array> in;
  size_t full_rank = 0;
  for (size_t i = 0; i < vals.size(); ++i) {
    bool may_be_scalar = std::find(scalar_operands.begin(), scalar_operands.end(),
                                   static_cast<int>(i)) != scalar_operands.end();
    bool keep = may_be_scalar && dims[i] == kNotBatched && vals[i].ndim() == 0;
    in.push_back(keep ? vals[i] : batch_to_front(vals[i], dims[i], ctx.axis_size));
    full_rank = std::max<size_t>(full_rank, in.back().ndim());
  }
  if (!scalar_operands.empty()) { // a batched scalar ([B]) meets operands of shape [B, ...]
    Shape full;
    for (const Array &x : in)
      if (static_cast<size_t>(x.ndim()) == full_rank)
        full = x.shape();
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i].ndim() != 0 && in[i].shape() != full) {
        std::vector<int64_t> bd(in[i].ndim());
        std::iota(bd.begin(), bd.end(), 0);
        in[i] = lax::broadcast_in_dim(in[i], full, bd);
      }
  }
  std::vector<Array> outs = bind(*ctx.prim, in, params);
  out_dims.assign(outs.size(), 0);
  return outs;
}

BatchRule elementwise_batch_rule(std::vector<int> scalar_operands) {
  return [scalar_operands](const BatchContext &ctx, std::span<const Array> vals,
                           std::span<const int64_t> dims, const Params &params,
                           std::vector<int64_t> &out_dims) {
    return batch_elementwise(ctx, vals, dims, params, out_dims, scalar_operands);
  };
}

Array unbroadcast(const Array &ct, const Shape &operand_shape,
                  const std::vector<int64_t> &broadcast_dimensions) {
  // Sum the dimensions that broadcast_in_dim added, then those it stretched from 1.
  std::vector<int64_t> added, stretched;
  std::vector<bool> mapped(ct.ndim(), false);
  for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
    mapped[broadcast_dimensions[i]] = true;
    if (operand_shape[i] == 1 && ct.shape()[broadcast_dimensions[i]] != 1)
      stretched.push_back(broadcast_dimensions[i]);
  }
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < ct.ndim(); ++d)
    if (!mapped[d] || std::find(stretched.begin(), stretched.end(), d) != stretched.end())
      axes.push_back(d);
  Array s = axes.empty() ? ct : lax::reduce_sum(ct, axes);
  return s.shape() == operand_shape ? s : lax::reshape(s, operand_shape);
}

} // namespace strata::rules

namespace strata::rules {

JvpRule unary_jvp(UnaryDeriv d) {
  return [d](std::span<const Array> primals, std::span<const Array> tangents,
             std::span<const Array> outs, const Params &params) -> std::vector<Array> {
    if (!d || is_zero(tangents[0]))
      return {Array()};
    return {lax::mul(tangents[0], d(primals[0], outs[0], params))};
  };
}

VjpRule unary_vjp(UnaryDeriv d) {
  return
      [d](std::span<const Array> primals, std::span<const Array> outs, std::span<const Array> cts,
          const std::vector<bool> &, const Params &params) -> std::vector<Array> {
        if (!d || is_zero(cts[0]))
          return {Array()};
        return {lax::mul(cts[0], d(primals[0], outs[0], params))};
      };
}

JvpRule binary_jvp(BinaryDeriv d) {
  return [d](std::span<const Array> primals, std::span<const Array> tangents,
             std::span<const Array> outs, const Params &) -> std::vector<Array> {
    Array t;
    for (int i = 0; i < 2; ++i)
      if (!is_zero(tangents[i]))
        t = add_tangents(t, lax::mul(tangents[i], d(primals[0], primals[1], outs[0], i)));
    return {t};
  };
}

VjpRule binary_vjp(BinaryDeriv d) {
  return
      [d](std::span<const Array> primals, std::span<const Array> outs, std::span<const Array> cts,
          const std::vector<bool> &wanted, const Params &) -> std::vector<Array> {
        std::vector<Array> g(2);
        if (is_zero(cts[0]))
          return g;
        for (int i = 0; i < 2; ++i)
          if (wanted[i])
            g[i] = lax::mul(cts[0], d(primals[0], primals[1], outs[0], i));
        return g;
      };
}

} // namespace strata::rules
