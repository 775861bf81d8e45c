// Bindings of strata::Array (shape, dtype, operators, indexing, numpy interop) and the value
// conversions every other binding file uses.
#include "common.h"

#include <cstring>

#include "strata/sizes.h"

namespace strata::python {
namespace {

py::module_ &numpy_module() {
  static auto *np = new py::module_(py::module_::import("numpy")); // leaked: lives to exit
  return *np;
}
py::object *g_bfloat16 = nullptr;

Array from_numpy(py::handle obj) {
  // asarray first: ascontiguousarray would turn a 0-d value into shape (1,).
  py::array a = numpy_module().attr("asarray")(obj);
  if (!(a.flags() & py::array::c_style))
    a = numpy_module().attr("ascontiguousarray")(a);
  DType t = dtype_from_py(a.dtype(), /*canonicalize=*/false);
  // JAX's input boundary: with 64-bit mode off, 64-bit numpy data become 32-bit (silently).
  DType c = canonicalize_dtype(t);
  if (c != t) {
    a = a.attr("astype")(numpy_dtype(c));
    t = c;
  }
  Shape shape(a.shape(), a.shape() + a.ndim());
  return Array::from_data(a.data(), shape, t);
}

// Whether Python int `value` lies in integer dtype t's range.
bool int_fits(py::handle value, DType t) {
  py::object info = numpy_module().attr("iinfo")(numpy_dtype(t));
  auto cmp = [&](const char *bound, int op) {
    int r = PyObject_RichCompareBool(value.ptr(), info.attr(bound).ptr(), op);
    if (r < 0)
      throw py::error_already_set();
    return r == 1;
  };
  return cmp("min", Py_GE) && cmp("max", Py_LE);
}

// JAX's error for a Python int that does not fit the integer dtype it is converted to.
void check_int_fits(py::handle value, DType t) {
  if (!int_fits(value, t))
    throw std::overflow_error("Python int " + std::string(py::str(value)) +
                              " too large to convert to " + std::string(dtype_name(t)));
}

// A Python int as a rank-0 array of integer dtype t (checked against t's range).
Array int_scalar(py::handle value, DType t, bool weak) {
  check_int_fits(value, t);
  // Stored bytes directly (no convert op, so the value stays concrete under a trace); the
  // value fits, so the low bytes of its two's complement are the element.
  uint64_t bits = t == DType::UInt64 ? static_cast<uint64_t>(PyLong_AsUnsignedLongLong(value.ptr()))
                                     : static_cast<uint64_t>(PyLong_AsLongLong(value.ptr()));
  if (PyErr_Occurred())
    throw py::error_already_set();
  uint8_t bytes[8];
  for (size_t i = 0; i < 8; ++i) // little-endian hosts only, as the rest of Strata
    bytes[i] = static_cast<uint8_t>(bits >> (8 * i));
  return Array::from_data(bytes, {}, t).with_weak_type(weak);
}

// numpy's NPY_MAXDIMS: the deepest nesting of lists it converts, and so Strata's too.
constexpr int kMaxListDepth = 32;

// Whether a (nested) list or tuple holds an Array. Lists deeper than numpy converts (a list
// that holds itself among them) raise numpy's ValueError before the walk can exhaust the C
// stack.
bool contains_array(py::handle obj, int depth = 0) {
  if (py::isinstance<Array>(obj))
    return true;
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    if (depth >= kMaxListDepth)
      throw py::value_error("setting an array element with a sequence. The requested array "
                            "would exceed the maximum number of dimension of " +
                            std::to_string(kMaxListDepth) + ".");
    for (py::handle h : obj)
      if (contains_array(h, depth + 1))
        return true;
  }
  return false;
}

// Whether a (nested) list or tuple holds only Python bools, ints and floats (called on lists
// numpy converted, so no deeper than kMaxListDepth).
bool python_numbers_only(py::handle obj, int depth = 0) {
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    if (depth >= kMaxListDepth)
      return false;
    for (py::handle h : obj)
      if (!python_numbers_only(h, depth + 1))
        return false;
    return true;
  }
  PyObject *p = obj.ptr();
  return PyBool_Check(p) || PyLong_CheckExact(p) || PyFloat_CheckExact(p) ||
         PyComplex_CheckExact(p);
}

std::string type_name(py::handle obj) { return py::str(py::type::of(obj).attr("__name__")); }

// The message for a traced value used where Python needs a concrete one.
[[noreturn]] void concretization_error(const Array &x, const std::string &what) {
  std::string detail;
  try {
    (void)x.data();
  } catch (const Error &e) {
    detail = e.what();
  }
  throw py::type_error("ConcretizationTypeError: a traced value was used as a Python " + what +
                       " (" + detail +
                       "). Under jit or a transform use strata.numpy.where or "
                       "strata.lax.select instead of Python control flow, or mark the argument "
                       "static with jit's static_argnums/static_argnames.");
}
void require_concrete(const Array &x, const std::string &what) {
  if (!x.is_concrete())
    concretization_error(x, what);
}

py::tuple shape_tuple(const Shape &s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    t[i] = py::int_(s[i]);
  return t;
}

// Integer arrays (one per mask dimension) holding the coordinates of a concrete mask's true
// entries: numpy's x[mask] == x[mask.nonzero()].
std::vector<Index> mask_indices(const Array &mask) {
  if (!mask.is_concrete())
    throw py::index_error("[index] boolean mask indexing needs a concrete mask (its result "
                          "shape depends on the values), so it is not available under jit or "
                          "vmap; use strata.numpy.where(mask, x, 0) instead");
  const auto *m = static_cast<const uint8_t *>(mask.data());
  const Shape &shape = mask.shape();
  std::vector<std::vector<int64_t>> coords(shape.size());
  int64_t n = mask.size();
  for (int64_t flat = 0; flat < n; ++flat) {
    if (!m[flat])
      continue;
    int64_t rest = flat;
    for (size_t d = shape.size(); d-- > 0;) {
      coords[d].push_back(rest % shape[d]);
      rest /= shape[d];
    }
  }
  std::vector<Index> out;
  for (auto &c : coords)
    out.emplace_back(Array::from_vector(c));
  return out;
}

void append_index(std::vector<Index> &out, py::handle k) {
  if (py::isinstance<Array>(k) || py::isinstance<py::array>(k) || py::isinstance<py::list>(k)) {
    Array a = to_array(k);
    if (a.dtype() == DType::Bool) {
      for (Index &i : mask_indices(a))
        out.push_back(std::move(i));
      return;
    }
    if (!is_integer(a.dtype()))
      throw py::index_error("[index] index arrays must be integers or booleans, got " +
                            a.type_str());
    out.emplace_back(a);
  } else if (PyBool_Check(k.ptr())) {
    throw py::index_error("[index] a Python bool is not a valid index");
  } else if (PyIndex_Check(k.ptr())) {
    out.emplace_back(index_of(k));
  } else if (py::isinstance<py::slice>(k)) {
    auto opt = [&](const char *name) -> std::optional<int64_t> {
      py::object v = k.attr(name);
      if (v.is_none())
        return std::nullopt;
      return index_of(v);
    };
    std::optional<int64_t> step = opt("step");
    if (step && *step == 0)
      throw py::value_error("[index] slice step cannot be zero");
    out.emplace_back(Slice(opt("start"), opt("stop"), step.value_or(1)));
  } else if (k.is_none()) {
    out.emplace_back(NewAxis);
  } else if (k.ptr() == Py_Ellipsis) {
    out.emplace_back(Ellipsis);
  } else {
    throw py::index_error("[index] unsupported index of type " + type_name(k) +
                          " (use integers, slices, None, ..., integer or boolean arrays)");
  }
}

std::vector<Index> to_indices(py::handle key) {
  std::vector<Index> out;
  if (py::isinstance<py::tuple>(key))
    for (py::handle k : key)
      append_index(out, k);
  else
    append_index(out, key);
  return out;
}

py::object item_of(const Array &x) {
  require_concrete(x, "scalar (item)");
  if (x.size() != 1)
    throw py::value_error("[item] only size-1 arrays convert to Python scalars, got " +
                          x.type_str());
  if (x.dtype() == DType::Bool)
    return py::bool_(x.item<bool>());
  if (x.dtype() == DType::UInt64) // the int64 bits, read back as unsigned
    return py::int_(static_cast<uint64_t>(x.item<int64_t>()));
  if (is_integer(x.dtype()))
    return py::int_(x.item<int64_t>());
  if (is_complex(x.dtype())) {
    std::complex<double> c = x.item<std::complex<double>>();
    return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(c.real(), c.imag()));
  }
  return py::float_(x.item<double>());
}

using Binary = Array (*)(const Array &, const Array &);
template <Binary F> Array forward(const Array &x, py::handle y) {
  Array b = to_array(y, &x);
  return F(x, b);
}
template <Binary F> Array reflected(const Array &x, py::handle y) {
  Array a = to_array(y, &x);
  return F(a, x);
}

} // namespace

void set_bfloat16_object(py::object obj) { g_bfloat16 = new py::object(std::move(obj)); }

py::object numpy_dtype(DType t) {
  static py::object *table[kNumDTypes] = {};
  if (t == DType::BFloat16 && g_bfloat16)
    return *g_bfloat16;
  auto &slot = table[static_cast<int>(t)];
  if (!slot) {
    if (t == DType::BFloat16)
      return py::str("bfloat16");
    slot = new py::object(numpy_module().attr("dtype")(std::string(dtype_name(t))));
  }
  return *slot;
}

namespace {
// JAX's treatment of an explicitly requested 64-bit dtype with 64-bit mode off: a UserWarning,
// then the 32-bit type.
DType canonicalize_requested(DType t) {
  DType c = canonicalize_dtype(t);
  if (c != t) {
    std::string msg = "Explicitly requested dtype " + std::string(dtype_name(t)) +
                      " is not available, and will be truncated to dtype " +
                      std::string(dtype_name(c)) +
                      ". To enable more dtypes, set the jax_enable_x64 configuration option "
                      "(strata.config.update(\"jax_enable_x64\", True)) or the "
                      "JAX_ENABLE_X64 shell environment variable.";
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 2) < 0)
      throw py::error_already_set();
  }
  return c;
}

DType parse_dtype(py::handle obj) {
  if (g_bfloat16 && obj.is(*g_bfloat16))
    return DType::BFloat16;
  if (obj.ptr() == reinterpret_cast<PyObject *>(&PyFloat_Type))
    return default_float_dtype();
  if (obj.ptr() == reinterpret_cast<PyObject *>(&PyLong_Type))
    return default_int_dtype();
  if (obj.ptr() == reinterpret_cast<PyObject *>(&PyBool_Type))
    return DType::Bool;
  if (obj.ptr() == reinterpret_cast<PyObject *>(&PyComplex_Type))
    return default_complex_dtype();
  std::string name;
  if (py::isinstance<py::str>(obj)) {
    name = obj.cast<std::string>();
    try {
      return dtype_from_name(name);
    } catch (const Error &) {
    }
  }
  try {
    name = py::str(numpy_module().attr("dtype")(obj).attr("name"));
  } catch (const py::error_already_set &) {
    throw py::type_error("[dtype] cannot interpret " + std::string(py::repr(obj)) +
                         " as a data type");
  }
  try {
    return dtype_from_name(name);
  } catch (const Error &) {
    throw py::type_error("[dtype] strata has no dtype " + name +
                         " (it has bool, int8, int16, int32, int64, uint8, uint16, uint32, "
                         "uint64, float16, bfloat16, float32, float64, complex64, complex128)");
  }
}
} // namespace

DType dtype_from_py(py::handle obj, bool canonicalize) {
  DType t = parse_dtype(obj);
  return canonicalize ? canonicalize_requested(t) : t;
}

std::optional<DType> optional_dtype(py::handle obj) {
  if (obj.is_none())
    return std::nullopt;
  return dtype_from_py(obj);
}

Array to_array(py::handle obj, const Array *like) {
  if (py::isinstance<Array>(obj))
    return obj.cast<const Array &>();
  PyObject *p = obj.ptr();
  if (PyBool_Check(p))
    return Array(p == Py_True);
  if (PyLong_Check(p)) // weak, of the default int type (as JAX: OverflowError past its range)
    return int_scalar(obj, default_int_dtype(), /*weak=*/true);
  // np.float64 subclasses Python's float, but it is a typed (not weak) float64 scalar.
  if (PyFloat_CheckExact(p)) {
    double v = PyFloat_AS_DOUBLE(p);
    if (like && is_floating(like->dtype()))
      return Array::weak_scalar(v, like->dtype());
    if (like && is_complex(like->dtype())) // stored in the complex type: no f32 rounding
      return Array::weak_scalar_complex(v, like->dtype());
    return Array::weak_scalar(v);
  }
  // A Python complex is a weak complex of the default complex type (np.complex128 subclasses
  // Python's complex, but it is a typed scalar and goes through numpy below).
  if (PyComplex_CheckExact(p)) {
    std::complex<double> v(PyComplex_RealAsDouble(p), PyComplex_ImagAsDouble(p));
    if (like && is_complex(like->dtype()))
      return Array::weak_scalar_complex(v, like->dtype());
    if (like && like->dtype() == DType::Float64) // f64 + 1j is c128: keep the digits
      return Array::weak_scalar_complex(v, DType::Complex128);
    return Array::weak_scalar_complex(v);
  }
  py::module_ &np = numpy_module();
  if (py::isinstance<py::array>(obj) || py::isinstance(obj, np.attr("generic")))
    return from_numpy(obj);
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    if (contains_array(obj)) {
      std::vector<Array> parts;
      for (py::handle h : obj)
        parts.push_back(to_array(h));
      return stack(parts);
    }
    py::array a = np.attr("asarray")(obj);
    std::string kind = py::str(a.dtype().attr("kind"));
    // Python numbers in lists get JAX's default types, as jnp.asarray gives; lists holding
    // numpy scalars keep numpy's dtype (canonicalized below).
    if (python_numbers_only(obj)) {
      if (kind == "f") {
        a = a.attr("astype")(numpy_dtype(default_float_dtype()));
      } else if (kind == "c") {
        a = a.attr("astype")(numpy_dtype(default_complex_dtype()));
      } else if (kind == "i" || kind == "u" || kind == "O") { // O: ints past 64 bits
        DType t = default_int_dtype();
        if (a.size() > 0)
          for (const char *end : {"min", "max"})
            check_int_fits(a.attr(end)(), t);
        a = a.attr("astype")(numpy_dtype(t));
      }
    }
    return from_numpy(a);
  }
  if (py::hasattr(obj, "__array__"))
    return from_numpy(np.attr("asarray")(obj));
  throw py::type_error("[asarray] cannot convert a value of type " + type_name(obj) +
                       " to a strata Array");
}

Array asarray(py::handle obj, std::optional<DType> dtype) {
  // A Python int converts straight to an integer dtype (jnp.int8(300) is an OverflowError).
  if (dtype && is_integer(*dtype) && PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr()))
    return int_scalar(obj, *dtype, /*weak=*/false);
  Array a = to_array(obj);
  if (dtype && (a.dtype() != *dtype || a.weak_type()))
    return astype(a, *dtype);
  return a;
}

std::pair<Array, Array> to_arrays(py::handle x, py::handle y) {
  if (py::isinstance<Array>(x)) {
    const Array &a = x.cast<const Array &>();
    return {a, to_array(y, &a)};
  }
  if (py::isinstance<Array>(y)) {
    const Array &b = y.cast<const Array &>();
    return {to_array(x, &b), b};
  }
  Array a = to_array(x);
  return {a, to_array(y, &a)};
}

Axes to_axes(py::handle obj) {
  if (obj.is_none())
    return Axes();
  if (PyIndex_Check(obj.ptr()))
    return Axes(static_cast<int>(index_of(obj)));
  std::vector<int> v;
  for (py::handle h : obj)
    v.push_back(static_cast<int>(index_of(h)));
  return Axes(std::move(v));
}

namespace {
// One dimension of a shape; numpy's ValueError past int64 (a Python int has no bound).
int64_t dimension_of(py::handle h) {
  auto o = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!o)
    throw py::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (overflow)
    throw py::value_error("[shape] dimension " + std::string(py::str(o)) +
                          " exceeds the largest int64 (Maximum allowed dimension exceeded)");
  if (v == -1 && PyErr_Occurred())
    throw py::error_already_set();
  return v;
}
} // namespace

Shape to_shape(py::handle obj) {
  if (PyIndex_Check(obj.ptr()))
    return Shape{dimension_of(obj)};
  Shape s;
  for (py::handle h : obj)
    s.push_back(dimension_of(h));
  return s;
}

std::vector<Array> to_array_list(py::handle seq) {
  std::vector<Array> out;
  for (py::handle h : seq)
    out.push_back(to_array(h));
  return out;
}

void init_array(py::module_ &m) {
  m.def("_set_bfloat16", &set_bfloat16_object, "Registers the object that stands for bfloat16.");
  m.def("_set_enable_x64", &set_enable_x64, py::arg("enabled"),
        "Turns 64-bit mode on or off (strata.config's jax_enable_x64 hook).");
  m.def("_x64_enabled", &x64_enabled, "Whether 64-bit mode is on.");
  m.def(
      "_check_result_size",
      [](const std::string &op, const Shape &shape, py::handle dtype) {
        check_result_size(op, dtype_from_py(dtype, false), shape);
      },
      py::arg("op"), py::arg("shape"), py::arg("dtype"),
      "MemoryError when an eager result of dtype[shape] is too large to allocate (nothing under "
      "jit or eval_shape, where shapes are abstract).");
  m.def(
      "canonicalize_dtype",
      [](py::handle dtype) { return numpy_dtype(canonicalize_dtype(dtype_from_py(dtype, false))); },
      py::arg("dtype"),
      "JAX's dtypes.canonicalize_dtype: the 32-bit type of a 64-bit one unless 64-bit mode is on.");
  py::class_<Array> cls(m, "Array",
                        "An immutable n-dimensional strata array (or a traced "
                        "value inside a transform).");
  cls.def_property_readonly("shape", [](const Array &x) { return shape_tuple(x.shape()); })
      .def_property_readonly("dtype", [](const Array &x) { return numpy_dtype(x.dtype()); })
      .def_property_readonly("ndim", &Array::ndim)
      .def_property_readonly("size", [](const Array &x) { return x.size(); })
      .def_property_readonly("nbytes", &Array::nbytes)
      .def_property_readonly("itemsize",
                             [](const Array &x) { return static_cast<int>(itemsize(x.dtype())); })
      .def_property_readonly("weak_type", &Array::weak_type,
                             "True for values from Python scalars (they take the other "
                             "operand's type in arithmetic).")
      .def_property_readonly("T", &Array::T)
      .def_property_readonly("device", [](const Array &x) { return x.device().to_string(); })
      .def_property_readonly("is_concrete", &Array::is_concrete,
                             "False for a traced value inside jit or a transform.")
      .def("type_str", &Array::type_str, "'f32[2,3]'")
      .def(
          "astype",
          [](const Array &x, py::handle dtype) { return astype(x, dtype_from_py(dtype)); },
          py::arg("dtype"))
      .def(
          "reshape",
          [](const Array &x, py::args shape) {
            if (shape.size() == 1 && !PyIndex_Check(shape[0].ptr()))
              return reshape(x, to_shape(shape[0]));
            return reshape(x, to_shape(shape));
          },
          "x.reshape(2, 3) or x.reshape((2, 3)); one dimension may be -1.")
      .def("item", &item_of, "The value of a size-1 array as a Python scalar.")
      .def("__getitem__", [](const Array &x, py::handle key) { return index(x, to_indices(key)); })
      .def("__len__",
           [](const Array &x) {
             if (x.ndim() == 0)
               throw py::type_error("len() of a 0-d array");
             return x.shape()[0];
           })
      .def("__bool__",
           [](const Array &x) {
             require_concrete(x, "bool");
             if (x.size() != 1)
               throw py::value_error("[bool] the truth value of an array with more than one "
                                     "element is ambiguous; use .any() or .all()");
             return x.item<bool>();
           })
      .def("__int__",
           [](const Array &x) {
             require_concrete(x, "int");
             if (is_complex(x.dtype()))
               throw py::type_error("int() argument must be a real number, not complex (" +
                                    x.type_str() + ")");
             return item_of(x).attr("__int__")();
           })
      .def("__float__",
           [](const Array &x) {
             require_concrete(x, "float");
             if (is_complex(x.dtype())) // as numpy's 0-d arrays
               throw py::type_error("float() argument must be a real number, not complex (" +
                                    x.type_str() + ")");
             return item_of(x).attr("__float__")();
           })
      .def("__complex__",
           [](const Array &x) {
             require_concrete(x, "complex");
             if (x.size() != 1)
               throw py::type_error("[complex] only size-1 arrays convert to Python scalars, got " +
                                    x.type_str());
             std::complex<double> c = x.item<std::complex<double>>();
             return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(c.real(), c.imag()));
           })
      .def("__index__",
           [](const Array &x) {
             require_concrete(x, "index");
             if (!is_integer(x.dtype()) || x.size() != 1)
               throw py::type_error("[index] only integer scalar arrays can be an index, got " +
                                    x.type_str());
             return x.item<int64_t>();
           })
      .def_property_readonly("__array_interface__",
                             [](const Array &x) {
                               // Zero-copy view for numpy; the dict-less cases fall back to
                               // __array__. Device arrays copy through __array__ (their data is not
                               // host memory).
                               if (!x.is_concrete() || x.dtype() == DType::BFloat16 ||
                                   x.size() == 0 || x.device().kind != Device::Kind::CPU)
                                 throw py::attribute_error("__array_interface__");
                               py::dict d;
                               d["shape"] = shape_tuple(x.shape());
                               d["typestr"] = numpy_dtype(x.dtype()).attr("str");
                               d["data"] =
                                   py::make_tuple(reinterpret_cast<uintptr_t>(x.data()), true);
                               d["version"] = 3;
                               return d;
                             })
      .def(
          "__array__",
          [](const Array &x, py::object dtype, py::object) {
            require_concrete(x, "numpy array");
            Array y = x.dtype() == DType::BFloat16 ? astype(x, DType::Float32) : x;
            py::array out(py::dtype::from_args(numpy_dtype(y.dtype())),
                          std::vector<py::ssize_t>(y.shape().begin(), y.shape().end()));
            y.copy_to(out.mutable_data());
            if (!dtype.is_none())
              return py::array(out.attr("astype")(dtype));
            return out;
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__neg__", [](const Array &x) { return negative(x); })
      .def("__pos__", [](const Array &x) { return x; })
      .def("__abs__", [](const Array &x) { return strata::abs(x); })
      .def("__invert__", [](const Array &x) { return bitwise_not(x); })
      .def("__add__", &forward<add>)
      .def("__radd__", &reflected<add>)
      .def("__sub__", &forward<subtract>)
      .def("__rsub__", &reflected<subtract>)
      .def("__mul__", &forward<multiply>)
      .def("__rmul__", &reflected<multiply>)
      .def("__truediv__", &forward<divide>)
      .def("__rtruediv__", &reflected<divide>)
      .def("__floordiv__", &forward<floor_divide>)
      .def("__rfloordiv__", &reflected<floor_divide>)
      .def("__mod__", &forward<remainder>)
      .def("__rmod__", &reflected<remainder>)
      .def("__pow__", &forward<power>)
      .def("__rpow__", &reflected<power>)
      .def("__matmul__", &forward<matmul>)
      .def("__rmatmul__", &reflected<matmul>)
      .def("__and__", &forward<bitwise_and>)
      .def("__rand__", &reflected<bitwise_and>)
      .def("__or__", &forward<bitwise_or>)
      .def("__ror__", &reflected<bitwise_or>)
      .def("__xor__", &forward<bitwise_xor>)
      .def("__rxor__", &reflected<bitwise_xor>)
      .def("__eq__", &forward<equal>)
      .def("__ne__", &forward<not_equal>)
      .def("__lt__", &forward<less>)
      .def("__le__", &forward<less_equal>)
      .def("__gt__", &forward<greater>)
      .def("__ge__", &forward<greater_equal>);
  cls.attr("__hash__") = py::none();    // arrays compare elementwise, as numpy's and JAX's
  cls.attr("__array_priority__") = 100; // ndarray <op> Array defers to Array's reflected op

  m.def(
      "asarray", [](py::handle x, py::handle dtype) { return asarray(x, optional_dtype(dtype)); },
      py::arg("a"), py::arg("dtype") = py::none(),
      "Converts an Array, numpy array, Python scalar or (nested) list to an Array; numpy data "
      "is copied.");
  m.def("memory_stats", [] {
    MemoryStats s = memory_stats();
    py::dict d;
    d["live_bytes"] = s.live_bytes;
    d["peak_bytes"] = s.peak_bytes;
    d["live_buffers"] = s.live_buffers;
    d["total_allocations"] = s.total_allocations;
    return d;
  });
}

} // namespace strata::python
