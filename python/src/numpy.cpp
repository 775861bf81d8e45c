// Bindings of the numpy-style surface (include/strata/ops.h) under strata._core.numpy; the
// package's strata/numpy.py re-exports them with jax.numpy's names and signatures.
#include "common.h"

namespace strata::python {

void init_numpy(py::module_ &root) {
  py::module_ m = root.def_submodule("numpy", "strata.numpy's C++ half (include/strata/ops.h)");
  using py::arg;
  auto none = py::none();

  // ---- Creation ---------------------------------------------------------------------------
  m.def(
      "zeros",
      [](py::handle shape, py::handle dt) {
        return zeros(to_shape(shape), optional_dtype(dt).value_or(default_float_dtype()));
      },
      arg("shape"), arg("dtype") = none);
  m.def(
      "ones",
      [](py::handle shape, py::handle dt) {
        return ones(to_shape(shape), optional_dtype(dt).value_or(default_float_dtype()));
      },
      arg("shape"), arg("dtype") = none);
  // JAX's lax.full / full_like: the result is weakly typed when no dtype is given and the fill
  // value (full) or the template (full_like, zeros_like, ones_like) is weak.
  m.def(
      "full",
      [](py::handle shape, py::handle value, py::handle dt) {
        std::optional<DType> t = optional_dtype(dt);
        Array v = t ? asarray(value, t) : to_array(value);
        return full(to_shape(shape), v).with_weak_type(!t && v.weak_type());
      },
      arg("shape"), arg("fill_value"), arg("dtype") = none);
  m.def(
      "zeros_like",
      [](py::handle x, py::handle dt) {
        Array a = to_array(x);
        std::optional<DType> t = optional_dtype(dt);
        return zeros(a.shape(), t.value_or(a.dtype())).with_weak_type(!t && a.weak_type());
      },
      arg("a"), arg("dtype") = none);
  m.def(
      "ones_like",
      [](py::handle x, py::handle dt) {
        Array a = to_array(x);
        std::optional<DType> t = optional_dtype(dt);
        return ones(a.shape(), t.value_or(a.dtype())).with_weak_type(!t && a.weak_type());
      },
      arg("a"), arg("dtype") = none);
  m.def(
      "full_like",
      [](py::handle x, py::handle value, py::handle dt) {
        Array a = to_array(x);
        std::optional<DType> t = optional_dtype(dt);
        Array v = astype(to_array(value), t.value_or(a.dtype()));
        return full(a.shape(), v).with_weak_type(!t && a.weak_type());
      },
      arg("a"), arg("fill_value"), arg("dtype") = none);
  m.def(
      "arange",
      [](double start, std::optional<double> stop, double step, py::handle dt) {
        if (!stop)
          return arange(0.0, start, step, optional_dtype(dt));
        return arange(start, *stop, step, optional_dtype(dt));
      },
      arg("start"), arg("stop") = none, arg("step") = 1.0, arg("dtype") = none,
      "Like jnp.arange; the dtype is i32 when all arguments are integral, else f32.");
  m.def(
      "linspace",
      [](double start, double stop, int64_t num, bool endpoint, py::handle dt) {
        return linspace(start, stop, num, endpoint,
                        optional_dtype(dt).value_or(default_float_dtype()));
      },
      arg("start"), arg("stop"), arg("num") = 50, arg("endpoint") = true, arg("dtype") = none);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> mm, int64_t k, py::handle dt) {
        return eye(n, mm, k, optional_dtype(dt).value_or(default_float_dtype()));
      },
      arg("N"), arg("M") = none, arg("k") = 0, arg("dtype") = none);
  m.def(
      "result_type",
      [](py::args xs) {
        std::vector<Array> arrays;
        for (py::handle h : xs)
          arrays.push_back(to_array(h));
        return numpy_dtype(result_type(arrays));
      },
      "The promoted dtype of the operands (JAX's lattice; Python scalars are weak).");
  m.def(
      "promote_types",
      [](py::handle a, py::handle b) {
        // As JAX: not canonicalized (promote_types(u32, i64) is i64 either way), and the Python
        // types int and float are weak (promote_types(uint8, int) is uint8); a weak result is
        // numpy's dtype of the Python type (int64, float64).
        auto typed = [](py::handle t) {
          bool weak = t.ptr() == reinterpret_cast<PyObject *>(&PyLong_Type) ||
                      t.ptr() == reinterpret_cast<PyObject *>(&PyFloat_Type) ||
                      t.ptr() == reinterpret_cast<PyObject *>(&PyComplex_Type);
          return TypedDType{dtype_from_py(t, false), weak};
        };
        TypedDType ta = typed(a), tb = typed(b);
        if (!ta.weak && !tb.weak)
          return numpy_dtype(promote_types(ta.dtype, tb.dtype));
        TypedDType r = promote_types(ta, tb);
        if (r.weak)
          return numpy_dtype(is_complex(r.dtype)    ? DType::Complex128
                             : is_floating(r.dtype) ? DType::Float64
                                                    : DType::Int64);
        return numpy_dtype(r.dtype);
      },
      arg("a"), arg("b"));

  // ---- Elementwise --------------------------------------------------------------------------
#define STRATA_PY_UNARY(NAME) STRATA_PY_UNARY_OF(m, strata, NAME)
#define STRATA_PY_BINARY(NAME) STRATA_PY_BINARY_OF(m, strata, NAME, "x1", "x2")
  STRATA_PY_BINARY(add);
  STRATA_PY_BINARY(subtract);
  STRATA_PY_BINARY(multiply);
  STRATA_PY_BINARY(divide);
  STRATA_PY_BINARY(floor_divide);
  STRATA_PY_BINARY(remainder);
  STRATA_PY_BINARY(power);
  STRATA_PY_BINARY(maximum);
  STRATA_PY_BINARY(minimum);
  STRATA_PY_BINARY(arctan2);
  m.def(
      "nextafter",
      [](py::handle x1, py::handle x2) {
        auto [a, b] = to_arrays(x1, x2);
        return strata::nextafter(a, b);
      },
      py::arg("x1"), py::arg("x2"),
      "The next representable value after x1 in the direction of x2, elementwise (broadcasts).");
  STRATA_PY_BINARY(equal);
  STRATA_PY_BINARY(not_equal);
  STRATA_PY_BINARY(less);
  STRATA_PY_BINARY(less_equal);
  STRATA_PY_BINARY(greater);
  STRATA_PY_BINARY(greater_equal);
  STRATA_PY_BINARY(logical_and);
  STRATA_PY_BINARY(logical_or);
  STRATA_PY_BINARY(logical_xor);
  STRATA_PY_BINARY(bitwise_and);
  STRATA_PY_BINARY(bitwise_or);
  STRATA_PY_BINARY(bitwise_xor);
  STRATA_PY_BINARY(matmul);
  STRATA_PY_UNARY(logical_not);
  STRATA_PY_UNARY(bitwise_not);
  STRATA_PY_UNARY(negative);
  STRATA_PY_UNARY(abs);
  STRATA_PY_UNARY(sign);
  STRATA_PY_UNARY(floor);
  STRATA_PY_UNARY(ceil);
  STRATA_PY_UNARY(round);
  STRATA_PY_UNARY(square);
  STRATA_PY_UNARY(reciprocal);
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
  m.def(
      "sinh", [](py::handle x) { return strata::sinh(to_array(x)); }, py::arg("x"),
      "Elementwise hyperbolic sine (integers promote to the default float).");
  m.def(
      "cosh", [](py::handle x) { return strata::cosh(to_array(x)); }, py::arg("x"),
      "Elementwise hyperbolic cosine (integers promote to the default float).");
  m.def(
      "arcsin", [](py::handle x) { return strata::arcsin(to_array(x)); }, py::arg("x"),
      "Elementwise inverse sine (integers promote to the default float).");
  m.def(
      "arccos", [](py::handle x) { return strata::arccos(to_array(x)); }, py::arg("x"),
      "Elementwise inverse cosine (integers promote to the default float).");
  m.def(
      "arctan", [](py::handle x) { return strata::arctan(to_array(x)); }, py::arg("x"),
      "Elementwise inverse tangent (integers promote to the default float).");
  m.def(
      "arcsinh", [](py::handle x) { return strata::arcsinh(to_array(x)); }, py::arg("x"),
      "Elementwise inverse hyperbolic sine (integers promote to the default float).");
  m.def(
      "arccosh", [](py::handle x) { return strata::arccosh(to_array(x)); }, py::arg("x"),
      "Elementwise inverse hyperbolic cosine (integers promote to the default float).");
  m.def(
      "arctanh", [](py::handle x) { return strata::arctanh(to_array(x)); }, py::arg("x"),
      "Elementwise inverse hyperbolic tangent (integers promote to the default float).");
  m.def(
      "cbrt", [](py::handle x) { return strata::cbrt(to_array(x)); }, py::arg("x"),
      "Elementwise cube root (integers promote to the default float).");
  m.def(
      "exp2", [](py::handle x) { return strata::exp2(to_array(x)); }, py::arg("x"),
      "Elementwise 2**x (integers promote to the default float).");
  STRATA_PY_UNARY(erf);
  STRATA_PY_UNARY(isfinite);
  STRATA_PY_UNARY(ravel);
#undef STRATA_PY_UNARY
#undef STRATA_PY_BINARY
  m.def(
      "where",
      [](py::handle c, py::handle x, py::handle y) {
        auto [a, b] = to_arrays(x, y);
        return where(to_array(c), a, b);
      },
      arg("condition"), arg("x"), arg("y"));
  m.def(
      "clip",
      [](py::handle x, py::handle lo, py::handle hi) {
        Array a = to_array(x);
        std::optional<Array> l, h;
        if (!lo.is_none())
          l = to_array(lo, &a);
        if (!hi.is_none())
          h = to_array(hi, &a);
        return clip(a, l, h);
      },
      arg("a"), arg("a_min") = none, arg("a_max") = none);
  m.def(
      "astype", [](py::handle x, py::handle dt) { return astype(to_array(x), dtype_from_py(dt)); },
      arg("x"), arg("dtype"));

  // ---- Reductions -------------------------------------------------------------------------
#define STRATA_PY_REDUCE(NAME)                                                                     \
  m.def(                                                                                           \
      #NAME,                                                                                       \
      [](py::handle x, py::handle axis, bool keepdims) {                                           \
        return strata::NAME(to_array(x), to_axes(axis), keepdims);                                 \
      },                                                                                           \
      arg("a"), arg("axis") = none, arg("keepdims") = false)
  STRATA_PY_REDUCE(sum);
  STRATA_PY_REDUCE(prod);
  STRATA_PY_REDUCE(max);
  STRATA_PY_REDUCE(min);
  STRATA_PY_REDUCE(mean);
  STRATA_PY_REDUCE(all);
  STRATA_PY_REDUCE(any);
#undef STRATA_PY_REDUCE
  m.def(
      "var",
      [](py::handle x, py::handle axis, bool keepdims, int ddof) {
        return var(to_array(x), to_axes(axis), keepdims, ddof);
      },
      arg("a"), arg("axis") = none, arg("keepdims") = false, arg("ddof") = 0);
  m.def(
      "std",
      [](py::handle x, py::handle axis, bool keepdims, int ddof) {
        return strata::std(to_array(x), to_axes(axis), keepdims, ddof);
      },
      arg("a"), arg("axis") = none, arg("keepdims") = false, arg("ddof") = 0);
  m.def(
      "argmax",
      [](py::handle x, std::optional<int> axis, bool keepdims) {
        return argmax(to_array(x), axis, keepdims);
      },
      arg("a"), arg("axis") = none, arg("keepdims") = false);
  m.def(
      "argmin",
      [](py::handle x, std::optional<int> axis, bool keepdims) {
        return argmin(to_array(x), axis, keepdims);
      },
      arg("a"), arg("axis") = none, arg("keepdims") = false);
  m.def(
      "cumsum", [](py::handle x, std::optional<int> axis) { return cumsum(to_array(x), axis); },
      arg("a"), arg("axis") = none);
  m.def(
      "cumprod", [](py::handle x, std::optional<int> axis) { return cumprod(to_array(x), axis); },
      arg("a"), arg("axis") = none);

  // ---- Linear algebra ---------------------------------------------------------------------
  m.def(
      "einsum",
      [](const std::string &subscripts, py::args operands) {
        return einsum(subscripts, to_array_list(operands));
      },
      arg("subscripts"));

  // ---- Shapes -----------------------------------------------------------------------------
  m.def(
      "reshape",
      [](py::handle x, py::handle shape) { return reshape(to_array(x), to_shape(shape)); },
      arg("a"), arg("newshape"));
  m.def(
      "transpose",
      [](py::handle x, std::optional<std::vector<int>> axes) {
        return transpose(to_array(x), axes);
      },
      arg("a"), arg("axes") = none);
  m.def(
      "swapaxes", [](py::handle x, int a, int b) { return swapaxes(to_array(x), a, b); }, arg("a"),
      arg("axis1"), arg("axis2"));
  m.def(
      "moveaxis", [](py::handle x, int s, int d) { return moveaxis(to_array(x), s, d); }, arg("a"),
      arg("source"), arg("destination"));
  m.def(
      "squeeze", [](py::handle x, py::handle axis) { return squeeze(to_array(x), to_axes(axis)); },
      arg("a"), arg("axis") = none);
  m.def(
      "expand_dims",
      [](py::handle x, py::handle axis) { return expand_dims(to_array(x), to_axes(axis)); },
      arg("a"), arg("axis"));
  m.def(
      "broadcast_to",
      [](py::handle x, py::handle shape) { return broadcast_to(to_array(x), to_shape(shape)); },
      arg("array"), arg("shape"));
  m.def("broadcast_arrays", [](py::args xs) { return broadcast_arrays(to_array_list(xs)); });
  m.def("broadcast_shapes", [](py::args shapes) {
    Shape s;
    for (py::handle h : shapes)
      s = broadcast_shapes(s, to_shape(h));
    py::tuple t(s.size());
    for (size_t i = 0; i < s.size(); ++i)
      t[i] = s[i];
    return t;
  });
  m.def(
      "concatenate", [](py::handle xs, int axis) { return concatenate(to_array_list(xs), axis); },
      arg("arrays"), arg("axis") = 0);
  m.def(
      "stack", [](py::handle xs, int axis) { return stack(to_array_list(xs), axis); },
      arg("arrays"), arg("axis") = 0);
  m.def(
      "split",
      [](py::handle x, py::handle sections, int axis) {
        Array a = to_array(x);
        if (PyIndex_Check(sections.ptr()))
          return split(a, index_of(sections), axis);
        return split(a, sections.cast<std::vector<int64_t>>(), axis);
      },
      arg("ary"), arg("indices_or_sections"), arg("axis") = 0);
  m.def(
      "flip", [](py::handle x, py::handle axis) { return flip(to_array(x), to_axes(axis)); },
      arg("m"), arg("axis") = none);

  // ---- Indexing ---------------------------------------------------------------------------
  m.def(
      "take",
      [](py::handle x, py::handle idx, std::optional<int> axis) {
        return take(to_array(x), to_array(idx), axis);
      },
      arg("a"), arg("indices"), arg("axis") = none);
  m.def(
      "take_along_axis",
      [](py::handle x, py::handle idx, int axis) {
        return take_along_axis(to_array(x), to_array(idx), axis);
      },
      arg("arr"), arg("indices"), arg("axis"));
}

} // namespace strata::python
