// Bindings of strata::lax (include/strata/lax.h, one function per primitive) under
// strata._core.lax: lax's strict semantics, no implicit broadcasting or promotion.
#include "common.h"

namespace strata::python {
namespace {
std::vector<int64_t> ints(py::handle seq) {
  std::vector<int64_t> v;
  for (py::handle h : seq)
    v.push_back(index_of(h));
  return v;
}
} // namespace

void init_lax(py::module_ &root) {
  py::module_ m = root.def_submodule("lax", "strata.lax (include/strata/lax.h)");
  using py::arg;
  auto none = py::none();
#define STRATA_PY_UNARY(NAME) STRATA_PY_UNARY_OF(m, lax, NAME)
#define STRATA_PY_BINARY(NAME) STRATA_PY_BINARY_OF(m, lax, NAME, "x", "y")
  STRATA_PY_UNARY(neg);
  STRATA_PY_UNARY(abs);
  STRATA_PY_UNARY(sign);
  STRATA_PY_UNARY(floor);
  STRATA_PY_UNARY(ceil);
  STRATA_PY_UNARY(round);
  STRATA_PY_UNARY(exp);
  STRATA_PY_UNARY(log);
  STRATA_PY_UNARY(log1p);
  STRATA_PY_UNARY(expm1);
  STRATA_PY_UNARY(sqrt);
  STRATA_PY_UNARY(rsqrt);
  STRATA_PY_UNARY(sin);
  STRATA_PY_UNARY(cos);
  STRATA_PY_UNARY(tan);
  STRATA_PY_UNARY(tanh);
  STRATA_PY_UNARY(logistic);
  STRATA_PY_UNARY(erf);
  STRATA_PY_UNARY(erf_inv);
  STRATA_PY_UNARY(is_finite);
  STRATA_PY_UNARY(bitwise_not);
  STRATA_PY_UNARY(stop_gradient);
  STRATA_PY_BINARY(add);
  STRATA_PY_BINARY(sub);
  STRATA_PY_BINARY(mul);
  STRATA_PY_BINARY(div);
  STRATA_PY_BINARY(rem);
  STRATA_PY_BINARY(pow);
  STRATA_PY_BINARY(max);
  STRATA_PY_BINARY(min);
  STRATA_PY_BINARY(atan2);
  STRATA_PY_BINARY(bitwise_and);
  STRATA_PY_BINARY(bitwise_or);
  STRATA_PY_BINARY(bitwise_xor);
  STRATA_PY_BINARY(eq);
  STRATA_PY_BINARY(ne);
  STRATA_PY_BINARY(lt);
  STRATA_PY_BINARY(le);
  STRATA_PY_BINARY(gt);
  STRATA_PY_BINARY(ge);
  STRATA_PY_BINARY(shift_left);
  STRATA_PY_BINARY(shift_right_logical);
#undef STRATA_PY_UNARY
#undef STRATA_PY_BINARY
#define STRATA_PY_UNARY_DOC(NAME, DOC)                                                             \
  m.def(#NAME, [](py::handle x) { return lax::NAME(to_array(x)); }, arg("x"), DOC)
#define STRATA_PY_BINARY_DOC(NAME, A, B, DOC)                                                      \
  m.def(                                                                                           \
      #NAME,                                                                                       \
      [](py::handle x, py::handle y) {                                                             \
        auto [a, b] = to_arrays(x, y);                                                             \
        return lax::NAME(a, b);                                                                    \
      },                                                                                           \
      arg(A), arg(B), DOC)
  STRATA_PY_UNARY_DOC(sinh, "Elementwise hyperbolic sine.");
  STRATA_PY_UNARY_DOC(cosh, "Elementwise hyperbolic cosine.");
  STRATA_PY_UNARY_DOC(asin, "Elementwise arcsine.");
  STRATA_PY_UNARY_DOC(acos, "Elementwise arccosine.");
  STRATA_PY_UNARY_DOC(atan, "Elementwise arctangent.");
  STRATA_PY_UNARY_DOC(asinh, "Elementwise inverse hyperbolic sine.");
  STRATA_PY_UNARY_DOC(acosh, "Elementwise inverse hyperbolic cosine.");
  STRATA_PY_UNARY_DOC(atanh, "Elementwise inverse hyperbolic tangent.");
  STRATA_PY_UNARY_DOC(cbrt, "Elementwise cube root.");
  STRATA_PY_UNARY_DOC(exp2, "Elementwise base-2 exponential 2**x.");
  STRATA_PY_UNARY_DOC(population_count, "Elementwise number of set bits of integers.");
  STRATA_PY_UNARY_DOC(clz, "Elementwise number of leading zero bits of integers.");
  STRATA_PY_BINARY_DOC(shift_right_arithmetic, "x", "y",
                       "Elementwise sign-filling right shift of integers x >> y.");
  STRATA_PY_BINARY_DOC(nextafter, "x1", "x2",
                       "Elementwise next representable value after x1 in the direction of x2.");
  STRATA_PY_UNARY_DOC(bessel_i0e, "Elementwise exponentially scaled Bessel I0: exp(-|x|) i0(x).");
  STRATA_PY_UNARY_DOC(bessel_i1e, "Elementwise exponentially scaled Bessel I1: exp(-|x|) i1(x).");
  STRATA_PY_UNARY_DOC(erfc, "Elementwise complementary error function 1 - erf(x).");
  STRATA_PY_UNARY_DOC(lgamma, "Elementwise log of the absolute value of the gamma function.");
  STRATA_PY_UNARY_DOC(digamma, "Elementwise digamma psi(x) (NaN at 0 and negative integers).");
  STRATA_PY_BINARY_DOC(igamma, "a", "x", "Elementwise regularized incomplete gamma P(a, x).");
  STRATA_PY_BINARY_DOC(igammac, "a", "x",
                       "Elementwise complementary regularized incomplete gamma Q(a, x).");
  STRATA_PY_BINARY_DOC(igamma_grad_a, "a", "x",
                       "Elementwise derivative of igamma(a, x) with respect to a.");
  STRATA_PY_BINARY_DOC(random_gamma_grad, "a", "x",
                       "Elementwise derivative in a of samples x from Gamma(a, 1).");
  STRATA_PY_BINARY_DOC(polygamma, "m", "x",
                       "Elementwise polygamma psi^(m)(x); m holds non-negative integers.");
  STRATA_PY_BINARY_DOC(zeta, "x", "q", "Elementwise Hurwitz zeta function zeta(x, q).");
  m.def(
      "betainc",
      [](py::handle a, py::handle b, py::handle x) {
        Array xs = to_array(x);
        Array as = to_array(a, &xs), bs = to_array(b, &xs);
        return lax::betainc(as, bs, xs);
      },
      arg("a"), arg("b"), arg("x"), "Elementwise regularized incomplete beta integral I_x(a, b).");
  m.def(
      "square", [](py::handle x) { return lax::integer_pow(to_array(x), 2); }, arg("x"),
      "Elementwise square x * x.");
  m.def(
      "integer_pow", [](py::handle x, int64_t y) { return lax::integer_pow(to_array(x), y); },
      arg("x"), arg("y"));
  m.def(
      "select",
      [](py::handle p, py::handle t, py::handle f) {
        auto [a, b] = to_arrays(t, f);
        return lax::select(to_array(p), a, b);
      },
      arg("pred"), arg("on_true"), arg("on_false"));
  m.def(
      "clamp",
      [](py::handle lo, py::handle x, py::handle hi) {
        Array a = to_array(x);
        return lax::clamp(to_array(lo, &a), a, to_array(hi, &a));
      },
      arg("min"), arg("x"), arg("max"));
  m.def(
      "convert_element_type",
      [](py::handle x, py::handle dt) {
        return lax::convert_element_type(to_array(x), dtype_from_py(dt));
      },
      arg("operand"), arg("new_dtype"));
  m.def(
      "bitcast_convert_type",
      [](py::handle x, py::handle dt) {
        return lax::bitcast_convert_type(to_array(x), dtype_from_py(dt));
      },
      arg("operand"), arg("new_dtype"));
  m.def(
      "iota",
      [](py::handle dt, int64_t size) { return lax::iota(dtype_from_py(dt), Shape{size}, 0); },
      arg("dtype"), arg("size"));
  m.def(
      "broadcasted_iota",
      [](py::handle dt, py::handle shape, int64_t dim) {
        return lax::iota(dtype_from_py(dt), to_shape(shape), dim);
      },
      arg("dtype"), arg("shape"), arg("dimension"));
  m.def(
      "broadcast_in_dim",
      [](py::handle x, py::handle shape, py::handle dims) {
        return lax::broadcast_in_dim(to_array(x), to_shape(shape), ints(dims));
      },
      arg("operand"), arg("shape"), arg("broadcast_dimensions"));
  m.def(
      "reshape",
      [](py::handle x, py::handle sizes) { return lax::reshape(to_array(x), to_shape(sizes)); },
      arg("operand"), arg("new_sizes"));
  m.def(
      "transpose",
      [](py::handle x, py::handle perm) { return lax::transpose(to_array(x), ints(perm)); },
      arg("operand"), arg("permutation"));
  m.def(
      "rev", [](py::handle x, py::handle dims) { return lax::rev(to_array(x), ints(dims)); },
      arg("operand"), arg("dimensions"));
  m.def(
      "slice",
      [](py::handle x, py::handle start, py::handle limit, py::handle strides) {
        return lax::slice(to_array(x), ints(start), ints(limit),
                          strides.is_none() ? std::vector<int64_t>{} : ints(strides));
      },
      arg("operand"), arg("start_indices"), arg("limit_indices"), arg("strides") = none);
  m.def(
      "dynamic_slice",
      [](py::handle x, py::handle starts, py::handle sizes) {
        return lax::dynamic_slice(to_array(x), to_array_list(starts), to_shape(sizes));
      },
      arg("operand"), arg("start_indices"), arg("slice_sizes"));
  m.def(
      "dynamic_update_slice",
      [](py::handle x, py::handle update, py::handle starts) {
        return lax::dynamic_update_slice(to_array(x), to_array(update), to_array_list(starts));
      },
      arg("operand"), arg("update"), arg("start_indices"));
  m.def(
      "pad",
      [](py::handle x, py::handle value, py::handle config) {
        Array a = to_array(x);
        std::vector<int64_t> lo, hi, in;
        for (py::handle c : config) {
          auto t = ints(c);
          if (t.size() != 3)
            throw py::value_error("[pad] padding_config entries are (low, high, interior)");
          lo.push_back(t[0]);
          hi.push_back(t[1]);
          in.push_back(t[2]);
        }
        return lax::pad(a, to_array(value, &a), lo, hi, in);
      },
      arg("operand"), arg("padding_value"), arg("padding_config"));
  m.def(
      "concatenate",
      [](py::handle xs, int64_t dim) { return lax::concatenate(to_array_list(xs), dim); },
      arg("operands"), arg("dimension"));
#define STRATA_PY_REDUCE(NAME)                                                                     \
  m.def(                                                                                           \
      #NAME, [](py::handle x, py::handle axes) { return lax::NAME(to_array(x), ints(axes)); },     \
      arg("operand"), arg("axes"))
  STRATA_PY_REDUCE(reduce_sum);
  STRATA_PY_REDUCE(reduce_max);
  STRATA_PY_REDUCE(reduce_min);
  STRATA_PY_REDUCE(reduce_prod);
#undef STRATA_PY_REDUCE
  m.def(
      "argmax",
      [](py::handle x, int64_t axis, py::handle dt) {
        return lax::argmax(to_array(x), axis, optional_dtype(dt).value_or(DType::Int32));
      },
      arg("operand"), arg("axis"), arg("index_dtype") = none);
  m.def(
      "argmin",
      [](py::handle x, int64_t axis, py::handle dt) {
        return lax::argmin(to_array(x), axis, optional_dtype(dt).value_or(DType::Int32));
      },
      arg("operand"), arg("axis"), arg("index_dtype") = none);
#define STRATA_PY_CUM(NAME)                                                                        \
  m.def(                                                                                           \
      #NAME,                                                                                       \
      [](py::handle x, int64_t axis, bool reverse) {                                               \
        return lax::NAME(to_array(x), axis, reverse);                                              \
      },                                                                                           \
      arg("operand"), arg("axis") = 0, arg("reverse") = false)
  STRATA_PY_CUM(cumsum);
  STRATA_PY_CUM(cumprod);
  STRATA_PY_CUM(cummax);
  STRATA_PY_CUM(cummin);
#undef STRATA_PY_CUM
  m.def(
      "dot_general",
      [](py::handle lhs, py::handle rhs, py::handle dims, py::handle pet) {
        // jax.lax's form: ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)).
        lax::DotDimensionNumbers d;
        py::sequence s = py::reinterpret_borrow<py::sequence>(dims);
        py::sequence c = s[0], b = s[1];
        d.lhs_contracting = ints(c[0]);
        d.rhs_contracting = ints(c[1]);
        d.lhs_batch = ints(b[0]);
        d.rhs_batch = ints(b[1]);
        return lax::dot_general(to_array(lhs), to_array(rhs), d, optional_dtype(pet));
      },
      arg("lhs"), arg("rhs"), arg("dimension_numbers"), arg("preferred_element_type") = none);
  m.def(
      "sort",
      [](py::handle operand, int64_t dimension, int64_t num_keys) -> py::object {
        if (py::isinstance<py::list>(operand) || py::isinstance<py::tuple>(operand))
          return py::cast(lax::sort(to_array_list(operand), dimension, num_keys));
        return py::cast(lax::sort({to_array(operand)}, dimension, num_keys)[0]);
      },
      arg("operand"), arg("dimension") = -1, arg("num_keys") = 1);
  auto scatter_dims = [](py::handle dims) {
    // (update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims)
    py::sequence s = py::reinterpret_borrow<py::sequence>(dims);
    return lax::ScatterDimensionNumbers{ints(s[0]), ints(s[1]), ints(s[2])};
  };
  m.def(
      "scatter_add",
      [=](py::handle x, py::handle idx, py::handle upd, py::handle dims) {
        return lax::scatter_add(to_array(x), to_array(idx), to_array(upd), scatter_dims(dims));
      },
      arg("operand"), arg("scatter_indices"), arg("updates"), arg("dimension_numbers"),
      "dimension_numbers: (update_window_dims, inserted_window_dims, "
      "scatter_dims_to_operand_dims); out-of-bounds updates are dropped.");
  m.def(
      "scatter",
      [=](py::handle x, py::handle idx, py::handle upd, py::handle dims) {
        return lax::scatter(to_array(x), to_array(idx), to_array(upd), scatter_dims(dims));
      },
      arg("operand"), arg("scatter_indices"), arg("updates"), arg("dimension_numbers"));
  m.def(
      "checkpoint_name",
      [](py::handle x, const std::string &name) { return checkpoint_name(to_array(x), name); },
      arg("x"), arg("name"));
}

} // namespace strata::python
