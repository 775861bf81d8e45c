// strata._core: the pybind11 extension under the `strata` package. It maps strata::Error to
// Python exceptions by kind and calls each binding file's init function.
#include "common.h"

#include "strata/allocation_error.h"
#include "strata/device.h"
#include "strata/jit.h"

namespace strata::python {
/// Linear algebra: strata._core.linalg (python/src/linalg.cpp).
void init_linalg(py::module_ &m);
} // namespace strata::python

PYBIND11_MODULE(_core, m) {
  using namespace strata;
  m.doc() = "Strata's C++ core (arrays, ops, transforms, jit); use the `strata` package on top.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const FloatingPointError &e) {
      PyErr_SetString(PyExc_FloatingPointError, e.what()); // jax_debug_nans / jax_debug_infs
    } catch (const AllocationError &e) {
      PyErr_SetString(PyExc_MemoryError, e.what()); // too large, or out of memory
    } catch (const Error &e) {
      PyObject *type = PyExc_ValueError;
      switch (e.kind()) {
      case ErrorKind::Type:
        type = PyExc_TypeError;
        break;
      case ErrorKind::Index:
        type = PyExc_IndexError;
        break;
      case ErrorKind::Internal:
        type = PyExc_RuntimeError;
        break;
      case ErrorKind::NotImplemented:
        type = PyExc_NotImplementedError;
        break;
      case ErrorKind::Value:
        break;
      }
      PyErr_SetString(type, e.what());
    } catch (const std::bad_alloc &e) { // a container's allocation (strata's own say more)
      PyErr_SetString(PyExc_MemoryError,
                      (std::string("[alloc] out of host memory (") + e.what() + ")").c_str());
    }
  });
  python::init_array(m);
  python::init_numpy(m);
  python::init_nn(m);
  python::init_random(m);
  python::init_lax(m);
  python::init_transforms(m);
  python::init_control_flow(m);
  python::init_jit(m);
  python::init_dlpack(m);
  python::init_callback(m);
  // complex family
  python::init_complex(m);
  python::init_linalg(m); // linear algebra
  // fft family
  python::init_fft(m);
  python::init_conv(m); // convolution
  // ---- Windowed reductions
  python::init_window(m);
  m.def(
      "devices",
      [] {
        std::vector<std::string> out;
        for (const Device &d : strata::devices())
          out.push_back(d.to_string());
        return out;
      },
      "Names of the devices this process can use: cpu:0, then cuda:N for each GPU found.");
  m.def(
      "device_put",
      [](const Array &x, const std::string &device) {
        return strata::device_put(x, parse_device(device));
      },
      "A copy of x on the named device (x itself when it is there).");
  m.def(
      "describe_device",
      [](const std::string &name) {
        Device d = parse_device(name);
        if (d.kind == Device::Kind::CPU)
          return std::string("cpu");
        DeviceBackend *b = device_backend(d.kind);
        return b ? b->describe(d.index) : std::string();
      },
      py::arg("name"), "A short description of the named device (\"NVIDIA H200, sm_90, ...\").");
  m.def(
      "gpu_unavailable_reason",
      [] {
        DeviceBackend *b = device_backend(Device::Kind::CUDA);
        return b ? b->unavailable_reason() : std::string("no CUDA runtime is loaded");
      },
      "Why no GPU is listed by devices() (empty when one is).");
  // Executables in the jit cache may hold Python objects (output structures); drop them while
  // the interpreter is still alive.
  py::module_::import("atexit").attr("register")(py::cpp_function([] { clear_jit_cache(); }));
}
