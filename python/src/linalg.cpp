// Bindings of strata::lax::linalg (include/strata/linalg.h) under strata._core.linalg; the
// Python layer (strata/_lax_linalg.py) gives them JAX's keyword-only signatures.
#include "common.h"

#include "strata/linalg.h"

namespace strata::python {
namespace {
/// An optional (lo, hi) pair from None or a 2-sequence.
std::optional<std::pair<int64_t, int64_t>> subset(py::handle h) {
  if (h.is_none())
    return std::nullopt;
  py::sequence s = py::reinterpret_borrow<py::sequence>(h);
  return std::pair<int64_t, int64_t>{index_of(s[0]), index_of(s[1])};
}
} // namespace

void init_linalg(py::module_ &root) {
  py::module_ m = root.def_submodule("linalg", "strata.lax.linalg (include/strata/linalg.h)");
  using py::arg;
  namespace la = lax::linalg;
  m.def(
      "cholesky",
      [](py::handle x, bool symmetrize_input) {
        return la::cholesky(to_array(x), symmetrize_input);
      },
      arg("x"), arg("symmetrize_input") = true);
  m.def(
      "triangular_solve",
      [](py::handle a, py::handle b, bool left_side, bool lower, bool transpose_a, bool conjugate_a,
         bool unit_diagonal) {
        return la::triangular_solve(to_array(a), to_array(b), left_side, lower, transpose_a,
                                    conjugate_a, unit_diagonal);
      },
      arg("a"), arg("b"), arg("left_side") = false, arg("lower") = false,
      arg("transpose_a") = false, arg("conjugate_a") = false, arg("unit_diagonal") = false);
  m.def(
      "lu",
      [](py::handle x) {
        la::LuResult r = la::lu(to_array(x));
        return py::make_tuple(r.lu, r.pivots, r.permutation);
      },
      arg("x"));
  m.def(
      "lu_pivots_to_permutation",
      [](py::handle pivots, int64_t permutation_size) {
        return la::lu_pivots_to_permutation(to_array(pivots), permutation_size);
      },
      arg("pivots"), arg("permutation_size"));
  m.def(
      "qr",
      [](py::handle x, bool pivoting, bool full_matrices) {
        auto [q, r] = la::qr(to_array(x), pivoting, full_matrices);
        return py::make_tuple(q, r);
      },
      arg("x"), arg("pivoting") = false, arg("full_matrices") = true);
  m.def(
      "eigh",
      [](py::handle x, bool lower, bool symmetrize_input, bool sort_eigenvalues,
         py::handle subset_by_index) {
        auto [v, w] = la::eigh(to_array(x), lower, symmetrize_input, sort_eigenvalues,
                               subset(subset_by_index));
        return py::make_tuple(v, w);
      },
      arg("x"), arg("lower") = true, arg("symmetrize_input") = true, arg("sort_eigenvalues") = true,
      arg("subset_by_index") = py::none());
  m.def(
      "svd",
      [](py::handle x, bool full_matrices, bool compute_uv,
         py::handle subset_by_index) -> py::object {
        if (!compute_uv)
          return py::cast(la::svd_values(to_array(x), subset(subset_by_index)));
        la::SvdResult r = la::svd(to_array(x), full_matrices, subset(subset_by_index));
        return py::make_tuple(r.u, r.s, r.vh);
      },
      arg("x"), arg("full_matrices") = true, arg("compute_uv") = true,
      arg("subset_by_index") = py::none());
  // The nonsymmetric eigenproblem: lists of the outputs computed, as JAX's primitives return.
  m.def(
      "eig",
      [](py::handle x, bool left, bool right) {
        la::EigResult r = la::eig(to_array(x), left, right);
        py::list out;
        out.append(r.w);
        if (left)
          out.append(r.vl);
        if (right)
          out.append(r.vr);
        return out;
      },
      arg("x"), arg("compute_left_eigenvectors") = true, arg("compute_right_eigenvectors") = true);
  m.def(
      "schur",
      [](py::handle x, bool compute_schur_vectors, bool sort_eig_vals) -> py::object {
        auto [t, vs] = la::schur(to_array(x), compute_schur_vectors, sort_eig_vals);
        if (!compute_schur_vectors)
          return py::make_tuple(t);
        return py::make_tuple(t, vs);
      },
      arg("x"), arg("compute_schur_vectors") = true, arg("sort_eig_vals") = false);
  m.def(
      "hessenberg",
      [](py::handle x) {
        auto [a, taus] = la::hessenberg(to_array(x));
        return py::make_tuple(a, taus);
      },
      arg("x"));
  m.def(
      "householder_product",
      [](py::handle a, py::handle taus) {
        return la::householder_product(to_array(a), to_array(taus));
      },
      arg("a"), arg("taus"));
}

} // namespace strata::python
