// Shared pieces of the Python bindings: dtype and value conversion, Python callables as FlatFns,
// and the per-module init functions that module.cpp calls.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "strata/strata.h"
#include "strata/transforms.h"

namespace py = pybind11;

namespace strata::python {

/// The numpy dtype object for `t` (bfloat16: ml_dtypes' dtype when importable, else the
/// `strata.bfloat16` stand-in registered by the package).
py::object numpy_dtype(DType t);
/// Parses a dtype-like: np.dtype, numpy scalar type, Python type (float and int -> the default
/// float and int, f32/i32 or f64/i64 in 64-bit mode), a name ("float32", "f32", "bfloat16") or
/// the bfloat16 stand-in. An explicit 64-bit request with 64-bit mode off gives the 32-bit type
/// and a UserWarning, as in JAX, unless `canonicalize` is false.
DType dtype_from_py(py::handle obj, bool canonicalize = true);
/// Registers the object that stands for bfloat16 (strata/_dtypes.py).
void set_bfloat16_object(py::object obj);

/// A value as an Array: Arrays pass through; Python scalars become weakly typed (a float is
/// stored in `like`'s float type when `like` is floating, as in `f64_array * 0.1`; an int
/// outside the default int's range is an OverflowError); numpy arrays and scalars are copied
/// with their dtype, canonicalized (f64 -> f32, i64 -> i32, u64 -> u32 with 64-bit mode off);
/// lists and tuples go through numpy with JAX's default types unless they hold Arrays, which
/// are stacked.
Array to_array(py::handle obj, const Array *like = nullptr);
/// to_array with an optional dtype conversion (numpy's asarray).
Array asarray(py::handle obj, std::optional<DType> dtype);
/// Two operands of a binary op, each scalar typed after the other one.
std::pair<Array, Array> to_arrays(py::handle x, py::handle y);
/// Python None, an int or a sequence of ints as Axes.
Axes to_axes(py::handle obj);
/// A Python sequence of ints as a Shape (a single int is a 1-d shape).
Shape to_shape(py::handle obj);
std::optional<DType> optional_dtype(py::handle obj);
/// An integer-like (int, numpy integer, concrete integer Array) as int64 (operator.index).
inline int64_t index_of(py::handle h) {
  auto o = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!o)
    throw py::error_already_set();
  return o.cast<int64_t>();
}

/// A Python object that may be released from C++ code without the GIL held, or after the
/// interpreter is gone (a cached executable outliving the interpreter keeps it: then it leaks).
std::shared_ptr<py::object> hold(py::object obj);
/// f(list of Arrays) -> sequence of array-likes, as a FlatFn. Python exceptions propagate as
/// pybind11::error_already_set through the C++ frames (trace levels unwind by RAII).
FlatFn flat_fn(py::object f);
/// The same for two-list functions (custom_jvp rules, custom_vjp bwd).
std::function<std::vector<Array>(const std::vector<Array> &, const std::vector<Array> &)>
flat_fn2(py::object f);
std::vector<Array> to_array_list(py::handle seq);

void init_array(py::module_ &m);
void init_numpy(py::module_ &m);
void init_nn(py::module_ &m);
void init_random(py::module_ &m);
void init_lax(py::module_ &m);
void init_callback(py::module_ &m);
// complex family: lax.complex, real, imag, conj (after init_lax).
void init_complex(py::module_ &m);
// fft family: lax.fft (after init_lax).
void init_fft(py::module_ &m);
// convolution (python/src/conv.cpp): binds into the lax submodule init_lax made.
void init_conv(py::module_ &m);
/// Binds NS::NAME(x) as M.NAME(x) (one array argument, converted from any array-like).
#define STRATA_PY_UNARY_OF(M, NS, NAME)                                                            \
  M.def(#NAME, [](py::handle x) { return NS::NAME(to_array(x)); }, py::arg("x"))
/// Binds NS::NAME(a, b) as M.NAME(A, B), promoting Python scalars as weak types.
#define STRATA_PY_BINARY_OF(M, NS, NAME, A, B)                                                     \
  M.def(                                                                                           \
      #NAME,                                                                                       \
      [](py::handle x, py::handle y) {                                                             \
        auto [a, b] = to_arrays(x, y);                                                             \
        return NS::NAME(a, b);                                                                     \
      },                                                                                           \
      py::arg(A), py::arg(B))

void init_transforms(py::module_ &m);
void init_control_flow(py::module_ &m);
void init_jit(py::module_ &m);
void init_dlpack(py::module_ &m);
/// Windowed reductions (python/src/window.cpp), bound into strata._core.lax after init_lax.
void init_window(py::module_ &m);

} // namespace strata::python
