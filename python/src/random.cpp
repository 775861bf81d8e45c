// Bindings of strata::random (include/strata/random.h) under strata._core.random.
#include "common.h"

namespace strata::python {

void init_random(py::module_ &root) {
  py::module_ m =
      root.def_submodule("random", "strata.random's C++ half (include/strata/random.h)");
  using py::arg;
  auto none = py::none();
  auto shape_of = [](py::handle s) { return s.is_none() ? Shape{} : to_shape(s); };
  m.def(
      "key", [](uint64_t seed) { return random::key(seed); }, arg("seed"),
      "The key for a seed: a u32[2] array, bit-compatible with jax.random.PRNGKey.");
  m.def(
      "split", [](py::handle key, int64_t num) { return random::split(to_array(key), num); },
      arg("key"), arg("num") = 2);
  m.def(
      "fold_in", [](py::handle key, uint32_t data) { return random::fold_in(to_array(key), data); },
      arg("key"), arg("data"));
  m.def(
      "bits",
      [=](py::handle key, py::handle shape) {
        return random::bits(to_array(key), shape_of(shape));
      },
      arg("key"), arg("shape") = none);
  m.def(
      "uniform",
      [=](py::handle key, py::handle shape, py::handle dt, double minval, double maxval) {
        return random::uniform(to_array(key), shape_of(shape),
                               optional_dtype(dt).value_or(default_float_dtype()), minval, maxval);
      },
      arg("key"), arg("shape") = none, arg("dtype") = none, arg("minval") = 0.0,
      arg("maxval") = 1.0);
  m.def(
      "normal",
      [=](py::handle key, py::handle shape, py::handle dt) {
        return random::normal(to_array(key), shape_of(shape),
                              optional_dtype(dt).value_or(default_float_dtype()));
      },
      arg("key"), arg("shape") = none, arg("dtype") = none);
  m.def(
      "bernoulli",
      [=](py::handle key, double p, py::handle shape) {
        return random::bernoulli(to_array(key), p, shape_of(shape));
      },
      arg("key"), arg("p") = 0.5, arg("shape") = none);
  m.def(
      "randint",
      [=](py::handle key, py::handle shape, int64_t minval, int64_t maxval, py::handle dt) {
        return random::randint(to_array(key), shape_of(shape), minval, maxval,
                               optional_dtype(dt).value_or(default_int_dtype()));
      },
      arg("key"), arg("shape"), arg("minval"), arg("maxval"), arg("dtype") = none);
  m.def(
      "permutation",
      [](py::handle key, py::handle x) {
        if (PyIndex_Check(x.ptr()) && !py::isinstance<Array>(x))
          return random::permutation(to_array(key), index_of(x));
        return random::permutation(to_array(key), to_array(x));
      },
      arg("key"), arg("x"),
      "A permutation of range(x) for an int x, else x shuffled along axis 0.");
}

} // namespace strata::python
