// Binding of the fft primitive as strata._core.lax.fft (the Python layer, python/strata/_fft.py,
// adds FftType and JAX's argument handling).
#include "common.h"

namespace strata::python {

void init_fft(py::module_ &root) {
  py::module_ m = root.attr("lax").cast<py::module_>();
  m.def(
      "fft",
      [](py::handle x, const std::string &fft_type, const std::vector<int64_t> &fft_lengths) {
        return lax::fft(to_array(x), fft_type, fft_lengths);
      },
      py::arg("x"), py::arg("fft_type"), py::arg("fft_lengths"),
      "The FFT over the trailing len(fft_lengths) axes; fft_type 'FFT', 'IFFT', 'RFFT' or "
      "'IRFFT'.");
}

} // namespace strata::python
