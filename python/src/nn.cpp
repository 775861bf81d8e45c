// Bindings of strata::nn (include/strata/nn.h) under strata._core.nn.
#include "common.h"

namespace strata::python {

void init_nn(py::module_ &root) {
  py::module_ m = root.def_submodule("nn", "strata.nn's C++ half (include/strata/nn.h)");
  using py::arg;
  auto none = py::none();
  m.def("relu", [](py::handle x) { return nn::relu(to_array(x)); }, arg("x"));
  m.def(
      "gelu", [](py::handle x, bool approximate) { return nn::gelu(to_array(x), approximate); },
      arg("x"), arg("approximate") = true);
  m.def("silu", [](py::handle x) { return nn::silu(to_array(x)); }, arg("x"));
  m.def("sigmoid", [](py::handle x) { return nn::sigmoid(to_array(x)); }, arg("x"));
  m.def(
      "softmax",
      [](py::handle x, py::handle axis) { return nn::softmax(to_array(x), to_axes(axis)); },
      arg("x"), arg("axis") = -1);
  m.def(
      "log_softmax",
      [](py::handle x, py::handle axis) { return nn::log_softmax(to_array(x), to_axes(axis)); },
      arg("x"), arg("axis") = -1);
  m.def(
      "logsumexp",
      [](py::handle x, py::handle axis, bool keepdims) {
        return nn::logsumexp(to_array(x), to_axes(axis), keepdims);
      },
      arg("a"), arg("axis") = none, arg("keepdims") = false);
  m.def(
      "one_hot",
      [](py::handle x, int64_t num_classes, py::handle dt) {
        return nn::one_hot(to_array(x), num_classes,
                           optional_dtype(dt).value_or(default_float_dtype()));
      },
      arg("x"), arg("num_classes"), arg("dtype") = none);
  m.def(
      "layer_norm",
      [](py::handle x, py::handle scale, py::handle bias, double eps) {
        std::optional<Array> s, b;
        if (!scale.is_none())
          s = to_array(scale);
        if (!bias.is_none())
          b = to_array(bias);
        return nn::layer_norm(to_array(x), s, b, eps);
      },
      arg("x"), arg("scale") = none, arg("bias") = none, arg("eps") = 1e-5);
  m.def(
      "rms_norm",
      [](py::handle x, py::handle scale, double eps) {
        std::optional<Array> s;
        if (!scale.is_none())
          s = to_array(scale);
        return nn::rms_norm(to_array(x), s, eps);
      },
      arg("x"), arg("scale") = none, arg("eps") = 1e-6);
}

} // namespace strata::python
