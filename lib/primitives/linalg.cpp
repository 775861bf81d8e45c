// The linear-algebra primitives (jax.lax.linalg): cholesky, triangular_solve, lu,
// lu_pivots_to_permutation, qr, eigh, svd, and the nonsymmetric eig, schur, hessenberg and
// householder_product, batched over leading dimensions, on LAPACK.
#include <algorithm>
#include <numeric>

#include "primitives/rules_impl.h"
#include "strata/internal/eig_kernels.h"
#include "strata/internal/linalg_kernels.h"
#include "strata/lax.h"
#include "strata/linalg.h"
#include "strata/ops.h"
#include "strata/transforms.h"

namespace strata {
namespace {

using Vec = std::vector<Array>;

// ---- Shape rules -------------------------------------------------------------------------------

/// Checks that `a` is a batch of matrices of a LAPACK dtype (f32, f64, c64, c128).
void check_matrices(const char *op, const AbstractValue &a, const char *what = "operand") {
  if (a.shape.size() < 2)
    fail(op, "expects rank >= 2 (a batch of matrices) for its ", what, ", got ", a.str());
  if (a.dtype != DType::Float32 && a.dtype != DType::Float64 && !is_complex(a.dtype))
    fail(op, "expects a float32 or float64 (or complex64 or complex128) ", what, ", got ", a.str());
}
void check_square(const char *op, const AbstractValue &a) {
  check_matrices(op, a);
  size_t r = a.shape.size();
  if (a.shape[r - 1] != a.shape[r - 2])
    fail(op, "expects square matrices, got ", a.str());
}
Shape batch_of(const Shape &s) { return Shape(s.begin(), s.end() - 2); }
Shape with(Shape batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail);
  return batch;
}
int64_t batch_size(const Shape &s) {
  int64_t b = 1;
  for (size_t i = 0; i + 2 < s.size(); ++i)
    b *= s[i];
  return b;
}
int64_t rows(const Shape &s) { return s[s.size() - 2]; }
int64_t cols(const Shape &s) { return s[s.size() - 1]; }
AbstractValue like(const AbstractValue &a, Shape s) { return {std::move(s), a.dtype, a.weak_type}; }
Array fresh(const AbstractValue &a) { return Array::empty(a.shape, a.dtype, a.weak_type); }

// ---- Matrix helpers for the rules (lax ops only, so the rules differentiate and batch) ---------

/// x with its last two dimensions swapped.
Array mT(const Array &x) {
  std::vector<int64_t> perm(static_cast<size_t>(x.ndim()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return lax::transpose(x, perm);
}
/// The conjugate transpose over the last two dimensions (mT for real x).
Array mH(const Array &x) { return is_complex(x.dtype()) ? lax::conj(mT(x)) : mT(x); }
/// The matrix product over the last two dimensions, batched over the leading (equal) ones.
Array mm(const Array &a, const Array &b) {
  int64_t r = a.ndim();
  std::vector<int64_t> batch(static_cast<size_t>(r - 2));
  std::iota(batch.begin(), batch.end(), 0);
  return lax::dot_general(a, b, {{r - 1}, {r - 2}, batch, batch});
}
/// A constant of dtype t and shape s.
Array constant(double v, DType t, const Shape &s) {
  return lax::broadcast_in_dim(lax::convert_element_type(Array(v), t), s, {});
}
/// Where column - row <= k (on or below the k-th diagonal), as bools of shape s.
Array below(const Shape &s, int64_t k) {
  int64_t r = static_cast<int64_t>(s.size());
  Array i = lax::iota(DType::Int32, s, r - 2), j = lax::iota(DType::Int32, s, r - 1);
  return lax::le(lax::sub(j, i), constant(static_cast<double>(k), DType::Int32, s));
}
/// The part of x on or below its k-th diagonal (numpy's tril), and on or above it (triu).
Array tril(const Array &x, int64_t k = 0) {
  return lax::select(below(x.shape(), k), x, rules::zeros_of(x));
}
Array triu(const Array &x, int64_t k = 0) {
  return lax::select(below(x.shape(), k - 1), rules::zeros_of(x), x);
}
/// The identity matrices of x's shape (which may be rectangular).
Array eye_like(const Array &x) {
  const Shape &s = x.shape();
  int64_t r = x.ndim();
  return lax::convert_element_type(
      lax::eq(lax::iota(DType::Int32, s, r - 2), lax::iota(DType::Int32, s, r - 1)), x.dtype());
}
/// x's last two dimensions sliced to [r0, r1) x [c0, c1).
Array block(const Array &x, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  std::vector<int64_t> lo(static_cast<size_t>(x.ndim()), 0), hi(x.shape().begin(), x.shape().end());
  lo[lo.size() - 2] = r0;
  lo[lo.size() - 1] = c0;
  hi[hi.size() - 2] = r1;
  hi[hi.size() - 1] = c1;
  return lax::slice(x, lo, hi);
}
/// The diagonals [..., k] of square matrices [..., k, k].
Array diagonal(const Array &x) { return lax::reduce_sum(lax::mul(x, eye_like(x)), {x.ndim() - 1}); }
/// A vector [..., k] broadcast along a new axis at `axis` (-2: as rows, every row the vector;
/// -1: as columns) of [..., k, k].
Array spread(const Array &v, int64_t axis) {
  Shape s = v.shape();
  int64_t r = v.ndim();
  s.push_back(s.back());
  std::vector<int64_t> dims(static_cast<size_t>(r));
  std::iota(dims.begin(), dims.end(), 0);
  if (axis == -1)
    dims.back() = r - 1; // v[i] fills row i
  else
    dims.back() = r; // v[j] fills column j
  return lax::broadcast_in_dim(v, s, dims);
}

/// A vector [..., k] broadcast to like's shape [..., r, k]: v[j] down each column j.
Array columns_of(const Array &v, const Array &like) {
  std::vector<int64_t> dims(static_cast<size_t>(v.ndim()));
  std::iota(dims.begin(), dims.end(), 0);
  dims.back() = like.ndim() - 1;
  return lax::broadcast_in_dim(v, like.shape(), dims);
}

/// The vjp of a primitive whose jvp is linear in the tangents: the transpose of the jvp at the
/// primal point, taken by reverse mode of the tangent map (as JAX transposes its jvp rules).
/// `float_outputs` lists the outputs that have tangents.
Vec transpose_jvp(const JvpRule &jvp, std::span<const Array> primals, std::span<const Array> outs,
                  std::span<const Array> cts, const Params &params,
                  const std::vector<size_t> &float_outputs,
                  const std::vector<size_t> &float_inputs) {
  Vec saved(primals.begin(), primals.end()), outs_v(outs.begin(), outs.end()), zero;
  for (size_t i : float_inputs)
    zero.push_back(zeros_like(saved[i]));
  FlatFn lin = [&](const Vec &t) {
    Vec tangents(saved.size());
    for (size_t k = 0; k < float_inputs.size(); ++k)
      tangents[float_inputs[k]] = t[k];
    Vec touts = jvp(saved, tangents, outs_v, params), picked;
    for (size_t i : float_outputs)
      picked.push_back(touts[i].valid() ? touts[i] : zeros_like(outs_v[i]));
    return picked;
  };
  Vec ct;
  for (size_t i : float_outputs)
    ct.push_back(cts[i].valid() ? cts[i] : zeros_like(outs_v[i]));
  Vec g = vjp_flat(lin, zero, "linalg").pullback(ct), result(primals.size());
  for (size_t k = 0; k < float_inputs.size(); ++k)
    result[float_inputs[k]] = g[k];
  return result;
}
/// The vjp rule from a linear jvp rule (see transpose_jvp).
VjpRule vjp_of(JvpRule jvp, std::vector<size_t> float_outputs, std::vector<size_t> float_inputs) {
  return [jvp, float_outputs, float_inputs](std::span<const Array> primals,
                                            std::span<const Array> outs, std::span<const Array> cts,
                                            const std::vector<bool> &, const Params &params) {
    return transpose_jvp(jvp, primals, outs, cts, params, float_outputs, float_inputs);
  };
}
/// The batch rule of primitives batched over leading dimensions already: every operand's
/// vmapped axis moves to the front (unbatched ones broadcast), and so do the outputs'.
Vec batch_leading(const BatchContext &ctx, std::span<const Array> vals,
                  std::span<const int64_t> dims, const Params &params,
                  std::vector<int64_t> &out_dims) {
  Vec in;
  for (size_t i = 0; i < vals.size(); ++i)
    in.push_back(rules::batch_to_front(vals[i], dims[i], ctx.axis_size));
  Vec out = bind(*ctx.prim, in, params);
  out_dims.assign(out.size(), 0);
  return out;
}

/// (x + x^H) / 2, the Hermitian part that symmetrize_input takes, for float or complex square
/// matrices (others go to the primitive as they are, for its shape rule's error).
Array symmetrize(const Array &x) {
  if (x.ndim() < 2 || !is_inexact(x.dtype()) || rows(x.shape()) != cols(x.shape()))
    return x;
  return lax::mul(lax::add(x, mH(x)), rules::full_like(x, 0.5));
}
// ---- cholesky ----------------------------------------------------------------------------------

/// dL = L phi(L^-1 dA L^-H), phi: the lower triangle with its diagonal halved; dA is
/// symmetrized as the input is.
Vec cholesky_jvp(std::span<const Array>, std::span<const Array> t, std::span<const Array> out,
                 const Params &params) {
  if (rules::is_zero(t[0]))
    return {Array()};
  const Array &l = out[0];
  Array da = params.get_bool("symmetrize_input") ? symmetrize(t[0]) : t[0];
  Array tmp = lax::linalg::triangular_solve(l, da, false, true, true, true);
  Array inner = lax::linalg::triangular_solve(l, tmp, true, true, false);
  Array half = lax::sub(rules::full_like(inner, 1.0),
                        lax::mul(eye_like(inner), rules::full_like(inner, 0.5)));
  return {mm(l, lax::mul(tril(inner), half))};
}

const Primitive &cholesky_p = register_primitive({
    .name = "cholesky",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &) -> std::vector<AbstractValue> {
      check_square("cholesky", in[0]);
      return {in[0]};
    },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) -> Vec {
      Array l = fresh(out[0]);
      const Shape &s = in[0].shape();
      linalg_cholesky(in[0].dtype(), batch_size(s), cols(s), in[0].data(), l.mutable_data(),
                      params.get_bool("symmetrize_input"));
      return {l};
    },
    .jvp = cholesky_jvp,
    .vjp = vjp_of(cholesky_jvp, {0}, {0}),
    .batch = batch_leading,
});

// ---- triangular_solve --------------------------------------------------------------------------

struct SolveParams {
  bool left, lower, trans, unit;
};
SolveParams solve_params(const Params &p) {
  return {p.get_bool("left_side"), p.get_bool("lower"), p.get_bool("transpose_a"),
          p.get_bool("unit_diagonal")};
}

Vec triangular_solve_jvp(std::span<const Array> x, std::span<const Array> t,
                         std::span<const Array> out, const Params &params) {
  SolveParams p = solve_params(params);
  const Array &a = x[0];
  auto solve = [&](const Array &rhs) {
    return lax::linalg::triangular_solve(a, rhs, p.left, p.lower, p.trans, false, p.unit);
  };
  Array dx;
  if (!rules::is_zero(t[1]))
    dx = solve(t[1]);
  if (!rules::is_zero(t[0])) {
    // Only the triangle the solve reads varies (not a unit diagonal).
    int64_t k = p.unit ? 1 : 0;
    Array da = p.lower ? tril(t[0], -k) : triu(t[0], k);
    Array op = p.trans ? mT(da) : da;
    // op(a) x = b: op(da) x + op(a) dx = 0; x op(a) = b: x op(da) + dx op(a) = 0.
    Array rhs = lax::neg(p.left ? mm(op, out[0]) : mm(out[0], op));
    dx = rules::add_tangents(dx, solve(rhs));
  }
  return {dx};
}

/// The transpose: b's cotangent solves with op(a)^T; a's is the outer product of that with the
/// solution, restricted to the triangle that the solve reads.
Vec triangular_solve_vjp(std::span<const Array> x, std::span<const Array> out,
                         std::span<const Array> ct, const std::vector<bool> &wanted,
                         const Params &params) {
  if (rules::is_zero(ct[0]))
    return {Array(), Array()};
  SolveParams p = solve_params(params);
  const Array &a = x[0];
  Array g = lax::linalg::triangular_solve(a, ct[0], p.left, p.lower, !p.trans, false, p.unit);
  Array ga;
  if (wanted[0]) {
    // left: <g, op(da) x> gives -g x^T for op(da); right: <g, x op(da)> gives -x^T g.
    Array outer = p.left ? mm(g, mT(out[0])) : mm(mT(out[0]), g);
    if (p.trans)
      outer = mT(outer);
    int64_t k = p.unit ? 1 : 0;
    ga = lax::neg(p.lower ? tril(outer, -k) : triu(outer, k));
  }
  return {ga, g};
}

const Primitive &triangular_solve_p = register_primitive({
    .name = "triangular_solve",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &params) -> std::vector<AbstractValue> {
      const char *op = "triangular_solve";
      check_square(op, in[0]);
      check_matrices(op, in[1], "right-hand side b");
      if (in[0].dtype != in[1].dtype)
        fail(op, "a and b have different dtypes: ", in[0].str(), " and ", in[1].str());
      if (batch_of(in[0].shape) != batch_of(in[1].shape))
        fail(op, "a and b have different batch dimensions: ", in[0].str(), " and ", in[1].str());
      bool left = params.get_bool("left_side");
      int64_t k = cols(in[0].shape), m = left ? rows(in[1].shape) : cols(in[1].shape);
      if (k != m)
        fail(op, "a ", in[0].str(), " does not match b ", in[1].str(), " on the ",
             left ? "left" : "right", " side");
      return {in[1]};
    },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) -> Vec {
      SolveParams p = solve_params(params);
      Array x = fresh(out[0]);
      const Shape &s = in[1].shape();
      linalg_triangular_solve(in[0].dtype(), batch_size(s), rows(s), cols(s), in[0].data(),
                              in[1].data(), x.mutable_data(), p.left, p.lower, p.trans, p.unit);
      return {x};
    },
    .jvp = triangular_solve_jvp,
    .vjp = triangular_solve_vjp,
    .batch = batch_leading,
});

// ---- lu and lu_pivots_to_permutation ----------------------------------------------------------

/// The permutation matrices P (P x = x[perm]) of permutations [..., m], in dtype t.
Array permutation_matrix(const Array &perm, DType t) {
  Shape s = perm.shape();
  s.push_back(s.back());
  int64_t r = perm.ndim();
  std::vector<int64_t> dims(static_cast<size_t>(r));
  std::iota(dims.begin(), dims.end(), 0); // perm[i] fills row i
  Array rowsv = lax::broadcast_in_dim(perm, s, dims);
  return lax::convert_element_type(lax::eq(rowsv, lax::iota(perm.dtype(), s, r)), t);
}

/// JAX's rule: with P a = L U, dLU = L tril(L^-1 P da U^-1, -1) + triu(L^-1 P da U^-1) U, on L
/// and U padded to square with identity blocks.
Vec lu_jvp(std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
           const Params &) {
  if (rules::is_zero(t[0]))
    return {Array(), Array(), Array()};
  const Array &lu = out[0];
  const Shape &s = lu.shape();
  int64_t m = rows(s), n = cols(s), k = std::min(m, n);
  DType dt = lu.dtype();
  Array pa = mm(permutation_matrix(out[2], dt), t[0]);
  // l: m x m, unit lower, its first k columns from lu; u: n x n, upper, its first k rows from
  // lu and the identity below.
  Array zero = lax::convert_element_type(Array(0.0), dt);
  std::vector<int64_t> none(s.size(), 0), l_hi = none, u_hi = none;
  l_hi.back() = m - k;
  u_hi[u_hi.size() - 2] = n - k;
  Array eye_m = eye_like(constant(0, dt, with(batch_of(s), {m, m})));
  Array eye_n = eye_like(constant(0, dt, with(batch_of(s), {n, n})));
  Array l = lax::add(lax::pad(tril(block(lu, 0, m, 0, k), -1), zero, none, l_hi, none), eye_m);
  Array u_rest = lax::select(lax::ge(lax::iota(DType::Int32, eye_n.shape(), eye_n.ndim() - 2),
                                     constant(static_cast<double>(k), DType::Int32, eye_n.shape())),
                             eye_n, rules::zeros_of(eye_n));
  Array u = lax::add(lax::pad(triu(block(lu, 0, k, 0, n)), zero, none, u_hi, none), u_rest);
  Array la = lax::linalg::triangular_solve(l, pa, true, true, false, false, true);
  Array lau = lax::linalg::triangular_solve(u, la, false, false, false);
  Array l_dot = mm(l, tril(lau, -1)), u_dot = mm(triu(lau), u);
  return {lax::add(l_dot, u_dot), Array(), Array()};
}

const Primitive &lu_p = register_primitive({
    .name = "lu",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &) -> std::vector<AbstractValue> {
      check_matrices("lu", in[0]);
      const Shape &s = in[0].shape;
      Shape b = batch_of(s);
      Shape piv = b, perm = b;
      piv.push_back(std::min(rows(s), cols(s)));
      perm.push_back(rows(s));
      return {in[0], {piv, DType::Int32, false}, {perm, DType::Int32, false}};
    },
    .impl = [](std::span<const Array> in, const Params &,
               std::span<const AbstractValue> out) -> Vec {
      Array lu = fresh(out[0]), piv = fresh(out[1]), perm = fresh(out[2]);
      const Shape &s = in[0].shape();
      linalg_lu(in[0].dtype(), batch_size(s), rows(s), cols(s), in[0].data(), lu.mutable_data(),
                static_cast<int32_t *>(piv.mutable_data()),
                static_cast<int32_t *>(perm.mutable_data()));
      return {lu, piv, perm};
    },
    .jvp = lu_jvp,
    .vjp = vjp_of(lu_jvp, {0}, {0}),
    .batch = batch_leading,
});

const Primitive &lu_pivots_to_permutation_p = register_primitive({
    .name = "lu_pivots_to_permutation",
    .traits = kNonDifferentiable,
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &params) -> std::vector<AbstractValue> {
      const char *op = "lu_pivots_to_permutation";
      if (in[0].shape.empty() || in[0].dtype != DType::Int32)
        fail(op, "expects int32 pivots of rank >= 1, got ", in[0].str());
      int64_t size = params.get_int("permutation_size");
      if (size < in[0].shape.back())
        fail(op, "permutation_size ", size, " is smaller than the number of pivots in ",
             in[0].str());
      Shape s = in[0].shape;
      s.back() = size;
      return {{s, DType::Int32, false}};
    },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) -> Vec {
      Array perm = fresh(out[0]);
      const Shape &s = in[0].shape();
      int64_t k = s.back(), batch = num_elements(Shape(s.begin(), s.end() - 1));
      linalg_pivots_to_permutation(batch, k, params.get_int("permutation_size"),
                                   static_cast<const int32_t *>(in[0].data()),
                                   static_cast<int32_t *>(perm.mutable_data()));
      return {perm};
    },
    .batch = batch_leading,
});

// ---- qr ----------------------------------------------------------------------------------------

/// JAX's rule (m >= n, or reduced matrices): with C = Q^H dA R^-1 and the skew-Hermitian
/// dO = tril(C, -1) - tril(C, -1)^H + i imag(diag(C)), dQ = Q (dO - C) + dA R^-1 and
/// dR = (C - dO) R.
Vec qr_jvp(std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
           const Params &params) {
  if (rules::is_zero(t[0]))
    return {Array(), Array()};
  const Shape &s = x[0].shape();
  int64_t m = rows(s), n = cols(s);
  if (m < n || (params.get_bool("full_matrices") && m != n))
    fail("qr", "the derivative is not implemented for ", abstract_of(x[0]).str(),
         " with full_matrices=", params.get_bool("full_matrices"),
         " (as in JAX: it needs m >= n and reduced matrices unless square)");
  const Array &q = out[0], &r = out[1];
  Array dx_rinv = lax::linalg::triangular_solve(r, t[0], false, false, false);
  Array c = mm(mH(q), dx_rinv);
  Array lower = tril(c, -1);
  Array d_o = lax::sub(lower, mH(lower));
  if (is_complex(c.dtype())) // the imaginary part of C's diagonal: R's diagonal stays real
    d_o = lax::add(d_o, lax::mul(eye_like(c),
                                 lax::sub(c, lax::convert_element_type(lax::real(c), c.dtype()))));
  Array dq = lax::add(mm(q, lax::sub(d_o, c)), dx_rinv);
  Array dr = mm(lax::sub(c, d_o), r);
  return {dq, dr};
}

const Primitive &qr_p = register_primitive({
    .name = "qr",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &params) -> std::vector<AbstractValue> {
      check_matrices("qr", in[0]);
      const Shape &s = in[0].shape;
      int64_t m = rows(s), n = cols(s), k = std::min(m, n);
      bool full = params.get_bool("full_matrices");
      return {like(in[0], with(batch_of(s), {m, full ? m : k})),
              like(in[0], with(batch_of(s), {full ? m : k, n}))};
    },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) -> Vec {
      Array q = fresh(out[0]), r = fresh(out[1]);
      const Shape &s = in[0].shape();
      linalg_qr(in[0].dtype(), batch_size(s), rows(s), cols(s), in[0].data(), q.mutable_data(),
                r.mutable_data(), params.get_bool("full_matrices"));
      return {q, r};
    },
    .jvp = qr_jvp,
    .vjp = vjp_of(qr_jvp, {0, 1}, {0}),
    .batch = batch_leading,
});

// ---- eigh --------------------------------------------------------------------------------------

/// JAX's rule: with A = V diag(w) V^H, dw = real(diag(V^H dA V)) and dV = V (F o V^H dA V),
/// F_ij = 1 / (w_j - w_i) off the diagonal and 0 on it. Repeated eigenvalues make F infinite:
/// the eigenvectors' derivatives are then undefined (inf or NaN), the eigenvalues' still hold.
Vec eigh_jvp(std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
             const Params &) {
  if (rules::is_zero(t[0]))
    return {Array(), Array()};
  const Array &v = out[0], &w = out[1];
  Array wj = spread(w, -2), wi = spread(w, -1);
  Array eye = eye_like(wj);
  Array f = lax::sub(lax::div(rules::full_like(wj, 1.0), lax::add(eye, lax::sub(wj, wi))), eye);
  Array vav = mm(mH(v), mm(t[0], v));
  Array dw = diagonal(vav);
  return {mm(v, lax::mul(lax::convert_element_type(f, v.dtype()), vav)),
          is_complex(dw.dtype()) ? lax::real(dw) : dw};
}

const Primitive &eigh_p = register_primitive({
    .name = "eigh",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &) -> std::vector<AbstractValue> {
      check_square("eigh", in[0]);
      Shape w = batch_of(in[0].shape);
      w.push_back(cols(in[0].shape));
      return {in[0], {w, real_dtype(in[0].dtype), in[0].weak_type}};
    },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) -> Vec {
      Array v = fresh(out[0]), w = fresh(out[1]);
      const Shape &s = in[0].shape();
      linalg_eigh(in[0].dtype(), batch_size(s), cols(s), in[0].data(), v.mutable_data(),
                  w.mutable_data(), params.get_bool("lower"));
      return {v, w};
    },
    .jvp = eigh_jvp,
    .vjp = vjp_of(eigh_jvp, {0, 1}, {0}),
    .batch = batch_leading,
});

// ---- svd ---------------------------------------------------------------------------------------

/// JAX's rule (reduced matrices, or square ones): with dS = U^H dA V and F_ij = 1 / (s_j^2 -
/// s_i^2) off the diagonal (0 on it), ds = re diag(dS), dU = U (F o (dS S + S dS^H) + D) with
/// D = (dS - dS^H) S^-1 / 2 (zero for real matrices: only the imaginary diagonal remains, the
/// phase the complex vectors' gauge leaves), dV = V (F o (S dS + dS^H S)), plus
/// (I - U U^H) dA V S^-1 for tall matrices and (I - V V^H) dA^H U S^-1 for wide ones. Repeated
/// singular values make F infinite (the vectors' derivatives are undefined, as in JAX).
Vec svd_jvp(std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
            const Params &params) {
  bool uv = params.get_bool("compute_uv");
  if (rules::is_zero(t[0]))
    return Vec(out.size());
  const Array &a = x[0], &da = t[0];
  const Shape &shape = a.shape();
  int64_t m = rows(shape), n = cols(shape);
  if (uv && params.get_bool("full_matrices") && m != n)
    fail("svd", "the derivative is not implemented for ", abstract_of(a).str(),
         " with full_matrices=True (as in JAX): use full_matrices=False");
  Array s, u, vt;
  if (uv && (!params.get_bool("full_matrices") || m == n)) {
    s = out[0], u = out[1], vt = out[2];
  } else {
    Vec r = bind(*find_primitive("svd"), {a}, {{"compute_uv", true}, {"full_matrices", false}});
    s = r[0], u = r[1], vt = r[2];
  }
  bool cplx = is_complex(a.dtype());
  // A real factor (s, F) in the complex rule's products.
  auto as_a = [&](const Array &r) { return cplx ? lax::convert_element_type(r, a.dtype()) : r; };
  Array v = mH(vt);
  Array ds_mat = mm(mH(u), mm(da, v));
  Array ds = cplx ? lax::real(diagonal(ds_mat)) : diagonal(ds_mat);
  if (!uv)
    return {ds};
  Array sj = spread(s, -2), si = spread(s, -1); // s_j along each row, s_i down each column
  Array eye = eye_like(sj);
  Array diffs = lax::mul(lax::add(sj, si), lax::sub(sj, si));
  Array f = as_a(lax::sub(lax::div(rules::full_like(diffs, 1.0), lax::add(diffs, eye)), eye));
  Array dss = lax::mul(as_a(sj), ds_mat), sds = lax::mul(as_a(si), ds_mat);
  Array inner = lax::mul(f, lax::add(dss, mH(dss)));
  if (cplx) {
    // D = (dS - dS^H) diag(1/s) / 2 on the diagonal (1/0 read as 0).
    Array zero = lax::eq(s, rules::full_like(s, 0.0));
    Array s_inv =
        lax::select(zero, rules::full_like(s, 0.0), lax::div(rules::full_like(s, 1.0), s));
    Array d =
        lax::mul(lax::mul(lax::sub(ds_mat, mH(ds_mat)), as_a(lax::mul(eye, spread(s_inv, -2)))),
                 rules::full_like(ds_mat, 0.5));
    inner = lax::add(inner, d);
  }
  Array du = mm(u, inner);
  Array dv = mm(v, lax::mul(f, lax::add(sds, mH(sds))));
  if (m > n) {
    Array dav = mm(da, v);
    du = lax::add(du, lax::div(lax::sub(dav, mm(u, mm(mH(u), dav))), as_a(columns_of(s, dav))));
  }
  if (n > m) {
    Array dahu = mm(mH(da), u);
    dv = lax::add(dv, lax::div(lax::sub(dahu, mm(v, mm(vt, dahu))), as_a(columns_of(s, dahu))));
  }
  return {ds, du, mH(dv)};
}

const Primitive &svd_p = register_primitive({
    .name = "svd",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &params) -> std::vector<AbstractValue> {
      check_matrices("svd", in[0]);
      const Shape &sh = in[0].shape;
      int64_t m = rows(sh), n = cols(sh), k = std::min(m, n);
      Shape s = batch_of(sh);
      s.push_back(k);
      // Singular values are real for complex matrices too.
      AbstractValue values{s, real_dtype(in[0].dtype), in[0].weak_type};
      if (!params.get_bool("compute_uv"))
        return {values};
      bool full = params.get_bool("full_matrices");
      return {values, like(in[0], with(batch_of(sh), {m, full ? m : k})),
              like(in[0], with(batch_of(sh), {full ? n : k, n}))};
    },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) -> Vec {
      Vec r;
      for (const AbstractValue &a : out)
        r.push_back(fresh(a));
      const Shape &s = in[0].shape();
      bool uv = params.get_bool("compute_uv");
      linalg_svd(in[0].dtype(), batch_size(s), rows(s), cols(s), in[0].data(), r[0].mutable_data(),
                 uv ? r[1].mutable_data() : nullptr, uv ? r[2].mutable_data() : nullptr,
                 params.get_bool("full_matrices"));
      return r;
    },
    .jvp = svd_jvp,
    .vjp =
        [](std::span<const Array> x, std::span<const Array> outs, std::span<const Array> cts,
           const std::vector<bool> &, const Params &params) {
          std::vector<size_t> fo =
              params.get_bool("compute_uv") ? std::vector<size_t>{0, 1, 2} : std::vector<size_t>{0};
          return transpose_jvp(svd_jvp, x, outs, cts, params, fo, {0});
        },
    .batch = batch_leading,
});

// ---- The nonsymmetric eigenproblem: eig, schur, hessenberg, householder_product -----------

/// Checks that `a` is a batch of square matrices of float32, float64, complex64 or complex128.
void check_general_square(const char *op, const AbstractValue &a) {
  if (a.shape.size() < 2)
    fail(op, "expects rank >= 2 (a batch of matrices), got ", a.str());
  if (a.dtype != DType::Float32 && a.dtype != DType::Float64 && !is_complex(a.dtype))
    fail(op, "expects float32, float64, complex64 or complex128 matrices, got ", a.str());
  if (rows(a.shape) != cols(a.shape))
    fail(op, "expects square matrices, got ", a.str());
}
/// The complex dtype of t's values (complex64 for float32).
DType complex_for(DType t) {
  return t == DType::Float32 || t == DType::Complex64 ? DType::Complex64 : DType::Complex128;
}

/// The jvp and vjp of primitives that, as in JAX, have no derivative.
JvpRule no_jvp(const char *op) {
  return [op](std::span<const Array>, std::span<const Array>, std::span<const Array>,
              const Params &) -> Vec {
    fail_kind(ErrorKind::NotImplemented, op, "differentiation is not implemented (as in JAX)");
  };
}
VjpRule no_vjp(const char *op) {
  return [op](std::span<const Array>, std::span<const Array>, std::span<const Array>,
              const std::vector<bool> &, const Params &) -> Vec {
    fail_kind(ErrorKind::NotImplemented, op, "differentiation is not implemented (as in JAX)");
  };
}

const Primitive &eig_primitive();

/// JAX's rule: the eigenvalues' tangents dw = diag(V^-1 dA V) (Giles' eq. 4.60); V^-1's rows
/// are the left eigenvectors u_i^H / (u_i^H v_i), so dw_i = u_i^H dA v_i / (u_i^H v_i), which
/// needs no complex solve. The eigenvectors' derivatives are not defined (JAX raises too).
Vec eig_jvp(std::span<const Array> x, std::span<const Array> t, std::span<const Array> out,
            const Params &params) {
  if (params.get_bool("compute_left_eigenvectors") || params.get_bool("compute_right_eigenvectors"))
    fail_kind(ErrorKind::NotImplemented, "eig",
              "the derivatives of eigenvectors are not implemented, only those of eigenvalues (as "
              "in JAX): use compute_left_eigenvectors=False, compute_right_eigenvectors=False");
  if (rules::is_zero(t[0]))
    return {Array()};
  Vec r = bind(eig_primitive(), {x[0]},
               {{"compute_left_eigenvectors", true}, {"compute_right_eigenvectors", true}});
  const Array &vl = r[1], &vr = r[2];
  Array ul = lax::conj(vl);
  Array da = lax::convert_element_type(t[0], vr.dtype());
  int64_t rowsAxis = vr.ndim() - 2;
  Array num = lax::reduce_sum(lax::mul(ul, mm(da, vr)), {rowsAxis});
  Array den = lax::reduce_sum(lax::mul(ul, vr), {rowsAxis});
  return {lax::div(num, den)};
}

const Primitive &eig_p = register_primitive({
    .name = "eig",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &params) -> std::vector<AbstractValue> {
      check_general_square("eig", in[0]);
      const Shape &s = in[0].shape;
      DType c = complex_for(in[0].dtype);
      Shape w = batch_of(s);
      w.push_back(cols(s));
      std::vector<AbstractValue> out{{w, c, false}};
      int64_t n = cols(s);
      if (params.get_bool("compute_left_eigenvectors"))
        out.push_back({with(batch_of(s), {n, n}), c, false});
      if (params.get_bool("compute_right_eigenvectors"))
        out.push_back({with(batch_of(s), {n, n}), c, false});
      return out;
    },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) -> Vec {
      Vec r;
      for (const AbstractValue &a : out)
        r.push_back(fresh(a));
      bool left = params.get_bool("compute_left_eigenvectors");
      bool right = params.get_bool("compute_right_eigenvectors");
      const Shape &s = in[0].shape();
      linalg_eig(in[0].dtype(), batch_size(s), cols(s), in[0].data(), r[0].mutable_data(),
                 left ? r[1].mutable_data() : nullptr,
                 right ? r[left ? 2 : 1].mutable_data() : nullptr);
      return r;
    },
    .jvp = eig_jvp,
    .vjp =
        [](std::span<const Array> x, std::span<const Array> outs, std::span<const Array> cts,
           const std::vector<bool> &, const Params &params) {
          std::vector<size_t> fo(outs.size());
          std::iota(fo.begin(), fo.end(), 0);
          return transpose_jvp(eig_jvp, x, outs, cts, params, fo, {0});
        },
    .batch = batch_leading,
});
const Primitive &eig_primitive() { return eig_p; }

const Primitive &schur_p = register_primitive({
    .name = "schur",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &params) -> std::vector<AbstractValue> {
      check_general_square("schur", in[0]);
      AbstractValue t{in[0].shape, in[0].dtype, false};
      if (params.get_bool("compute_schur_vectors"))
        return {t, t};
      return {t};
    },
    .impl = [](std::span<const Array> in, const Params &params,
               std::span<const AbstractValue> out) -> Vec {
      Vec r;
      for (const AbstractValue &a : out)
        r.push_back(fresh(a));
      const Shape &s = in[0].shape();
      linalg_schur(in[0].dtype(), batch_size(s), cols(s), in[0].data(), r[0].mutable_data(),
                   r.size() > 1 ? r[1].mutable_data() : nullptr);
      return r;
    },
    .jvp = no_jvp("schur"),
    .vjp = no_vjp("schur"),
    .batch = batch_leading,
});

const Primitive &hessenberg_p = register_primitive({
    .name = "hessenberg",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &) -> std::vector<AbstractValue> {
      check_general_square("hessenberg", in[0]);
      Shape taus = batch_of(in[0].shape);
      taus.push_back(std::max<int64_t>(cols(in[0].shape) - 1, 0));
      return {{in[0].shape, in[0].dtype, false}, {taus, in[0].dtype, false}};
    },
    .impl = [](std::span<const Array> in, const Params &,
               std::span<const AbstractValue> out) -> Vec {
      Array h = fresh(out[0]), taus = fresh(out[1]);
      const Shape &s = in[0].shape();
      linalg_hessenberg(in[0].dtype(), batch_size(s), cols(s), in[0].data(), h.mutable_data(),
                        taus.mutable_data());
      return {h, taus};
    },
    .jvp = no_jvp("hessenberg"),
    .vjp = no_vjp("hessenberg"),
    .batch = batch_leading,
});

const Primitive &householder_product_p = register_primitive({
    .name = "householder_product",
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &) -> std::vector<AbstractValue> {
      const char *op = "householder_product";
      const AbstractValue &a = in[0], &taus = in[1];
      if (a.shape.size() < 2)
        fail(op, "expects rank >= 2 (a batch of matrices) for a, got ", a.str());
      if (a.dtype != DType::Float32 && a.dtype != DType::Float64 && !is_complex(a.dtype))
        fail(op, "expects float32, float64, complex64 or complex128 matrices, got ", a.str());
      if (taus.dtype != a.dtype || taus.shape.size() + 1 != a.shape.size() ||
          Shape(taus.shape.begin(), taus.shape.end() - 1) != batch_of(a.shape))
        fail(op, "taus ", taus.str(), " must have a's dtype and batch dimensions, a is ", a.str());
      int64_t m = rows(a.shape), n = cols(a.shape), k = taus.shape.back();
      if (m < n)
        fail(op, "expects a with at least as many rows as columns, got ", a.str());
      if (k > n)
        fail(op, "taus ", taus.str(), " has more than min(m, n) = ", n, " entries; a is ", a.str());
      return {{a.shape, a.dtype, false}};
    },
    .impl = [](std::span<const Array> in, const Params &,
               std::span<const AbstractValue> out) -> Vec {
      Array q = fresh(out[0]);
      const Shape &s = in[0].shape();
      linalg_householder_product(in[0].dtype(), batch_size(s), rows(s), cols(s),
                                 in[1].shape().back(), in[0].data(), in[1].data(),
                                 q.mutable_data());
      return {q};
    },
    .jvp = no_jvp("householder_product"),
    .vjp = no_vjp("householder_product"),
    .batch = batch_leading,
});

/// x's last dimension (and, for matrices, its last two: `matrix`) sliced to [lo, hi).
Array subset_last(const Array &x, int64_t lo, int64_t hi) {
  std::vector<int64_t> start(static_cast<size_t>(x.ndim()), 0),
      limit(x.shape().begin(), x.shape().end());
  start.back() = lo;
  limit.back() = hi;
  return lax::slice(x, start, limit);
}
std::pair<int64_t, int64_t> check_subset(const char *op, std::pair<int64_t, int64_t> r, int64_t k) {
  if (r.first < 0 || r.first > r.second || r.second > k)
    fail(op, "subset_by_index (", r.first, ", ", r.second, ") is not a range within [0, ", k, "]");
  return r;
}

} // namespace

// ---- lax::linalg wrappers ----------------------------------------------------------------------
namespace lax::linalg {

Array cholesky(const Array &x, bool symmetrize_input) {
  // Symmetrized in the kernel (one pass, no extra ops: 64 32x32 factors took 1.65x numpy's
  // time with the (x + x^T) / 2 as ops, 1.0x in the kernel).
  return bind1(cholesky_p, {x}, {{"symmetrize_input", symmetrize_input}});
}

Array triangular_solve(const Array &a, const Array &b, bool left_side, bool lower, bool transpose_a,
                       bool conjugate_a, bool unit_diagonal) {
  // op(a) = a^H is conj(a)^T: the conjugate folds into the operand (the identity for real a).
  return bind1(triangular_solve_p, {conjugate_a && is_complex(a.dtype()) ? lax::conj(a) : a, b},
               {{"left_side", left_side},
                {"lower", lower},
                {"transpose_a", transpose_a},
                {"unit_diagonal", unit_diagonal}});
}

LuResult lu(const Array &x) {
  Vec r = bind(lu_p, {x});
  return {r[0], r[1], r[2]};
}

Array lu_pivots_to_permutation(const Array &pivots, int64_t permutation_size) {
  return bind1(lu_pivots_to_permutation_p, {pivots}, {{"permutation_size", permutation_size}});
}

std::pair<Array, Array> qr(const Array &x, bool pivoting, bool full_matrices) {
  if (pivoting)
    fail("qr", "pivoting=True (column-pivoted QR) is not implemented");
  Vec r = bind(qr_p, {x}, {{"full_matrices", full_matrices}});
  return {r[0], r[1]};
}

std::pair<Array, Array> eigh(const Array &x, bool lower, bool symmetrize_input,
                             bool sort_eigenvalues,
                             std::optional<std::pair<int64_t, int64_t>> subset_by_index) {
  (void)sort_eigenvalues; // LAPACK's eigenvalues are ascending already
  Vec r = bind(eigh_p, {symmetrize_input ? symmetrize(x) : x}, {{"lower", lower}});
  if (subset_by_index) {
    auto [lo, hi] = check_subset("eigh", *subset_by_index, r[1].shape().back());
    return {subset_last(r[0], lo, hi), subset_last(r[1], lo, hi)};
  }
  return {r[0], r[1]};
}

SvdResult svd(const Array &x, bool full_matrices,
              std::optional<std::pair<int64_t, int64_t>> subset_by_index) {
  Vec r = bind(svd_p, {x}, {{"compute_uv", true}, {"full_matrices", full_matrices}});
  if (subset_by_index) {
    auto [lo, hi] = check_subset("svd", *subset_by_index, r[0].shape().back());
    return {subset_last(r[1], lo, hi), subset_last(r[0], lo, hi),
            mT(subset_last(mT(r[2]), lo, hi))};
  }
  return {r[1], r[0], r[2]};
}

Array svd_values(const Array &x, std::optional<std::pair<int64_t, int64_t>> subset_by_index) {
  Array s = bind1(svd_p, {x}, {{"compute_uv", false}, {"full_matrices", false}});
  if (subset_by_index) {
    auto [lo, hi] = check_subset("svd", *subset_by_index, s.shape().back());
    return subset_last(s, lo, hi);
  }
  return s;
}

EigResult eig(const Array &x, bool compute_left_eigenvectors, bool compute_right_eigenvectors) {
  Vec r = bind(eig_p, {x},
               {{"compute_left_eigenvectors", compute_left_eigenvectors},
                {"compute_right_eigenvectors", compute_right_eigenvectors}});
  EigResult out{r[0], Array(), Array()};
  size_t i = 1;
  if (compute_left_eigenvectors)
    out.vl = r[i++];
  if (compute_right_eigenvectors)
    out.vr = r[i++];
  return out;
}

std::pair<Array, Array> schur(const Array &x, bool compute_schur_vectors, bool sort_eig_vals) {
  if (sort_eig_vals)
    fail_kind(ErrorKind::NotImplemented, "schur",
              "sort_eig_vals=True (LAPACK's sorting of the Schur form) is not implemented (as in "
              "JAX)");
  Vec r = bind(schur_p, {x}, {{"compute_schur_vectors", compute_schur_vectors}});
  return {r[0], r.size() > 1 ? r[1] : Array()};
}

std::pair<Array, Array> hessenberg(const Array &x) {
  Vec r = bind(hessenberg_p, {x});
  return {r[0], r[1]};
}

Array householder_product(const Array &a, const Array &taus) {
  return bind1(householder_product_p, {a, taus});
}

} // namespace lax::linalg
} // namespace strata
