// strata._core: the pybind11 extension under the `strata` package. It maps strata::Error to
// Python exceptions by kind and calls each binding file's init function.
#include "common.h"

#include "strata/jit.h"

PYBIND11_MODULE(_core, m) {
  using namespace strata;
  m.doc() = "Strata's C++ core (arrays, ops, transforms, jit); use the `strata` package on top.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const Error &e) {
      PyObject *type = PyExc_ValueError;
      switch (e.kind()) {
      case ErrorKind::Type: type = PyExc_TypeError; break;
      case ErrorKind::Index: type = PyExc_IndexError; break;
      case ErrorKind::Internal: type = PyExc_RuntimeError; break;
      case ErrorKind::Value: break;
      }
      PyErr_SetString(type, e.what());
    }
  });
  python::init_array(m);
  python::init_numpy(m);
  python::init_nn(m);
  python::init_random(m);
  python::init_lax(m);
  python::init_transforms(m);
  python::init_jit(m);
  python::init_dlpack(m);
  // Executables in the jit cache may hold Python objects (output structures); drop them while
  // the interpreter is still alive.
  py::module_::import("atexit").attr("register")(py::cpp_function([] { clear_jit_cache(); }));
}
