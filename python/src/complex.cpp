// Bindings of the complex-number primitives (lax.complex, real, imag, conj) under
// strata._core.lax, beside the other lax functions.
#include "common.h"

namespace strata::python {

void init_complex(py::module_ &root) {
  py::module_ m = root.attr("lax").cast<py::module_>();
  m.def(
      "complex",
      [](py::handle x, py::handle y) {
        auto [a, b] = to_arrays(x, y);
        return lax::complex(a, b);
      },
      py::arg("x"), py::arg("y"),
      "x + iy from two f32 (-> complex64) or f64 (-> complex128) arrays.");
  m.def(
      "real", [](py::handle x) { return lax::real(to_array(x)); }, py::arg("x"),
      "The real part of a complex array.");
  m.def(
      "imag", [](py::handle x) { return lax::imag(to_array(x)); }, py::arg("x"),
      "The imaginary part of a complex array.");
  m.def(
      "conj", [](py::handle x) { return lax::conj(to_array(x)); }, py::arg("x"),
      "The complex conjugate (of an f32/f64 array: its complex value).");
}

} // namespace strata::python
